"""How much of a bitmap level's rank space its positions touch, in 4 KiB pages.

    python cluster/touched_pages.py RUN LEVEL

A bitmap pass costs the memory of the pages its children touch (kernel.bitmap.BitmapTables), so
this says how many passes a level needs at a given `--memory`. Read from the committed level's
row-group bounds alone (each part's footer holds its groups' least and greatest position, and parts
are in rank order), so a level of 17 G positions is measured in a minute: a group's positions are
taken as spread evenly over its ranks, and a page as touched with the chance a uniform spread gives.
"""

from __future__ import annotations

import sys

import numpy as np
import pyarrow.parquet as pq

from pegsearch.engines.local import level_classes
from pegsearch.kernel.ranks import level_ranks, rank_all
from pegsearch.store import Run

PAGE_BITS = 32768


def main() -> None:
    run, level = Run.open(sys.argv[1]), int(sys.argv[2])
    basis, home = level_classes(run)
    ranks = level_ranks(run.board.holes, basis, run.pegs_at(level), home)
    least, most, rows = [], [], []
    for path in run.part_paths(level):
        footer = pq.ParquetFile(path).metadata
        for group in range(footer.num_row_groups):
            bounds = footer.row_group(group).column(0).statistics
            least.append(bounds.min)
            most.append(bounds.max)
            rows.append(footer.row_group(group).num_rows)
    low = np.array(least, dtype=np.int64).view(np.uint64).copy()
    high = np.array(most, dtype=np.int64).view(np.uint64).copy()
    rank_all(low, len(low), ranks.args)
    rank_all(high, len(high), ranks.args)
    held = np.array(rows, dtype=np.float64)
    span = (high - low + 1).astype(np.float64)
    touched = np.maximum(span / PAGE_BITS * (1 - np.exp(-held / span * PAGE_BITS)), 1.0)
    pages = -(-ranks.count // PAGE_BITS)
    print(f"level {level}: {int(held.sum()):,} positions over {ranks.count:,} ranks"
          f" ({ranks.count / 8 / 2**30:.2f} GiB of bitmap); ranks between a row group's bounds"
          f" {span.sum() / ranks.count:.1%}; pages touched {touched.sum() / pages:.1%}"
          f" ({touched.sum() * 4096 / 2**30:.2f} GiB)")


if __name__ == "__main__":
    main()

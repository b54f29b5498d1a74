"""Where one level's time goes on the local engine: CPU nanoseconds per child for each phase.

    python cluster/level_profile.py RUN LEVEL [--repeat N]

Makes level LEVEL + 1 of a stored run again from level LEVEL, in memory, with the local engine's
own steps and sizes, and times each: the map (`expand_routed`: children made, coded and routed to
their partitions), the inserts (`HashTables.add`) and the drain (`HashTables.drain`: gather and radix
sort). CPU seconds are this process's, summed over its threads, so the figures are per child of
one core's time whatever the load; the first repetition includes loading the compiled kernels.
Nothing is written.
"""

from __future__ import annotations

import argparse
import time
from itertools import pairwise

import numpy as np

from pegsearch.engines.local import level_layout
from pegsearch.kernel.expand import Scratch, expand_routed
from pegsearch.kernel.threads import WORKERS
from pegsearch.store import NO_PATHS, Run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a complete run directory or URI")
    parser.add_argument("level", type=int, help="the parent level")
    parser.add_argument("--repeat", type=int, default=4)
    options = parser.parse_args()
    run = Run.open(options.run)
    tables = run.tables()
    parents = run.read_level(options.level)
    expected = run.levels[options.level + 1]["states"]
    layout = level_layout(expected, WORKERS, tables.holes)
    space, width, sbits = layout.space, layout.space.partitions, layout.sbits
    scratch = Scratch()
    print(f"{run.board.name} level {options.level} -> {options.level + 1}: {len(parents):,} parents,"
          f" {width} partitions of {1 << sbits} slots, {np.dtype(space.dtype).name} codes")
    for _ in range(options.repeat):
        marks = [time.process_time()]
        codes, paths, bounds = expand_routed(tables, parents, NO_PATHS, space, 0, width, scratch)
        marks.append(time.process_time())
        hashes = layout.tables(False)
        hashes.add(codes, paths, bounds)
        marks.append(time.process_time())
        distinct = sum(len(hashes.drain(g, min(width, g + 256))[0]) for g in range(0, width, 256))
        marks.append(time.process_time())
        children = len(codes)
        map_ns, insert_ns, drain_ns = (1e9 * (b - a) / children for a, b in pairwise(marks))
        print(f"{children:,} children, {distinct:,} distinct | CPU ns a child: map {map_ns:.1f},"
              f" inserts {insert_ns:.1f}, drain {drain_ns:.1f}")


if __name__ == "__main__":
    main()

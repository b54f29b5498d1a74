"""What a bitmap level's range blocks would shuffle, from a real run, without a cluster.

    python bench/range_blocks.py RUN LEVEL MAP-TASKS RANGE [RANGE ...]

Cuts level LEVEL of RUN (sorted, as Spark's parts of a bitmap level are: contiguous rank ranges)
into MAP-TASKS equal parts, expands each part into rank range RANGE of the next level's 16 with the
shared kernel, as a Spark map task does, and prints for each range: the positions it holds, how
many map tasks sent each (their overlap), and the bytes a position and a set bit its blocks take
at zstd's levels 1 and 3 (the engine's), with the time to compress. cluster/spark.md quotes it
for triangle-9's level 13 (`python bench/range_blocks.py RUN 12 8 3 8`).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pyarrow as pa

from pegsearch.engines.reduce_choice import choose_reduce
from pegsearch.engines.spark.ranges import Ranges
from pegsearch.kernel.bitmap import BitmapTables
from pegsearch.kernel.expand import expand_into_bits
from pegsearch.kernel.gaps import ones_bound, pack_ones
from pegsearch.kernel.threads import WORKERS
from pegsearch.store.run import Run

RANGES = 16


def main(where: str, level: int, tasks: int, chosen: list[int]) -> None:
    run = Run.open(where)
    tables = run.tables()
    ranks = choose_reduce(run, level, "bitmap").ranks
    ranges = Ranges.plan(ranks, RANGES, 1 << 62)
    parents = np.sort(run.read_level(level))
    cuts = np.linspace(0, len(parents), tasks + 1).astype(np.int64)
    for chosen_range in chosen:
        union, gaps, sent = None, [], 0
        for task in range(tasks):
            held = BitmapTables(ranges.space, *ranges.slices_of(chosen_range, chosen_range + 1),
                                ranks, WORKERS)
            expand_into_bits(tables, parents[cuts[task]:cuts[task + 1]], held)
            held.merge()
            union = held.bits.copy() if union is None else union | held.bits
            count = int(np.bitwise_count(held.bits).sum())
            if count:
                out = np.empty(ones_bound(len(held.bits), count), dtype=np.uint8)
                gaps.append(out[:pack_ones(held.bits, out)])
                sent += count
        made = int(np.bitwise_count(union).sum())
        print(f"level {level + 1}, range {chosen_range} of {RANGES}: {made:,} positions"
              f" ({made / (64 * len(union)):.2%} of its ranks); {len(gaps)} map tasks sent"
              f" {sent / max(1, made):.2f} set bits a position")
        for compression in (1, 3):
            codec = pa.Codec("zstd", compression_level=compression)
            started = time.perf_counter()
            size = sum(len(codec.compress(g, asbytes=True)) for g in gaps)
            seconds = time.perf_counter() - started
            print(f"  zstd {compression}: {size / max(1, made):.3f} bytes a position,"
                  f" {size / max(1, sent):.3f} a set bit, {seconds * 1e9 / max(1, sent):.1f} ns a"
                  f" set bit to compress")


if __name__ == "__main__":
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), [int(r) for r in sys.argv[4:]])

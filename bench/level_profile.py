"""Where one level's time goes on the local engine: CPU nanoseconds per child for each phase.

    python bench/level_profile.py RUN LEVEL [--repeat N] [--reduce auto|bitmap|tables]

Makes level LEVEL + 1 of a stored run again from level LEVEL, in memory, with the local engine's
own plan for it (a bitmap over ranks or hash tables, as `--reduce` and the level's density choose)
and times each phase: the map (`expand_routed`: children made, ranked or coded, and routed to their
partitions), the reduce (`add`: bits set or table inserts) and the drain (`drain`: a bitmap's ranks
unranked in order, or a table's gather and radix sort). A bitmap level is also made the way the
local engine makes one that fits a plane a core (`expand_into_bits`: the children's bits set by the
map itself, then the planes merged), timed in three: the planes zeroed (reused memory, as the
engine's), the kernel, the planes merged and their partitions counted. CPU seconds are this
process's, summed over its threads, so the figures are per child of one core's time whatever the
load; the first repetition includes loading the compiled kernels. Nothing is written.
"""

from __future__ import annotations

import argparse
import time
from itertools import pairwise

from pegsearch.engines.local import LocalEngine
from pegsearch.kernel.bitmap import BitmapTables
from pegsearch.kernel.expand import Scratch, expand_into_bits, expand_routed
from pegsearch.kernel.threads import WORKERS
from pegsearch.store import NO_VALUES, Carry, Run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a complete run directory or URI")
    parser.add_argument("level", type=int, help="the parent level")
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--reduce", default="auto", choices=("auto", "bitmap", "tables"))
    options = parser.parse_args()
    run = Run.open(options.run)
    tables = run.tables()
    parents = run.read_level(options.level)
    plan = LocalEngine(reduce=options.reduce).plan(run, options.level)
    width = plan.partitions
    scratch, planes = Scratch(), Scratch()  # reused as the engine reuses its scratch
    print(f"{run.board.name} level {options.level} -> {options.level + 1}: {len(parents):,} parents,"
          f" {width} partitions; {plan.note}")
    for _ in range(options.repeat):
        marks = [time.process_time()]
        codes, paths, bounds = expand_routed(tables, parents, NO_VALUES, Carry.NOTHING, plan.space, 0,
                                             width, scratch, plan.ranks)
        marks.append(time.process_time())
        reduced = plan.make(0, width, 1 << 62)
        reduced.add(codes, paths, bounds)
        marks.append(time.process_time())
        distinct = sum(len(reduced.drain(g, min(width, g + 256))[0]) for g in range(0, width, 256))
        marks.append(time.process_time())
        children = len(codes)
        map_ns, reduce_ns, drain_ns = (1e9 * (b - a) / children for a, b in pairwise(marks))
        line = (f"{children:,} children, {distinct:,} distinct | CPU ns a child: map {map_ns:.1f},"
                f" reduce {reduce_ns:.1f}, drain {drain_ns:.1f}")
        if plan.ranks is not None:
            marks = [time.process_time()]
            held = BitmapTables(plan.space, 0, width, plan.ranks, WORKERS, planes.take)
            marks.append(time.process_time())
            expand_into_bits(tables, parents, held)
            marks.append(time.process_time())
            held.merge()
            marks.append(time.process_time())
            zero_ns, kernel_ns, merge_ns = (1e9 * (b - a) / children for a, b in pairwise(marks))
            line += (f" | one step, a plane a core: planes zeroed {zero_ns:.1f}, the kernel (map"
                     f" and bits) {kernel_ns:.1f}, merged and counted {merge_ns:.1f}")
        print(line)


if __name__ == "__main__":
    main()

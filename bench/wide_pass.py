"""A wide bitmap pass, side by side: its children routed against one step into one shared bitmap.

    python bench/wide_pass.py RUN LEVEL [--every 60] [--rounds 3] [--memory 20G]
                              [--ways routed,shared,planes]

Routed: each child written to its partition's stretch, then its bit set; one step: each core sets
its children's bits itself. Makes level LEVEL + 1 of a stored run from a sample of level LEVEL's
parents (every EVERY-th chunk of a million, so the sample spans the level as a pass reads it) into
the whole next level's bitmap, each way in turn, ROUNDS times, and prints the CPU microseconds a
parent of each (this process's CPU time, summed over its threads) and their medians; every way must
make the same positions. `planes` (a plane a core) needs the bitmap's memory once a core. Nothing is
written.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from pegsearch.engines.local import FANOUT_SHARE, MAPPING_SHARE, ONE_STEP_CHUNK, LocalEngine, parse_size
from pegsearch.kernel.bitmap import BitmapTables
from pegsearch.kernel.expand import Scratch, expand_into_bits, expand_routed
from pegsearch.kernel.reduce import HashTables
from pegsearch.kernel.threads import WORKERS
from pegsearch.store import NO_VALUES, Carry, Run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("level", type=int, help="the parent level")
    parser.add_argument("--every", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory", default="20G", help="the bound the routed pass plans with")
    parser.add_argument("--ways", default="routed,shared")
    options = parser.parse_args()
    run, budget = Run.open(options.run), parse_size(options.memory)
    tables = run.tables()
    parents = np.concatenate([keys.copy() for k, (keys, _) in
                              enumerate(run.iter_level(options.level, 1 << 20, with_values=True))
                              if k % options.every == 0])
    plan = LocalEngine(memory=budget).plan(run, options.level)
    if plan.ranks is None:
        raise SystemExit(f"level {options.level + 1} of {options.run} is made in hash tables, not a bitmap")
    parts = plan.partitions
    mapping = budget // MAPPING_SHARE
    fanout = max(1, len(run.board.jumps) // FANOUT_SHARE)
    chunk = max(1 << 12, mapping // ((HashTables.slot_bytes(plan.space, Carry.NOTHING) + 2) * fanout))
    scratch, planes = Scratch(), Scratch()
    print(f"{run.board.name} level {options.level} -> {options.level + 1}: {len(parents):,} parents"
          f" sampled, a bitmap of {parts * plan.partition_bytes / 2**30:.2f} GiB in {parts}"
          f" partitions", flush=True)

    def routed() -> BitmapTables:
        held = plan.make(0, budget - mapping)
        for at in range(0, len(parents), chunk):
            held.add(*expand_routed(tables, parents[at:at + chunk], NO_VALUES, Carry.NOTHING,
                                    plan.space, held.lo, held.hi, scratch, plan.ranks))
        return held

    def one_step(held: BitmapTables) -> BitmapTables:
        for at in range(0, len(parents), ONE_STEP_CHUNK):
            expand_into_bits(tables, parents[at:at + ONE_STEP_CHUNK], held)
        held.merge()
        return held

    ways = {"routed": routed,
            "shared": lambda: one_step(BitmapTables(plan.space, 0, parts, plan.ranks, shared=True)),
            "planes": lambda: one_step(BitmapTables(plan.space, 0, parts, plan.ranks, WORKERS,
                                                    planes.take))}
    chosen = options.ways.split(",")
    seconds: dict[str, list[float]] = {way: [] for way in chosen}
    made: dict[str, int] = {}
    for _ in range(options.rounds):
        for way in chosen:
            began = time.process_time()
            held = ways[way]()
            seconds[way].append(time.process_time() - began)
            made[way] = int(held.filled.sum())
            print(f"{way:8} {1e6 * seconds[way][-1] / len(parents):.3f} CPU-µs a parent,"
                  f" {made[way]:,} positions, {held.width} of {parts} partitions", flush=True)
            del held
    print("medians:", ", ".join(f"{way} {1e6 * statistics.median(times) / len(parents):.3f}"
                                for way, times in seconds.items()), "CPU-µs a parent")
    if len(set(made.values())) != 1:
        raise SystemExit(f"the ways made different levels: {made}")


if __name__ == "__main__":
    main()

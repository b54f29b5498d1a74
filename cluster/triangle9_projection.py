"""The projection behind cluster/triangle-9.md: triangle-9's levels as class-split rank bitmaps on
Spark, per level: positions, bitmap bytes, map passes, CPU core-hours, stored bytes.

    python cluster/triangle9_projection.py [TASK-GiB ...]

Measured inputs (this repository's runs, docs/scale.md, "Triangle-9, in stages"): levels 12-16, and 0.36
CPU-µs a parent a pass on the local engine (Spark's map tasks at its rate: triangle-9's level 12
took 0.90-0.98 times the local engine's time on `local[2]`). Projected: a level k past 16
holds triangle-8's share at level k - 3 of the C(45, pegs) / 8 positions one class holds up to the
2 symmetries that keep it (triangle-9's measured levels 12-15 follow that curve within 10 %), and
stores (log2(1 / density) + 3.3) / 8 bytes a position, at most 0.6.
"""

from __future__ import annotations

import sys
from math import ceil, comb, log2

TRIANGLE_8 = [1, 1, 4, 27, 189, 1387, 9621, 59779, 324601, 1521312, 6109087, 20922581, 60889958,
              150114902, 312378438, 546248430, 799484744, 979415769, 1011785508, 895487101,
              692285663, 473991750, 288812322, 156462487, 75103702, 31780087, 11770296, 3782900,
              1044536, 243880, 47144, 7452, 912, 78, 8]
MEASURED = {12: (489_090_954, 1.06), 13: (1_851_894_835, 0.99), 14: (6_103_106_659, 0.91),
            15: (17_441_071_871, 0.84), 16: (43_089_577_677, 0.768)}
HOLES, LEVELS, CLASSES, KEEPING = 45, 43, 4, 2
PASS_US = 0.36  # CPU-µs a parent a pass, Spark as the local engine (level 12: 0.90-0.98 times)
BITMAP_SHARE = 0.75  # of a map task's memory (engines/spark/ranges.py)


def share_8(level: int) -> float:
    """Triangle-8's level `level` over the positions of its class up to 2 symmetries."""
    pegs = 35 - level
    return min(1.0, TRIANGLE_8[level] / (comb(36, pegs) / (CLASSES * KEEPING))) if level < 35 else 1.0


def positions(level: int) -> float:
    if level in MEASURED:
        return MEASURED[level][0]
    return share_8(level - 3) * comb(HOLES, HOLES - 1 - level) / (CLASSES * KEEPING)


def main(task_gib: float, table: bool) -> None:
    memory = task_gib * 2**30
    core_hours = stored = total = 0.0
    for level in range(13, LEVELS + 1):
        pegs = HOLES - 1 - level
        ranks = comb(HOLES, pegs) / CLASSES
        made, parents = positions(level), positions(level - 1)
        passes = ceil(ranks / 8 / (BITMAP_SHARE * memory))
        hours = parents * passes * PASS_US / 1e6 / 3600
        per = MEASURED[level][1] if level in MEASURED else min((log2(ranks / made) + 3.3) / 8, 0.6)
        core_hours, stored, total = core_hours + hours, stored + made * per, total + made
        if table:
            print(f"| {level} | {pegs} | {made / 1e9:,.1f} G | {ranks / 8e9:,.1f} GB | {passes}"
                  f" | {hours:,.0f} | {made * per / 1e9:,.1f} GB |")
    print(f"tasks of {task_gib:g} GiB: {total:.2e} positions, {core_hours:,.0f} core-hours,"
          f" {stored / 1e12:.2f} TB stored")


if __name__ == "__main__":
    sizes = [float(arg) for arg in sys.argv[1:]] or [32.0]
    for size in sizes:
        main(size, table=len(sizes) == 1)

"""The hot kernel timed on a small level, in the compile target this process was started with.

    NUMBA_CPU_NAME=haswell NUMBA_NUM_THREADS=1 python -m pegsearch.kernel.probe

prints "ready" once the kernel is compiled, then a JSON line for each line it reads: the CPU-ns a
child of the map that sets its children's bits itself (the one step that makes every bitmap
level, where nearly all of a large search's time goes).
`kernel.target` runs it once per compile target it considers, each in its own process (numba
compiles for one target a process), and keeps the fastest.

Why the one step alone: it is where targets differ (2.4 times between LLVM's znver4 and haswell
models on an AMD EPYC before the reference counts were taken out of its loop, see
kernel.ranks.rank_chunks), and it compiles in about 1.4 s; the routed map, within 10 % across
targets, takes 6 s to compile, which would put the tuning well past its 10 s.

The parents are real: English's first level from the centre with at least PARENTS positions,
found by playing every jump in numpy (no compiled code, so nothing of the measurement goes to
making them), without symmetry reduction, which the children's signatures then apply. The best of
ROUNDS is kept: the first includes loading or compiling the kernel.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from pegsearch.board.classes import class_of, invariants
from pegsearch.board.files import load_board
from pegsearch.kernel.bitmap import BitmapTables, rank_space
from pegsearch.kernel.expand import Scratch, expand_into_bits
from pegsearch.kernel.members import sorted_distinct
from pegsearch.kernel.ranks import level_ranks
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.threads import WORKERS

BOARD = "english-33"
PARENTS = 150_000
ROUNDS = 7


def level_and_children(tables: BoardTables, start: int) -> tuple[np.ndarray, int]:
    """The first level from `start` with at least PARENTS positions (raw: sorted, distinct, not
    reduced by symmetry), and how many children it has."""
    level = np.array([start], dtype=np.uint64)
    need, flip = tables.need.astype(np.uint64), tables.flip.astype(np.uint64)
    while True:
        children = [level[(level & f) == n] ^ f for n, f in zip(need, flip, strict=True)]
        if len(level) >= PARENTS:
            return level, sum(len(made) for made in children)
        level = sorted_distinct(np.concatenate(children))


class OneStep:
    """The one step on English's level, ready to time: made (and the kernel compiled or loaded)
    when constructed, so that timing it later measures the kernel alone."""

    def __init__(self) -> None:
        board = load_board(BOARD)
        start = board.start_position()
        self.tables = BoardTables.for_board(board, board.symmetries)
        self.level, self.children = level_and_children(self.tables, start)
        basis = invariants(board)
        self.ranks = level_ranks(board.holes, basis, int(np.bitwise_count(self.level[0])) - 1,
                                 class_of(start, basis))
        self.space = rank_space(self.ranks.count, 2, 14)
        self.planes = Scratch()
        self.run()

    def run(self) -> float:
        """One call of the kernel on the level: its CPU seconds."""
        held = BitmapTables(self.space, 0, self.space.partitions, self.ranks, WORKERS,
                            self.planes.take)
        began = time.process_time()
        expand_into_bits(self.tables, [self.level], held)
        return time.process_time() - began

    def measure(self) -> dict[str, float]:
        """CPU-ns a child: the least of ROUNDS calls."""
        return {"one_step": round(1e9 * min(self.run() for _ in range(ROUNDS)) / self.children, 2)}


def main() -> None:
    """Say "ready" once compiled, then measure each time a line asks, until the input ends: the
    caller compiles every target at once and times them one at a time, so no timing shares the
    machine with a compilation."""
    step = OneStep()
    print("ready", flush=True)
    for _ in sys.stdin:
        print(json.dumps(step.measure()), flush=True)


if __name__ == "__main__":
    main()

"""The hot kernel timed on a small level, in the compile target this process was started with.

    NUMBA_CPU_NAME=haswell NUMBA_NUM_THREADS=1 python -m pegsearch.kernel.probe

prints one JSON line: the CPU-ns a child of the map that sets its children's bits itself (the one
step that makes every bitmap level, where nearly all of a large search's time goes).
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
import time

import numpy as np

from pegsearch.board.classes import class_of, invariants
from pegsearch.board.files import load_board
from pegsearch.kernel.bitmap import BitmapTables, rank_space
from pegsearch.kernel.expand import Scratch, expand_into_bits
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
        level = np.unique(np.concatenate(children))


def measure() -> dict[str, float]:
    """CPU-ns a child of the one step, compiled for this process's target: the least of ROUNDS."""
    board = load_board(BOARD)
    start = board.start_position()
    tables = BoardTables.for_board(board, board.symmetries)
    level, children = level_and_children(tables, start)
    basis = invariants(board)
    ranks = level_ranks(board.holes, basis, int(np.bitwise_count(level[0])) - 1,
                        class_of(start, basis))
    space = rank_space(ranks.count, 2, 14)
    planes = Scratch()
    seconds = []
    for _ in range(ROUNDS):
        held = BitmapTables(space, 0, space.partitions, ranks, WORKERS, planes.take)
        began = time.process_time()
        expand_into_bits(tables, level, held)
        seconds.append(time.process_time() - began)
    return {"one_step": round(1e9 * min(seconds) / children, 2)}


if __name__ == "__main__":
    print(json.dumps(measure()))

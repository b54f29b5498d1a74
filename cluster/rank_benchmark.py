"""What a rank and an unrank cost, per board size: CPU nanoseconds per position, one core.

    python cluster/rank_benchmark.py [--boards english-33 european-37 triangle-9 ...] [--repeat N]

For each board, the level of its most pegs' positions (half its holes, the start's class) and
2**22 positions of that level drawn at random, ranked in place by the kernel (`rank_all`) in two
orders: as drawn (every table read a cache miss at worst) and sorted (as a sorted parent level's
children mostly come). Then a dense stretch of the level's bitmap (a third of its bits set) drained
by `unrank_run`. Medians of N repetitions. Uses only the ranks' public interface, so the same script
measures another checkout of pegsearch (`PYTHONPATH=OTHER/src python cluster/rank_benchmark.py`)
side by side with this one.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from pegsearch.board.classes import class_of, invariants
from pegsearch.board.files import load_board
from pegsearch.kernel.ranks import RankTables, rank_all, unrank_run

POSITIONS = 1 << 22


def drawn(holes: int, pegs: int, basis: tuple[int, ...], home: int, rng: np.random.Generator
          ) -> np.ndarray:
    """POSITIONS random positions of `pegs` pegs in class `home`."""
    found = np.zeros(0, dtype=np.uint64)
    while len(found) < POSITIONS:
        keys = np.argsort(rng.random((POSITIONS // 8, holes)), axis=1)[:, :pegs]
        positions = np.bitwise_or.reduce(np.uint64(1) << keys.astype(np.uint64), axis=1)
        classes = np.zeros(len(positions), dtype=np.int64)
        for index, mask in enumerate(basis):
            ones = np.unpackbits((positions & np.uint64(mask)).view(np.uint8)).reshape(-1, 64)
            classes |= (ones.sum(axis=1).astype(np.int64) & 1) << index
        found = np.concatenate([found, positions[classes == home]])
    return found[:POSITIONS]


def timed(work, repeat: int) -> float:
    """The median CPU seconds of `repeat` calls of `work`."""
    spent = []
    for _ in range(repeat):
        began = time.process_time()
        work()
        spent.append(time.process_time() - began)
    return statistics.median(spent)


def measure(name: str, repeat: int, rng: np.random.Generator) -> str:
    """One board's line: rank costs drawn and sorted, unrank cost, in CPU-ns."""
    board = load_board(name)
    basis = invariants(board)
    home = class_of(board.start_position(), basis)
    pegs = board.holes // 2
    level = RankTables.for_board(board.holes, basis).level(pegs, home)
    positions = drawn(board.holes, pegs, basis, home, rng)
    ordered = np.sort(positions)
    keys = np.empty_like(positions)

    def rank(source: np.ndarray) -> None:
        keys[:] = source
        rank_all(keys, len(keys), level.args)

    rank(positions)  # compiles (or loads) the kernel
    shuffled = timed(lambda: rank(positions), repeat)
    in_order = timed(lambda: rank(ordered), repeat)
    rank(ordered)
    bits = np.zeros(POSITIONS // 64 * 3, dtype=np.uint64)
    for shift in range(64):  # about a third of the bits set
        bits |= (rng.random(len(bits)) < 1 / 3).astype(np.uint64) << np.uint64(shift)
    base = min(int(keys[len(keys) // 2]), level.count - 64 * len(bits)) // 64 * 64
    out = np.empty(int(np.unpackbits(bits.view(np.uint8)).sum()), dtype=np.uint64)
    unranking = level.unranking()
    unrank_run(bits, np.uint64(base), unranking, out)
    drain = timed(lambda: unrank_run(bits, np.uint64(base), unranking, out), repeat)
    return (f"{name:12} {board.holes} holes, level of {pegs} pegs ({level.count:,} ranks):"
            f" rank {1e9 * shuffled / POSITIONS:5.2f} ns drawn, {1e9 * in_order / POSITIONS:5.2f} ns"
            f" sorted; unrank {1e9 * drain / len(out):5.2f} ns a set bit")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="+", default=["english-33", "european-37", "triangle-9"])
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    rng = np.random.default_rng(2026)
    for name in options.boards:
        print(measure(name, options.repeat, rng), flush=True)


if __name__ == "__main__":
    main()

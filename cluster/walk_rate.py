"""Positions a second of one depth-first walk: the solver's kernel alone, no threads, no endgame.

    python cluster/walk_rate.py [BOARD] [--seconds S] [--trials N]

The walk of BOARD's start (default triangle-9, to one peg anywhere) with a 32 MiB dead table,
examined for S seconds a trial, each trial from fresh tables; the first trial (compiling, the
tables' pages first touched) is left out. To compare two trees, run it from each alternately with
PYTHONPATH=TREE/src, a trial set at a time, and compare the medians.
"""

from __future__ import annotations

import argparse
import statistics
import time

from pegsearch.answers.solver import compiled_goal, goal_holes
from pegsearch.board.files import load_board
from pegsearch.kernel.depth_first import Search, new_table

DEAD_SLOTS = 1 << 22  # 32 MiB of signatures
STEP = 100_000  # positions a call of the walk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("board", nargs="?", default="triangle-9")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--trials", type=int, default=4)
    args = parser.parse_args()
    board = load_board(args.board)
    position = board.start_position()
    goal = compiled_goal(board, goal_holes(board, position, None), None, True)
    rates = []
    for _ in range(args.trials):
        search = Search(goal, new_table(DEAD_SLOTS), new_table(1 << 12), board.holes)
        search.begin(position)
        began = time.perf_counter()
        while time.perf_counter() - began < args.seconds:
            search.go(STEP)
        rates.append(int(search.counts[0]) / (time.perf_counter() - began))
    kept = rates[1:] or rates
    print(f"{args.board}: {' '.join(f'{rate / 1e6:.2f}' for rate in kept)} M positions a second"
          f" (median {statistics.median(kept) / 1e6:.2f})")


if __name__ == "__main__":
    main()

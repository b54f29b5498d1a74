"""The move-bounded walk from below: positions it examines to search each bound to the end.

    python bench/move_bound_walk.py BOARD START MOST [--slots 24] [--seconds S]

From BOARD's single vacancy at START, one peg anywhere: B = the start's lower bound, then one more
each time a B is searched to the end without a line (as `solve --fewest-moves` searches from
below, alone, without the search from above), up to MOST or the first B a line is found within.
One table of states known short (2^slots slots) serves every B. Prints the start's bound, then a
line per B: found or none, positions examined and seconds; with --seconds, a B still open when they
are spent is said so with the positions examined so far (a run stopped from outside says nothing
of its last B). The positions measure the bound's pruning apart from the machine
(docs/lab/2026-11-solver.md's fewest-moves figures).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pegsearch.answers.fewest_solver import Bounded
from pegsearch.answers.solver import compiled_goal, goal_holes, goal_tables
from pegsearch.board.files import load_board
from pegsearch.kernel.depth_first import RUNNING, WON
from pegsearch.kernel.move_bound import MoveGoal, Moves, needed, new_short_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("board")
    parser.add_argument("start", type=int)
    parser.add_argument("most", type=int)
    parser.add_argument("--slots", type=int, default=24, help="log2 of the short table's slots")
    parser.add_argument("--seconds", type=float, default=float("inf"), help="stop after this long")
    args = parser.parse_args()
    board = load_board(args.board)
    position = board.start_position((args.start,))
    goal = compiled_goal(board, goal_holes(board, position, None), None, True)
    moves_goal = MoveGoal.compiled(board, goal_tables(board, None), goal)
    short = new_short_table(1 << args.slots)
    least = int(needed(np.uint64(position), np.uint64(0), moves_goal, goal.mask))
    print(f"{args.board}, hole {args.start} empty: at least {least} moves at the start", flush=True)
    stack = Moves.empty(goal, board.holes)
    deadline = time.perf_counter() + args.seconds
    for bound in range(max(1, least), args.most + 1):
        began = time.perf_counter()
        search = Bounded(stack, (goal, moves_goal), position, bound)
        while search.go(short) == RUNNING:
            if time.perf_counter() > deadline:
                print(f"B = {bound}: not ended after {search.examined - search.began:,} positions,"
                      f" {time.perf_counter() - began:.1f} s")
                return
        print(f"B = {bound}: {'a line found' if search.ended == WON else 'none'},"
              f" {search.examined - search.began:,} positions, {time.perf_counter() - began:.1f} s",
              flush=True)
        if search.ended == WON:
            break


if __name__ == "__main__":
    main()

"""The solver's fewest moves against the whole search's, every start (and finishing hole) of a board.

    python bench/fewest_moves_agreement.py --boards triangle-5 triangle-6 skippy-xl english-33 \
        --work /tmp/fewest [--finishes] [--seconds 1200]

For each board, `survey --fewest-moves` searches one start per class of holes whole (reused from
`--work` when already there) and gives each start's fewest moves to one peg anywhere and, with
`--finishes`, on each finishing hole. The solver (`solve --fewest-moves`'s answers.fewest_solver)
is asked each of the same questions from the real start, without any run (one start per class:
a hole symmetric to it asks the same question moved); an answer counts as
equal only when it is proved and its moves are the search's. Prints a line per question (moves,
positions, seconds), the totals, and every difference; exits 1 on any.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pegsearch.answers.fewest_solver import fewest_moves
from pegsearch.answers.solver import Solver, goal_holes
from pegsearch.answers.survey import survey
from pegsearch.board.files import load_board
from pegsearch.engines.local import LocalEngine


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="+", default=["triangle-5", "triangle-6"])
    parser.add_argument("--work", type=Path, default=Path("/tmp/fewest"))
    parser.add_argument("--finishes", action="store_true", help="also each finishing hole")
    parser.add_argument("--seconds", type=float, default=1200, help="the solver's bound a question")
    parser.add_argument("--memory", default="1G", help="the solver's memory")
    args = parser.parse_args()
    differences = 0
    for name in args.boards:
        board = load_board(name)
        began = time.perf_counter()
        results = survey(board, args.work / name, LocalEngine, fewest_moves=True)
        print(f"{name}: the whole searches in {time.perf_counter() - began:.1f} s", flush=True)
        asked = equal = 0
        for result in results:
            if result.start != result.searched:
                continue  # a hole symmetric to a searched start: the same question moved
            position = board.start_position((result.start,))
            expected = dict(zip(result.finishes, result.moves or (), strict=True))
            finishes = (None, *expected) if args.finishes else (None,)
            for finish in finishes:
                if not goal_holes(board, position, finish):
                    continue
                want = result.fewest_moves if finish is None else expected[finish]
                found = fewest_moves(board, position, finish, args.seconds, Solver(args.memory))
                got = found.moves if found.proved else None
                asked += 1
                equal += got == want
                print(f"  start {result.start:2} finish {finish or 'any':>3}: search {want}, solver"
                      f" {got if found.proved else f'not proved ({found.at_least}..{found.moves})'}"
                      f" ({found.examined:,} positions, {found.seconds:.1f} s)", flush=True)
        print(f"{name}: {equal} of {asked} equal", flush=True)
        differences += asked - equal
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())

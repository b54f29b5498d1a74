"""The solver against the whole search: verdicts on random positions compared with winnable sets.

    python bench/solver_agreement.py --boards english-33 triangle-5 triangle-6 skippy-xl \
        --positions 5000 --work /tmp/agreement [--endgame-after 0]

For each board, a run from the board's start (reduced by the board's symmetries) is searched and
walked back (`answers.winnable`): a stored position is winnable to one peg exactly when its
signature is in its level's set. Positions are drawn at random from every level, half from the
winnable sets and half from the rest where a level has both, and the depth-first solver is asked
each (one peg anywhere, and one peg on a finishing hole drawn at random: a run reduced by symmetries
answers "on the hole or one symmetric to it", so the solver is asked for each hole of that orbit).
Prints the positions checked, won and lost by each side, and every difference; exits 1 on any.
`--endgame-after 0` starts each goal's endgame (kernel.endgame) at its first step of search (made
beside it, in milliseconds on these boards), so the small boards are answered through it too.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from pegsearch.answers.solver import ENDGAME_AFTER, Solver
from pegsearch.answers.winnable import targets, winnable_sets
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.board.symmetry import orbit
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.store import MANIFEST, Run


def stored_run(board: str, work: Path) -> Run:
    """The board's run from its start in `work`, searched once and reused."""
    out = work / board
    if (out / MANIFEST).exists():
        run = Run.open(out)
        if run.status == "complete":
            return run
    loaded = load_board(board)
    return search(SearchSpec(loaded, loaded.empty, "board"), out, LocalEngine(), resume=out.exists())


def drawn(run: Run, sets: dict[int, np.ndarray], count: int, chosen: random.Random) -> list[tuple[int, bool]]:
    """`count` stored positions with whether they are winnable, drawn level by level, half from a
    level's set and half from the rest where it has both."""
    levels = [level for level in range(len(run.levels) - 1) if run.levels[level]["pegs"] > 1]
    picked: list[tuple[int, bool]] = []
    for at, level in enumerate(levels):
        stored = run.read_level(level)
        won = np.isin(stored, sets.get(level, np.empty(0, np.uint64)))
        for index in range(count // len(levels) + (at < count % len(levels))):
            wanted = bool(index % 2) if won.any() and (~won).any() else bool(won.any())
            side = stored[won == wanted]
            picked.append((int(side[chosen.randrange(len(side))]), wanted))
    return picked


def check(board: str, positions: int, seconds: float, seed: int, work: Path,
          endgame_after: int = ENDGAME_AFTER) -> int:
    """Compare the solver with the run of `board` on `positions` positions; the differences."""
    run = stored_run(board, work)
    loaded, chosen = run.board, random.Random(seed)
    solver = Solver(goals=loaded.holes + 1, endgame_after=endgame_after)
    # A finishing hole the run reaches, one of those whose orbit is smallest: the solver is asked
    # for every hole of it (the English centre, alone in its orbit).
    reached = [hole for hole in range(1, loaded.holes + 1) if len(targets(run, hole))]
    fewest = min((len(orbit(run.spec.signing, hole)) for hole in reached), default=0)
    finish = chosen.choice([hole for hole in reached
                            if len(orbit(run.spec.signing, hole)) == fewest] or [None])
    differences = undecided = 0
    tally = {"won": 0, "lost": 0}
    began = time.perf_counter()
    for goal in (None, finish):
        sets = dict(winnable_sets(run, targets(run, goal)))
        holes = [None] if goal is None else list(orbit(run.spec.signing, goal))
        for position, winnable in drawn(run, sets, positions // 2, chosen):
            answers = [solver.answer(loaded, position, hole, seconds, dual=False) for hole in holes]
            won = any(answer.won for answer in answers)
            if not won and not all(answer.decided for answer in answers):
                undecided += 1
                continue
            tally["won" if won else "lost"] += 1
            if sum(tally.values()) % 1000 == 0:
                print(f"  {board}: {sum(tally.values()):,} checked, {differences} differences,"
                      f" {undecided} undecided, {time.perf_counter() - began:.0f} s", flush=True)
            if won != winnable:
                differences += 1
                print(f"  DIFFERENT {board} position {position} goal {goal}: solver {won}, run"
                      f" {winnable}", flush=True)
    print(f"{board}: {sum(tally.values()):,} positions checked (finishing anywhere, and on hole"
          f" {finish} or its images), won {tally['won']:,}, lost {tally['lost']:,}; {undecided}"
          f" undecided; {differences} differences; {time.perf_counter() - began:.1f} s", flush=True)
    return differences + undecided


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="+", default=["english-33", "triangle-5", "triangle-6",
                                                          "skippy-xl"])
    parser.add_argument("--positions", type=int, default=5000, help="per board")
    parser.add_argument("--seconds", type=float, default=60, help="the solver's bound a question")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--work", type=Path, default=Path("/tmp/solver-agreement"))
    parser.add_argument("--endgame-after", type=int, default=ENDGAME_AFTER,
                        help="positions a goal is searched before its endgame is made")
    args = parser.parse_args()
    failed = sum(check(board, args.positions, args.seconds, args.seed, args.work,
                       args.endgame_after)
                 for board in args.boards)
    print(f"total: {failed} differences or undecided")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

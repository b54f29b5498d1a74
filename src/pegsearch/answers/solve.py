"""One concrete line of play from a run's real start, replayed forward through the winnable sets.

A stored run holds signatures (one position per symmetry class); a line a person can play needs
real positions and real jumps, so the replay walks from the real start through children whose
signatures are winnable, and carries the line onto the asked finishing hole by a symmetry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from pegsearch.answers.fewest import fewest_line
from pegsearch.answers.winnable import one_line_back, read_sets, targets
from pegsearch.board.geometry import Jump, legal_jumps
from pegsearch.board.symmetry import Permutation, image_of_jump, image_of_position
from pegsearch.kernel.members import contains
from pegsearch.store import Run


@dataclass(frozen=True)
class Line:
    """A line of play from the run's real start: each jump and the real position after it.

    `solved` says whether it ends with one peg (on `finish` when asked); when not, it reaches the
    fewest pegs the run reaches, and `note` says why it falls short.
    """

    start: int
    jumps: tuple[Jump, ...]
    positions: tuple[int, ...]
    solved: bool
    finish: int | None
    note: str = ""
    moves: int | None = None  # the fewest moves, on a fewest-moves run

    @property
    def last(self) -> int:
        return self.positions[-1] if self.positions else self.start


# How a walk back reports how far it is: levels read so far, out of the run's levels.
WalkProgress = Callable[[int, int], None]


def solve(run: Run, finish: int | None = None, progress: WalkProgress | None = None) -> Line:
    """One line of play from the real start: with the fewest moves on a fewest-moves run (see
    answers.fewest), else replayed forward through the winnable sets (where one peg is not
    reachable, through one position a level walked back from the fewest pegs).

    A child is taken only when its signature is winnable, so the replay never dead-ends. With
    `finish`, the winnable sets are for finish's symmetry class; the line is then carried onto
    `finish` by a symmetry fixing the start. On a board-reduced run that symmetry may not exist for
    the line found first, so the replay backtracks; if no line ends on `finish`, it is unreachable.
    """
    board = run.board
    start = board.start_position(run.start)
    if finish is not None:
        board.hole_of(finish, "finish")
    if run.fewest_moves:
        return _fewest(run, finish, progress)
    fixing = board.stabilizer(start)
    goal = targets(run, finish)
    if len(goal):
        accept = (lambda position: True) if finish is None else \
            (lambda position: _symmetry_onto(fixing, position, finish) is not None)
        line = _replay(run, read_sets(run, finish), start, accept, progress)
        if line is not None:
            perm = fixing[0] if finish is None else _symmetry_onto(fixing, _end(start, line), finish)
            jumps = tuple(image_of_jump(perm, jump) for jump, _ in line)
            positions = tuple(image_of_position(perm, position) for _, position in line)
            return Line(start, jumps, positions, True, finish)
        if finish is None:
            raise _damaged(run)
    last = run.levels[-1]
    if last["pegs"] == 1:
        note = f"one peg cannot finish on hole {finish} from this start; a solution ending elsewhere"
    else:
        note = f"one peg is not reachable; a line of play reaching the fewest pegs ({last['pegs']})"
    fewest = np.sort(run.read_level(len(run.levels) - 1))
    line = _replay(run, one_line_back(run, fewest), start, lambda position: True, progress)
    if line is None:
        raise _damaged(run)
    return Line(start, tuple(j for j, _ in line), tuple(p for _, p in line), False, finish, note)


def _fewest(run: Run, finish: int | None, progress: WalkProgress | None) -> Line:
    """The line with the fewest moves, or (as `solve` does) the fewest to a finish elsewhere."""
    found = fewest_line(run, finish, progress)
    note = ""
    if found is None:
        found = fewest_line(run, progress=progress)
        assert found is not None
        note = f"one peg cannot finish on hole {finish} from this start; a solution ending elsewhere"
    pegs = run.levels[-1]["pegs"]
    if pegs != 1:
        note = f"one peg is not reachable; a line of play reaching the fewest pegs ({pegs})"
    jumps, positions, moves = found
    return Line(run.board.start_position(run.start), jumps, positions, not note, finish, note, moves)


def _damaged(run: Run) -> RuntimeError:
    return RuntimeError(f"{run.uri}: no line of play reaches its own last level; run"
                        " `pegsearch verify` on it")


def _end(start: int, line: list[tuple[Jump, int]]) -> int:
    return line[-1][1] if line else start


def _symmetry_onto(group: tuple[Permutation, ...], position: int, hole: int) -> Permutation | None:
    """A symmetry in `group` carrying the one-peg `position` onto `hole`, if any."""
    for perm in group:
        if image_of_position(perm, position) == 1 << (hole - 1):
            return perm
    return None


def _replay(run: Run, walked: Iterable[tuple[int, np.ndarray]], start: int,
            accept: Callable[[int], bool],
            progress: WalkProgress | None) -> list[tuple[Jump, int]] | None:
    """Depth-first from `start` through winnable children (the sets `walked` yields, last level
    first); `accept` judges the final position.

    Positions that failed are remembered, so a backtracking replay visits each real position once.
    """
    tables = run.tables()
    sets = [np.empty(0, dtype=np.uint64)] * len(run.levels)
    for done, (level, winnable) in enumerate(walked, start=1):
        sets[level] = winnable
        if progress:
            progress(done, len(sets))
    if not contains(sets[0], tables.signatures(np.array([start], dtype=np.uint64)))[0]:
        return None
    dead: set[int] = set()

    def walk(position: int, level: int) -> list[tuple[Jump, int]] | None:
        if level == len(sets) - 1:
            return [] if accept(position) else None
        moves = legal_jumps(run.board, position)
        children = np.array([child for _, child in moves], dtype=np.uint64)
        hopeful = contains(sets[level + 1], tables.signatures(children)) if moves else []
        for (jump, child), good in zip(moves, hopeful, strict=True):
            if good and child not in dead:
                rest = walk(child, level + 1)
                if rest is not None:
                    return [(jump, child), *rest]
                dead.add(child)
        return None

    return walk(start, 0)

"""Answers read from a stored run: winnable positions, one concrete solution, finishing holes.

Everything here works on the run directory alone, so it serves a run made by any engine. The one
expensive step, the backward walk that finds which positions can still reach the goal, expands each
stored level with the shared kernel (`expand.expand`) a chunk at a time and keeps a parent when one
of its children's signatures is in the next level's winnable set. The walk is done locally: a
cluster run's levels are read back here rather than joined on the cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from pegsearch.board import Board, Jump
from pegsearch.codec import Codec
from pegsearch.expand import expand
from pegsearch.paths import as_int
from pegsearch.store import Run

CHUNK = 1 << 20
Permutation = tuple[int, ...]


# ----- symmetry helpers (a permutation maps hole h to perm[h - 1] + 1)
def image_of_hole(perm: Permutation, hole: int) -> int:
    return perm[hole - 1] + 1


def image_of_position(perm: Permutation, position: int) -> int:
    return sum(1 << perm[i] for i in range(len(perm)) if position >> i & 1)


def image_of_jump(perm: Permutation, jump: Jump) -> Jump:
    return Jump(*(image_of_hole(perm, h) for h in (jump.start, jump.over, jump.to)))


def orbit(group: tuple[Permutation, ...], hole: int) -> tuple[int, ...]:
    """The holes `hole` is carried to by `group`, ascending."""
    return tuple(sorted({image_of_hole(perm, hole) for perm in group}))


def hole_classes(board: Board) -> list[tuple[int, ...]]:
    """The board's holes grouped into orbits of its symmetry group, each ascending, by first hole."""
    seen: set[int] = set()
    classes = []
    for hole in range(1, board.holes + 1):
        if hole not in seen:
            classes.append(orbit(board.symmetries, hole))
            seen.update(classes[-1])
    return classes


def exact_per_hole(run: Run) -> bool:
    """Whether the run's group fixes its start, so reachable holes and per-hole counts are exact.

    True for "start" and "none" runs, and for "board" runs whose start every symmetry fixes (the
    English board from the centre); otherwise a finishing hole is known only up to symmetry.
    """
    fixing = set(run.board.stabilizer(run.board.start_position(run.start)))
    return set(run.identity.group) <= fixing


def legal_jumps(board: Board, position: int) -> list[tuple[Jump, int]]:
    """Every legal jump of one real position, with the position it leads to."""
    moves = []
    for jump in board.jumps:
        if position >> (jump.start - 1) & 1 and position >> (jump.over - 1) & 1 \
                and not position >> (jump.to - 1) & 1:
            flip = (1 << (jump.start - 1)) | (1 << (jump.over - 1)) | (1 << (jump.to - 1))
            moves.append((jump, position ^ flip))
    return moves


def contains(sorted_set: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Membership of each value in a set sorted ascending as uint64 (a merge-free join)."""
    if len(sorted_set) == 0:
        return np.zeros(len(values), dtype=bool)
    index = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return sorted_set[index] == values


# ----- the goal and the backward walk
def targets(run: Run, finish: int | None = None) -> np.ndarray:
    """The last level's signatures that finish the game: one peg (on `finish`'s symmetry class).

    Empty when the run never reaches one peg or no final position is in `finish`'s class.
    """
    last = len(run.levels) - 1
    if run.levels[last]["pegs"] != 1:
        return np.empty(0, dtype=np.uint64)
    final = np.sort(run.read_level(last))
    if finish is None:
        return final
    wanted = run.codec().signatures(np.array([1 << (finish - 1)], dtype=np.uint64))
    return final[contains(wanted, final)]


WinnableStep = Callable[[Run, int, np.ndarray], np.ndarray]


def winnable_sets(run: Run, goal: np.ndarray,
                  step: WinnableStep | None = None) -> Iterator[tuple[int, np.ndarray]]:
    """Walk the levels backwards: yield (level, its positions from which `goal` can be reached).

    `goal` is a sorted subset of the last level. Each step is a semi-join of a level with the next
    level's winnable set: `step` (an engine's, run where the engine runs) or, by default, here with
    the shared kernel (`winnable_parents`).
    """
    step = step or winnable_parents
    last = len(run.levels) - 1
    winnable = np.sort(goal)
    yield last, winnable
    for level in range(last - 1, -1, -1):
        if len(winnable):
            winnable = step(run, level, winnable)
        yield level, winnable


def winnable_parents(run: Run, level: int, winnable: np.ndarray, chunk: int = CHUNK) -> np.ndarray:
    """The positions of `level` with a child in `winnable`, sorted; computed in this process.

    Memory holds the two winnable sets and one part file of the level with one chunk's children.
    """
    codec = run.codec()
    kept = [parents_reaching(codec, parents, winnable)
            for parents, _ in run.iter_level(level, chunk)]
    return np.sort(np.concatenate(kept)) if kept else np.empty(0, dtype=np.uint64)


def parents_reaching(codec: Codec, parents: np.ndarray, winnable: np.ndarray) -> np.ndarray:
    """The parents with at least one child whose signature is in `winnable` (sorted ascending)."""
    children, fanout = expand(codec, parents)
    hits = np.zeros(len(children) + 1, dtype=np.int64)
    np.cumsum(contains(winnable, children), out=hits[1:])
    ends = np.cumsum(fanout)
    return parents[hits[ends] - hits[ends - fanout] > 0]


def winnable_counts(run: Run, finish: int | None = None,
                    step: WinnableStep | None = None) -> list[int]:
    """Per level, how many stored positions can still be played down to one peg (on `finish`)."""
    counts = [0] * len(run.levels)
    for level, winnable in winnable_sets(run, targets(run, finish), step):
        counts[level] = len(winnable)
    return counts


# ----- one concrete line of play
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

    @property
    def last(self) -> int:
        return self.positions[-1] if self.positions else self.start


def solve(run: Run, finish: int | None = None) -> Line:
    """One line of play from the real start, replayed forward through the winnable sets.

    A child is taken only when its signature is winnable, so the replay never dead-ends. With
    `finish`, the winnable sets are for finish's symmetry class; the line is then carried onto
    `finish` by a symmetry fixing the start. On a board-reduced run that symmetry may not exist for
    the line found first, so the replay backtracks; if no line ends on `finish`, it is unreachable.
    """
    board = run.board
    start = board.start_position(run.start)
    if finish is not None:
        board.hole_of(finish)
    fixing = board.stabilizer(start)
    goal = targets(run, finish)
    if len(goal):
        accept = (lambda position: True) if finish is None else \
            (lambda position: _symmetry_onto(fixing, position, finish) is not None)
        line = _replay(run, goal, start, accept)
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
    line = _replay(run, np.sort(run.read_level(len(run.levels) - 1)), start, lambda position: True)
    if line is None:
        raise _damaged(run)
    return Line(start, tuple(j for j, _ in line), tuple(p for _, p in line), False, finish, note)


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


def _replay(run: Run, goal: np.ndarray, start: int,
            accept: Callable[[int], bool]) -> list[tuple[Jump, int]] | None:
    """Depth-first from `start` through winnable children; `accept` judges the final position.

    Positions that failed are remembered, so a backtracking replay visits each real position once.
    """
    codec = run.codec()
    sets = [np.empty(0, dtype=np.uint64)] * len(run.levels)
    for level, winnable in winnable_sets(run, goal):
        sets[level] = winnable
    if not contains(sets[0], codec.signatures(np.array([start], dtype=np.uint64)))[0]:
        return None
    dead: set[int] = set()

    def walk(position: int, level: int) -> list[tuple[Jump, int]] | None:
        if level == len(sets) - 1:
            return [] if accept(position) else None
        moves = legal_jumps(run.board, position)
        children = np.array([child for _, child in moves], dtype=np.uint64)
        hopeful = contains(sets[level + 1], codec.signatures(children)) if moves else []
        for (jump, child), good in zip(moves, hopeful, strict=True):
            if good and child not in dead:
                rest = walk(child, level + 1)
                if rest is not None:
                    return [(jump, child), *rest]
                dead.add(child)
        return None

    return walk(start, 0)


# ----- finishing holes and path counts per final hole
@dataclass(frozen=True)
class FinishClass:
    """One final representative: the holes of its class under the run's group, and its paths.

    When the run is exact per hole (see `exact_per_hole`) every hole of `holes` is reachable and
    each is reached by ``paths / len(holes)`` jump sequences; otherwise `paths` counts sequences
    ending anywhere in the class, and some of its holes may not be reachable from the real start.
    """

    holes: tuple[int, ...]
    paths: int | None

    @property
    def per_hole(self) -> int | None:
        return None if self.paths is None else self.paths // len(self.holes)


def finishes(run: Run) -> list[FinishClass]:
    """The classes of one-peg positions the run reaches, by first hole; empty when unsolvable."""
    last = len(run.levels) - 1
    if run.levels[last]["pegs"] != 1:
        return []
    positions = run.read_level(last)
    paths = [as_int(row) for row in run.read_level_paths(last)] if run.count_paths \
        else [None] * len(positions)
    group = run.identity.group
    classes = [FinishClass(orbit(group, int(p).bit_length()), count)
               for p, count in zip(positions, paths, strict=True)]
    return sorted(classes, key=lambda c: c.holes)


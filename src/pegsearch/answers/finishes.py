"""Where the last peg stands: the one-peg positions a run reaches, by class of holes, with paths
or fewest moves.

A reduced run stores one final position per symmetry class, so its finishing holes are known per
class; a run whose symmetries all fix the start is exact per hole (`exact_per_hole`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pegsearch.board.symmetry import orbit
from pegsearch.kernel.path_counts import as_int
from pegsearch.store import Run


def exact_per_hole(run: Run) -> bool:
    """Whether the symmetries the run's signatures are taken under fix its start, so reachable
    holes and per-hole counts are exact.

    True for "start" and "none" runs, and for "board" runs whose start every symmetry keeping its
    class fixes (the English board from the centre, a triangle from a corner); otherwise a
    finishing hole is known only up to symmetry.
    """
    fixing = set(run.board.stabilizer(run.board.start_position(run.start)))
    return set(run.spec.signing) <= fixing


@dataclass(frozen=True)
class FinishClass:
    """One final representative: the holes of its class under the run's group, and its paths.

    When the run is exact per hole (see `exact_per_hole`) every hole of `holes` is reachable and
    each is reached by ``paths / len(holes)`` jump sequences; otherwise `paths` counts sequences
    ending anywhere in the class, and some of its holes may not be reachable from the real start.
    """

    holes: tuple[int, ...]
    paths: int | None
    moves: int | None = None  # the fewest moves to this class, on a fewest-moves run

    @property
    def per_hole(self) -> int | None:
        return None if self.paths is None else self.paths // len(self.holes)


def finishes(run: Run) -> list[FinishClass]:
    """The classes of one-peg positions the run reaches, by first hole; empty when unsolvable."""
    last = len(run.levels) - 1
    if run.levels[last]["pegs"] != 1:
        return []
    positions, values = run.read_level_with_values(last)
    paths = [as_int(row) if run.count_paths else None for row in values] or [None] * len(positions)
    moves = [int(row[1]) if run.fewest_moves else None for row in values] or [None] * len(positions)
    group = run.spec.signing  # the holes of another class under the whole group are not reachable
    classes = [FinishClass(orbit(group, int(p).bit_length()), count, fewest)
               for p, count, fewest in zip(positions, paths, moves, strict=True)]
    return sorted(classes, key=lambda c: c.holes)

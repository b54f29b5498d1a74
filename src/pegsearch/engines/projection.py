"""The levels of a search not made yet: how many positions each can hold, how many it will hold,
and the children its parents make, for `pegsearch estimate` (engines.costs).

A board of the references' grid (the triangles) follows a reference's shape, below. Another board
follows its run's own growth where the run has TREND_LEVELS sizable levels past their growth's
steepest rise: a level's growth (its positions over its parents') falls level by level, its
logarithm close to a straight line from a few levels before the widest, so the line through the
last measured ones carries the run on. From English's levels 0-16 (published counts) it projected
the whole within 3 %, from the diamond's centre's levels 0-15 within 7 %; from earlier levels it
comes out high (1.5 times from English's 0-11 or the diamond's 0-13), yet far nearer than a
triangle's shape: the diamond's centre came out 2-5 times over a level by triangle-8's, even from
its levels 0-17. Without such levels, a board of another grid follows the nearest reference,
roughly (engines.costs widens its range).

For a board of the references' grid a level's share of the positions it can hold (its pegs in
the start's class, up to the symmetries signatures are taken under) rises level by level to 1
(every such position reached) and stays there; a larger board's share follows a smaller board's,
shifted by a third of the holes it adds (triangle-9's measured levels 12-16 follow triangle-8's at
k - 3 within 10 %). The reference's share is raised to the power that meets the run's last sizable
levels, so both reach 1 together (triangle-8's levels 13-33 from skippy-xl's and its own levels
0-12: within 10 % each, 6 % in all).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from math import exp, log
from statistics import linear_regression
from typing import NamedTuple

from pegsearch.board.classes import invariants, kept_by
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.kernel.ranks import possible

# Complete searches from the apex, reduced by the board's symmetries (docs/scale.md, and skippy-xl
# as `pegsearch run skippy-xl` counts it): the shapes projected levels follow.
REFERENCES = {
    "skippy-xl": (1, 1, 4, 27, 175, 1058, 5373, 21971, 71489, 187144, 398665, 699272, 1021498,
                  1251698, 1292856, 1130883, 839814, 530465, 285019, 129504, 49375, 15869, 4209, 863,
                  153, 24),
    "triangle-8": (1, 1, 4, 27, 189, 1387, 9621, 59779, 324601, 1521312, 6109087, 20922581,
                   60889958, 150114902, 312378438, 546248430, 799484744, 979415769, 1011785508,
                   895487101, 692285663, 473991750, 288812322, 156462487, 75103702, 31780087,
                   11770296, 3782900, 1044536, 243880, 47144, 7452, 912, 78, 8),
}
# Levels this large say something of a search's shape and speed; smaller ones are mostly fixed costs.
SIZABLE = 100_000
# The growths between sizable levels a projection from the run's own growth is fitted to.
TREND_LEVELS = 4
# What the projected levels follow when it is the run itself (else a reference's name).
OWN_GROWTH = "own growth"


@dataclass(frozen=True)
class Shape:
    """How many positions a search's levels can hold: `ranks` of a level's pegs are the positions
    of the start's class (all positions when signatures may leave it), as the local engine's
    bitmaps span them; `capacity` the same up to the symmetries signatures are taken under."""

    holes: int
    start_pegs: int
    classes: int
    symmetries: int
    jumps: int

    @classmethod
    def of(cls, spec: SearchSpec) -> Shape:
        board = spec.board
        basis = invariants(board)
        kept = kept_by(spec.signing, board.start_position(spec.start), basis)
        return cls(board.holes, board.holes - len(spec.start), 1 << len(basis) if kept else 1,
                   len(spec.signing), len(board.jumps))

    def ranks(self, pegs: int) -> int:
        return possible(self.holes, pegs, self.classes)

    def capacity(self, pegs: int) -> int:
        return max(1, self.ranks(pegs) // self.symmetries)

    def children(self, pegs: int, parents: int) -> float:
        """The children `parents` positions of `pegs` pegs make: each jump legal as often as in a
        position of that many pegs drawn at random (its two holes full, the third empty). The
        positions a search reaches are not drawn at random, but their legal jumps come close:
        within 2-8 % at triangle-8's levels 8-15 (samples of each level's parts)."""
        n = self.holes
        if n < 3:
            return 0.0
        return parents * self.jumps * pegs * (pegs - 1) * (n - pegs) / (n * (n - 1) * (n - 2))


class Projection(NamedTuple):
    """The levels after the measured ones: what they follow (OWN_GROWTH, a reference's name, or
    None when none is left), their positions, and whether those are rough (a reference of another
    grid than the board's, followed for want of the run's own growth)."""

    follows: str | None
    states: list[int]
    rough: bool


def projection(measured: list[int], shape: Shape, grid: str, last: int) -> Projection:
    """The levels after the measured ones up to `last`, for a board of `grid`: a reference of the
    same grid where there is one (triangle-9's levels 13-16 from its 0-12: 0.5-5.6 % high by
    triangle-8's shape, 1.6-19 % by its own growth), else the run's own growth where it can be
    followed, else the nearest reference, roughly."""
    if len(measured) > last or not measured or measured[-1] == 0:
        return Projection(None, [], False)
    reference = reference_for(shape.holes)
    same_grid = load_board(reference).grid == grid
    own = None if same_grid else own_growth(measured, shape, last)
    if own is not None:
        return Projection(OWN_GROWTH, own, False)
    return Projection(reference, projected_states(measured, shape, reference, last), not same_grid)


def own_growth(measured: list[int], shape: Shape, last: int) -> list[int] | None:
    """Positions of the levels after the measured ones, up to level `last`, by the line through
    the logarithms of the last TREND_LEVELS growths (each level capped at the positions it can
    hold); None unless those levels are sizable and their growth already falls, level by level
    (before that the line would rise for ever)."""
    first = len(measured) - 1 - TREND_LEVELS
    if first < 0 or min(measured[first:]) < SIZABLE:
        return None
    levels = range(first + 1, len(measured))
    logs = [log(measured[k] / measured[k - 1]) for k in levels]
    if any(later >= earlier for earlier, later in pairwise(logs)):
        return None
    slope, intercept = linear_regression(levels, logs)
    states, count = [], float(measured[-1])
    for k in range(len(measured), last + 1):
        count = min(count * exp(intercept + slope * k), shape.capacity(shape.start_pegs - k))
        states.append(max(1, int(count)))
    return states


def reference_for(holes: int) -> str:
    """The reference whose shape a board's projected levels follow: the largest smaller than the
    board (never the board's own counts: the projection is checked against them), else the
    smallest."""
    sizes = sorted((load_board(name).holes, name) for name in REFERENCES)
    fitting = [name for size, name in sizes if size < holes]
    return fitting[-1] if fitting else sizes[0][1]


def projected_states(measured: list[int], shape: Shape, reference: str | None, last: int) -> list[int]:
    """Positions of the levels after the measured ones, up to level `last`: the reference's share
    shifted by a third of the holes the board adds, raised to the power that meets the measured
    levels (a share of 1 stays 1: a saturated level holds every position it can)."""
    if reference is None:
        return []
    board = load_board(reference)
    theirs = Shape.of(SearchSpec.asked(board, None, "board", False, False))
    shares = [count / theirs.capacity(theirs.start_pegs - k)
              for k, count in enumerate(REFERENCES[reference])]

    def share(x: float) -> float:
        """The reference's share at level `x` (between levels: geometric interpolation)."""
        if x <= 0 or x >= len(shares) - 1:
            return shares[0] if x <= 0 else shares[-1]
        low, t = int(x), x - int(x)
        return exp(log(shares[low]) * (1 - t) + log(shares[low + 1]) * t)

    shift = (shape.holes - theirs.holes) / 3
    sizable = [k for k, count in enumerate(measured) if count >= SIZABLE
               and 0 < share(k - shift) < 1 and count < shape.capacity(shape.start_pegs - k)][-2:]
    power = sum(log(measured[k] / shape.capacity(shape.start_pegs - k)) / log(share(k - shift))
                for k in sizable) / len(sizable) if sizable else 1.0
    return [max(1, int(min(1.0, share(k - shift) ** power) * shape.capacity(shape.start_pegs - k)))
            for k in range(len(measured), last + 1)]

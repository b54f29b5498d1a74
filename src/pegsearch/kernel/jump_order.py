"""The order the depth-first search tries a position's jumps in, in one place.

A line that strands no peg and draws the pegs together is the likeliest to finish, so a jump's
score is STRANDED for each peg it leaves with no neighbour plus `spread`, how much it spreads the
pegs out; the kernel (kernel.depth_first) tries the lowest first. A restart of the solver
(answers.solver) tries them in a shuffled order: each score shifted by noise of up to the spread's
deviation, every other restart plus RESTART_NOISE stranded pegs (`restart_spread`), so a jump a
stranded peg behind is sometimes tried first. docs/history.md has how these were found.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from pegsearch.board.geometry import Board

# What a peg stranded by a jump (no peg beside it) costs the jump's score, against its spread.
STRANDED = 30
# How far a restart's noise may move a jump, in stranded pegs' cost, beyond the spread's deviation.
RESTART_NOISE = 3


@cache
def spread(board: Board, finish: int | None = None) -> list[int]:
    """Each jump's change of the pegs' spread: the squared distances of its holes from a point
    (in the plane: a triangle's rows are sqrt(3)/2 apart), landing less leaving, in quarters. The
    point is the board's middle, or halfway from it to `finish`. Trying the jumps that draw pegs
    in first clears the edges while they still have pegs to clear them with."""
    plane = [(q + r / 2, r * math.sqrt(3) / 2) if board.grid == "triangle" else (q, r)
             for q, r in board.lattice]
    middle = (sum(x for x, _ in plane) / len(plane), sum(y for _, y in plane) / len(plane))
    if finish is not None:
        middle = tuple((m + f) / 2 for m, f in zip(middle, plane[finish - 1], strict=True))
    far = [round(4 * math.dist(point, middle) ** 2) for point in plane]
    return [far[j.to - 1] - far[j.start - 1] - far[j.over - 1] for j in board.jumps]


def restart_spread(first: np.ndarray, noise: np.random.Generator, wide: bool) -> np.ndarray:
    """The spread a restart searches with: the first order's, each jump shifted by noise of up to
    the spread's deviation, and `wide`, RESTART_NOISE stranded pegs' cost beyond it. The solver
    alternates the two: the wide noise found triangle-9's hard wins that begin with a stranding
    jump, but alone it lost every win of diamond-41's survey (20 pairs won at 60 s with the
    narrow noise, none with the wide), whose lines the first order nearly follows."""
    reach = max(1.0, float(first.std())) + (RESTART_NOISE * STRANDED if wide else 0)
    return first + (noise.random(len(first)) * reach).astype(np.int64)

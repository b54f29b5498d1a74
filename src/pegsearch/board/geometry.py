"""Boards: holes, legal jumps and the symmetry group, derived from a layout drawn on a grid.

A board file draws its holes as text; the geometry (which triples of holes are jump lines, which
permutations of holes are symmetries) is derived from the grid, never written by hand, so a new
board needs nothing but its drawing. Holes are numbered from 1, row by row, left to right; bit
``i - 1`` of a position is hole ``i``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from itertools import product

from pegsearch.errors import InputError

MAX_HOLES = 64
PEG, EMPTY = "o", "."

# Unit steps of each grid, in lattice coordinates. Square grids: (column, row) with holes two text
# columns apart. Triangle grid: axial coordinates (q, r) of the triangular lattice, where the text
# draws row r shifted by one column per row, so text column = 2q + r.
GRID_STEPS: dict[str, tuple[tuple[int, int], ...]] = {
    "square": ((1, 0), (-1, 0), (0, 1), (0, -1)),
    "square-diagonal": ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)),
    "triangle": ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)),
}
# The point groups that preserve each lattice: a square grid's 8 and a triangle grid's 12 isometries.
# Diagonal jumps do not change the lattice, so square-diagonal shares the square group.
LATTICE_STEPS = {"square": GRID_STEPS["square"], "square-diagonal": GRID_STEPS["square"],
                 "triangle": GRID_STEPS["triangle"]}


@dataclass(frozen=True)
class Jump:
    """A jump from `start` over `over` into `to`; legal when start and over hold pegs and to is empty."""

    start: int
    over: int
    to: int

    def __str__(self) -> str:
        return f"{self.start}-{self.over}-{self.to}"


@dataclass(frozen=True)
class Board:
    """A board: its drawing plus everything derived from it.

    `cells` are the holes' text coordinates (column, row) in hole order; `empty` lists the holes
    drawn empty, which is the default start.
    """

    name: str
    grid: str
    layout: str
    cells: tuple[tuple[int, int], ...]
    empty: tuple[int, ...]
    description: str = ""
    source: str = field(default="", compare=False)

    @property
    def holes(self) -> int:
        return len(self.cells)

    @cached_property
    def lattice(self) -> tuple[tuple[int, int], ...]:
        """Lattice coordinates of every hole, in hole order."""
        return tuple(_to_lattice(self.grid, col, row) for col, row in self.cells)

    @cached_property
    def jumps(self) -> tuple[Jump, ...]:
        """Every jump of the board, ordered by starting hole then direction."""
        where = {point: hole for hole, point in enumerate(self.lattice, start=1)}
        found = []
        for hole, (q, r) in enumerate(self.lattice, start=1):
            for dq, dr in GRID_STEPS[self.grid]:
                over = where.get((q + dq, r + dr))
                to = where.get((q + 2 * dq, r + 2 * dr))
                if over and to:
                    found.append(Jump(hole, over, to))
        return tuple(found)

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetry group as permutations: ``perm[i]`` is the image of hole ``i + 1``.

        Found as the isometries of the lattice (a point-group element followed by the translation
        that lines up the smallest points) that map the set of holes onto itself. The identity is
        first.
        """
        points = self.lattice
        where = {point: index for index, point in enumerate(points)}
        anchor = min(points)
        found: list[tuple[int, ...]] = []
        for matrix in _point_group(self.grid):
            image = [_apply(matrix, p) for p in points]
            low = min(image)
            shift = (anchor[0] - low[0], anchor[1] - low[1])
            moved = [(x + shift[0], y + shift[1]) for x, y in image]
            if all(p in where for p in moved):
                perm = tuple(where[p] for p in moved)
                if perm not in found:
                    found.append(perm)
        found.sort(key=lambda perm: perm != tuple(range(len(points))))
        return tuple(found)

    @cached_property
    def digest(self) -> str:
        """A hash of the geometry (grid and holes), so a stored run can be matched to its board."""
        text = self.grid + ";" + ";".join(f"{c},{r}" for c, r in self.cells)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def stabilizer(self, position: int) -> tuple[tuple[int, ...], ...]:
        """The symmetries that map `position` onto itself (the identity first).

        Reducing by this subgroup rather than the whole group keeps every answer exact per hole:
        the positions reachable from a start, and their path counts, are invariant under it.
        """
        return tuple(perm for perm in self.symmetries
                     if all(position >> perm[i] & 1 for i in range(self.holes) if position >> i & 1))

    def hole_of(self, number: int, field: str = "start") -> int:
        """Check a hole number the user gave in `field` (a start, or a finish) and return it."""
        if not 1 <= number <= self.holes:
            raise InputError("{" + field + "} {number}: hole {number} does not exist on {name}; holes"
                             " are numbered 1 to {holes} (see {board})", self.name, number=number,
                             name=self.name, holes=self.holes)
        return number

    def start_position(self, empty: tuple[int, ...] | None = None) -> int:
        """The position with pegs everywhere except `empty` (default: the holes drawn empty), each
        hole named once: the rule a position's holes follow (a start of 10,000 ones was taken)."""
        holes = self.empty if empty is None else tuple(self.hole_of(h) for h in empty)
        twice = sorted(hole for hole, named in Counter(holes).items() if named > 1)
        if twice:
            listed = " ".join(map(str, holes[:8])) + (f" … ({len(holes):,} holes)" if len(holes) > 8 else "")
            raise InputError("{start} {listed}: hole {twice} is named more than once; name each hole"
                             " empty at the start once", listed=listed, twice=", ".join(map(str, twice)))
        full = (1 << self.holes) - 1
        return full & ~sum(1 << (h - 1) for h in set(holes))

    def definition(self) -> dict[str, str]:
        """What a run directory stores so that any engine can rebuild this board without its file."""
        return {"name": self.name, "description": self.description, "grid": self.grid,
                "layout": self.layout}


def _to_lattice(grid: str, col: int, row: int) -> tuple[int, int]:
    if grid == "triangle":
        return ((col - row) // 2, row)
    return (col // 2, row)


def _apply(matrix: tuple[int, int, int, int], point: tuple[int, int]) -> tuple[int, int]:
    a, b, c, d = matrix
    return (a * point[0] + b * point[1], c * point[0] + d * point[1])


def _point_group(grid: str) -> list[tuple[int, int, int, int]]:
    """The integer matrices that permute the lattice's unit steps: its isometries fixing a point."""
    steps = set(LATTICE_STEPS[grid])
    return [m for m in product((-1, 0, 1), repeat=4)
            if abs(m[0] * m[3] - m[1] * m[2]) == 1 and {_apply(m, s) for s in steps} == steps]


def legal_jumps(board: Board, position: int) -> list[tuple[Jump, int]]:
    """Every legal jump of one real position, with the position it leads to."""
    moves = []
    for jump in board.jumps:
        if position >> (jump.start - 1) & 1 and position >> (jump.over - 1) & 1 \
                and not position >> (jump.to - 1) & 1:
            flip = (1 << (jump.start - 1)) | (1 << (jump.over - 1)) | (1 << (jump.to - 1))
            moves.append((jump, position ^ flip))
    return moves

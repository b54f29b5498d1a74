"""Position classes: the parities no jump can change, derived from the board's jumps.

A jump flips three holes (start, over, to). For a set S of holes, the parity of the pegs in S is
unchanged by every jump exactly when every jump line meets S in an even number of holes; such sets
form a vector space over GF(2) (de Bruijn's and Conway's position classes on the square boards,
Bell's on the triangular ones). A position's class is its parities on a basis of that space: every
position reachable from a start is in the start's class, so a level holds only the positions of
one class, a 2**-d share of those with its peg count on a board with d independent invariants.
"""

from __future__ import annotations

from pegsearch.board.geometry import Board
from pegsearch.board.symmetry import Permutation, image_of_position


def invariants(board: Board) -> tuple[int, ...]:
    """A basis of the hole sets (as bit masks) that every jump line meets an even number of times.

    Found as the null space over GF(2) of the jumps' flip masks, by Gaussian elimination.
    """
    flips = {(1 << (j.start - 1)) | (1 << (j.over - 1)) | (1 << (j.to - 1)) for j in board.jumps}
    rows: list[int] = []  # reduced row echelon form of the flips, as hole masks
    pivots: list[int] = []
    for flip in sorted(flips):
        for row, pivot in zip(rows, pivots, strict=True):
            if flip >> pivot & 1:
                flip ^= row
        if flip:
            pivot = flip.bit_length() - 1
            for index, row in enumerate(rows):
                if row >> pivot & 1:
                    rows[index] = row ^ flip
            rows.append(flip)
            pivots.append(pivot)
    free = [hole for hole in range(board.holes) if hole not in pivots]
    basis = []
    for hole in free:  # one solution a free hole: it, plus the pivots its column sets
        mask = 1 << hole
        for row, pivot in zip(rows, pivots, strict=True):
            if row >> hole & 1:
                mask |= 1 << pivot
        basis.append(mask)
    return tuple(basis)


def class_of(position: int, basis: tuple[int, ...]) -> int:
    """A position's class: bit i is the parity of its pegs in `basis[i]`."""
    return sum(((position & mask).bit_count() & 1) << i for i, mask in enumerate(basis))


def kept_by(group: tuple[Permutation, ...], start: int, basis: tuple[int, ...]) -> bool:
    """Whether taking signatures under `group` keeps every position of a search from `start` in
    the start's class (always for the symmetries fixing the start, or none; for a larger group
    when each of its symmetries carries the start's class onto itself)."""
    home = class_of(start, basis)
    return all(class_of(image_of_position(perm, start), basis) == home for perm in group)

"""Symmetries acting on holes, positions and jumps (a permutation maps hole h to perm[h - 1] + 1).

The kernel applies symmetries as byte tables; answers need them one position or hole at a time
(carrying a solution onto a finishing hole, a survey's result onto every hole of a class), which is
this module's plain-Python arithmetic.
"""

from __future__ import annotations

from pegsearch.board.geometry import Board, Jump

Permutation = tuple[int, ...]


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

"""Mover classes: the holes a peg can stand on, and the holes it can jump over from them.

A jump takes its peg from its start to its landing hole, so a peg only ever stands on the holes
joined to its own by jumps: its mover class (on the triangles and the square boards, the four
classes of a hole's row and column parities). A peg is removed only by a peg of another class
jumping over it, and only where that class's jumps pass over its hole (a bottom edge's hole, say,
only by the class that jumps along the edge). So a position says which pegs no move of a given
set of classes can remove: each must move itself, a move of its own. That is the fewest-moves
walk's second lower bound (kernel.move_bound), beside the Merson regions (board.regions).
"""

from __future__ import annotations

from functools import cache

from pegsearch.board.geometry import Board


@cache
def mover_classes(board: Board) -> tuple[tuple[int, int], ...]:
    """Each mover class as (its holes, the holes its pegs jump over), bit masks, in the order of
    their lowest holes; a hole no jump starts or lands on is a class of its own, jumping over
    nothing."""
    joined = list(range(board.holes + 1))

    def root(hole: int) -> int:
        while joined[hole] != hole:
            joined[hole] = joined[joined[hole]]
            hole = joined[hole]
        return hole

    for jump in board.jumps:
        joined[root(jump.start)] = root(jump.to)
    holes: dict[int, int] = {}
    for hole in range(1, board.holes + 1):
        holes[root(hole)] = holes.get(root(hole), 0) | 1 << (hole - 1)
    overs = dict.fromkeys(holes, 0)
    for jump in board.jumps:
        overs[root(jump.start)] |= 1 << (jump.over - 1)
    return tuple((holes[r], overs[r]) for r in sorted(holes, key=lambda r: holes[r] & -holes[r]))

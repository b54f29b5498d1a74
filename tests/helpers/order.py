"""The depth-first walk's scores of a position's jumps, in plain Python: a second engine for the
order the kernel tries them in."""

from __future__ import annotations

from pegsearch.board.geometry import Board, legal_jumps
from pegsearch.kernel.jump_order import STRANDED, spread


def plain_scores(board: Board, position: int) -> dict[int, int]:
    """Each legal jump's score by its board number: STRANDED for each peg its child leaves with
    no peg beside it (counted one by one), plus the jump's spread."""
    near: dict[int, set[int]] = {hole: set() for hole in range(1, board.holes + 1)}
    for jump in board.jumps:  # a hole's neighbours: those it shares a jump's start and over with
        near[jump.start].add(jump.over)
        near[jump.over].add(jump.start)
    scores = spread(board)
    number = {jump: index for index, jump in enumerate(board.jumps)}
    found = {}
    for jump, child in legal_jumps(board, position):
        pegs = {hole for hole in near if child >> (hole - 1) & 1}
        stranded = sum(1 for hole in pegs if not near[hole] & pegs)
        found[number[jump]] = STRANDED * stranded + scores[number[jump]]
    return found

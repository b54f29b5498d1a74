"""Merson regions: sets of holes that, while full, need a move to begin inside them.

A region R is a Merson region when every jump over one of its holes from outside it lands inside
it. While R is full no jump lands in it, so the first jump that changes it starts inside it: a
peg of R moves. Unless that peg made the jump before (its move goes on), that is a new move, and
disjoint regions need different moves (a move begins on one hole). A full region of two holes or
more must change before one peg is left, so the full regions of a position, disjoint, are a
lower bound on the moves still needed (kernel.move_bound), beside the corner holes (holes no jump
passes over: a region of one, which may keep its peg to the end). The name is the solitaire
literature's (Beasley, Bell), where they bound the moves of the English board's solutions.

The regions are found from the jumps alone: each hole's closed neighbourhood, each pair of
neighbours, and each four holes in a ring (a square grid's 2x2 blocks), kept where the jumps say
they are Merson regions and no corner is in them. A position's bound packs its full regions: in
one order, the smallest first, each full region disjoint from those taken before it, so that
along an edge of pairs a run of n full holes gives n // 2 wherever it begins (two fixed partitions
into disjoint regions, counted before, gave one fewer where a run began on the wrong hole, and
added nothing to the packing on triangle-8 and English).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

from pegsearch.board.geometry import Board


def corners(board: Board) -> int:
    """The holes no jump passes over (a bit mask): a peg there leaves only by moving."""
    overs = {jump.over for jump in board.jumps}
    return sum(1 << (hole - 1) for hole in range(1, board.holes + 1) if hole not in overs)


@cache
def merson_regions(board: Board) -> tuple[frozenset[int], ...]:
    """Every Merson region of the candidates (module notes) with no corner in it."""
    beside: dict[int, set[int]] = {hole: set() for hole in range(1, board.holes + 1)}
    for jump in board.jumps:
        beside[jump.start].add(jump.over)
        beside[jump.over] |= {jump.start, jump.to}
        beside[jump.to].add(jump.over)
    candidates: set[frozenset[int]] = set()
    for hole, near in beside.items():
        candidates.add(frozenset({hole, *near}))
        candidates.update(frozenset({hole, other}) for other in near)
        for one, two in combinations(sorted(near), 2):
            candidates.update(frozenset({hole, one, two, far}) for far in beside[one] & beside[two]
                              if far != hole and far not in near)
    cornered = corners(board)
    return tuple(sorted((region for region in candidates
                         if _merson(board, region) and not any(cornered >> (h - 1) & 1 for h in region)),
                        key=sorted))


def _merson(board: Board, region: frozenset[int]) -> bool:
    return all(jump.to in region for jump in board.jumps
               if jump.over in region and jump.start not in region)


@cache
def region_order(board: Board) -> tuple[int, ...]:
    """Every Merson region as a bit mask, in the order a position's full regions are packed (module
    notes): the smallest first, then by their lowest holes."""
    return tuple(sum(1 << (hole - 1) for hole in region)
                 for region in sorted(merson_regions(board), key=lambda r: (len(r), sorted(r))))

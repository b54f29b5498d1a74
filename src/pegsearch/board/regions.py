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
they are Merson regions and no corner is in them. A position's bound counts the full regions of
a few fixed partitions (regions taken disjoint, the smallest first), and takes the most.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

from pegsearch.board.geometry import Board

# The partitions a bound takes the most of: the smallest regions first, ties by the lowest holes
# and by the highest.
PARTITIONS = 2


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
def partitions(board: Board) -> tuple[tuple[int, ...], ...]:
    """PARTITIONS sets of disjoint Merson regions, each region a bit mask."""
    found = []
    for sign in (1, -1)[:PARTITIONS]:
        taken: set[int] = set()
        chosen = []
        for region in sorted(merson_regions(board), key=lambda r: (len(r), sorted(sign * h for h in r))):
            if not region & taken:
                taken |= region
                chosen.append(sum(1 << (hole - 1) for hole in region))
        found.append(tuple(chosen))
    return tuple(found)

"""The move-bounded walk: is the goal reachable from a position in at most B moves?

A move is one or more jumps by the same peg, so a jump costs a move unless its peg is the one
that made the jump before it. The walk is the depth-first kernel's (kernel.depth_first) with a
bound on moves: a jump is taken only while the moves spent, plus a lower bound on the moves still
needed, stay within B. Asked for B = 1, 2, ... in turn (answers.fewest_solver), the first B it
reaches the goal within is the fewest, proved by the B before it, each searched to the end.

- The lower bound, the larger of two: a peg on a corner (a hole no jump passes over) leaves it
  only by moving, one move each, unless it is the peg that moved last (its move may go on) or it
  stays to the end on a goal hole (one such peg); and a full Merson region needs a move to begin
  inside it, one each for disjoint regions, unless the peg that moved last is in it: the full
  regions are packed in one order, each disjoint from those taken before it (board.regions).
  The second asks which mover classes (board.movers) the moves still to come are made by. For
  each set of classes, the pegs no peg of them (nor the last moved peg, going on) can jump over
  are stuck: each must make a move of its own (the last peg left is the last to have moved), so
  every class holding a stuck peg is in the set, a class in the set makes a move at least, and
  the stuck pegs and the full regions without a stuck peg (packed as above) need a move each, by
  different pegs. The fewest moves over every set is a bound; from triangle-9's apex it leaves
  B = 15 to search in 260 K positions, where the first alone left 62-289 M (the table's size),
  and B = 16 in 50 M.
- The table of states known short: a state is a position and the hole of the peg that moved last
  (the same position with another last peg may need a move more), kept by its signature under
  the goal's group with that hole carried by the symmetry that makes it, with the most moves
  proved too few from it. A state met again with no more moves left is skipped. The table is
  bounded and lossy (where a key's slots are full, the entry of the fewest moves goes); forgetting
  costs time, never correctness, and what it holds stays true for every B, so one table serves
  every bound asked.
- The goal's pagoda functions rule out a child as in the depth-first walk.

The walk is resumable as kernel.depth_first's is: its state is arrays, a call spends a budget of
positions and returns.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from pegsearch.board.geometry import Board
from pegsearch.board.movers import mover_classes
from pegsearch.board.regions import corners, region_order
from pegsearch.kernel.depth_first import (
    EXAMINED,
    LOST,
    PROBES,
    RUNNING,
    WON,
    Goal,
    Stack,
    _apart,
    _home,
    rooted,
    weighed,
)
from pegsearch.kernel.expand import legal_word
from pegsearch.kernel.ranks import popcount
from pegsearch.kernel.tables import BoardTables

# The last hole of a state no peg has moved into yet (the root): no jump goes on a move.
NO_HOLE = 255
# A jump that goes on the last move is tried before every jump that starts a new one.
NEW_MOVE = 1 << 40
# The most mover classes the second bound takes: it tries every set of them (2 ** classes sets;
# the boards shipped have 4). A board of more goes by the first bound alone.
MOST_CLASSES = 6
# More moves than any position needs: a set of classes that leaves a stuck peg unmoved.
NEVER = 1 << 20

class MoveGoal(NamedTuple):
    """What the move-bounded walk adds to a goal (in the goal's jump order): each jump's start and
    landing holes, its landing hole's image under each symmetry of the goal's group, and what
    the lower bound counts."""

    starts: np.ndarray  # int64 [jumps]
    lands: np.ndarray  # int64 [jumps]
    landing_images: np.ndarray  # uint64 [jumps, symmetries]
    corners: np.ndarray  # uint64 [1]: the holes no jump passes over
    regions: np.ndarray  # uint64 [regions]: the Merson regions in packing order (board.regions)
    classes: np.ndarray  # uint64 [classes]: each mover class's holes (none: past MOST_CLASSES)
    overs: np.ndarray  # uint64 [classes]: the holes each class's pegs jump over
    class_of: np.ndarray  # int64 [holes]: each hole's class

    @classmethod
    def compiled(cls, board: Board, tables: BoardTables, goal: Goal) -> MoveGoal:
        """The goal's moves on `tables` (the goal's group), with `board`'s corners, Merson regions
        in packing order and mover classes (bit masks)."""
        at = goal.order
        movers = mover_classes(board)
        class_of = [next(k for k, (holes, _) in enumerate(movers) if holes >> hole & 1)
                    for hole in range(board.holes)]
        if len(movers) > MOST_CLASSES:
            movers = ()
        return cls(np.array([trailing(int(tables.leave[j])) for j in at], dtype=np.int64),
                   np.array([trailing(int(tables.free[j])) for j in at], dtype=np.int64),
                   np.ascontiguousarray(tables.landing_images[at]),
                   np.array([corners(board)], dtype=np.uint64),
                   np.array(region_order(board), dtype=np.uint64),
                   np.array([holes for holes, _ in movers], dtype=np.uint64),
                   np.array([overs for _, overs in movers], dtype=np.uint64),
                   np.array(class_of, dtype=np.int64))


def trailing(bit: int) -> int:
    """The hole (from 0) of a one-bit mask."""
    return bit.bit_length() - 1


def new_short_table(slots: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty table of states known short: signatures (0: free), last holes and moves proved
    too few, `slots` of each (a power of two)."""
    slots = max(slots, PROBES)
    return (np.zeros(slots, dtype=np.uint64), np.zeros(slots, dtype=np.uint8),
            np.zeros(slots, dtype=np.uint8))


@numba.njit(cache=True, nogil=True)
def _short(keys, holes, moves, key, hole, left):
    """Whether the state (key, hole) is known to need more than `left` moves."""
    mask = len(keys) - 1
    slot = _home(keys, key)
    for probe in range(PROBES):
        at = (slot + probe) & mask
        if keys[at] == key and holes[at] == hole:
            return moves[at] >= left
        if keys[at] == 0:
            return False
    return False


@numba.njit(cache=True, nogil=True)
def _keep_short(keys, holes, moves, key, hole, left):
    """Keep that the state (key, hole) needs more than `left` moves; where its slots are full, the
    entry of the fewest moves goes (the cheapest to prove again), unless `left` is fewer still."""
    mask = len(keys) - 1
    slot = _home(keys, key)
    cheapest, least = -1, left
    for probe in range(PROBES):
        at = (slot + probe) & mask
        if keys[at] == key and holes[at] == hole:
            moves[at] = max(moves[at], left)
            return
        if keys[at] == 0:
            keys[at], holes[at], moves[at] = key, hole, left
            return
        if moves[at] < least:
            cheapest, least = at, moves[at]
    if cheapest >= 0:
        keys[cheapest], holes[cheapest], moves[cheapest] = key, hole, left


@numba.njit(cache=True, nogil=True, inline="always")
def needed(position, last, moves_goal, mask):
    """At least the moves still needed from `position` whose last moved peg stands on `last`
    (a one-bit mask; 0 for none), the larger of the module notes' two bounds: its other pegs on
    corners, less one that may stay on a goal hole, and its full Merson regions without `last`,
    packed disjoint (`_by_regions`); or the fewest moves the mover classes allow (`_by_classes`)."""
    return max(_by_regions(position, last, moves_goal, mask),
               _by_classes(position, last, moves_goal, -1))


@numba.njit(cache=True, nogil=True, inline="always")
def beyond(position, last, moves_goal, mask, left):
    """Whether `needed` passes `left`, each bound worked out only as far as that takes: the walk
    asks no more of a child, and the second bound stops at the first set of classes within
    `left` (tried whole, it was two thirds of the walk's time on triangle-9)."""
    return _by_regions(position, last, moves_goal, mask) > left or \
        _by_classes(position, last, moves_goal, left) > left


@numba.njit(cache=True, nogil=True, inline="always")
def _by_regions(position, last, moves_goal, mask):
    """The pegs on corners but `last`, less one that may stay on a goal hole, and the full
    regions without `last`, packed."""
    cornered = position & moves_goal.corners[0] & ~last
    return popcount(cornered) - (1 if cornered & mask else 0) + \
        _packed(position, last, moves_goal.regions)


@numba.njit(cache=True, nogil=True, inline="always")
def _packed(position, taken, regions):
    """The full regions of `position` packed in order, each disjoint from `taken` and those taken
    before it."""
    full = 0
    for region in regions:
        if position & region == region and not region & taken:
            full += 1
            taken |= region
    return full


@numba.njit(cache=True, nogil=True, inline="always")
def _by_classes(position, last, moves_goal, enough):
    """The fewest moves still needed, over every set of mover classes the moves to come may be
    made by (the module notes' second bound; 0 for one peg, or a board of too many classes), or
    the first found within `enough` (-1: the fewest)."""
    classes, overs = moves_goal.classes, moves_goal.overs
    if len(classes) == 0 or position & (position - np.uint64(1)) == 0:
        return 0
    going = overs[moves_goal.class_of[trailing_zeros(last)]] if last else np.uint64(0)
    rest = position & ~last
    best = NEVER
    for chosen in range(1 << len(classes)):
        if 0 <= enough < popcount(np.uint64(chosen)):
            continue  # a move for each class chosen is already more than `enough`
        cover = going
        for k in range(len(classes)):
            if chosen >> k & 1:
                cover |= overs[k]
        stuck = rest & ~cover
        moves = 0
        for k in range(len(classes)):
            held = popcount(stuck & classes[k])
            if chosen >> k & 1:
                moves += max(1, held)
            elif held:
                moves = NEVER
                break
        if moves < best:  # the stuck pegs and the other full regions, a peg each
            best = min(best, max(moves, popcount(stuck) + _packed(position, stuck | last,
                                                                   moves_goal.regions)))
            if best <= enough:
                break
    return best


@numba.njit(cache=True, nogil=True, inline="always")
def _state(images, d, landing_images, j):
    """The key of depth d's state, reached by jump j (-1: the root): its signature, and its last
    hole carried by the first symmetry that makes the signature."""
    best, at = images[d, 0], 0
    for g in range(1, images.shape[1]):
        if images[d, g] < best:
            best, at = images[d, g], g
    if j < 0:
        return best, NO_HOLE
    return best, trailing_zeros(landing_images[j, at])


@numba.njit(cache=True, nogil=True)
def _enter(d, stack, goal, moves_goal):
    """List depth d's legal jumps, those going on with the last moved peg first, then by how
    little they spread the pegs; returns how many."""
    need, flip, spread = goal.need, goal.flip, goal.spread
    s = stack.walk
    position, last = s.positions[d], stack.last[d]
    jumps, scores = s.jumps, s.scores
    n = 0
    for word in range(len(need) // 64):
        legal = legal_word(position, need, flip, word)
        while legal:
            j = 64 * word + trailing_zeros(legal)
            legal &= legal - np.uint64(1)
            score = spread[j] + (0 if moves_goal.starts[j] == last else NEW_MOVE)
            at = n
            while at > 0 and scores[at - 1] > score:
                scores[at] = scores[at - 1]
                jumps[d, at] = jumps[d, at - 1]
                at -= 1
            scores[at] = score
            jumps[d, at] = j
            n += 1
    s.count[d] = n
    s.next[d] = 0
    return n


@numba.njit(cache=True, nogil=True)
def begin(stack, goal, moves_goal, bound):
    """Put the root (positions[0], no peg moved yet) on the stack for a search within `bound`
    moves: WON (one peg on a goal hole already), LOST (nothing to search within the bound) or
    RUNNING."""
    s = stack.walk
    root = s.positions[0]
    stack.last[0], stack.moves[0], s.path[0] = -1, 0, -1
    s.top[0] = -1
    if not rooted(s, goal):
        return LOST
    if root & (root - np.uint64(1)) == 0:
        return WON if root & goal.mask else LOST
    if beyond(root, np.uint64(0), moves_goal, goal.mask, bound) or \
            _enter(0, stack, goal, moves_goal) == 0:
        return LOST
    s.top[0] = 0
    return RUNNING


@numba.njit(cache=True, nogil=True)
def walk(stack, goal, moves_goal, keys, holes, shorts, bound, budget):
    """Go on with the search within `bound` moves for up to `budget` positions: WON (the stack is
    a line within the bound), LOST (none is: the root is exhausted) or RUNNING. Every state whose
    jumps were all tried is kept as needing more than the moves it had left."""
    positions, images, weights, jumps, _, count, next_, path, top, counts, _ = stack.walk
    moves, last = stack.moves, stack.last
    flip, flip_images, changes, thresholds, mask = (goal.flip, goal.flip_images, goal.changes,
                                                    goal.thresholds, goal.mask)
    starts, lands, landing_images = moves_goal.starts, moves_goal.lands, moves_goal.landing_images
    symmetries = images.shape[1]
    while budget > 0:
        d = top[0]
        if d < 0:
            return LOST
        if next_[d] == count[d]:  # every jump tried: this state needs more than its moves left
            key, hole = _state(images, d, landing_images, path[d])
            _keep_short(keys, holes, shorts, key, hole, bound - moves[d])
            top[0] = d - 1
            if d == 0:
                return LOST
            continue
        j = jumps[d, next_[d]]
        next_[d] += 1
        spent = moves[d] + (0 if starts[j] == last[d] else 1)
        if spent > bound:
            continue
        child = positions[d] ^ flip[j]
        if beyond(child, np.uint64(1) << np.uint64(lands[j]), moves_goal, mask, bound - spent):
            continue
        c = d + 1
        if not weighed(weights, changes, thresholds, d, j):
            continue
        for image in range(symmetries):
            images[c, image] = images[d, image] ^ flip_images[j, image]
        key, hole = _state(images, c, landing_images, j)
        if _short(keys, holes, shorts, key, hole, bound - spent):
            continue
        budget -= 1
        counts[EXAMINED] += 1
        positions[c], moves[c], last[c], path[c] = child, spent, lands[j], j
        if child & (child - np.uint64(1)) == 0:
            if child & mask:
                top[0] = c
                return WON
            continue
        if _enter(c, stack, goal, moves_goal) > 0:
            top[0] = c
    return RUNNING


class Moves(NamedTuple):
    """A move-bounded walk's stack: the depth-first walk's (kernel.depth_first.Stack, its `keys`
    unused) with, at each depth, the moves spent reaching it and the hole of the peg that moved
    last (-1: none)."""

    walk: Stack
    moves: np.ndarray
    last: np.ndarray

    @classmethod
    def empty(cls, goal: Goal, holes: int) -> Moves:
        """An empty stack deep enough for a board of `holes` holes."""
        return cls(Stack.empty(goal, holes), _apart(holes + 1, np.int32), _apart(holes + 1, np.int32))

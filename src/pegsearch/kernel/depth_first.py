"""The depth-first kernel: one question (a position, a goal) answered by a search that backtracks.

Where the breadth-first levels hold every position, this walk holds one line of play: a stack of
positions, each with its legal jumps in the order to try them. It stops at the first position with
one peg on a goal hole (won), or when every line is exhausted (lost). What makes it quick is what it
does not visit:

- a dead table: the signatures of positions proved unable to reach the goal (every jump tried), so
  a position met again by another order of the same jumps, or as a symmetric image, is skipped;
- a won table: the signatures of the positions on a line that reached the goal, so asking again
  (the same player's next hint, another start) follows that line at once: a position whose child is
  in it tries that child first;
- pagoda functions: integer weights on the holes that no jump increases (the jump's landing hole
  weighs at most its start and over holes together), so a position weighing less than the goal
  cannot reach it; a child's weight is its parent's less the jump's change, one subtraction each;
- an endgame, when the goal has one (kernel.endgame): below its few pegs a child is looked up, not
  searched, and one not there is dead.

Both tables are bounded, and lossy: where a key's slots are full, the key with the fewest pegs
goes. Forgetting costs time, never correctness, since a position is only ever written to the table
that its own search proved. Each child's slot is asked for as soon as its signature is known, while
its parent's jumps are still being listed (kernel.prefetch), so the cache misses of a position's
children overlap each other and that listing.

The walk is resumable: its whole state is in `Walk`'s arrays, so a call spends a budget of
positions and returns, and the caller checks the clock, an interrupt, or asks again. Signatures
are taken under a group that keeps the goal (each symmetry maps the goal holes onto themselves),
so a position and its images share every verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from pegsearch.kernel.expand import image_of, legal_word
from pegsearch.kernel.jump_order import STRANDED
from pegsearch.kernel.members import MIX, Members, home, member
from pegsearch.kernel.prefetch import prefetch
from pegsearch.kernel.ranks import popcount
from pegsearch.kernel.tables import BoardTables

# What a call of `walk` ends with.
RUNNING, WON, LOST = 0, 1, 2
# Slots probed for a key before one is overwritten.
PROBES = 4
# The counters a walk keeps, as indices into its `counts`.
EXAMINED, EVICTIONS = 0, 1
# Bytes kept clear around each array a walk writes (`_apart`): two cache lines, which some cores
# fetch in pairs.
APART = 128


def new_table(slots: int) -> np.ndarray:
    """An empty dead or won table of `slots` signatures (a power of two; 0 marks a free slot:
    a position always holds a peg, so no signature is 0)."""
    return np.zeros(max(slots, PROBES), dtype=np.uint64)


@numba.njit(cache=True, nogil=True, inline="always")
def _home(table, key):
    """The first slot to probe: the high half of the key times Fibonacci's multiplier, which mixes
    every bit of the key into it (tables hold at most 2**32 slots)."""
    return np.int64(((key * MIX) >> np.uint64(32)) & np.uint64(len(table) - 1))


@numba.njit(cache=True, nogil=True)
def holds(table, key):
    """Whether `key` is in the table."""
    mask = len(table) - 1
    slot = _home(table, key)
    for probe in range(PROBES):
        found = table[(slot + probe) & mask]
        if found == key:
            return True
        if found == 0:
            return False
    return False


@numba.njit(cache=True, nogil=True)
def keep(table, key):
    """Put `key` in the table; where its slots are all taken, it replaces the key with the fewest
    pegs (a signature's bits are its pegs), whose search was the cheapest to make again, unless
    `key` has fewer still. Returns 1 when a key was lost."""
    mask = len(table) - 1
    slot = _home(table, key)
    cheapest, least = -1, popcount(key)
    for probe in range(PROBES):
        at = (slot + probe) & mask
        if table[at] == key:
            return 0
        if table[at] == 0:
            table[at] = key
            return 0
        pegs = popcount(table[at])
        if pegs <= least:
            cheapest, least = at, pegs
    if cheapest >= 0:
        table[cheapest] = key
    return 1


@numba.njit(cache=True, nogil=True, inline="always")
def _least(images, d):
    best = images[d, 0]
    for g in range(1, images.shape[1]):
        best = min(best, images[d, g])
    return best


@numba.njit(cache=True, nogil=True, inline="always")
def _alone(position, among, neighbours):
    """The pegs of `position` within `among` that have no peg beside them: each needs another
    to come to it."""
    alone = np.uint64(0)
    rest = position & among
    while rest:
        hole = trailing_zeros(rest)
        peg = np.uint64(1) << np.uint64(hole)
        rest ^= peg
        if position & neighbours[hole] == 0:
            alone |= peg
    return alone


@numba.njit(cache=True, nogil=True, inline="always")
def _enter(d, stack, goal, mask, dead, endgame, shift, below):
    """Make depth d ready to explore: WON when it is one peg on a goal hole, LOST when it has no
    jump left, else RUNNING with its legal jumps listed best first, each with its child's
    signature (`keys`): a line that strands no peg and draws the pegs together is the likeliest
    to finish, so a jump's score is STRANDED for each peg left with no neighbour plus `spread[j]`,
    how much it spreads the pegs out (ties: the order given). A jump changes whether a peg is
    alone only `near` its holes, so the parent's lone pegs elsewhere are counted once, not again
    for each jump (a third of the search's time, counted whole for each child). The legal jumps
    are found 64 at a time, without a branch (kernel.expand's test), and listed in the order
    given. Each child's slot (the endgame's where it has few pegs, `below`, else the dead
    table's) is asked for as soon as its signature is known (kernel.prefetch), so the misses
    overlap each other and the scoring of the jumps after it: asked for once all were scored,
    the first child's, looked up next, was not there yet."""
    images, jumps, keys, count, next_, scores = (stack.images, stack.jumps, stack.keys, stack.count,
                                                 stack.next, stack.scores)
    need, flip, flip_images, neighbours, near, spread = (goal.need, goal.flip, goal.flip_images,
                                                         goal.neighbours, goal.near, goal.spread)
    position = stack.positions[d]
    if position & (position - np.uint64(1)) == 0:
        return WON if position & mask else LOST
    alone = _alone(position, position, neighbours)
    n = 0
    for word in range(len(need) // 64):
        legal = legal_word(position, need, flip, word)
        while legal:
            j = 64 * word + trailing_zeros(legal)
            legal &= legal - np.uint64(1)
            key = images[d, 0] ^ flip_images[j, 0]
            for image in range(1, images.shape[1]):
                key = min(key, images[d, image] ^ flip_images[j, image])
            if below:
                prefetch(endgame, home(shift, key))
            else:
                prefetch(dead, _home(dead, key))
            child = position ^ flip[j]
            stranded = popcount(alone & ~near[j]) + popcount(_alone(child, near[j], neighbours))
            score = STRANDED * stranded + spread[j]
            at = n
            while at > 0 and scores[at - 1] > score:  # insertion: a stable sort by score
                scores[at] = scores[at - 1]
                jumps[d, at] = jumps[d, at - 1]
                keys[d, at] = keys[d, at - 1]
                at -= 1
            scores[at] = score
            jumps[d, at] = j
            keys[d, at] = key
            n += 1
    count[d] = n
    next_[d] = 0
    if n == 0:
        return LOST
    return RUNNING


@numba.njit(cache=True, nogil=True)
def _won_first(d, stack, won):
    """Move the first jump whose child's signature is in the won table to the front."""
    jumps, keys = stack.jumps, stack.keys
    for k in range(stack.count[d]):
        if holds(won, keys[d, k]):
            jumps[d, 0], jumps[d, k] = jumps[d, k], jumps[d, 0]
            keys[d, 0], keys[d, k] = keys[d, k], keys[d, 0]
            return


@numba.njit(cache=True, nogil=True)
def rooted(stack, goal):
    """Make the root's images and pagoda weights, and count it examined; False when a pagoda
    function rules it out."""
    root = stack.positions[0]
    for image in range(stack.images.shape[1]):
        stack.images[0, image] = image_of(root, goal.byte_images, image)
    for k in range(stack.weights.shape[1]):
        total = 0
        for hole in range(goal.pagoda_weights.shape[1]):
            if root >> np.uint64(hole) & np.uint64(1):
                total += goal.pagoda_weights[k, hole]
        stack.weights[0, k] = total
        if total < goal.thresholds[k]:
            return False
    stack.counts[EXAMINED] += 1
    return True


@numba.njit(cache=True, nogil=True)
def start(stack, goal, mask, won, dead, endgame, shift, few):
    """Put the root (positions[0]) on the stack: its images, its weights; returns WON, LOST (a
    pagoda function, the dead table or the endgame rules it out, or it has no jump) or RUNNING."""
    s = stack
    root = s.positions[0]
    if not rooted(s, goal):
        s.top[0] = -1
        return LOST
    least = _least(s.images, 0)
    if holds(dead, least) or (popcount(root) <= few and
                              not member(endgame, shift, np.uint64(len(endgame) - 1), least)):
        s.top[0] = -1
        return LOST
    ended = _enter(0, s, goal, mask, dead, endgame, shift, popcount(root) <= few + 1)
    if ended == WON:
        s.counts[EVICTIONS] += keep(won, _least(s.images, 0))
    if ended == RUNNING:
        _won_first(0, s, won)
        s.top[0] = 0
    else:
        s.top[0] = -1
    return ended


@numba.njit(cache=True, nogil=True, inline="always")
def weighed(weights, changes, thresholds, d, j):
    """Weigh the child jump j makes from depth d (at d + 1) by every pagoda function: its
    parent's weight less the jump's change. False when one rules the goal out."""
    kept = True
    for k in range(weights.shape[1]):
        weights[d + 1, k] = weights[d, k] - changes[k, j]
        if weights[d + 1, k] < thresholds[k]:
            kept = False
    return kept


@numba.njit(cache=True, nogil=True)
def walk(stack, goal, mask, won, any_won, dead, endgame, shift, few, budget):
    """Go on with the search for up to `budget` positions: WON (the stack is the line, kept in
    the won table), LOST (the root is exhausted, its signature kept as dead) or RUNNING. A child
    of at most `few` pegs not in the endgame set is dead without a look (kernel.endgame)."""
    # The arrays taken out of the tuples once, before the loop (and at the top of `_enter`, which
    # is inlined): read from the tuple at each use, numba counts a reference to the array each
    # time, and the walk ran 10-15 % slower (triangle-9 from its start, 2026-11-28).
    positions, images, weights, jumps, keys, count, next_, path, top, counts, _ = stack
    flip, flip_images, changes, thresholds = goal.flip, goal.flip_images, goal.changes, goal.thresholds
    symmetries = images.shape[1]
    ends = np.uint64(len(endgame) - 1)
    while budget > 0:
        d = top[0]
        if d < 0:  # the root was decided where it stands: nothing left to search
            return LOST
        if next_[d] == count[d]:  # every jump from here tried: dead (the endgame says so below few)
            if popcount(positions[d]) > few:
                counts[EVICTIONS] += keep(dead, _least(images, d))
            top[0] = d - 1
            if d == 0:
                return LOST
            continue
        j, least = jumps[d, next_[d]], keys[d, next_[d]]
        next_[d] += 1
        c = d + 1
        if not weighed(weights, changes, thresholds, d, j):
            continue
        if popcount(positions[d]) <= few + 1:  # the endgame says, exactly: no dead table to ask
            if not member(endgame, shift, ends, least):
                continue
        elif holds(dead, least):
            continue
        budget -= 1
        counts[EXAMINED] += 1
        positions[c] = positions[d] ^ flip[j]
        path[c] = j
        for image in range(symmetries):
            images[c, image] = images[d, image] ^ flip_images[j, image]
        ended = _enter(c, stack, goal, mask, dead, endgame, shift, popcount(positions[c]) <= few + 1)
        if ended == WON:
            for on in range(c + 1):
                counts[EVICTIONS] += keep(won, _least(images, on))
            top[0] = c
            return WON
        if ended == LOST:  # no jump left: found again as quickly as looked up, so not kept
            continue
        if any_won:
            _won_first(c, stack, won)
        top[0] = c
    return RUNNING


class Goal(NamedTuple):
    """A goal as the walk reads it: the goal holes, the board's jumps in the order to try them,
    their images under the goal's group, and the pagoda functions with their thresholds. A named
    tuple, so that the numba functions take it whole (and read its arrays by name)."""

    mask: np.uint64  # the goal holes: one peg on any of them wins
    order: np.ndarray  # int64 [jumps]: the board's jump numbers in the order tried
    # uint64 [whole words of 64 jumps], in that order: a jump is legal where `position & flip ==
    # need` (its start and over holes pegs, its landing hole empty); the padding is never legal.
    need: np.ndarray
    flip: np.ndarray
    flip_images: np.ndarray  # uint64 [jumps, symmetries]
    byte_images: np.ndarray  # uint64 [bytes, 256, symmetries]
    neighbours: np.ndarray  # uint64 [holes]: the holes one step from each hole
    near: np.ndarray  # uint64 [jumps]: each jump's holes and their neighbours (where it may strand)
    spread: np.ndarray  # int64 [jumps]: how far each jump spreads the pegs from the middle
    pagoda_weights: np.ndarray  # int64 [pagodas, holes]
    changes: np.ndarray  # int64 [pagodas, jumps]: what each jump takes from each pagoda's weight
    thresholds: np.ndarray  # int64 [pagodas]: the least weight from which the goal is reachable

    @classmethod
    def compiled(cls, tables: BoardTables, mask: int, order: list[int],
                 pagodas: list[tuple[tuple[int, ...], int]], spread: list[int]) -> Goal:
        """A goal for `tables` (made for the goal's group): jumps tried in `order` where they tie,
        `pagodas` as (weight of each hole, threshold) pairs, `spread` a score for each jump (by
        the board's numbering: lower is tried first)."""
        at = np.array(order, dtype=np.int64)
        weights = np.array([w for w, _ in pagodas], dtype=np.int64).reshape(len(pagodas), tables.holes)
        # A jump takes the weights of its start and over holes and adds its landing hole's.
        bits = np.array([[tables.need[j] >> np.uint64(h) & np.uint64(1) for h in range(tables.holes)]
                         for j in range(len(tables.need))], dtype=np.int64).reshape(-1, tables.holes)
        lands = np.array([[tables.free[j] >> np.uint64(h) & np.uint64(1) for h in range(tables.holes)]
                          for j in range(len(tables.free))], dtype=np.int64).reshape(-1, tables.holes)
        changes = (bits - lands) @ weights.T  # [jumps, pagodas]
        # A jump's start and over holes are neighbours, and every neighbour is some jump's over.
        neighbours = np.zeros(tables.holes, dtype=np.uint64)
        for pair in tables.need:
            for hole in range(tables.holes):
                if pair >> np.uint64(hole) & np.uint64(1):
                    neighbours[hole] |= pair & ~(np.uint64(1) << np.uint64(hole))
        near = tables.flip.copy()
        for hole in range(tables.holes):
            near[tables.flip >> np.uint64(hole) & np.uint64(1) == 1] |= neighbours[hole]
        # The board's jumps padded to whole words (BoardTables.jump_words), put in `order`.
        padded = np.concatenate([at, np.arange(len(at), len(tables.jump_words[0]))])
        need, flip = (words[padded] for words in tables.jump_words)
        return cls(np.uint64(mask), at, need, flip,
                   np.ascontiguousarray(tables.flip_images[at]), tables.byte_images, neighbours, near[at],
                   np.array(spread, dtype=np.int64)[at], weights,
                   np.ascontiguousarray(changes[at].T), np.array([t for _, t in pagodas], np.int64))


class Stack(NamedTuple):
    """A walk's stack, as the numba functions take it: depth d holds `positions[d]`, its images
    under the goal's group, its pagoda weights, and the jumps still to try,
    `jumps[d, next[d]:count[d]]` with their children's signatures in `keys`; `path[d]` made it.
    `top` is the depth on top (-1: empty), `counts` the counters (EXAMINED, EVICTIONS), `scores`
    room to sort one depth's jumps. Each array on cache lines of its own (`_apart`)."""

    positions: np.ndarray
    images: np.ndarray
    weights: np.ndarray
    jumps: np.ndarray
    keys: np.ndarray
    count: np.ndarray
    next: np.ndarray
    path: np.ndarray
    top: np.ndarray
    counts: np.ndarray
    scores: np.ndarray

    @classmethod
    def empty(cls, goal: Goal, holes: int) -> Stack:
        """An empty stack deep enough for a board of `holes` holes (a jump takes one peg)."""
        depth, jumps = holes + 1, max(1, len(goal.order))
        stack = cls(_apart(depth, np.uint64), _apart((depth, goal.flip_images.shape[1]), np.uint64),
                    _apart((depth, len(goal.thresholds)), np.int64), _apart((depth, jumps), np.int32),
                    _apart((depth, jumps), np.uint64), _apart(depth, np.int32),
                    _apart(depth, np.int32), _apart(depth, np.int32), _apart(1, np.int64),
                    _apart(2, np.int64), _apart(jumps, np.int64))
        stack.top[0] = -1
        return stack

    def line(self, order: np.ndarray) -> list[int]:
        """The board's jump numbers (`order`: the goal's) from the root to the top."""
        return [int(order[j]) for j in self.path[1:self.top[0] + 1]]


@dataclass
class Search:
    """One question's search in progress, resumable: its stack and the goal's dead and won
    tables."""

    goal: Goal
    dead: np.ndarray
    won: np.ndarray
    holes: int
    endgame: Members = field(default_factory=lambda: Members(np.empty(0, dtype=np.uint64)))
    few: int = 0  # the endgame holds every winnable position of up to `few` pegs
    # Whether the won table holds a line (else no child is looked for in it): told by the caller,
    # who knows, since a scan of a table of the service's size took 5 ms a search.
    any_won: bool = False
    stack: Stack = field(init=False)

    def __post_init__(self) -> None:
        self.stack = Stack.empty(self.goal, self.holes)
        self.mask = self.goal.mask  # the goal holes still sought (`without` drops one)

    @property
    def counts(self) -> np.ndarray:
        """The walk's counters: `counts[EXAMINED]` positions examined, `counts[EVICTIONS]`."""
        return self.stack.counts

    def begin(self, position: int) -> int:
        """Put `position` at the root: WON, LOST or RUNNING (go on with `go`)."""
        self.stack.positions[0] = np.uint64(position)
        return start(self.stack, self.goal, self.mask, self.won, self.dead, self.endgame.table,
                     self.endgame.shift, np.int64(self.few))

    def go(self, budget: int) -> int:
        """Examine up to `budget` more positions: WON, LOST or RUNNING."""
        return walk(self.stack, self.goal, self.mask, self.won, self.any_won, self.dead,
                    self.endgame.table, self.endgame.shift, np.int64(self.few), np.int64(budget))

    def without(self, hole: int) -> None:
        """After WON on `hole`, seek the other goal holes: the one-peg position on top becomes a
        dead end, and `go` goes on from it. Sound with this search's tables only when they are
        its own (what was proved dead for more goal holes is dead for fewer, not the reverse)."""
        self.mask &= ~np.uint64(1 << (hole - 1))
        top = self.stack.top[0]
        if top >= 0:  # else the root itself was the one peg: `go` then says LOST
            self.stack.count[top] = self.stack.next[top] = 0

    def line_keys(self) -> np.ndarray:
        """The signatures of the positions from the root to the stack's top (after WON: those
        the walk kept in the won table)."""
        return self.stack.images[:max(0, int(self.stack.top[0])) + 1].min(axis=1)

    def line(self) -> list[int]:
        """The board's jump numbers from the root to the stack's top (after WON: a solution)."""
        return self.stack.line(self.goal.order)


def _apart(shape: int | tuple[int, ...], dtype: type) -> np.ndarray:
    """Zeros of `shape` on cache lines no other array shares. A walk writes its stack and counts
    at every position, and a hint walks several searches on several cores at once: small arrays
    that numpy had put side by side, one search's beside another's, made the cores fight for
    their lines (two searches on two cores: 2.2-2.7 M positions a second together, 3.0-3.1
    apart)."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    block = np.zeros(size + 3 * APART, dtype=np.uint8)
    at = APART + (-block.ctypes.data) % APART
    return block[at:at + size].view(dtype).reshape(shape)

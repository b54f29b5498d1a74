"""Ranks: a position's index among all positions with its number of pegs, and back.

Every position of a level has the same number of pegs k, so a level fits a bitmap over the
C(n, k) positions with k pegs, a bit each, indexed by rank. The rank is the colex rank, which is
the numeric order of the positions among those with k pegs: reading a bitmap in rank order gives
the positions sorted, as part files need them.

The rank of a position is the sum, over its pegs taken from the lowest hole up, of C(hole bit,
pegs so far). Within one level (k fixed) the pegs below bit 16 follow from those above, so the rank
is two table reads and an add: the level's table of what the upper bits add (`level_ranks`, for
boards of up to 36 holes: 2**20 entries at most) and the low 16 bits' rank among their peg count
(`fast_rank`); larger boards take a table read and an add per byte (`rank`). Going back
(`Unranker`) is sequential where it matters: the positions of consecutive ranks share their upper
bits for a run of C(16, c) ranks (c the pegs in the low 16 bits), so each is a table read of its
low 16 bits, and only the upper bits step from run to run.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numba
import numpy as np

LOW_BITS = 16
_LOW = np.uint64((1 << LOW_BITS) - 1)
# Boards up to this many holes rank by two table reads (a level's table of 2**20 entries at most).
FAST_HOLES = 36
NO_LEVEL_RANKS = np.zeros(0, dtype=np.uint64)


def binomials(n: int) -> np.ndarray:
    """uint64 [n + 1, n + 1]: C(i, j) (0 where j > i); every entry fits 64 bits for n <= 64."""
    table = np.zeros((n + 1, n + 1), dtype=np.uint64)
    for i in range(n + 1):
        for j in range(i + 1):
            table[i, j] = comb(i, j)
    return table


@dataclass(frozen=True)
class RankTables:
    """What ranking and unranking positions of `holes` holes needs.

    `byte_ranks[b, c, v]`: what byte value v in byte b adds to a rank when c pegs lie below it;
    `low_patterns`: every 16-bit pattern, ordered by peg count then value, starting at
    `low_offsets[c]` for c pegs; `low_ranks[v]`: v's index among the patterns of its peg count.
    """

    holes: int
    choose: np.ndarray
    byte_ranks: np.ndarray
    low_patterns: np.ndarray
    low_offsets: np.ndarray
    low_ranks: np.ndarray

    def level_ranks(self, pegs: int) -> np.ndarray:
        """What the bits above LOW_BITS add to the rank of a position of `pegs` pegs, indexed by
        those bits (0 where they hold more pegs than the level, or leave more than 16 below);
        empty when the board is too large for such a table (more than FAST_HOLES holes)."""
        if self.holes > FAST_HOLES:
            return NO_LEVEL_RANKS
        upper = np.arange(1 << max(0, self.holes - LOW_BITS), dtype=np.uint64)
        pegs_above = np.zeros(len(upper), dtype=np.int64)
        for bit in range(max(0, self.holes - LOW_BITS)):
            pegs_above += ((upper >> np.uint64(bit)) & np.uint64(1)).astype(np.int64)
        below = pegs - pegs_above  # pegs in the low bits, for each upper value
        valid = (below >= 0) & (below <= LOW_BITS)
        total = np.zeros(len(upper), dtype=np.uint64)
        seen = np.where(valid, below, 0)
        byte_pegs = np.array([bin(v).count("1") for v in range(256)])
        for byte in range(LOW_BITS // 8, self.byte_ranks.shape[0]):
            value = (upper >> np.uint64(8 * byte - LOW_BITS)) & np.uint64(0xFF)
            total += self.byte_ranks[byte, np.minimum(seen, self.holes), value]
            seen += byte_pegs[value]
        return np.where(valid, total, np.uint64(0))

    def level(self, pegs: int) -> LevelRanks:
        """What ranking the positions of one level needs."""
        return LevelRanks(self, pegs, self.level_ranks(pegs))

    @classmethod
    def for_holes(cls, holes: int) -> RankTables:
        choose = binomials(max(holes, LOW_BITS))
        nbytes = (holes + 7) // 8
        byte_ranks = np.zeros((nbytes, holes + 1, 256), dtype=np.uint64)
        for byte in range(nbytes):
            for below in range(holes + 1):
                for value in range(256):
                    total, seen = 0, below
                    for bit in range(8):
                        if value >> bit & 1:
                            seen += 1
                            total += comb(8 * byte + bit, seen)
                    byte_ranks[byte, below, value] = total
        values = np.arange(1 << LOW_BITS, dtype=np.uint64)
        pegs = np.array([bin(v).count("1") for v in range(1 << LOW_BITS)])
        order = np.lexsort((values, pegs))
        low_ranks = np.empty(1 << LOW_BITS, dtype=np.uint64)
        offsets = np.zeros(LOW_BITS + 2, dtype=np.int64)
        np.cumsum(np.bincount(pegs, minlength=LOW_BITS + 1), out=offsets[1:])
        low_ranks[order] = np.arange(1 << LOW_BITS, dtype=np.uint64) - offsets[pegs[order]].astype(np.uint64)
        return cls(holes, choose, byte_ranks, values[order].copy(), offsets, low_ranks)

    def count(self, pegs: int) -> int:
        """How many positions have `pegs` pegs: C(holes, pegs), the ranks of a level."""
        return comb(self.holes, pegs)


@dataclass(frozen=True)
class LevelRanks:
    """Ranking within one level of `pegs` pegs: the board's tables and the level's upper-bits
    table (empty on boards too large for one, which rank a byte at a time)."""

    tables: RankTables
    pegs: int
    upper: np.ndarray

    @property
    def args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kernels' view: (byte tables, the level's upper-bits table, the low bits' ranks)."""
        return self.tables.byte_ranks, self.upper, self.tables.low_ranks


@numba.njit(cache=True, nogil=True, inline="always")
def popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True, nogil=True, inline="always")
def rank(position, byte_ranks):
    """The colex rank of `position` among the positions with as many pegs: a read per byte."""
    total = np.uint64(0)
    below = 0
    rest = position
    for byte in range(byte_ranks.shape[0]):
        value = rest & np.uint64(0xFF)
        total += byte_ranks[byte, below, value]
        below += popcount(value)
        rest >>= np.uint64(8)
    return total


@numba.njit(cache=True, nogil=True)
def rank_all(keys, count, by):
    """Replace ``keys[:count]``, positions of one level, by their ranks; `by` is `LevelRanks.args`:
    two table reads and an add each where the level has an upper-bits table, else a read a byte."""
    upper, low = by[1], by[2]
    if upper.shape[0] == 0:
        for i in range(count):
            keys[i] = rank(keys[i], by[0])
        return
    for i in range(count):
        key = keys[i]
        keys[i] = upper[key >> np.uint64(LOW_BITS)] + low[key & _LOW]


@numba.njit(cache=True, nogil=True)
def unrank(index, pegs, holes, choose):
    """The position of rank `index` among those with `pegs` pegs (greedily, hole by hole from the
    top: for the starting point of a sequential walk, not for every position)."""
    position = np.uint64(0)
    rest = np.uint64(index)
    hole = holes
    for taken in range(pegs, 0, -1):
        hole -= 1
        while choose[hole, taken] > rest:
            hole -= 1
        position |= np.uint64(1) << np.uint64(hole)
        rest -= choose[hole, taken]
    return position


@numba.njit(cache=True, nogil=True)
def unrank_run(bits, base, pegs, holes, choose, low_patterns, low_offsets, low_ranks, out, at):
    """The positions of the set bits of `bits` (a bitmap of ranks from `base`), ascending, into
    ``out[at:]``; returns how many.

    Consecutive ranks share their upper bits (above LOW_BITS) for a run of C(16, c) ranks, c the
    pegs below: each position is the run's upper bits and a read of its low pattern; between runs
    the upper bits step to the next value whose pegs leave 0 to 16 for the low bits.
    """
    written = 0
    upper = np.uint64(0)
    run_start = np.uint64(0)
    run_length = np.uint64(0)
    low_pegs = 0
    started = False
    for word in range(bits.shape[0]):
        remaining = bits[word]
        while remaining:
            bit = remaining & (~remaining + np.uint64(1))
            remaining ^= bit
            offset = np.uint64(popcount(bit - np.uint64(1)))
            index = base + np.uint64(word) * np.uint64(64) + offset
            if not started:
                first = unrank(index, pegs, holes, choose)
                upper = first & ~_LOW
                low_pegs = pegs - popcount(upper)
                run_start = index - low_ranks[first & _LOW]
                run_length = choose[LOW_BITS, low_pegs]
                started = True
            while index >= run_start + run_length:
                run_start += run_length
                upper += np.uint64(1) << np.uint64(LOW_BITS)
                low_pegs = pegs - popcount(upper)
                while low_pegs < 0 or low_pegs > LOW_BITS:
                    upper += np.uint64(1) << np.uint64(LOW_BITS)
                    low_pegs = pegs - popcount(upper)
                run_length = choose[LOW_BITS, low_pegs]
            out[at + written] = upper | low_patterns[low_offsets[low_pegs] + np.int64(index - run_start)]
            written += 1
    return written

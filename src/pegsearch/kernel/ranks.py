"""Ranks: a position's index among all positions with its number of pegs, and back.

Every position of a level has the same number of pegs k, so a level fits a bitmap over the
C(n, k) positions with k pegs, a bit each, indexed by rank. The rank is the colex rank, which is
the numeric order of the positions among those with k pegs: reading a bitmap in rank order gives
the positions sorted, as part files need them.

The rank of a position is the sum, over its pegs taken from the lowest hole up, of C(hole bit,
pegs so far): a byte at a time that is one table read and an add per byte (`rank`). Going back
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

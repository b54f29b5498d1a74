"""The reduce of a dense level: a bit a position, indexed by rank, instead of a hash table slot.

A level whose positions are a good share of those it can hold (its peg count and class, a few
percent, see `prefer_bitmap`) is held as a bitmap over their ranks (kernel.ranks): a bit a possible position
costs less than a table slot an actual one once the level is dense enough, and setting a bit is
cheaper than a hash insert. The map routes children by rank range, as it routes them by hash
partition for tables (a `Keyspace` of ranks, unmixed: each partition a contiguous slice of the
bitmap, sized to stay in a core's cache while it takes its children). Draining a slice reads its
ranks in order, which is the positions' numeric order: part files come out sorted with no sort.
Path counts need a value per position, so a counted level always uses tables.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from pegsearch.kernel.path_counts import NO_PATHS
from pegsearch.kernel.ranks import LevelRanks, popcount, unrank_run
from pegsearch.kernel.reduce import Keyspace, PassPartitions
from pegsearch.kernel.threads import slice_start, spread

# Bits a partition's slice of the bitmap aims at: 256 KiB, which stays in a core's cache.
SLICE_BITS = 21
# Bytes a table level spends on a distinct position, roughly (a 32-bit code at most 0.7 load, and
# a doubling's slack): what a bitmap's bit per possible position is weighed against.
TABLE_BYTES_PER_POSITION = 6
# Below this many positions a level is made in moments either way: tables, which cost nothing to
# set up, rather than the bitmap's ranking tables.
SMALL_LEVEL = 1 << 16


def prefer_bitmap(expected: int, possible: int) -> bool:
    """Whether a level of about `expected` positions out of the `possible` it can hold costs less
    memory as a bitmap than as tables (and is not too small to matter)."""
    return expected >= SMALL_LEVEL and possible / 8 < expected * TABLE_BYTES_PER_POSITION


def rank_space(possible: int, least_pbits: int, max_pbits: int) -> Keyspace:
    """The partitions of a level's `possible` ranks: slices of about 2**SLICE_BITS bits (at least
    64), at least ``2**least_pbits`` of them where the ranks allow, at most ``2**max_pbits``."""
    nbits = max(7, (possible - 1).bit_length())
    pbits = min(max(nbits - SLICE_BITS, least_pbits), max_pbits, nbits - 6)
    return Keyspace(nbits, pbits, mixed=False)


@numba.njit(cache=True, nogil=True)
def _set(bits, filled, codes, bounds, rbits, offset, first, step):
    """Set the bits of routed children in slice `first` of `step` of the partitions."""
    words = np.int64(1) << np.int64(rbits - 6)
    width = filled.shape[0]
    for q in range(slice_start(width, first, step), slice_start(width, first + 1, step)):
        base = q * words
        new = 0
        for b in range(bounds.shape[0]):
            for k in range(bounds[b, q], bounds[b, q + 1]):
                r = np.uint64(codes[k]) - offset
                word = base + np.int64(r >> np.uint64(6))
                mask = np.uint64(1) << (r & np.uint64(63))
                new += (bits[word] & mask) == 0
                bits[word] |= mask
        filled[q] += new


@numba.njit(cache=True, nogil=True)
def _count(bits, filled, words):
    """How many bits each partition of `words` words has set."""
    for q in range(filled.shape[0]):
        total = 0
        for word in range(q * words, (q + 1) * words):
            total += popcount(bits[word])
        filled[q] = total


@numba.njit(cache=True, nogil=True)
def _merge(bits, others, first, step):
    """OR every other plane into `bits`, over slice `first` of `step` of the words."""
    words = bits.shape[0]
    for word in range(slice_start(words, first, step), slice_start(words, first + 1, step)):
        merged = bits[word]
        for plane in range(others.shape[0]):
            merged |= others[plane, word]
        bits[word] = merged


class BitmapTables(PassPartitions):
    """The bitmap of one pass: partitions ``[lo, lo + width)`` of a rank keyspace, the same
    interface as `HashTables` (add routed children, drain partitions sorted), for the level
    `ranks` ranks. Its size is fixed: the pass's width is chosen to fit the budget beforehand.

    With several `planes` (copies of the bitmap, in `memory` when given: a function handing out
    that many words, zeroed here, as an engine reuses one block from level to level, fresh memory
    costing a page fault per 4 KiB), the first is `bits` and the rest `others`: the map sets bits
    itself, each core in its own plane (kernel.expand.expand_into_bits), and `merge` ORs the
    others into `bits` before draining."""

    def __init__(self, space: Keyspace, lo: int, width: int, ranks: LevelRanks, planes: int = 1,
                 memory: Callable[[int], np.ndarray] | None = None) -> None:
        self.space, self.lo, self.ranks, self.unranking = space, lo, ranks, ranks.unranking()
        words = width << (space.rbits - 6)
        if memory is None:
            block = np.zeros(planes * words, dtype=np.uint64)
        else:
            block = memory(planes * words)
            block.fill(0)
        self.bits, self.others = block[:words], block[words:].reshape(planes - 1, words)
        self.filled = np.zeros(width, dtype=np.int64)

    @staticmethod
    def partition_bytes(space: Keyspace) -> int:
        return 1 << (space.rbits - 3)

    def add(self, codes: np.ndarray, values: np.ndarray, bounds: np.ndarray) -> None:
        """Set the bits of routed children: ``bounds[b, q]:bounds[b, q + 1]`` is block b's share of
        partition ``lo + q`` in `codes` (values: none, a bitmap level counts no paths)."""
        spread(_set, self.width, self.bits, self.filled, codes, bounds, self.space.rbits,
               np.uint64(self.space.args[4]))

    def words(self, first: int, last: int) -> np.ndarray:
        """The bitmap of partitions ``[first, last)`` (offsets in this pass), a view."""
        words = 1 << (self.space.rbits - 6)
        return self.bits[first * words:last * words]

    def merge(self) -> None:
        """Fold the other planes into `bits` (when there are others: a Spark map task has one),
        then count each partition's positions."""
        if len(self.others):
            spread(_merge, len(self.bits), self.bits, self.others)
        self.recount()

    def recount(self) -> None:
        """Count each partition's positions again, after its bits were set other than by `add`
        (a Spark reduce task ORs its blocks straight into `bits`)."""
        _count(self.bits, self.filled, 1 << (self.space.rbits - 6))

    def drain(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The positions of partitions ``[first, last)`` (offsets in this pass), sorted."""
        out = np.empty(int(self.filled[first:last].sum()), dtype=np.uint64)
        written = unrank_run(self.words(first, last),
                             np.uint64((self.lo + first) << self.space.rbits), self.unranking, out)
        assert written == len(out), "a bitmap slice drained a different count than it took"
        return out, NO_PATHS

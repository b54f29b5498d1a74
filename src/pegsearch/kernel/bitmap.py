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

import mmap
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
# Memory is counted in pages of 512 words (4 KiB): a page no child reaches is never touched, so it
# costs nothing (a bitmap's memory is mapped, not reserved, and zero until written).
PAGE_WORDS = 512
# A pass past its budget keeps the partitions whose pages fit this share of it: the rest of the
# pass's children still touch new pages in the partitions kept.
KEEP_SHARE = 0.85
# Linux's flag for a mapping not counted against the memory the kernel promises (mmap has no name
# for it before Python 3.13): a pass maps more bitmap than it will touch.
MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)


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
def _set(bits, filled, pages, touched, codes, bounds, rbits, offset, first, step):
    """Set the bits of routed children in slice `first` of `step` of the partitions, marking the
    pages they touch (one byte a page, in cache beside its partition's words)."""
    words = np.int64(1) << np.int64(rbits - 6)
    width = filled.shape[0]
    for q in range(slice_start(width, first, step), slice_start(width, first + 1, step)):
        base = q * words
        new = 0
        reached = 0
        for b in range(bounds.shape[0]):
            for k in range(bounds[b, q], bounds[b, q + 1]):
                r = np.uint64(codes[k]) - offset
                word = base + np.int64(r >> np.uint64(6))
                mask = np.uint64(1) << (r & np.uint64(63))
                new += (bits[word] & mask) == 0
                bits[word] |= mask
                page = word // PAGE_WORDS
                if pages[page] == 0:
                    pages[page] = 1
                    reached += 1
        filled[q] += new
        touched[q] += reached


@numba.njit(cache=True, nogil=True)
def _count(bits, filled, words, first, step):
    """How many bits each partition of `words` words has set, over slice `first` of `step` of
    the partitions."""
    for q in range(slice_start(filled.shape[0], first, step),
                   slice_start(filled.shape[0], first + 1, step)):
        total = 0
        for word in range(q * words, (q + 1) * words):
            total += popcount(bits[word])
        filled[q] = total


@numba.njit(cache=True, nogil=True)
def _zero(words, first, step):
    """Zero slice `first` of `step` of `words`: reused planes are GiBs on many cores, too much
    for one to zero while the rest wait."""
    words[slice_start(words.shape[0], first, step):slice_start(words.shape[0], first + 1, step)] = 0


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
    others into `bits` before draining. A `shared` bitmap is one plane that every core sets at
    once (a wide pass, where a plane a core would not fit), mapped: a page no child reaches costs
    nothing."""

    def __init__(self, space: Keyspace, lo: int, width: int, ranks: LevelRanks, planes: int = 1,
                 memory: Callable[[int], np.ndarray] | None = None, budget: int | None = None,
                 shared: bool = False) -> None:
        """With a `budget` (bytes), the bitmap is mapped rather than allocated and may span more
        partitions than the budget holds: the pages its children touch are counted, and once
        they outgrow it the upper partitions are given up (their memory returned), so a pass
        holds as many partitions as its positions leave room for, and `hi` says where the next
        pass starts (as hash tables give up partitions)."""
        self.space, self.lo, self.ranks, self.unranking = space, lo, ranks, ranks.unranking()
        self.budget, self._mapped, self.shared = budget, None, shared
        words = width << (space.rbits - 6)
        if budget is not None or shared:
            self._mapped = mmap.mmap(-1, max(8, 8 * words),
                                     flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
            block = np.frombuffer(self._mapped, dtype=np.uint64)[:words]
        elif memory is None:
            block = np.zeros(planes * words, dtype=np.uint64)
        else:
            block = memory(planes * words)
            spread(_zero, len(block), block)
        self.bits, self.others = block[:words], block[words:].reshape(planes - 1, words)
        self.filled = np.zeros(width, dtype=np.int64)
        self.pages = np.zeros(-(-words // PAGE_WORDS), dtype=np.uint8)
        self.touched = np.zeros(width, dtype=np.int64)  # pages each partition's children reached

    @staticmethod
    def partition_bytes(space: Keyspace) -> int:
        return 1 << (space.rbits - 3)

    def add(self, codes: np.ndarray, values: np.ndarray, bounds: np.ndarray) -> None:
        """Set the bits of routed children: ``bounds[b, q]:bounds[b, q + 1]`` is block b's share of
        partition ``lo + q`` in `codes` (values: none, a bitmap level counts no paths)."""
        spread(_set, self.width, self.bits, self.filled, self.pages, self.touched, codes, bounds,
               self.space.rbits, np.uint64(self.space.args[4]))
        if self.budget is not None and self.touched_bytes > self.budget:
            self._give_up()

    @property
    def touched_bytes(self) -> int:
        """The bytes of the pages children have reached: the memory the bitmap takes."""
        return int(self.touched.sum()) * PAGE_WORDS * 8

    def _give_up(self) -> None:
        """Keep the lowest partitions whose pages fit KEEP_SHARE of the budget (one at least) and
        return the memory of the rest, made again by a later pass."""
        reached = np.cumsum(self.touched) * (PAGE_WORDS * 8)
        keep = max(1, int(np.searchsorted(reached, self.budget * KEEP_SHARE, side="right")))
        words = keep << (self.space.rbits - 6)
        start = -(-words // PAGE_WORDS) * PAGE_WORDS * 8  # the first whole page past the kept
        if start < len(self._mapped):
            self._mapped.madvise(mmap.MADV_DONTNEED, start, len(self._mapped) - start)
        self.bits = self.bits[:words]
        self.filled, self.touched = self.filled[:keep].copy(), self.touched[:keep].copy()

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
        spread(_count, len(self.filled), self.bits, self.filled, 1 << (self.space.rbits - 6))

    def drain(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The positions of partitions ``[first, last)`` (offsets in this pass), sorted."""
        out = np.empty(int(self.filled[first:last].sum()), dtype=np.uint64)
        written = unrank_run(self.words(first, last),
                             np.uint64((self.lo + first) << self.space.rbits), self.unranking, out)
        assert written == len(out), "a bitmap slice drained a different count than it took"
        return out, NO_PATHS

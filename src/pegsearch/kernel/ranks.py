"""Ranks: a position's index, in numeric order, among the positions a level can hold, and back.

Every position of a level has the same number of pegs k and, when the search keeps them there, the
start's class (board.classes: the parities no jump changes). So a level fits a bitmap over just
those positions, a bit each, indexed by rank; ranks follow the positions' numeric order, so reading
a bitmap in rank order gives the positions sorted, as part files need them.

A position is cut into chunks: its low 16 bits, and above them one or more *upper chunks*. The
positions below a position p in a level are counted chunk by chunk from the top: those whose top
chunk is smaller than p's, then those sharing p's top chunk whose next chunk is smaller, and so on,
then p's low pattern's index among the low patterns with the pegs and class left for them. What
chunk j adds depends only on its own pattern and on the pegs and class left for chunk j and below:
a *slab* of counts per (pegs left, class left), a prefix sum over the chunk's patterns, and beside
each count where the next chunk's slab starts. So a rank is one table read a chunk and an add, and
the tables stay small at any size: a slab is 2**12 counts, where one table over all the upper bits
(2**(holes - 16) entries) would take 4 GiB at 45 holes. Boards of up to 37 holes have a single upper
chunk (a table of at most 2**21 counts, two reads a rank); larger ones have 12-bit middle chunks
between the top chunk and the low bits (three reads at 41-45 holes, four at 61).

Going back from consecutive ranks walks the runs of the lowest upper chunk in order, a table read a
position; a rank outside the slab at hand is found again from the top by binary search.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from math import comb

import numba
import numpy as np

LOW_BITS = 16
LOW_MASK = np.uint64((1 << LOW_BITS) - 1)
# The most upper bits one chunk takes: a board of up to 16 + TOP_BITS holes has a single upper chunk
# (today's boards up to 37 holes: two table reads a rank). Past that, MIDDLE_BITS-bit chunks sit
# between the top chunk and the low bits, so every table is at most 2**TOP_BITS entries. (12 rather
# than 14 or 10: triangle-9's map cost the same within noise, and a level's tables take 6 MiB, not 18.)
TOP_BITS = 21
MIDDLE_BITS = 12
# Boards up to this many holes can be ranked (every board pegsearch loads).
MAX_HOLES = 64


def upper_chunks(holes: int) -> tuple[tuple[int, int], ...]:
    """The upper chunks of a board's positions, top first: (shift, bits) each."""
    upper = max(0, holes - LOW_BITS)
    middle = max(0, -(-(upper - TOP_BITS) // MIDDLE_BITS))
    top = upper - middle * MIDDLE_BITS
    shifts = [LOW_BITS + MIDDLE_BITS * (middle - j) for j in range(middle + 1)]
    return ((shifts[0], top), *((shift, MIDDLE_BITS) for shift in shifts[1:]))


def _pegs(values: np.ndarray) -> np.ndarray:
    """The pegs (set bits) of each value."""
    return np.bitwise_count(values).astype(np.int64)


def _classes(values: np.ndarray, basis: tuple[int, ...], shift: int) -> np.ndarray:
    """The class of each value as the bits `shift` and up of a position (see board.classes)."""
    found = np.zeros(len(values), dtype=np.int64)
    for index, mask in enumerate(basis):
        found |= (_pegs(values & np.uint64(mask >> shift)) & 1) << index
    return found


@dataclass(frozen=True)
class Chunk:
    """One upper chunk: the bits ``[shift, shift + bits)``, the classes positions fall in, and
    each pattern's group: its pegs times `classes` plus its share of a position's class.

    What a pattern adds to a rank depends only on its group and on the pegs and class left, so
    a slab is made by reading a small table, one entry a group, at each pattern (a level's top
    slab of 2**21 patterns costs a fraction of a millisecond)."""

    shift: int
    bits: int
    classes: int
    groups: np.ndarray

    @classmethod
    def of(cls, shift: int, bits: int, basis: tuple[int, ...]) -> Chunk:
        patterns = np.arange(1 << bits, dtype=np.uint64)
        classes = 1 << len(basis)
        return cls(shift, bits, classes, _pegs(patterns) * classes + _classes(patterns, basis, shift))

    @property
    def slab(self) -> int:
        """Entries a slab takes: a count before each pattern, and the slab's total."""
        return (1 << self.bits) + 1

    def _by_group(self, pegs: int, home: int, left: np.ndarray) -> np.ndarray:
        """``left[pegs - p, home ^ c]`` for each group (p pegs, class share c) of the chunk, 0
        where the chunk's pattern leaves a number of pegs `left` has no row for."""
        own = np.arange(self.bits + 1)
        rest = pegs - own
        fits = (rest >= 0) & (rest < left.shape[0])
        found = np.zeros((self.bits + 1, self.classes), dtype=left.dtype)
        found[fits] = left[rest[fits]][:, home ^ np.arange(self.classes)]
        return found.ravel()

    def slabs(self, below: np.ndarray, lefts: list[tuple[int, int]]) -> np.ndarray:
        """The slabs for each (pegs, class) left in `lefts`, one row each: the positions whose
        chunk pattern is smaller than each pattern, given `below[pegs, class]`, the patterns of the
        bits under the chunk with those pegs and class."""
        rows = np.zeros((len(lefts), self.slab), dtype=np.uint64)
        for row, (pegs, home) in enumerate(lefts):
            np.cumsum(self._by_group(pegs, home, below)[self.groups], out=rows[row, 1:])
        return rows

    def targets(self, lefts: list[tuple[int, int]], where: np.ndarray) -> np.ndarray:
        """Where the next chunk's slab starts after each pattern of each slab of `lefts`, given
        `where[pegs * classes + class]`, the start of the next chunk's slab for what is left."""
        rows = np.zeros((len(lefts), self.slab), dtype=np.int64)
        starts = where.reshape(-1, self.classes)
        for row, (pegs, home) in enumerate(lefts):
            rows[row, :-1] = self._by_group(pegs, home, starts)[self.groups]
        return rows


@dataclass(frozen=True)
class RankTables:
    """The board-wide tables: the low 16 bits' patterns ordered by (pegs, class, value), where
    each (pegs, class) group starts (`low_offsets[pegs * classes + class]`), each pattern's index
    in its group (`low_ranks`), the invariants' basis that defines classes (empty: no split), the
    upper chunks, and the middle chunks' slabs for every (pegs, class) left, as the tail of every
    level's tables (`middle_counts`, `middle_targets`), with where the top chunk's patterns find
    theirs (`below_top`, `top_targets`)."""

    holes: int
    basis: tuple[int, ...]
    low_patterns: np.ndarray
    low_offsets: np.ndarray
    low_ranks: np.ndarray
    chunks: tuple[Chunk, ...]
    below_top: np.ndarray  # [pegs, class]: the patterns under the top chunk with those
    middle_counts: np.ndarray
    middle_targets: np.ndarray
    top_targets: np.ndarray  # [pegs * classes + class]: where the first middle slab for those starts

    @classmethod
    def for_board(cls, holes: int, basis: tuple[int, ...] = ()) -> RankTables:
        if holes > MAX_HOLES:
            raise ValueError(f"ranks are for boards of up to {MAX_HOLES} holes, not {holes}")
        classes = 1 << len(basis)
        values = np.arange(1 << min(LOW_BITS, holes), dtype=np.uint64)  # the holes' low bits
        group = _pegs(values) * classes + _classes(values, basis, 0)
        order = np.lexsort((values, group))
        sizes = np.bincount(group, minlength=(LOW_BITS + 1) * classes)
        offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        # An index within a group is below C(16, 8): 16 bits, so the table takes 128 KiB of cache.
        low_ranks = np.zeros(1 << LOW_BITS, dtype=np.uint16)
        low_ranks[order] = np.arange(len(values)) - offsets[group[order]]
        chunks = tuple(Chunk.of(shift, bits, basis) for shift, bits in upper_chunks(holes))
        # The middle chunks' slabs, lowest first (each needs the census of the bits under it), for
        # every (pegs, class) the bits from the chunk down can hold; then placed top first after
        # the top chunk's slab, which every level makes for its own pegs and class.
        below = sizes.reshape(LOW_BITS + 1, classes).astype(np.uint64)
        made: list[tuple[Chunk, list[tuple[int, int]], np.ndarray]] = []
        for chunk in reversed(chunks[1:]):
            lefts = [(pegs, home) for pegs in range(chunk.shift + chunk.bits + 1)
                     for home in range(classes)]
            rows = chunk.slabs(below, lefts)
            made.append((chunk, lefts, rows))
            below = rows[:, -1].reshape(-1, classes)
        start = chunks[0].slab
        starts = []
        for _, _, rows in reversed(made):
            starts.append(start)
            start += rows.size
        counts, targets, where = [], [], np.zeros(0, dtype=np.int64)
        for (chunk, lefts, rows), first in zip(made, reversed(starts), strict=True):
            counts.append(rows.ravel())
            if len(where):  # the lowest middle chunk leads to the low bits, which need no slab
                targets.append(chunk.targets(lefts, where).ravel())
            where = first + chunk.slab * np.arange(len(lefts), dtype=np.int64)
        return cls(holes, basis, values[order].copy(), offsets, low_ranks, chunks, below,
                   _joined(counts[::-1], np.uint64), _joined(targets[::-1], np.int64), where)

    @property
    def classes(self) -> int:
        return 1 << len(self.basis)

    def level(self, pegs: int, home: int = 0) -> LevelRanks:
        """Ranking within the level of `pegs` pegs whose positions are of class `home`."""
        top = self.chunks[0]
        counts = np.concatenate([top.slabs(self.below_top, [(pegs, home)])[0], self.middle_counts])
        targets = np.zeros(0, dtype=np.int64)
        if len(self.chunks) > 1:
            targets = np.concatenate([top.targets([(pegs, home)], self.top_targets)[0],
                                      self.middle_targets])
        return LevelRanks(self, pegs, home, counts, targets)


def _joined(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(arrays).astype(dtype) if arrays else np.zeros(0, dtype=dtype)


@dataclass(frozen=True)
class LevelRanks:
    """Ranking within one level: the slabs of every upper chunk, the level's own top slab first
    (`counts`), and where the next chunk's slab starts after each pattern of every chunk but the
    lowest (`targets`)."""

    tables: RankTables
    pegs: int
    home: int
    counts: np.ndarray
    targets: np.ndarray

    @property
    def count(self) -> int:
        """How many positions the level can hold: the ranks its bitmap spans."""
        return int(self.counts[self.tables.chunks[0].slab - 1])

    @property
    def args(self) -> tuple:
        """The ranking kernel's view: (slabs, their targets, each upper chunk's shift and mask,
        the low patterns' indexes, the top chunk's shift as a number: a kernel that unpacks it
        once keeps it in a register, where the array's entry is read again after every store
        the kernel makes, 0.4 ns a child)."""
        chunks = self.tables.chunks
        return (self.counts, self.targets, np.array([c.shift for c in chunks], dtype=np.uint64),
                np.array([(1 << c.bits) - 1 for c in chunks], dtype=np.uint64), self.tables.low_ranks,
                np.uint64(chunks[0].shift))

    def unranking(self) -> tuple:
        """The unranking kernel's view (see `unrank_run`)."""
        tables = self.tables
        masks = np.array([mask >> LOW_BITS << LOW_BITS for mask in tables.basis], dtype=np.uint64)
        return (*self.args[:4], tables.low_patterns, tables.low_offsets, masks, self.pegs,
                self.home, tables.classes)


@cache
def rank_tables(holes: int, basis: tuple[int, ...]) -> RankTables:
    """A board's rank tables, made once per process."""
    return RankTables.for_board(holes, basis)


@lru_cache(maxsize=2)
def level_ranks(holes: int, basis: tuple[int, ...], pegs: int, home: int) -> LevelRanks:
    """A level's ranking, kept while it is in use (a level's tables take up to 16 MiB for a
    37-hole board, 6 MiB at 45 holes, so only the last two are kept: a Spark worker reuses them
    across a level's tasks)."""
    return rank_tables(holes, basis).level(pegs, home)


def possible(holes: int, pegs: int, classes: int = 1) -> int:
    """About how many positions a level of `pegs` pegs can hold (exact for one class)."""
    return comb(holes, pegs) // classes


@numba.njit(cache=True, nogil=True, inline="always")
def popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True, nogil=True, inline="always")
def pop_lowest(remaining):
    """The offset of the lowest set bit of `remaining` (not 0), and `remaining` without it: a
    bitmap's words are read one set bit at a time this way."""
    bit = remaining & (~remaining + np.uint64(1))
    return np.uint64(popcount(bit - np.uint64(1))), remaining ^ bit


@numba.njit(cache=True, nogil=True)
def rank_chunks(key, counts, targets, shifts, masks, low):
    """A position's rank in its level past one upper chunk (LevelRanks.args, unpacked once by the
    caller): a table read a chunk, each naming the next chunk's slab. A call, not inlined:
    inlined in the map's loop it made that loop several times slower.

    With one upper chunk (up to 37 holes) a rank is ``counts[key >> top] + low[key & LOW_MASK]``,
    two reads, which the kernels write out in place, the choice between the two made once a call
    rather than a position: a helper taking the tables as arguments, inlined in a loop, binds
    each array again, and the reference counts numba adds for that were left in the loop by
    some compile targets (LLVM's znver3 and znver4 hoisted them above the choice, where numba's
    pruning no longer pairs them): ten atomic calls a child, twice the map's time on AMD Zen.
    """
    last = shifts.shape[0] - 1
    rank = np.uint64(low[key & LOW_MASK])
    slab = np.int64(0)
    for j in range(last + 1):
        entry = slab + np.int64((key >> shifts[j]) & masks[j])
        rank += counts[entry]
        if j < last:
            slab = targets[entry]
    return rank


@numba.njit(cache=True, nogil=True)
def rank_all(keys, count, by):
    """Replace ``keys[:count]``, positions of one level, by their ranks (`by`: LevelRanks.args)."""
    counts, targets, shifts, masks, low, top = by
    if shifts.shape[0] == 1:
        for i in range(count):
            keys[i] = counts[keys[i] >> top] + low[keys[i] & LOW_MASK]
    else:
        for i in range(count):
            keys[i] = rank_chunks(keys[i], counts, targets, shifts, masks, low)


@numba.njit(cache=True, nogil=True)
def _pattern_at(counts, slab, size, index):
    """The pattern of a slab of `size` patterns whose run holds `index`: the last x with
    counts[slab + x] <= index."""
    lo, hi = 0, size
    while hi - lo > 1:
        middle = (lo + hi) // 2
        if counts[slab + middle] <= index:
            lo = middle
        else:
            hi = middle
    return lo


@numba.njit(cache=True, nogil=True)
def unrank_run(bits, base, by, out):
    """The positions of the set bits of `bits` (a bitmap of ranks from `base`; `by`:
    LevelRanks.unranking), ascending, into `out`; returns how many.

    A run is the ranks of the positions sharing every upper chunk; within it, a rank's offset picks
    the low pattern. Past a run's end, the lowest upper chunk's pattern steps to the run holding the
    rank; past its slab's end, the rank is placed again from the top chunk down.
    """
    counts, targets, shifts, masks, low_patterns, low_offsets, classes_of, pegs, home, classes = by
    last = shifts.shape[0] - 1
    size = np.int64(masks[last]) + 1  # patterns of the lowest upper chunk
    written = 0
    slab = np.int64(-1)  # the lowest upper chunk's slab at hand, none yet
    slab_base = np.uint64(0)  # the rank its counts start from
    pattern = np.int64(0)
    above = np.uint64(0)  # the upper chunks above the lowest, in place
    upper = np.uint64(0)  # every upper chunk of the run at hand, in place
    run_start = run_end = np.uint64(0)
    group_start = 0
    for word in range(bits.shape[0]):
        remaining = bits[word]
        while remaining:
            offset, remaining = pop_lowest(remaining)
            index = base + np.uint64(word) * np.uint64(64) + offset
            if index >= run_end:
                if slab < 0 or index >= slab_base + counts[slab + size]:
                    slab, slab_base, above = np.int64(0), np.uint64(0), np.uint64(0)
                    for j in range(last):
                        x = _pattern_at(counts, slab, np.int64(masks[j]) + 1, index - slab_base)
                        above |= np.uint64(x) << shifts[j]
                        slab_base += counts[slab + x]
                        slab = targets[slab + x]
                    pattern = _pattern_at(counts, slab, size, index - slab_base)
                while index >= slab_base + counts[slab + pattern + 1]:
                    pattern += 1
                run_start = slab_base + counts[slab + pattern]
                run_end = slab_base + counts[slab + pattern + 1]
                upper = above | (np.uint64(pattern) << shifts[last])
                low_class = home
                for i in range(classes_of.shape[0]):
                    low_class ^= (popcount(upper & classes_of[i]) & 1) << i
                group_start = low_offsets[(pegs - popcount(upper)) * classes + low_class]
            out[written] = upper | low_patterns[group_start + np.int64(index - run_start)]
            written += 1
    return written

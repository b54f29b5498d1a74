"""Ranks: a position's index, in numeric order, among the positions a level can hold, and back.

Every position of a level has the same number of pegs k and, when the search keeps them there, the
start's class (board.classes: the parities no jump changes). So a level fits a bitmap over just
those positions, a bit each, indexed by rank; ranks follow the positions' numeric order, so reading
a bitmap in rank order gives the positions sorted, as part files need them.

A position splits into its low 16 bits and the rest. The positions sharing their upper bits u are
consecutive in rank: as many as there are 16-bit patterns with the pegs and class the level leaves
for the low bits. So a level's table of where each u's run starts (`LevelRanks.starts`, a prefix sum
of run lengths, 2**21 entries at most, hence boards of up to MAX_HOLES holes) plus a table of each
16-bit pattern's index among those of its pegs and class makes a rank two table reads and an add;
and going back from consecutive ranks walks the runs in order, a table read a position.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from math import comb

import numba
import numpy as np

LOW_BITS = 16
_LOW = np.uint64((1 << LOW_BITS) - 1)
# Boards up to this many holes can be ranked: a level's table has 2**(holes - 16) entries (16 MiB
# for the 37-hole boards).
MAX_HOLES = 37


_BYTE_PEGS = np.array([bin(value).count("1") for value in range(256)], dtype=np.int64)


def _pegs(values: np.ndarray) -> np.ndarray:
    """The pegs (set bits) of each value, for values below 2**40."""
    count = np.zeros(len(values), dtype=np.int64)
    for byte in range(5):
        count += _BYTE_PEGS[(values >> np.uint64(8 * byte)) & np.uint64(0xFF)]
    return count


def _classes(values: np.ndarray, basis: tuple[int, ...], shift: int) -> np.ndarray:
    """The class of each value as the bits `shift` and up of a position (see board.classes)."""
    found = np.zeros(len(values), dtype=np.int64)
    for index, mask in enumerate(basis):
        found |= (_pegs(values & np.uint64(mask >> shift)) & 1) << index
    return found


@dataclass(frozen=True)
class RankTables:
    """The board-wide tables: the low 16 bits' patterns ordered by (pegs, class, value), where
    each (pegs, class) group starts (`low_offsets[pegs * classes + class]`), each pattern's index
    in its group (`low_ranks`), and the invariants' basis that defines classes (empty: no split)."""

    holes: int
    basis: tuple[int, ...]
    low_patterns: np.ndarray
    low_offsets: np.ndarray
    low_ranks: np.ndarray
    upper_pegs: np.ndarray  # per value of the bits above the low 16: its pegs
    upper_classes: np.ndarray  # ... and its share of a position's class

    @classmethod
    def for_board(cls, holes: int, basis: tuple[int, ...] = ()) -> RankTables:
        if holes > MAX_HOLES:
            raise ValueError(f"ranks are for boards of up to {MAX_HOLES} holes, not {holes}")
        values = np.arange(1 << min(LOW_BITS, holes), dtype=np.uint64)  # the holes' low bits
        group = _pegs(values) * (1 << len(basis)) + _classes(values, basis, 0)
        order = np.lexsort((values, group))
        offsets = np.zeros((LOW_BITS + 1) * (1 << len(basis)) + 1, dtype=np.int64)
        np.cumsum(np.bincount(group, minlength=len(offsets) - 1), out=offsets[1:])
        low_ranks = np.zeros(1 << LOW_BITS, dtype=np.uint64)
        low_ranks[order] = (np.arange(len(values)) - offsets[group[order]]).astype(np.uint64)
        upper = np.arange(1 << max(0, holes - LOW_BITS), dtype=np.uint64)
        return cls(holes, basis, values[order].copy(), offsets, low_ranks, _pegs(upper),
                   _classes(upper, basis, LOW_BITS))

    @property
    def classes(self) -> int:
        return 1 << len(self.basis)

    def level(self, pegs: int, home: int = 0) -> LevelRanks:
        """Ranking within the level of `pegs` pegs whose positions are of class `home`."""
        low_pegs = pegs - self.upper_pegs
        valid = (low_pegs >= 0) & (low_pegs <= LOW_BITS)
        group = np.where(valid, low_pegs, 0) * self.classes + (home ^ self.upper_classes)
        lengths = np.where(valid, self.low_offsets[group + 1] - self.low_offsets[group], 0)
        starts = np.zeros(len(low_pegs) + 1, dtype=np.uint64)
        np.cumsum(lengths, out=starts[1:])
        return LevelRanks(self, pegs, home, starts)


@dataclass(frozen=True)
class LevelRanks:
    """Ranking within one level: where each value of the upper bits starts its run of ranks
    (one entry more than there are values: the last is the level's count)."""

    tables: RankTables
    pegs: int
    home: int
    starts: np.ndarray

    @property
    def count(self) -> int:
        """How many positions the level can hold: the ranks its bitmap spans."""
        return int(self.starts[-1])

    @property
    def args(self) -> tuple[np.ndarray, np.ndarray]:
        """The ranking kernel's view: (the runs' starts, the low patterns' indexes)."""
        return self.starts, self.tables.low_ranks

    def unranking(self) -> tuple:
        """The unranking kernel's view (see `unrank_run`)."""
        tables = self.tables
        masks = np.array([mask >> LOW_BITS for mask in tables.basis], dtype=np.uint64)
        return (self.starts, tables.low_patterns, tables.low_offsets, masks, self.pegs,
                self.home, tables.classes)


@cache
def rank_tables(holes: int, basis: tuple[int, ...]) -> RankTables:
    """A board's rank tables, made once per process."""
    return RankTables.for_board(holes, basis)


@lru_cache(maxsize=2)
def level_ranks(holes: int, basis: tuple[int, ...], pegs: int, home: int) -> LevelRanks:
    """A level's ranking, kept while it is in use (a level's table takes up to 16 MiB, so only the
    last two are kept: a Spark worker reuses them across a level's tasks)."""
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
def rank_all(keys, count, by):
    """Replace ``keys[:count]``, positions of one level, by their ranks (`by`: LevelRanks.args):
    two table reads and an add each."""
    starts, low = by
    for i in range(count):
        key = keys[i]
        keys[i] = starts[key >> np.uint64(LOW_BITS)] + low[key & _LOW]


@numba.njit(cache=True, nogil=True)
def _run_of(starts, index):
    """The upper bits whose run holds rank `index`: the last u with starts[u] <= index."""
    lo, hi = 0, starts.shape[0] - 1
    while hi - lo > 1:
        middle = (lo + hi) // 2
        if starts[middle] <= index:
            lo = middle
        else:
            hi = middle
    return lo


@numba.njit(cache=True, nogil=True)
def unrank_run(bits, base, by, out):
    """The positions of the set bits of `bits` (a bitmap of ranks from `base`; `by`:
    LevelRanks.unranking), ascending, into `out`; returns how many.

    The upper bits step from run to run as the ranks pass their starts; each position is the run's
    upper bits and the low pattern its offset in the run picks.
    """
    starts, low_patterns, low_offsets, masks, pegs, home, classes = by
    written = 0
    upper = -1
    grouped = -1  # the upper bits whose low patterns' group is at hand
    group_start = 0
    for word in range(bits.shape[0]):
        remaining = bits[word]
        while remaining:
            offset, remaining = pop_lowest(remaining)
            index = base + np.uint64(word) * np.uint64(64) + offset
            if upper < 0:
                upper = _run_of(starts, index)
            while index >= starts[upper + 1]:
                upper += 1
            u = np.uint64(upper)
            if upper != grouped:
                low_class = home
                for i in range(masks.shape[0]):
                    low_class ^= (popcount(u & masks[i]) & 1) << i
                group_start = low_offsets[(pegs - popcount(u)) * classes + low_class]
                grouped = upper
            low = low_patterns[group_start + np.int64(index - starts[upper])]
            out[written] = (u << np.uint64(LOW_BITS)) | low
            written += 1
    return written

"""The reduce without a comparison sort: repeats dropped in hash tables that stay in cache.

A level's children go to hash partitions (`partition_of`: the top bits of a multiplicative hash of
the signature), and each partition owns an open-addressing table (linear probing, 0 = empty slot:
no position reachable by a jump is empty). Children arrive already grouped by partition (the map
kernel routes them, see expand.expand_routed), so each table is filled on its own, by one thread,
while it sits in that core's cache: a repeat costs a probe or two, not a share of a sort over every
child. Path counts ride along as 128-bit limbs and are summed exactly in the table.

All the tables of one pass live in one arena, a ``(partitions, size)`` array: the hash spreads
children evenly, so the partitions fill alike and grow together (doubling, in parallel). When the
arena would outgrow the memory budget, the pass gives up the upper half of its partitions; they are
made by a later pass over the parents. Nothing is ever spilled to disk: the only bytes a level
writes are its part files.

Only the distinct survivors are sorted, by an LSD radix sort over the bits positions can use, so
part files stay sorted (and compress to under 2 bytes a position with delta encoding).
"""

from __future__ import annotations

import numba
import numpy as np

from pegsearch.paths import PathCountOverflow, add_limbs, overflow_message
from pegsearch.threads import slice_start, spread

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# Most slots a table fills before it doubles; linear probing stays short below this.
LOAD = 0.7
_SIXTY_FOUR = np.uint64(64)


@numba.njit(cache=True, nogil=True, inline="always")
def partition_of(key, pbits):
    """The partition of a signature: the top `pbits` bits (uint64) of its multiplicative hash."""
    if pbits == 0:
        return 0
    return np.int64((key * GOLDEN) >> (_SIXTY_FOUR - pbits))


@numba.njit(cache=True, nogil=True, inline="always")
def _home(key, pbits, sbits):
    """A key's first slot in its partition's table: the hash bits below the partition bits."""
    return np.int64(((key * GOLDEN) << pbits) >> (_SIXTY_FOUR - sbits))


@numba.njit(cache=True, nogil=True, inline="always")
def _find(slots, base, mask, key, pbits, sbits):
    """Where a key is in its partition's table (from `base`), or the empty slot it goes into."""
    i = _home(key, pbits, sbits)
    while True:
        held = slots[base + i]
        if held == key or held == 0:
            return base + i
        i = (i + 1) & mask


@numba.njit(cache=True, nogil=True, inline="always")
def _fill(slots, sums, base, mask, keys, values, start, end, pbits, sbits):
    """Insert ``keys[start:end]`` (adding their path counts, rows of values, when `sums` has rows)
    into one table; returns how many were new and whether a path count overflowed.

    The counted and the uncounted loops are written apart on purpose: with the path-count branch
    inside one loop, numba's code took 33 ns a key instead of 8.
    """
    new, overflow = 0, False
    if sums.shape[0] == 0:
        for k in range(start, end):
            j = _find(slots, base, mask, keys[k], pbits, sbits)
            if slots[j] == 0:
                slots[j] = keys[k]
                new += 1
        return new, overflow
    for k in range(start, end):
        j = _find(slots, base, mask, keys[k], pbits, sbits)
        if slots[j] == 0:
            slots[j] = keys[k]
            sums[j, 0] = values[k, 0]
            sums[j, 1] = values[k, 1]
            new += 1
        else:
            overflow |= add_limbs(sums, j, values, k)
    return new, overflow


@numba.njit(cache=True, nogil=True)
def _insert(slots, sums, filled, keys, values, bounds, next_block, pbits, sbits, limit, first, step):
    """Insert each block's stretch of slice `first` of `step` of the partitions into its table.

    A partition stops before a stretch that could push it past `limit` filled slots and records
    where it stopped, so the caller can grow the tables and call again. Returns whether a path count
    overflowed.
    """
    width, blocks = filled.shape[0], bounds.shape[0]
    size = np.int64(1) << np.int64(sbits)
    mask = size - 1
    overflow = False
    for q in range(slice_start(width, first, step), slice_start(width, first + 1, step)):
        base = q * size
        b = next_block[q]
        while b < blocks:
            start, end = bounds[b, q], bounds[b, q + 1]
            if filled[q] + end - start > limit:
                break
            new, lost = _fill(slots, sums, base, mask, keys, values, start, end, pbits, sbits)
            filled[q] += new
            overflow |= lost
            b += 1
        next_block[q] = b
    return overflow


@numba.njit(cache=True, nogil=True)
def _rehash(slots, sums, new_slots, new_sums, pbits, old_bits, new_bits, first, step):
    """Slice `first` of `step` of the partitions' tables, copied into the larger arena."""
    old_size = np.int64(1) << np.int64(old_bits)
    new_size = np.int64(1) << np.int64(new_bits)
    width = new_slots.shape[0] // new_size
    for q in range(slice_start(width, first, step), slice_start(width, first + 1, step)):
        for i in range(q * old_size, (q + 1) * old_size):
            if slots[i] != 0:
                _fill(new_slots, new_sums, q * new_size, new_size - 1, slots, sums, i, i + 1, pbits,
                      new_bits)


@numba.njit(cache=True, nogil=True)
def _gather(slots, sums, start, end):
    """The occupied slots of a range of the arena: keys and (when counted) their path counts."""
    count = 0
    for i in range(start, end):
        count += slots[i] != 0
    keys = np.empty(count, dtype=np.uint64)
    values = np.empty((count if sums.shape[0] else 0, 2), dtype=np.uint64)
    k = 0
    for i in range(start, end):
        if slots[i] != 0:
            keys[k] = slots[i]
            if sums.shape[0]:
                values[k, 0] = sums[i, 0]
                values[k, 1] = sums[i, 1]
            k += 1
    return keys, values


@numba.njit(cache=True, nogil=True)
def radix_sort(keys, values):
    """Keys sorted ascending (unsigned), values rows moved with them; least significant digit first.

    Only the bits some key uses are sorted on (33 for the English board: three passes of 11 bits),
    so the cost is a few linear passes rather than a comparison sort's log n.
    """
    n = keys.shape[0]
    used = np.uint64(0)
    for i in range(n):
        used |= keys[i]
    bits = 0
    while bits < 64 and (used >> np.uint64(bits)) != 0:
        bits += 1
    passes = (bits + 10) // 11
    if passes == 0:
        return keys, values
    digit = (bits + passes - 1) // passes
    radix = 1 << digit
    mask = np.uint64(radix - 1)
    other_keys = np.empty_like(keys)
    other_values = np.empty_like(values)
    counted = values.shape[0] > 0
    for p in range(passes):
        shift = np.uint64(p * digit)
        count = np.zeros(radix + 1, dtype=np.int64)
        for i in range(n):
            count[np.int64((keys[i] >> shift) & mask) + 1] += 1
        for d in range(radix):
            count[d + 1] += count[d]
        for i in range(n):
            d = np.int64((keys[i] >> shift) & mask)
            other_keys[count[d]] = keys[i]
            if counted:
                other_values[count[d], 0] = values[i, 0]
                other_values[count[d], 1] = values[i, 1]
            count[d] += 1
        keys, other_keys = other_keys, keys
        values, other_values = other_values, values
    return keys, values


# Slots a partition's table aims at: 32 KiB of keys, so probes hit a core's cache.
TABLE_SLOTS = 1 << 12
# At most 16384 partitions: past that, the per-block routing bookkeeping costs more than it saves.
MAX_PBITS = 14


def partition_bits(expected: int, least: int = 0) -> int:
    """Partitions for `expected` distinct keys, as a power of two, at least ``2**least``: enough
    that each table stays near TABLE_SLOTS (in cache), up to ``2**MAX_PBITS``."""
    bits = least
    while bits < MAX_PBITS and expected >> bits > TABLE_SLOTS // 2:
        bits += 1
    return bits


def table_bits(count: int) -> int:
    """Slot bits of a table that holds `count` keys below the load limit."""
    bits = 4
    while (1 << bits) * LOAD < count:
        bits += 1
    return bits


class Tables:
    """The hash tables of one pass: partitions ``[lo, lo + width)`` of ``2**pbits``.

    `budget` bounds the arena's bytes; growing past it gives up partitions instead (see the module
    notes), and `hi` then says where the next pass starts.
    """

    def __init__(self, pbits: int, lo: int, width: int, sbits: int, counted: bool,
                 budget: int) -> None:
        self.pbits, self.lo, self.sbits, self.counted, self.budget = pbits, lo, sbits, counted, budget
        self.slots = np.zeros(width << sbits, dtype=np.uint64)
        self.sums = np.zeros(((width << sbits) if counted else 0, 2), dtype=np.uint64)
        self.filled = np.zeros(width, dtype=np.int64)

    @staticmethod
    def slot_bytes(counted: bool) -> int:
        return 24 if counted else 8

    @property
    def width(self) -> int:
        return self.filled.shape[0]

    @property
    def hi(self) -> int:
        return self.lo + self.width

    @property
    def nbytes(self) -> int:
        return self.slots.nbytes + self.sums.nbytes

    def add(self, keys: np.ndarray, values: np.ndarray, bounds: np.ndarray) -> None:
        """Insert routed children: ``bounds[b, q]:bounds[b, q + 1]`` is block b's share of partition
        ``lo + q`` in `keys` (and rows of `values` when paths are counted)."""
        next_block = np.zeros(self.width, dtype=np.int64)
        while True:
            limit = int((1 << self.sbits) * LOAD)
            if any(spread(_insert, self.width, self.slots, self.sums, self.filled, keys, values,
                          bounds, next_block, np.uint64(self.pbits), np.uint64(self.sbits), limit)):
                raise PathCountOverflow(overflow_message())
            if (next_block[: self.width] >= bounds.shape[0]).all():
                return
            self._grow()
            next_block = next_block[: self.width]

    def _grow(self) -> None:
        """Double every table; past the budget, first give up the upper half of the partitions.

        While the tables are copied the old and the new arena are both held: three times the old.
        """
        while self.nbytes * 3 > self.budget and self.width > 1:
            keep = self.width // 2
            self.slots = self.slots[: keep << self.sbits].copy()
            self.sums = self.sums[: keep << self.sbits].copy() if self.counted else self.sums
            self.filled = self.filled[:keep].copy()
        slots = np.zeros(self.width << (self.sbits + 1), dtype=np.uint64)
        sums = np.zeros((len(slots) if self.counted else 0, 2), dtype=np.uint64)
        spread(_rehash, self.width, self.slots, self.sums, slots, sums, np.uint64(self.pbits),
               np.uint64(self.sbits), np.uint64(self.sbits + 1))
        self.slots, self.sums = slots, sums
        self.sbits += 1

    def drain(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The distinct keys of partitions ``[first, last)`` (offsets in this pass), sorted, with
        their path counts; those tables are emptied of meaning (call once per range)."""
        keys, values = _gather(self.slots, self.sums, first << self.sbits, last << self.sbits)
        return radix_sort(keys, values)


def distinct(keys: np.ndarray, values: np.ndarray, bounds: np.ndarray | None = None,
             pbits: int = 0, partition: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys of one batch, sorted, with path counts summed (`values` may be ``(0, 2)``).

    The reduce for callers that hold a whole batch at once (the mrjob and Spark mappers, the mrjob
    driver, a Spark reduce task): one table, filled in one call, drained once. `bounds` are
    `expand_routed`'s when the batch comes routed (to one partition); by default the batch is one
    stretch. Keys that all belong to one `partition` of ``2**pbits`` must say so: their hashes
    share those top bits, and a table that used them would fill a fraction of its slots.
    """
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    counted = values.shape[0] > 0
    if bounds is None:
        bounds = np.array([[0, len(keys)]], dtype=np.int64)
    tables = Tables(pbits, partition, 1, table_bits(len(keys)), counted, budget=1 << 62)
    tables.add(keys, np.ascontiguousarray(values, dtype=np.uint64) if counted else values, bounds)
    return tables.drain(0, 1)

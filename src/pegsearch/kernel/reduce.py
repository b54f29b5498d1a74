"""The reduce without a comparison sort: repeats dropped in hash tables that stay in cache.

A level's children go to hash partitions (`partition_of`: the top bits of a bijective mix of the
signature, see Keyspace), and each partition owns an open-addressing table (linear probing) of
*codes*: what is left of a signature once its partition is known, in 32 bits on most boards, 0
marking an empty slot. Children arrive already grouped by partition (the map
kernel routes them, see kernel.expand.expand_routed), so each table is filled on its own, by one thread,
while it sits in that core's cache: a repeat costs a probe or two, not a share of a sort over every
child. Values ride along as rows of two words (kernel.values) and merge in the table: path counts
summed exactly as 128-bit limbs, fewest moves kept smallest.

All the tables of one pass live in one arena, a ``(partitions, size)`` array: the hash spreads
children evenly, so the partitions fill alike and grow together (doubling, in parallel). When the
arena would outgrow the memory budget, the pass gives up the upper half of its partitions; they are
made by a later pass over the parents. Nothing is ever spilled to disk: the only bytes a level
writes are its part files.

Only the distinct survivors are sorted, by an LSD radix sort over the bits positions can use, so
part files stay sorted (and compress to under 2 bytes a position with delta encoding).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from pegsearch.errors import PathCountOverflow
from pegsearch.kernel.moves import keep_fewest
from pegsearch.kernel.path_counts import add_limbs, overflow_message
from pegsearch.kernel.threads import slice_start, spread
from pegsearch.kernel.values import NO_VALUES, Carry

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# GOLDEN's inverse modulo 2**64 (and so modulo every 2**n): it turns a mixed signature back.
UNMIX = np.uint64(pow(int(GOLDEN), -1, 1 << 64))
# Most slots a table fills before it doubles; linear probing stays short below this.
LOAD = 0.7
# Bits a narrow code can use: a code is its remainder plus one, and 0 marks an empty slot.
NARROW_BITS = 31


@dataclass(frozen=True)
class Keyspace:
    """How signatures of `nbits` bits are spread over ``2**pbits`` partitions and stored in them.

    A signature is mixed by a bijection of the n-bit numbers (multiplication by an odd constant,
    modulo ``2**nbits``): the top `pbits` bits of the mix name its partition, and the `rbits` below
    them, its remainder, tell it apart within the partition, which knows its own top bits. So when
    the remainder fits 31 bits (every board of up to 31 holes more than the partition bits), a
    child is stored as a 32-bit *code*, the remainder plus one: half the bytes of a signature for
    every routed child and every table slot, which halves the memory a level needs and the cache
    each table takes. Otherwise the code is the whole mix, never 0 since no position is empty.
    The remainder's top bits, well mixed, pick a code's home slot; draining a table undoes the mix.

    Keys that are ranks (see `kernel.ranks`) are not mixed (`mixed` False): a partition is then a
    contiguous range of ranks, a slice of the level's bitmap.
    """

    nbits: int
    pbits: int
    mixed: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.pbits <= self.nbits <= 64:
            raise ValueError(f"{1 << self.pbits} partitions of {self.nbits}-bit signatures: a"
                             " partition must get at least one signature (cap its bits at the"
                             " board's holes)")

    @property
    def rbits(self) -> int:
        return self.nbits - self.pbits

    @property
    def partitions(self) -> int:
        return 1 << self.pbits

    @property
    def narrow(self) -> bool:
        return self.rbits <= NARROW_BITS

    @property
    def dtype(self) -> type:
        return np.uint32 if self.narrow else np.uint64

    @property
    def args(self) -> tuple:
        """The kernels' view: (mask of the n bits, pbits, rbits, bits a code keeps, code offset,
        mask of the remainder, the mix's multiplier and its inverse)."""
        nmask = np.uint64((1 << self.nbits) - 1)
        rmask = np.uint64((1 << self.rbits) - 1)
        keep = rmask if self.narrow else nmask
        mix, unmix = (GOLDEN, UNMIX) if self.mixed else (np.uint64(1), np.uint64(1))
        return (nmask, np.uint64(self.pbits), np.uint64(self.rbits), keep,
                np.uint64(1 if self.narrow else 0), rmask, mix, unmix)


@numba.njit(cache=True, nogil=True, inline="always")
def partition_of(key, space):
    """The partition of a signature: the top `pbits` of its n-bit mix."""
    if space[1] == 0:
        return 0
    return np.int64(((key * space[6]) & space[0]) >> space[2])


@numba.njit(cache=True, nogil=True, inline="always")
def code_of(key, space):
    """What a partition's table stores for a signature (see Keyspace)."""
    return ((key * space[6]) & space[3]) + space[4]


@numba.njit(cache=True, nogil=True, inline="always")
def _remainder(code, space):
    return (np.uint64(code) - space[4]) & space[5]


@numba.njit(cache=True, nogil=True, inline="always")
def key_of(partition, code, space):
    """The signature behind a code of `partition`: the mix rebuilt, then undone."""
    mixed = _remainder(code, space)
    if space[1] != 0:
        mixed |= np.uint64(partition) << space[2]
    return (mixed * space[7]) & space[0]


@numba.njit(cache=True, nogil=True, inline="always")
def _home(code, space, sbits):
    """A code's first slot in its table of ``2**sbits``: the top bits of its remainder."""
    rest = _remainder(code, space)
    if space[2] >= sbits:
        return np.int64(rest >> (space[2] - sbits))
    return np.int64(rest << (sbits - space[2]))


@numba.njit(cache=True, nogil=True, inline="always")
def _find(slots, base, mask, code, space, sbits):
    """Where a code is in its partition's table (from `base`), or the empty slot it goes into."""
    i = _home(code, space, sbits)
    while True:
        held = slots[base + i]
        if held == code or held == 0:
            return base + i
        i = (i + 1) & mask


@numba.njit(cache=True, nogil=True, inline="always")
def _fill(slots, sums, base, mask, codes, values, carry, start, end, space, sbits):
    """Insert ``codes[start:end]`` (merging their rows of `values` as `carry` says, when `sums` has
    rows) into one table; returns how many were new and whether a path count overflowed.

    The loops for each kind of value are written apart on purpose: with the path-count branch
    inside one loop, numba's code took several times as long a key; and one loop for both kinds of
    value, branching on `carry` at each repeat, made `run english-33 --count-paths` 20 % slower
    (7.6 s against 6.5 s, alternated four times).
    """
    new, overflow = 0, False
    if sums.shape[0] == 0:
        for k in range(start, end):
            j = _find(slots, base, mask, codes[k], space, sbits)
            if slots[j] == 0:
                slots[j] = codes[k]
                new += 1
        return new, overflow
    if carry == Carry.MOVES:
        for k in range(start, end):
            j = _find(slots, base, mask, codes[k], space, sbits)
            if slots[j] == 0:
                slots[j] = codes[k]
                sums[j, 0] = values[k, 0]
                sums[j, 1] = values[k, 1]
                new += 1
            else:
                keep_fewest(sums, j, values, k)
        return new, overflow
    for k in range(start, end):
        j = _find(slots, base, mask, codes[k], space, sbits)
        if slots[j] == 0:
            slots[j] = codes[k]
            sums[j, 0] = values[k, 0]
            sums[j, 1] = values[k, 1]
            new += 1
        else:
            overflow |= add_limbs(sums, j, values, k)
    return new, overflow


@numba.njit(cache=True, nogil=True)
def _insert(slots, sums, filled, codes, values, carry, bounds, next_block, space, sbits, limit, first,
            step):
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
            new, lost = _fill(slots, sums, base, mask, codes, values, carry, start, end, space,
                              sbits)
            filled[q] += new
            overflow |= lost
            b += 1
        next_block[q] = b
    return overflow


@numba.njit(cache=True, nogil=True)
def _rehash(slots, sums, carry, new_slots, new_sums, space, old_bits, new_bits, first, step):
    """Slice `first` of `step` of the partitions' tables, copied into the larger arena."""
    old_size = np.int64(1) << np.int64(old_bits)
    new_size = np.int64(1) << np.int64(new_bits)
    width = new_slots.shape[0] // new_size
    for q in range(slice_start(width, first, step), slice_start(width, first + 1, step)):
        for i in range(q * old_size, (q + 1) * old_size):
            if slots[i] != 0:
                _fill(new_slots, new_sums, q * new_size, new_size - 1, slots, sums, carry, i, i + 1,
                      space, new_bits)


@numba.njit(cache=True, nogil=True)
def _gather(slots, sums, first, last, lo, space, sbits):
    """The signatures of partitions ``lo + [first, last)`` (their tables' occupied slots) and, when
    counted, their path counts."""
    size = np.int64(1) << np.int64(sbits)
    count = 0
    for i in range(first * size, last * size):
        count += slots[i] != 0
    keys = np.empty(count, dtype=np.uint64)
    values = np.empty((count if sums.shape[0] else 0, 2), dtype=np.uint64)
    k = 0
    for q in range(first, last):
        for i in range(q * size, (q + 1) * size):
            if slots[i] != 0:
                keys[k] = key_of(lo + q, slots[i], space)
                if sums.shape[0]:
                    values[k, 0] = sums[i, 0]
                    values[k, 1] = sums[i, 1]
                k += 1
    return keys, values


@numba.njit(cache=True, nogil=True)
def _encode(keys, codes, space, partition):
    """Fill `codes` for keys that all belong to `partition`; returns -1, or the index of the first
    key that does not."""
    for k in range(keys.shape[0]):
        if partition_of(keys[k], space) != partition:
            return k
        codes[k] = code_of(keys[k], space)
    return -1


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


# Slots a partition's table aims at: 16 KiB of 32-bit codes, so probes hit a core's cache (8192
# slots measured the same).
TABLE_SLOTS = 1 << 12
# At most 16384 partitions: past that, the per-block routing bookkeeping costs more than it saves.
MAX_PBITS = 14


def _partition_bits(expected: int, nbits: int, least: int = 0) -> int:
    """Partitions for `expected` distinct keys of `nbits`-bit signatures, as a power of two, at
    least ``2**least``: enough that each table stays near TABLE_SLOTS (in cache), up to
    ``2**MAX_PBITS``. Never more than the signatures, as `Keyspace` requires: a board of fewer
    holes than a many-core machine's partition bits (4 holes, 16 cores) keeps few."""
    bits = least
    while bits < MAX_PBITS and expected >> bits > TABLE_SLOTS // 2:
        bits += 1
    return min(bits, nbits)


def table_bits(count: int) -> int:
    """Slot bits of a table that holds `count` keys below the load limit."""
    bits = 4
    while (1 << bits) * LOAD < count:
        bits += 1
    return bits


@dataclass(frozen=True)
class Layout:
    """How `expected` distinct signatures are held: the keyspace's partitions, and the slot bits
    each partition's table starts with. The one sizing rule of every reduce (the local engine's
    passes, a Spark map task's combiner, a single batch)."""

    space: Keyspace
    sbits: int

    @classmethod
    def plan(cls, expected: int, nbits: int, least: int = 0) -> Layout:
        """Tables near the cache-sized aim, at least ``2**least`` partitions of them."""
        space = Keyspace(nbits, _partition_bits(expected, nbits, least))
        return cls(space, table_bits(-(-expected // space.partitions)))

    def tables(self, carry: Carry, lo: int = 0, width: int | None = None,
               budget: int = 1 << 62) -> HashTables:
        """Empty tables for partitions ``[lo, lo + width)`` (default: all of them)."""
        width = self.space.partitions - lo if width is None else width
        return HashTables(self.space, lo, width, self.sbits, carry, budget)


class PassPartitions:
    """What a pass of a level holds: partitions ``[lo, hi)`` of its keyspace, and how many distinct
    keys each has taken (`filled`). Hash tables and rank bitmaps both are."""

    lo: int
    filled: np.ndarray

    @property
    def width(self) -> int:
        return self.filled.shape[0]

    @property
    def hi(self) -> int:
        return self.lo + self.width


class HashTables(PassPartitions):
    """The hash tables of one pass: partitions ``[lo, lo + width)`` of the keyspace's.

    `budget` bounds the arena's bytes; growing past it gives up partitions instead (see the module
    notes), and `hi` then says where the next pass starts.
    """

    def __init__(self, space: Keyspace, lo: int, width: int, sbits: int, carry: Carry,
                 budget: int) -> None:
        self.space, self.lo, self.sbits, self.carry, self.budget = space, lo, sbits, carry, budget
        self.slots = np.zeros(width << sbits, dtype=space.dtype)
        self.sums = np.zeros(((width << sbits) if carry else 0, 2), dtype=np.uint64)
        self.filled = np.zeros(width, dtype=np.int64)

    @staticmethod
    def slot_bytes(space: Keyspace, carry: Carry) -> int:
        return np.dtype(space.dtype).itemsize + (16 if carry else 0)

    @property
    def nbytes(self) -> int:
        return self.slots.nbytes + self.sums.nbytes

    def add(self, codes: np.ndarray, values: np.ndarray, bounds: np.ndarray) -> None:
        """Insert routed children: ``bounds[b, q]:bounds[b, q + 1]`` is block b's share of partition
        ``lo + q`` in `codes` (and rows of `values` when values are carried)."""
        next_block = np.zeros(self.width, dtype=np.int64)
        while True:
            limit = int((1 << self.sbits) * LOAD)
            if any(spread(_insert, self.width, self.slots, self.sums, self.filled, codes, values,
                          int(self.carry), bounds, next_block, self.space.args,
                          np.uint64(self.sbits), limit)):
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
            self.sums = self.sums[: keep << self.sbits].copy() if self.carry else self.sums
            self.filled = self.filled[:keep].copy()
        slots = np.zeros(self.width << (self.sbits + 1), dtype=self.slots.dtype)
        sums = np.zeros((len(slots) if self.carry else 0, 2), dtype=np.uint64)
        spread(_rehash, self.width, self.slots, self.sums, int(self.carry), slots, sums, self.space.args,
               np.uint64(self.sbits), np.uint64(self.sbits + 1))
        self.slots, self.sums = slots, sums
        self.sbits += 1

    def drain(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The distinct signatures of partitions ``[first, last)`` (offsets in this pass), sorted,
        with their path counts; those tables are emptied of meaning (call once per range)."""
        keys, values = _gather(self.slots, self.sums, first, last, self.lo, self.space.args,
                               self.sbits)
        return radix_sort(keys, values)


# Signatures of any 64 bits, in one partition: for batches whose board is not at hand.
ANY_KEYS = Keyspace(64, 0)


def one_table(space: Keyspace, partition: int, carry: Carry, codes: np.ndarray, values: np.ndarray,
              bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct signatures behind a batch of codes of one partition, sorted, with their values
    merged: one table, filled in one call, drained once."""
    tables = Layout(space, table_bits(len(codes))).tables(carry, partition, 1)
    tables.add(codes, values, bounds)
    return tables.drain(0, 1)


def distinct(keys: np.ndarray, values: np.ndarray = NO_VALUES, carry: Carry = Carry.NOTHING,
             space: Keyspace = ANY_KEYS, partition: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys of one batch, sorted, with their values merged as `carry` says.

    The reduce for callers that hold a whole batch at once (the mrjob driver, a Spark reduce task).
    Keys that all belong to one `partition` of a keyspace must say so, so that their codes are
    narrow and their home slots come from the bits that differ; a key that does not belong there
    is a bug upstream, refused rather than stored under a wrong signature.
    """
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    codes = np.empty(len(keys), dtype=space.dtype)
    stray = _encode(keys, codes, space.args, partition)
    if stray >= 0:
        raise ValueError(f"signature {int(keys[stray])} does not belong to partition {partition}"
                         f" of {1 << space.pbits}")
    values = np.ascontiguousarray(values, dtype=np.uint64)
    return one_table(space, partition, carry, codes, values,
                     np.array([[0, len(keys)]], dtype=np.int64))

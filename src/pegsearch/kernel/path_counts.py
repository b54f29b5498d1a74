"""Exact path counts: how many distinct jump sequences reach each position.

Counts outgrow 64 bits on large boards, so a count is a 128-bit integer held as two uint64 limbs,
an ``(n, 2)`` array of ``[low, high]`` rows. That is byte for byte Arrow's decimal128 layout, so a
level's `paths` column is Parquet ``decimal(38, 0)`` with no conversion, which Spark sums natively
(and, in ANSI mode, refuses to overflow). Every sum here is checked against 10**38 - 1, the largest
value the column holds: an overflow raises, it never wraps.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa

PATHS = "paths"
ARROW_TYPE = pa.decimal128(38, 0)
LIMIT = 10**38 - 1
_LIMIT_LOW = np.uint64(LIMIT & (2**64 - 1))
_LIMIT_HIGH = np.uint64(LIMIT >> 64)


# No path counts: what a batch that counts none carries in their place.
NO_PATHS = np.empty((0, 2), dtype=np.uint64)


def ones(count: int) -> np.ndarray:
    """`count` path counts of 1 (the start position is reached one way)."""
    paths = np.zeros((count, 2), dtype=np.uint64)
    paths[:, 0] = 1
    return paths


@numba.njit(cache=True, nogil=True, inline="always")
def add_limbs(sums, j, values, k):
    """Add path count row k of `values` into row j of `sums`; True when the sum passes LIMIT."""
    low = sums[j, 0] + values[k, 0]
    carry = np.uint64(1) if low < sums[j, 0] else np.uint64(0)
    high = sums[j, 1] + values[k, 1] + carry
    overflow = high < sums[j, 1] or high > _LIMIT_HIGH or (high == _LIMIT_HIGH and low > _LIMIT_LOW)
    sums[j, 0] = low
    sums[j, 1] = high
    return overflow


@numba.njit(cache=True, nogil=True)
def sum_found(values, ends, keys, counts, sums, reached):
    """For each group of `values` (group g ends at ends[g], as a parent's children do), add into
    row g of `sums` the count of each value found in `keys` (sorted; `counts` row for row) and
    mark the group reached. True when a sum passes LIMIT (the sums are then not to be used)."""
    start = 0
    for group in range(len(ends)):
        for i in range(start, ends[group]):
            at = np.searchsorted(keys, values[i])
            if at < len(keys) and keys[at] == values[i]:
                reached[group] = True
                if add_limbs(sums, group, counts, at):
                    return True
        start = ends[group]
    return False


def overflow_message() -> str:
    return f"a path count exceeds {LIMIT:.3e}, the largest a level stores"


def to_arrow(paths: np.ndarray) -> pa.Array:
    """Path counts as an Arrow decimal128(38, 0) array, sharing the limbs' bytes."""
    limbs = np.ascontiguousarray(paths, dtype=np.uint64)
    return pa.Array.from_buffers(ARROW_TYPE, len(limbs), [None, pa.py_buffer(limbs)])


def words_of(column: pa.Array | pa.ChunkedArray, what: str, width: int = 1) -> np.ndarray:
    """A fixed-width Arrow column's values as uint64 words, `width` a row, read from its buffer
    (a view, no copy; `to_numpy` would import pandas, 0.3 s). A null is a damaged level file."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if column.null_count:
        raise ValueError(f"a {what} is missing (null) in a level file")
    data = np.frombuffer(column.buffers()[1], dtype=np.uint64)
    return data[width * column.offset: width * (column.offset + len(column))]


def from_arrow(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Path counts from an Arrow decimal column (any precision up to 38, scale 0) as limbs."""
    if column.type != ARROW_TYPE:
        column = column.cast(ARROW_TYPE)
    return words_of(column, "path count", 2).reshape(-1, 2)


def total(paths: np.ndarray) -> int:
    """The exact sum of path counts as a Python integer.

    Each limb is summed in 32-bit halves, so no partial sum can wrap for fewer than 2**32 rows.
    """
    result = 0
    for column, shift in ((0, 0), (1, 64)):
        limb = paths[:, column]
        result += int(np.sum(limb & np.uint64(0xFFFFFFFF))) << shift
        result += int(np.sum(limb >> np.uint64(32))) << (shift + 32)
    return result


def as_int(row: np.ndarray) -> int:
    """One path count as a Python integer."""
    return int(row[0]) + (int(row[1]) << 64)

"""Fewest moves: how few moves reach each position, and where the peg that moved last may stand.

A *move* is one or more consecutive jumps by the same peg. Let g(P, h) be the fewest moves reaching
position P with the last jump made by the peg now on hole h: a further jump by that peg costs no
new move, any other jump costs one. If h1 reaches P in m moves and h2 only in more, every
continuation from (P, h2) costs at least as much as the same one from (P, h1). So a position needs
only its fewest moves m and the *set* of holes reaching it in m: the reduce keeps the smallest m and
ORs the sets on a tie, exactly as path counts are summed.

A value is a row of two uint64 words, like a path count's limbs: ``[last, moves]``, `last` the set
of holes (bit i-1 is hole i) in the frame of the position's signature, so a symmetry that makes a
child's signature carries its landing hole too (see kernel.expand). Stored, a level has two columns:
`moves` (int16) and `last_holes` (int64 holding the unsigned bits, like `position`).
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa

MOVES = "moves"
LAST_HOLES = "last_holes"
MOVES_TYPE = pa.int16()  # a board has at most 64 holes, so at most 62 jumps and moves


def starting(count: int) -> np.ndarray:
    """The start's values: no move made, no peg moved last."""
    return np.zeros((count, 2), dtype=np.uint64)


@numba.njit(cache=True, nogil=True, inline="always")
def keep_fewest(kept, j, values, k):
    """Merge value row k of `values` into row j of `kept`: the fewer moves win, a tie unites the
    holes the last peg may stand on."""
    if values[k, 1] < kept[j, 1]:
        kept[j, 0] = values[k, 0]
        kept[j, 1] = values[k, 1]
    elif values[k, 1] == kept[j, 1]:
        kept[j, 0] |= values[k, 0]


def to_arrow(values: np.ndarray) -> tuple[pa.Array, pa.Array]:
    """The `moves` and `last_holes` columns of a level's values."""
    values = np.ascontiguousarray(values, dtype=np.uint64)
    moves = values[:, 1].astype(np.int16)
    return (pa.Array.from_buffers(MOVES_TYPE, len(moves), [None, pa.py_buffer(moves)]),
            holes_to_arrow(values[:, 0]))


def from_arrow(moves: pa.Array | pa.ChunkedArray, last: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Values from the `moves` and `last_holes` columns (a null is a damaged level file)."""
    values = np.empty((len(last), 2), dtype=np.uint64)
    values[:, 0] = words_from_arrow(last, "last-peg set")
    values[:, 1] = words_from_arrow(moves, "move count")
    return values


def holes_to_arrow(holes: np.ndarray) -> pa.Array:
    """Sets of holes (bit i-1 is hole i) as an int64 column holding the unsigned bits, as
    `position` is stored."""
    holes = np.ascontiguousarray(holes, dtype=np.uint64)
    return pa.Array.from_buffers(pa.int64(), len(holes), [None, pa.py_buffer(holes)])


def words_from_arrow(column: pa.Array | pa.ChunkedArray, what: str) -> np.ndarray:
    """An integer column as unsigned 64-bit words (a null, `what` missing, is a damaged file)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count:
        raise ValueError(f"a {what} is missing (null) in a level file")
    return column.to_numpy(zero_copy_only=False).astype(np.int64).view(np.uint64)


def by_moves(values: np.ndarray) -> dict[int, int]:
    """How many positions need exactly n moves at fewest, for each n that some position needs."""
    counts = np.bincount(values[:, 1].astype(np.int64)) if len(values) else np.zeros(0, np.int64)
    return {int(n): int(c) for n, c in enumerate(counts) if c}

"""Blocks: one partition's share of a map task's distinct children, as one compact byte string.

A cluster engine moves blocks, never positions: its shuffle carries a few large values per task
(one per target partition) instead of a row per child. A block of a table level holds sorted
distinct positions as the gaps between them (kernel.gaps: a byte or a few each, since a
partition's positions are dense among its own), and their values when the run carries any, each
compressed with zstd, behind a 32-byte header. A block of a bitmap level (a *range block*) holds
the set bits of one range of ranks: the bitmap slice itself where it is dense, the gaps between its
set bits where it is sparse, whichever zstd makes smaller (see SPARSE_SHARE).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from pegsearch.kernel.expand import Scratch, expand_routed
from pegsearch.kernel.gaps import ones_bound, or_ones, pack_ones, pack_sorted, unpack_sorted
from pegsearch.kernel.reduce import Keyspace, Layout, distinct
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.values import NO_VALUES, Carry

# zstd's level 3, not Arrow's default 1: on triangle-9's level 13 a map task's gaps take 0.28-0.29
# bytes a set bit against 0.32-0.36, for 4 ns a set bit to compress against 3
# (bench/range_blocks.py).
CODEC = pa.Codec("zstd", compression_level=3)
# Header words: a table block's rows, its gaps' bytes, and the compressed bytes of its gaps and of
# its values; a range block's form, set bits, and the bytes of its payload raw and compressed.
_HEADER = 4
# A range block sends the gaps of its set bits when fewer than one rank in SPARSE_SHARE is set,
# else the bitmap slice: below that the gaps are the smaller after zstd (measured on random slices
# of 2**30 ranks: at 8 % 0.64 bytes a set bit against 0.71 for the slice, at 14 % 0.53 against
# 0.54), above it the slice, which is also the quicker to make and to OR.
SPARSE_SHARE = 8
_SLICE, _GAPS = 0, 1  # a range block's two forms


def _packed(raw: np.ndarray) -> bytes:
    return CODEC.compress(pa.py_buffer(np.ascontiguousarray(raw)), asbytes=True)


def _unpacked(packed: memoryview, size: int, dtype: type) -> np.ndarray:
    return np.frombuffer(CODEC.decompress(packed, size, asbytes=True), dtype=dtype)


def _header(block: bytes) -> tuple[int, ...]:
    return tuple(int(v) for v in np.frombuffer(block, np.uint64, _HEADER))


def encode_block(keys: np.ndarray, values: np.ndarray | None = None) -> bytes:
    """Sorted distinct positions (and their values' rows) as one block."""
    gaps = pack_sorted(np.ascontiguousarray(keys, dtype=np.uint64))
    packed_keys = _packed(gaps)
    packed_values = b"" if values is None else _packed(np.asarray(values, dtype=np.uint64))
    header = np.array([len(keys), len(gaps), len(packed_keys), len(packed_values)], dtype=np.uint64)
    return header.tobytes() + packed_keys + packed_values


def decode_block(block: bytes) -> tuple[np.ndarray, np.ndarray | None]:
    """A block's positions and values' rows (None when the block carries none)."""
    rows, gap_bytes, key_bytes, value_bytes = _header(block)
    body = memoryview(block)[8 * _HEADER:]
    keys = np.empty(rows, dtype=np.uint64)
    unpack_sorted(_unpacked(body[:key_bytes], gap_bytes, np.uint8), keys)
    if not value_bytes:
        return keys, None
    values = _unpacked(body[key_bytes:key_bytes + value_bytes], 16 * rows, np.uint64)
    return keys, values.reshape(-1, 2).copy()


class Combiner:
    """A map task's children, routed to `2**pbits` partitions and deduplicated in each (values
    merged) as batches of parents arrive, then handed out one block per partition.

    Each partition is split `2**extra` ways more, so every table stays small enough for the cache
    (as the local engine's): the top `pbits` bits of a child's mix name its partition (see
    kernel.reduce.Keyspace), the next `extra` bits its table, and a partition's block is its tables drained
    together, sorted.
    """

    def __init__(self, tables: BoardTables, pbits: int, carry: Carry, expected: int) -> None:
        self.tables, self.pbits, self.carry = tables, pbits, carry
        layout = Layout.plan(expected, tables.holes, least=pbits)
        self.space = layout.space
        self.extra = self.space.pbits - pbits
        self.hashes = layout.tables(carry)
        self.scratch = Scratch()

    def add(self, parents: np.ndarray, values: np.ndarray) -> None:
        """Expand a batch of parents (`values` is ``(0, 2)`` when nothing is carried) into the
        tables."""
        self.hashes.add(*expand_routed(self.tables, parents, values, self.carry, self.space, 0,
                                       1 << self.space.pbits, self.scratch))

    def blocks(self) -> list[tuple[int, bytes]]:
        """(partition, block) for every partition that received a child."""
        out = []
        for partition in range(1 << self.pbits):
            first, last = partition << self.extra, (partition + 1) << self.extra
            if self.hashes.filled[first:last].any():
                keys, sums = self.hashes.drain(first, last)
                out.append((partition, encode_block(keys, sums if self.carry else None)))
        return out


def merge_blocks(blocks: list[bytes], carry: Carry, space: Keyspace,
                 partition: int) -> tuple[np.ndarray, np.ndarray]:
    """A reduce task's blocks (partition `partition` of `space`, the map tasks' partitions, from
    every map task) as its distinct positions, sorted, with their values merged across blocks
    (``(0, 2)`` when nothing is carried)."""
    decoded = [decode_block(block) for block in blocks]
    keys = np.concatenate([k for k, _ in decoded]) if decoded else np.empty(0, np.uint64)
    values = np.concatenate([v for _, v in decoded]) if carry and decoded else NO_VALUES
    return distinct(keys, values, carry, space, partition)


def encode_range(bits: np.ndarray, count: int) -> bytes:
    """A range block: the `count` set bits of the bitmap slice `bits`, in its smaller form."""
    if count * SPARSE_SHARE < 64 * len(bits):
        gaps = np.empty(ones_bound(len(bits), count), dtype=np.uint8)
        form, raw = _GAPS, gaps[:pack_ones(bits, gaps)]
    else:
        form, raw = _SLICE, bits.view(np.uint8)
    packed = _packed(raw)
    return np.array([form, count, len(raw), len(packed)], dtype=np.uint64).tobytes() + packed


def or_range(block: bytes, bits: np.ndarray) -> None:
    """Set the bits a range block holds in `bits`, the bitmap slice of the same range."""
    form, _, raw_bytes, _ = _header(block)
    raw = _unpacked(memoryview(block)[8 * _HEADER:], raw_bytes, np.uint8)
    if form == _GAPS:
        or_ones(raw, bits)
    else:
        bits |= raw.view(np.uint64)

"""Blocks: one partition's share of a map task's distinct children, as one compact byte string.

A cluster engine moves blocks, never positions: its shuffle carries a few large values per task
(one per target partition) instead of a row per child. A block of a table level holds sorted
distinct positions as deltas (small numbers, since a partition's positions are dense among its
own), and their values when the run carries any, each compressed with zstd, behind a 24-byte
header. A block of a bitmap level (a *range block*) holds the set bits of one range of ranks: the
bitmap slice itself where it is dense, the deltas of its set bits where it is sparse, whichever
zstd makes smaller (see SPARSE_SHARE).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from pegsearch.kernel.bitmap import ones, set_ones
from pegsearch.kernel.expand import Scratch, expand_routed
from pegsearch.kernel.reduce import Keyspace, Layout, distinct
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.values import NO_VALUES, Carry

COMPRESSION = "zstd"
_HEADER = 3  # words: rows, compressed bytes of the positions, compressed bytes of the values
# A range block sends the deltas of its set bits when fewer than one rank in SPARSE_SHARE is set,
# else the bitmap slice: zstd makes the deltas smaller below about 5 % and the slice above (measured
# on random slices of 2**27 ranks: at 3 % 3.3 MB of deltas against 4.7 MB of bitmap, at 10 % 10.9 MB
# against 8.2 MB).
SPARSE_SHARE = 20
_SLICE, _DELTAS = 0, 1  # a range block's two forms


def encode_block(keys: np.ndarray, values: np.ndarray | None = None) -> bytes:
    """Sorted distinct positions (and their values' rows) as one block."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    deltas = np.diff(keys, prepend=np.uint64(0))
    packed_keys = pa.compress(deltas.tobytes(), codec=COMPRESSION, asbytes=True)
    packed_values = b"" if values is None else pa.compress(
        np.ascontiguousarray(values, dtype=np.uint64).tobytes(), codec=COMPRESSION, asbytes=True)
    header = np.array([len(keys), len(packed_keys), len(packed_values)], dtype=np.uint64)
    return header.tobytes() + packed_keys + packed_values


def decode_block(block: bytes) -> tuple[np.ndarray, np.ndarray | None]:
    """A block's positions and values' rows (None when the block carries none)."""
    rows, key_bytes, value_bytes = (int(v) for v in np.frombuffer(block, np.uint64, _HEADER))
    start = 8 * _HEADER
    deltas = np.frombuffer(pa.decompress(block[start:start + key_bytes], 8 * rows, codec=COMPRESSION,
                                         asbytes=True), dtype=np.uint64)
    keys = np.cumsum(deltas, dtype=np.uint64)
    if not value_bytes:
        return keys, None
    end = start + key_bytes
    raw = pa.decompress(block[end:end + value_bytes], 16 * rows, codec=COMPRESSION, asbytes=True)
    return keys, np.frombuffer(raw, dtype=np.uint64).reshape(-1, 2).copy()


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
        offsets = np.empty(count, dtype=np.uint64)
        ones(bits, offsets)
        form, raw = _DELTAS, np.diff(offsets, prepend=np.uint64(0))
    else:
        form, raw = _SLICE, bits
    packed = pa.compress(pa.py_buffer(np.ascontiguousarray(raw)), codec=COMPRESSION, asbytes=True)
    return np.array([form, count, len(packed)], dtype=np.uint64).tobytes() + packed


def or_range(block: bytes, bits: np.ndarray) -> None:
    """Set the bits a range block holds in `bits`, the bitmap slice of the same range."""
    form, count, _ = (int(v) for v in np.frombuffer(block, np.uint64, _HEADER))
    size = 8 * (count if form == _DELTAS else len(bits))
    raw = np.frombuffer(pa.decompress(memoryview(block)[8 * _HEADER:], size, codec=COMPRESSION,
                                      asbytes=True), dtype=np.uint64)
    if form == _DELTAS:
        set_ones(bits, np.cumsum(raw, dtype=np.uint64))
    else:
        bits |= raw

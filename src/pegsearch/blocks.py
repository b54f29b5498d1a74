"""Blocks: one partition's share of a map task's distinct children, as one compact byte string.

A cluster engine moves blocks, never positions: its shuffle carries a few large values per task
(one per target partition) instead of a row per child. A block holds sorted distinct positions as
deltas (small numbers, since a partition's positions are dense among its own), and their path
counts when counted, each compressed with zstd, behind a 24-byte header.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from pegsearch.codec import Codec
from pegsearch.dedup import Tables, distinct, table_bits
from pegsearch.expand import Scratch, expand_routed

CODEC = "zstd"
_HEADER = 3  # words: rows, compressed bytes of the positions, compressed bytes of the paths


def encode_block(keys: np.ndarray, paths: np.ndarray | None = None) -> bytes:
    """Sorted distinct positions (and their path-count limbs) as one block."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    deltas = np.diff(keys, prepend=np.uint64(0))
    packed_keys = pa.compress(deltas.tobytes(), codec=CODEC, asbytes=True)
    packed_paths = b"" if paths is None else pa.compress(
        np.ascontiguousarray(paths, dtype=np.uint64).tobytes(), codec=CODEC, asbytes=True)
    header = np.array([len(keys), len(packed_keys), len(packed_paths)], dtype=np.uint64)
    return header.tobytes() + packed_keys + packed_paths


def decode_block(block: bytes) -> tuple[np.ndarray, np.ndarray | None]:
    """A block's positions and path-count limbs (None when the block carries none)."""
    rows, key_bytes, path_bytes = (int(v) for v in np.frombuffer(block, np.uint64, _HEADER))
    start = 8 * _HEADER
    deltas = np.frombuffer(pa.decompress(block[start:start + key_bytes], 8 * rows, codec=CODEC,
                                         asbytes=True), dtype=np.uint64)
    keys = np.cumsum(deltas, dtype=np.uint64)
    if not path_bytes:
        return keys, None
    end = start + key_bytes
    raw = pa.decompress(block[end:end + path_bytes], 16 * rows, codec=CODEC, asbytes=True)
    return keys, np.frombuffer(raw, dtype=np.uint64).reshape(-1, 2).copy()


class Combiner:
    """A map task's children, routed to `2**pbits` partitions and deduplicated in each (path
    counts summed) as batches of parents arrive, then handed out one block per partition."""

    def __init__(self, pbits: int, counted: bool, expected: int) -> None:
        self.pbits, self.counted = pbits, counted
        parts = 1 << pbits
        self.tables = Tables(pbits, 0, parts, table_bits(-(-expected // parts)), counted,
                             budget=1 << 62)
        self.scratch = Scratch()

    def add(self, codec: Codec, parents: np.ndarray, paths: np.ndarray) -> None:
        """Expand a batch of parents (`paths` is ``(0, 2)`` when not counted) into the tables."""
        parts = 1 << self.pbits
        self.tables.add(*expand_routed(codec, parents, paths, self.pbits, 0, parts, self.scratch))

    def blocks(self) -> list[tuple[int, bytes]]:
        """(partition, block) for every partition that received a child."""
        out = []
        for partition in range(1 << self.pbits):
            if self.tables.filled[partition]:
                keys, sums = self.tables.drain(partition, partition + 1)
                out.append((partition, encode_block(keys, sums if self.counted else None)))
        return out


def merge_blocks(blocks: list[bytes], counted: bool) -> tuple[np.ndarray, np.ndarray]:
    """A reduce task's blocks (one partition, from every map task) as its distinct positions,
    sorted, with path counts summed across blocks (``(0, 2)`` when not counted)."""
    decoded = [decode_block(block) for block in blocks]
    keys = np.concatenate([k for k, _ in decoded]) if decoded else np.empty(0, np.uint64)
    paths = (np.concatenate([p for _, p in decoded]) if counted and decoded
             else np.empty((0, 2), np.uint64))
    return distinct(keys, paths)

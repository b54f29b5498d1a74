"""The local engine's shuffle: children routed to hash partitions, held in memory or spilled to disk.

This is what lets one machine search a level larger than its memory. Every child goes to partition
``hash(signature) >> (64 - bits)``, so equal signatures always meet in the same partition and each
partition can be reduced alone, one or two at a time. Pieces of a partition stay in memory until the
held bytes pass the budget; then every partition's pieces are appended to its spill file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numba
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, nogil=True)
def _scatter(keys, values, bits):
    """Counting sort of keys (and their value rows) by partition; returns them and the bounds."""
    parts = 1 << bits
    shift = np.uint64(64 - bits)
    ids = np.empty(keys.shape[0], dtype=np.int64)
    bounds = np.zeros(parts + 1, dtype=np.int64)
    for i in range(keys.shape[0]):
        ids[i] = (keys[i] * _GOLDEN) >> shift if bits else 0
        bounds[ids[i] + 1] += 1
    for p in range(parts):
        bounds[p + 1] += bounds[p]
    cursor = bounds[:-1].copy()
    out_keys = np.empty_like(keys)
    out_values = np.empty_like(values)
    for i in range(keys.shape[0]):
        k = cursor[ids[i]]
        out_keys[k] = keys[i]
        if values.shape[0]:
            out_values[k] = values[i]
        cursor[ids[i]] += 1
    return out_keys, out_values, bounds


class Shuffle:
    """Partitioned pieces of (signature, path count) arrays; path counts may be absent.

    `values` rows are path-count limbs (``(n, 2)`` uint64) when paths are counted, else the arrays
    are ``(0, 2)`` placeholders and cost nothing.
    """

    def __init__(self, bits: int, folder: Path, budget: int) -> None:
        self.bits = bits
        self.folder = folder
        self.budget = budget
        self.pieces: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(1 << bits)]
        self.held = 0
        self.spilled = [False] * (1 << bits)
        self.spilled_bytes = 0

    @property
    def partitions(self) -> int:
        return 1 << self.bits

    def scatter(self, keys: np.ndarray, values: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Split keys (and values) by partition, in partition order."""
        keys, values, bounds = _scatter(keys, values, self.bits)
        return [(keys[bounds[p]:bounds[p + 1]], values[bounds[p]:bounds[p + 1]] if len(values)
                 else values) for p in range(self.partitions)]

    def add(self, partition: int, keys: np.ndarray, values: np.ndarray) -> None:
        """Hold one reduced piece of a partition; spill everything once the budget is passed."""
        self.pieces[partition].append((keys, values))
        self.held += keys.nbytes + values.nbytes
        if self.held > self.budget:
            self.spill()

    def spill(self) -> None:
        """Append every held piece to its partition's spill files and free the memory."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for partition, pieces in enumerate(self.pieces):
            for keys, values in pieces:
                self.spilled_bytes += keys.nbytes + values.nbytes
                with open(self._file(partition, "keys"), "ab") as handle:
                    keys.tofile(handle)
                if len(values):
                    with open(self._file(partition, "values"), "ab") as handle:
                        values.tofile(handle)
                self.spilled[partition] = True
            pieces.clear()
        self.held = 0

    def take(self, partition: int) -> tuple[np.ndarray, np.ndarray, bool]:
        """All of a partition (spilled pieces read back), released; and whether it is one piece.

        A single piece was reduced by the combiner already; several must be reduced together.
        """
        pieces = self.pieces[partition]
        self.pieces[partition] = []
        self.held -= sum(k.nbytes + v.nbytes for k, v in pieces)
        if self.spilled[partition]:
            keys = np.fromfile(self._file(partition, "keys"), dtype=np.uint64)
            values_file = self._file(partition, "values")
            values = (np.fromfile(values_file, dtype=np.uint64).reshape(-1, 2)
                      if values_file.exists() else np.empty((0, 2), dtype=np.uint64))
            pieces.insert(0, (keys, values))
        if len(pieces) == 1 and not self.spilled[partition]:
            return pieces[0][0], pieces[0][1], True
        return (np.concatenate([k for k, _ in pieces]), np.concatenate([v for _, v in pieces]),
                False)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def _file(self, partition: int, kind: str) -> Path:
        return self.folder / f"{partition:05d}.{kind}"

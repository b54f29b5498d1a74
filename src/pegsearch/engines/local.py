"""The local engine: MapReduce on one machine, in process, on every core, within a memory budget.

Map: the compiled kernel expands a chunk of the parent level (streamed from its part files).
Shuffle: children go to hash partitions (see shuffle.py), reduced per chunk first (the combiner) and
spilled to disk when the held pieces pass the budget. Reduce: each partition is sorted and stripped
of repeats (or its path counts summed) on its own thread and written as one part file. A level that
fits in memory never touches the disk before its part files; one that does not still completes.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from pegsearch.codec import Codec
from pegsearch.errors import UsageError
from pegsearch.expand import deduplicate, expand, fanout
from pegsearch.paths import sum_by_signature
from pegsearch.shuffle import Shuffle
from pegsearch.store import NO_PATHS, Run, iter_level, write_part

DEFAULT_BUDGET_CAP = 4 << 30
# Bytes held per child while a chunk is mapped: the child, its scatter copy and partition id, and
# with path counts its spread limbs and their copy.
MAP_BYTES = {False: 24, True: 56}
# A partition is reduced with about three copies of itself in memory (pieces, concatenation, sort).
REDUCE_COPIES = 3
# At most 1024 partitions (part files) per level: past that, files cost more than they save.
MAX_BITS = 10


def parse_size(text: str) -> int:
    """'2G', '512M', '1.5GB' or a byte count, as bytes."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", str(text), re.IGNORECASE)
    if not match:
        raise UsageError(f"--memory {text}: not a size; write it like 2G, 512M or 1.5G")
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[match[2].upper()]
    size = int(float(match[1]) * scale)
    if size < 64 << 20:
        raise UsageError(f"--memory {text}: too small; give the local engine at least 64M")
    return size


def default_budget() -> int:
    """A quarter of the machine's memory, at most 4 GiB."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return min(DEFAULT_BUDGET_CAP, total // 4)


class LocalEngine:
    """Computes each level in this process (numba threads for the map, a thread per partition)."""

    name = "local"
    SETTINGS = ("memory",)

    def __init__(self, memory: str | int | None = None, chunk: int | None = None) -> None:
        """`memory` is a size as written on the command line, or bytes (tests force spills)."""
        if memory is None:
            self.budget = default_budget()
        else:
            self.budget = memory if isinstance(memory, int) else parse_size(memory)
        self.chunk = chunk
        self.workers = os.cpu_count() or 1
        self.spilled_bytes = 0  # over the engine's life: how much went through spill files

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def options(self) -> dict:
        return {"memory": self.budget, "workers": self.workers}

    def next_level(self, run: Run, level: int, staging: Path) -> None:
        codec = run.codec()
        files = run.level_files(level)
        parents = run.levels[level]["states"]
        children = sum(int(fanout(codec, keys).sum()) for keys, _ in iter_level(files, 1 << 22))
        per_child = MAP_BYTES[run.count_paths]
        chunk = self.chunk or max(1 << 14, int(self.budget / 4 / per_child * parents
                                               / max(children, 1)))
        shuffle = Shuffle(self._bits(children * per_child), staging / "spill", self.budget // 2)
        try:
            with ThreadPoolExecutor(self.workers) as pool:
                for keys, paths in iter_level(files, chunk, run.count_paths):
                    self._map(codec, keys, paths, shuffle, pool)
                tasks = [pool.submit(_reduce_partition, shuffle, p, staging, run.count_paths)
                         for p in range(shuffle.partitions)]
                for task in tasks:
                    task.result()
        finally:
            self.spilled_bytes += shuffle.spilled_bytes
            shuffle.close()

    def _bits(self, level_bytes: int) -> int:
        """Partitions (as a power of two) so that `workers` partitions reduce within the budget."""
        bits = 1 if self.workers > 1 else 0
        while (level_bytes >> bits) * REDUCE_COPIES * self.workers > self.budget and bits < MAX_BITS:
            bits += 1
        return bits

    def _map(self, codec: Codec, keys: np.ndarray, paths: np.ndarray, shuffle: Shuffle,
             pool: ThreadPoolExecutor) -> None:
        """Expand one chunk of parents, route the children and combine each partition's share."""
        children, counts = expand(codec, keys)
        spread = np.repeat(paths, counts, axis=0) if len(paths) else NO_PATHS
        pieces = shuffle.scatter(children, spread)
        del children, spread
        combined = pool.map(lambda piece: _reduce(*piece), pieces)
        for partition, (part_keys, part_values) in enumerate(combined):
            shuffle.add(partition, part_keys, part_values)


def _reduce_partition(shuffle: Shuffle, partition: int, staging: Path, with_paths: bool) -> None:
    """The final reduce of one partition, written as its part file."""
    keys, values, reduced = shuffle.take(partition)
    if not reduced:
        keys, values = _reduce(keys, values)
    write_part(staging / f"part-{partition:05d}.parquet", keys, values if with_paths else None)


def _reduce(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reduce step on one partition: distinct signatures, or signatures with summed paths."""
    if len(values):
        return sum_by_signature(keys, values)
    return deduplicate(keys), values

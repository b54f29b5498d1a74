"""The local engine: MapReduce on one machine, in process, with the compiled kernel on every core.

Map is `expand` over chunks of the parent level; reduce is a sort-and-drop-repeats of each chunk's
children, then of the union of the chunks, so memory holds one chunk's children at a time beside the
level's distinct positions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pegsearch.codec import Codec
from pegsearch.expand import deduplicate, expand
from pegsearch.paths import sum_by_signature
from pegsearch.store import Run, write_parts

CHUNK = 1 << 21


class LocalEngine:
    """Computes each level in this process (numba threads on all cores)."""

    name = "local"
    SETTINGS = ()

    def __init__(self, chunk: int = CHUNK) -> None:
        self.chunk = chunk

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def options(self) -> dict:
        return {"chunk": self.chunk}

    def next_level(self, run: Run, level: int, staging: Path) -> None:
        codec = run.codec()
        parents = run.read_level(level)
        if run.count_paths:
            write_parts(staging, *self._sum_paths(codec, parents, run.read_level_paths(level)))
            return
        pieces = []
        for begin in range(0, len(parents), self.chunk):
            children, _ = expand(codec, parents[begin:begin + self.chunk])
            pieces.append(deduplicate(children))
        merged = pieces[0] if len(pieces) == 1 else deduplicate(np.concatenate(pieces))
        write_parts(staging, merged)

    def _sum_paths(self, codec: Codec, parents: np.ndarray,
                   paths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Children with path counts: each child gets its parent's count, summed by signature."""
        keys, sums = [], []
        for begin in range(0, len(parents), self.chunk):
            children, fanout = expand(codec, parents[begin:begin + self.chunk])
            spread = np.repeat(paths[begin:begin + self.chunk], fanout, axis=0)
            chunk_keys, chunk_sums = sum_by_signature(children, spread)
            keys.append(chunk_keys)
            sums.append(chunk_sums)
        if len(keys) == 1:
            return keys[0], sums[0]
        return sum_by_signature(np.concatenate(keys), np.concatenate(sums))

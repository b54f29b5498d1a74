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
        codec = Codec.for_board(run.board, run.reduced)
        parents = run.read_level(level)
        pieces = []
        for begin in range(0, len(parents), self.chunk):
            children, _ = expand(codec, parents[begin:begin + self.chunk])
            pieces.append(deduplicate(children))
        if len(pieces) == 1:
            merged = pieces[0]
        else:
            merged = deduplicate(np.concatenate(pieces) if pieces else np.empty(0, np.uint64))
        write_parts(staging, merged)

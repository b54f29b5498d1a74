"""What a search carries with each position besides the position: nothing, its path count, or its
fewest moves.

Every value is a row of two uint64 words (``(n, 2)`` arrays, ``(0, 2)`` when nothing is carried), so
the map kernel, the hash tables, the radix sort and the blocks a cluster shuffles move them alike;
only how two values of one position merge differs (`Carry`): path counts add up
(kernel.path_counts), fewest moves keep the smaller (kernel.moves). A level's record in the manifest
sums its values up (`summary`), so the totals a user asks for never reread the parts.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
import pyarrow as pa

from pegsearch.kernel import moves, path_counts

NO_VALUES = path_counts.NO_PATHS


# A kept winnable set's column of finishing holes (Carry.FINISHES).
FINISHES = "finishes"


class Carry(IntEnum):
    """What a run carries per position (an int, so the compiled kernels branch on it); and
    FINISHES, which only a kept winnable set carries: the holes a position's last peg can end
    on (a row ``[holes, 0]``, the holes in the frame of the stored position, see answers.winnable)."""

    NOTHING = 0
    PATHS = 1
    MOVES = 2
    FINISHES = 3

    @property
    def columns(self) -> tuple[str, ...]:
        """The part files' value columns, after `position`."""
        return {Carry.NOTHING: (), Carry.PATHS: (path_counts.PATHS,),
                Carry.MOVES: (moves.MOVES, moves.LAST_HOLES), Carry.FINISHES: (FINISHES,)}[self]

    def starting(self, count: int) -> np.ndarray:
        """The values of `count` start positions: one path each, or no move made."""
        if self is Carry.PATHS:
            return path_counts.ones(count)
        return moves.starting(count) if self is Carry.MOVES else NO_VALUES

    def to_arrow(self, values: np.ndarray) -> list[pa.Array]:
        """The value columns of a part."""
        if self is Carry.PATHS:
            return [path_counts.to_arrow(values)]
        if self is Carry.FINISHES:
            return [moves.holes_to_arrow(values[:, 0])]
        return list(moves.to_arrow(values)) if self is Carry.MOVES else []

    def from_arrow(self, columns: list[pa.Array | pa.ChunkedArray]) -> np.ndarray:
        """Values from a part's value columns, in the order of `columns`."""
        if self is Carry.PATHS:
            return path_counts.from_arrow(columns[0])
        if self is Carry.FINISHES:
            return finish_rows(moves.words_from_arrow(columns[0], "finishing-hole set"))
        return moves.from_arrow(*columns) if self is Carry.MOVES else NO_VALUES

    def summary(self, values: np.ndarray) -> dict:
        """What the manifest records of some positions' values: their paths summed, or how many
        positions need each number of moves (keys as text, as JSON has them)."""
        if self is Carry.PATHS:
            return {"paths": path_counts.total(values)}
        if self is Carry.MOVES:
            return {"by_moves": {str(n): c for n, c in moves.by_moves(values).items()}}
        return {}


def finish_rows(holes: np.ndarray) -> np.ndarray:
    """Carry.FINISHES values: a row ``[holes, 0]`` for each set of finishing holes."""
    return np.stack([holes, np.zeros_like(holes)], axis=1)


def merge_summaries(one: dict, other: dict) -> dict:
    """Two `Carry.summary` results of disjoint positions as one."""
    merged = dict(one)
    if "paths" in other:
        merged["paths"] = merged.get("paths", 0) + other["paths"]
    if "by_moves" in other:
        counts = dict(merged.get("by_moves", {}))
        for n, c in other["by_moves"].items():
            counts[n] = counts.get(n, 0) + c
        merged["by_moves"] = dict(sorted(counts.items(), key=lambda item: int(item[0])))
    return merged

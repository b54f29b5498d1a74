"""The endgame: every position with few pegs that can still reach the goal, made backwards from it.

Near its end a depth-first search spends most of its positions proving that lines of few pegs die:
each such subtree is small, but there are very many of them. Played backwards from the goal
(one peg on a goal hole), each jump taken back adds a peg, so a few backward levels hold every
position of up to `few` pegs that can be won: below that many pegs the walk looks a position up
instead of searching it (not there: dead at once; there: its children that are there lead to the
goal without a wrong turn, since each was made by taking a jump back from one of them).

The levels are built one peg at a time until the next would pass the memory given (its size
guessed from the growth so far), and kept as one exact set of signatures (kernel.members: no key
is ever given up, so a missing key means lost). Signatures are taken under the goal's group, the images of a
position's parents being the parents of its images, so the representatives' parents suffice.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from pegsearch.kernel.expand import image_of
from pegsearch.kernel.members import Members, sorted_distinct
from pegsearch.kernel.tables import BoardTables

# Positions of a level taken back at a time (their parents, with repeats, are a million or so:
# a tenth of a second on triangle-9, between two asks whether to go on).
CHUNK = 1 << 14


@numba.njit(cache=True, nogil=True)
def _parents(level, need, free, flip, byte_images, out):
    """The signatures of every position one jump before a position of `level` (with repeats);
    returns how many were written to `out`."""
    n = 0
    for position in level:
        for j in range(len(flip)):
            if position & free[j] and position & need[j] == 0:
                parent = position ^ flip[j]
                least = image_of(parent, byte_images, 0)
                for g in range(1, byte_images.shape[2]):
                    least = min(least, image_of(parent, byte_images, g))
                out[n] = least
                n += 1
    return n


def endgame(tables: BoardTables, goal: int, most: int,
            going: Callable[[], bool] = lambda: True) -> tuple[Members, int] | None:
    """The winnable positions of up to `few` pegs for one peg on a hole of `goal` (a mask), as a
    set of signatures under `tables`' group of at most about `most` keys: (the set, few). `few` is
    0 (an empty set) when not even the goal's one-peg positions fit. None where `going`, asked
    between chunks of a level (the making takes seconds), said stop."""
    holes = [np.uint64(1) << np.uint64(h) for h in range(tables.holes) if goal >> h & 1]
    level = sorted_distinct(tables.signatures(np.array(holes, dtype=np.uint64)))
    levels: list[np.ndarray] = []
    while len(level) and sum(map(len, levels)) + len(level) <= most:
        levels.append(level)
        growth = len(level) / len(levels[-2]) if len(levels) > 1 else len(tables.flip)
        if sum(map(len, levels)) + len(level) * growth > most:
            break
        level = _level_before(tables, level, len(levels), going)
        if level is None:
            return None
    return Members(np.concatenate([np.empty(0, np.uint64), *levels])), len(levels)


def _level_before(tables: BoardTables, level: np.ndarray, pegs: int,
                  going: Callable[[], bool]) -> np.ndarray | None:
    """The signatures of the positions one jump before those of `level` (`pegs` pegs each); None
    where `going` said stop."""
    landing = int(np.unique(tables.free, return_counts=True)[1].max())  # jumps into one hole
    found = []
    for first in range(0, len(level), CHUNK):
        if not going():
            return None
        chunk = level[first:first + CHUNK]
        out = np.empty(len(chunk) * pegs * landing, dtype=np.uint64)
        made = _parents(chunk, tables.need, tables.free, tables.flip, tables.byte_images, out)
        found.append(sorted_distinct(out[:made]))
    return sorted_distinct(np.concatenate(found))

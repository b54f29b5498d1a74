"""The backward kernel: from a level's winnable set (or its positions' values) back to its parents.

The stored search runs forward; answers walk it back (answers.winnable, verify's checks): which
parents have a child in a set, a position's predecessors, and the values a parent takes from its
children (solutions, fewest moves left, finishing holes). Each parent's children are made as the
forward map makes them (kernel.expand), so both directions agree on every signature.
"""

from __future__ import annotations

import numba
import numpy as np

from pegsearch.errors import PathCountOverflow
from pegsearch.kernel import path_counts
from pegsearch.kernel.expand import (
    _children_of,
    _images,
    _least_and_frame,
    _legal_jumps,
    expand,
    image_of,
)
from pegsearch.kernel.members import Members, member, sorted_distinct
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.threads import slice_start, spread


@numba.njit(cache=True, nogil=True)
def _reaching(positions, need, flip, flip_images, byte_images, table, shift, reached, first, step):
    """Whether each parent of slice `first` of `step` has a child in `table` (a Members table):
    its children made a parent at a time, the first member found ending its search."""
    images = np.empty(byte_images.shape[2], dtype=np.uint64)
    children = np.empty(need.shape[0], dtype=np.uint64)
    mask = np.uint64(len(table) - 1)
    n = positions.shape[0]
    for i in range(slice_start(n, first, step), slice_start(n, first + 1, step)):
        count = _children_of(positions[i], need, flip, flip_images, byte_images, images, children, 0)
        for t in range(count):
            if member(table, shift, mask, children[t]):
                reached[i] = True
                break


def predecessors(tables: BoardTables, positions: np.ndarray) -> np.ndarray:
    """The signatures, sorted and distinct, of every position one jump before one of `positions`
    (reachable from the start or not): a jump's parent is its child with the jump played back."""
    return sorted_distinct(expand(tables, positions, backwards=True)[0])


def parents_reaching(tables: BoardTables, parents: np.ndarray, winnable: Members) -> np.ndarray:
    """The parents with at least one child whose signature is in `winnable`, in their order."""
    parents = np.ascontiguousarray(parents, dtype=np.uint64)
    reached = np.zeros(len(parents), dtype=bool)
    spread(_reaching, len(parents), parents, *tables.jump_words, tables.flip_images,
           tables.byte_images, winnable.table, winnable.shift, reached)
    return parents[reached]


def solutions_reaching(tables: BoardTables, parents: np.ndarray, keys: np.ndarray,
                       solutions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The parents with at least one child whose signature is in `keys` (sorted), and for each
    the sum of `solutions` (path counts, row for row with `keys`) over its children: one term a
    legal jump, so two jumps to one signature count twice, as two lines of play do."""
    children, fanout = expand(tables, parents)
    sums = np.zeros((len(parents), 2), dtype=np.uint64)
    reached = np.zeros(len(parents), dtype=bool)
    if path_counts.sum_found(children, np.cumsum(fanout), keys, solutions, sums, reached):
        raise PathCountOverflow(path_counts.overflow_message())
    return parents[reached], sums[reached]


@numba.njit(cache=True, nogil=True)
def _moves_left(parents, keys, left, need, flip, flip_images, byte_images, leave, landing_images,
                out, reached):
    """For each parent with a child in `keys` (sorted; `left` row for row), its fewest moves left
    and the holes of the pegs that may begin them: out rows ``[holes, moves]`` (see
    `moves_reaching`)."""
    symmetries = byte_images.shape[2]
    images = np.empty(symmetries, dtype=np.uint64)
    legal = np.empty(need.shape[0], dtype=np.int64)
    for i in range(len(parents)):
        p = parents[i]
        _images(p, byte_images, images)
        fewest = np.uint64(1 << 62)
        holes = np.uint64(0)
        for t in range(_legal_jumps(p, need, flip, legal)):
            j = legal[t]
            best, by = _least_and_frame(images, flip_images, j)
            landing = landing_images[j, by]
            at = np.searchsorted(keys, best)
            if at == len(keys) or keys[at] != best:
                continue
            # The moves left after this jump, its peg free to go on: one fewer when the child's
            # beginning holes hold the landing hole (in the child's signature's frame).
            after = left[at, 1] - (np.uint64(1) if left[at, 0] & landing else np.uint64(0))
            if after < fewest:
                fewest, holes = after, leave[j]
            elif after == fewest:
                holes |= leave[j]
        if holes:
            reached[i] = True
            out[i, 0] = holes
            out[i, 1] = fewest + np.uint64(1)


@numba.njit(cache=True, nogil=True)
def _finishes_left(parents, keys, finishes, need, flip, flip_images, byte_images, inverses, out,
                   reached):
    """For each parent with a child in `keys` (sorted; `finishes` row for row), the holes its
    last peg can end on, in its own frame: out rows ``[holes, 0]`` (see `finishes_reaching`)."""
    images = np.empty(byte_images.shape[2], dtype=np.uint64)
    legal = np.empty(need.shape[0], dtype=np.int64)
    for i in range(len(parents)):
        p = parents[i]
        _images(p, byte_images, images)
        holes = np.uint64(0)
        for t in range(_legal_jumps(p, need, flip, legal)):
            best, by = _least_and_frame(images, flip_images, legal[t])
            at = np.searchsorted(keys, best)
            if at < len(keys) and keys[at] == best:
                holes |= image_of(finishes[at, 0], byte_images, inverses[by])
        if holes:
            reached[i] = True
            out[i, 0] = holes


def finishes_reaching(tables: BoardTables, parents: np.ndarray, keys: np.ndarray,
                      finishes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The parents with at least one child whose signature is in `keys` (sorted), and for each
    the holes its last peg can end on: the union over its winnable children of theirs (`finishes`,
    row for row with `keys`, each in its signature's frame), carried into the child's own frame
    by the symmetry undoing the one that made its signature. Any of several such symmetries
    gives the same holes: a position's finishing holes are as symmetric as it is."""
    parents = np.ascontiguousarray(parents, dtype=np.uint64)
    out = np.zeros((len(parents), 2), dtype=np.uint64)
    reached = np.zeros(len(parents), dtype=bool)
    _finishes_left(parents, keys, np.ascontiguousarray(finishes, dtype=np.uint64),
                   *tables.jump_words, tables.flip_images, tables.byte_images, tables.inverses, out,
                   reached)
    return parents[reached], out[reached]


def moves_reaching(tables: BoardTables, parents: np.ndarray, keys: np.ndarray,
                   left: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The parents with at least one child whose signature is in `keys` (sorted), and for each
    its fewest moves left and the pegs that may begin them, from its children's (`left`, row for
    row with `keys`), the backward twin of the search's fewest moves (kernel.moves).

    A child's row ``[holes, m]`` says it needs m moves, and m - 1 when the peg that moved last
    stands on one of `holes` (it may go on jumping within the same move). So a jump leaves m - 1
    or m moves after it, by where it lands; the parent needs one more than its best jump's, and
    its `holes` are the starting holes of the jumps that achieve that best. The landing hole is
    carried into the child's signature's frame by the symmetry that makes the signature (any one
    of several: a symmetric position's holes are symmetric alike).
    """
    parents = np.ascontiguousarray(parents, dtype=np.uint64)
    out = np.zeros((len(parents), 2), dtype=np.uint64)
    reached = np.zeros(len(parents), dtype=bool)
    _moves_left(parents, keys, np.ascontiguousarray(left, dtype=np.uint64), *tables.jump_words,
                tables.flip_images, tables.byte_images, tables.leave, tables.landing_images, out,
                reached)
    return parents[reached], out[reached]

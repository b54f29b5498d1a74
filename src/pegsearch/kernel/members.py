"""Membership in a set of signatures: by an open-addressing table built once per set, or by
walking a sorted set beside sorted values.

The forward semi-join (a Spark task's step of the backward walk, `verify`) asks, for every child
of every parent of a level, whether it is in the next level's winnable set: tens of millions of
questions of one set. numpy's binary search answered each in about log2(n) cache misses (most of
`solve`'s time on Skippy XL); a table at most half full answers in about one. Signatures are
never 0 (a position has a peg), so 0 marks an empty slot.

Values that come sorted (a part file's positions) are looked up by walking the sorted set beside
them (`contains`): each step forward gallops, so a value costs a comparison or two where the set
is dense and a logarithm of the gap where it is sparse.
"""

from __future__ import annotations

import numba
import numpy as np

from pegsearch.kernel.threads import slice_start, spread

# Fibonacci hashing: the multiplier's high bits mix every bit of a signature into the slot's.
MIX = np.uint64(0x9E3779B97F4A7C15)
ONE = np.uint64(1)  # slots stay uint64: numba would take uint64 + int64 for a float


@numba.njit(cache=True, nogil=True, inline="always")
def home(shift, value):
    """The slot where the search for `value` in a table begins (`shift`: 64 less the table's bits)."""
    return (value * MIX) >> shift


@numba.njit(cache=True, nogil=True)
def _fill(table, shift, members):
    mask = np.uint64(len(table) - 1)
    for member in members:
        slot = home(shift, member)
        while table[slot] != 0:
            slot = (slot + ONE) & mask
        table[slot] = member


@numba.njit(cache=True, nogil=True, inline="always")
def member(table, shift, mask, value):
    """Whether `value` is in the table (`mask`: its length less one)."""
    slot = home(shift, value)
    while True:
        held = table[slot]
        if held == 0:
            return False
        if held == value:
            return True
        slot = (slot + ONE) & mask


@numba.njit(cache=True, nogil=True)
def _any_member(table, shift, values, ends, reached, first, step):
    """For each group of `values` (group g ends at ends[g]), whether any is a member."""
    mask = np.uint64(len(table) - 1)
    for group in range(slice_start(len(ends), first, step), slice_start(len(ends), first + 1, step)):
        for i in range(ends[group - 1] if group else 0, ends[group]):
            if member(table, shift, mask, values[i]):
                reached[group] = True
                break


@numba.njit(cache=True, nogil=True, inline="always")
def _first_at_least(members, at, value):
    """The first index from `at` whose member is at least `value` (len(members) if none):
    steps that double from `at`, then a binary search within the last one."""
    end = members.shape[0]
    if at >= end or members[at] >= value:
        return at
    below, step = at, 1  # members[below] < value
    above = at + 1
    while above < end and members[above] < value:
        below, step = above, 2 * step
        above = below + step
    above = min(above, end)
    while above - below > 1:
        middle = (below + above) // 2
        if members[middle] < value:
            below = middle
        else:
            above = middle
    return above


@numba.njit(cache=True, nogil=True)
def _contains(members, values, found, first, step):
    """found[i]: whether values[i] is in `members` (sorted), for slice `first` of `step` of the
    values. Ascending values walk the set once; a value below the one before starts again."""
    n = values.shape[0]
    at = 0
    for i in range(slice_start(n, first, step), slice_start(n, first + 1, step)):
        value = values[i]
        if i and value < values[i - 1]:
            at = 0
        at = _first_at_least(members, at, value)
        found[i] = at < members.shape[0] and members[at] == value


def contains(sorted_set: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Membership of each value in a set sorted ascending as uint64: fastest when the values are
    sorted too, right in any order."""
    found = np.zeros(len(values), dtype=bool)
    spread(_contains, len(values), np.ascontiguousarray(sorted_set, dtype=np.uint64),
           np.ascontiguousarray(values, dtype=np.uint64), found)
    return found


def sorted_distinct(values: np.ndarray, in_place: bool = True) -> np.ndarray:
    """`values` (uint64) sorted, each once: sorted in place (a sorted copy where not `in_place`:
    the caller's array left as it was), then repeats dropped (np.unique, a hash table since
    numpy 2.3, took twenty to seventy times as long on millions)."""
    if not in_place:
        values = np.array(values, dtype=np.uint64)
    values.sort()
    if len(values) < 2:
        return values
    return values[np.concatenate(([True], values[1:] != values[:-1]))]


class Members:
    """A set of distinct non-zero signatures, asked whether each of many values is in it."""

    def __init__(self, members: np.ndarray) -> None:
        bits = max(1, (2 * len(members) - 1).bit_length())  # at most half full
        self.table = np.zeros(1 << bits, dtype=np.uint64)
        self.shift = np.uint64(64 - bits)
        _fill(self.table, self.shift, members.astype(np.uint64, copy=False))

    def reached(self, values: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """For each group of `values` (group g ending at ends[g], as a parent's children do),
        whether one of them is a member: the first member found ends the group's search."""
        reached = np.zeros(len(ends), dtype=bool)
        spread(_any_member, len(ends), self.table, self.shift, values.astype(np.uint64, copy=False),
               ends, reached)
        return reached

"""Ascending numbers as the gaps between them, a variable number of bytes each: how a cluster
engine's blocks carry sorted positions and a bitmap's set bits.

A gap takes 7 bits a byte, the high bit set on every byte but a gap's last (LEB128). The gaps
between the set bits of a bitmap slice a few percent full are mostly under 128, so a set bit costs
one byte before compression and zstd brings that to the entropy of the gaps (0.83 bytes a set bit
at 3 % of a slice's ranks, 0.64 at 8 %), where the same gaps as 64-bit words cost more after zstd
and take four to six times as long to find, compress and decode: eight bytes a set bit reach the
compressor instead of one. The first gap is the first number itself.
"""

from __future__ import annotations

import numba
import numpy as np

from pegsearch.kernel.ranks import pop_lowest

_LOW = np.uint64(0x7F)
_MORE = np.uint64(0x80)
_SEVEN = np.uint64(7)


@numba.njit(inline="always")
def _put(out, at, gap):
    """Write `gap` at byte `at` of `out`; returns the byte after it."""
    while gap >= _MORE:
        out[at] = np.uint8((gap & _LOW) | _MORE)
        gap >>= _SEVEN
        at += 1
    out[at] = np.uint8(gap)
    return at + 1


@numba.njit(inline="always")
def _size(gap):
    """The bytes `_put` takes for `gap`."""
    size = 1
    while gap >= _MORE:
        gap >>= _SEVEN
        size += 1
    return size


@numba.njit(inline="always")
def _get(stream, at):
    """The gap that starts at byte `at` of `stream`, and the byte after it."""
    gap, shift = np.uint64(0), np.uint64(0)
    byte = np.uint64(stream[at])
    while byte >= _MORE:
        gap |= (byte & _LOW) << shift
        shift += _SEVEN
        at += 1
        byte = np.uint64(stream[at])
    return gap | (byte << shift), at + 1


@numba.njit(cache=True, nogil=True)
def pack_sorted(keys):
    """Ascending `keys` as their gaps, in bytes (sized in a first pass: a hash partition's positions
    are sparse in the 64-bit space, so no small bound on a gap's bytes holds)."""
    size, previous = 0, np.uint64(0)
    for key in keys:
        size += _size(key - previous)
        previous = key
    out = np.empty(size, np.uint8)
    at, previous = 0, np.uint64(0)
    for key in keys:
        at = _put(out, at, key - previous)
        previous = key
    return out


@numba.njit(cache=True, nogil=True)
def unpack_sorted(stream, keys):
    """Fill `keys` (as many as were packed) from `stream`, the bytes pack_sorted made."""
    at, key = 0, np.uint64(0)
    for row in range(keys.shape[0]):
        gap, at = _get(stream, at)
        key += gap
        keys[row] = key


def ones_bound(words: int, count: int) -> int:
    """Bytes enough for the gaps of `count` set bits among `words` 64-bit words: a gap g takes a
    byte more than its first for each 7 bits past 7, at most g / 128 bytes more, and the gaps sum
    to at most the slice's 64 bits a word."""
    return count + words // 2 + 1


@numba.njit(cache=True, nogil=True)
def pack_ones(bits, out):
    """The offsets of the set bits of `bits` as their gaps, into `out` (ones_bound bytes); returns
    how many bytes."""
    at, previous = 0, np.uint64(0)
    for word in range(bits.shape[0]):
        remaining = bits[word]
        while remaining:
            offset, remaining = pop_lowest(remaining)
            rank = np.uint64(word) * np.uint64(64) + offset
            at = _put(out, at, rank - previous)
            previous = rank
    return at


@numba.njit(cache=True, nogil=True)
def or_ones(stream, bits):
    """Set in `bits` the bits whose gaps `stream` holds (pack_ones's bytes)."""
    at, rank = 0, np.uint64(0)
    while at < stream.shape[0]:
        gap, at = _get(stream, at)
        rank += gap
        bits[np.int64(rank >> np.uint64(6))] |= np.uint64(1) << (rank & np.uint64(63))

"""The map kernel: every child of a batch of positions, keyed by its signature.

This is the one piece of search logic every engine runs (in process, in a Spark Python worker, in an
mrjob mapper), so engines can differ only in how they move positions, never in what a level holds.
The loops are compiled with numba and spread over the cores; arrays go in and arrays come out, with
no Python object per position.
"""

from __future__ import annotations

import numba
import numpy as np

from pegsearch.codec import Codec

_BYTE = np.uint64(0xFF)
_EIGHT = np.uint64(8)


@numba.njit(cache=True, nogil=True, inline="always")
def _signature(position, tables):
    best = ~np.uint64(0)
    for g in range(tables.shape[0]):
        image = np.uint64(0)
        rest = position
        for byte in range(tables.shape[1]):
            image |= tables[g, byte, rest & _BYTE]
            rest >>= _EIGHT
        best = min(best, image)
    return best


@numba.njit(cache=True, nogil=True, parallel=True)
def _fanout(positions, need, free):
    counts = np.empty(positions.shape[0], dtype=np.int64)
    for i in numba.prange(positions.shape[0]):
        p = positions[i]
        n = 0
        for j in range(need.shape[0]):
            if (p & need[j]) == need[j] and (p & free[j]) == 0:
                n += 1
        counts[i] = n
    return counts


@numba.njit(cache=True, nogil=True, parallel=True)
def _children(positions, offsets, need, free, flip_images, tables):
    """Each child's signature, from its parent's images rather than from scratch.

    A symmetry is linear over XOR, so the image of child ``p ^ flip[j]`` under g is
    ``image_g(p) ^ image_g(flip[j])``: a parent's images are made once (a table read per byte and
    symmetry), then every child costs one XOR and one comparison per symmetry. The legal jumps are
    first listed without branching, which keeps the processor's branch predictor out of the loop.
    Parents are split into blocks so each thread allocates its scratch arrays once.
    """
    out = np.empty(offsets[-1], dtype=np.uint64)
    n, groups, jumps = positions.shape[0], tables.shape[0], need.shape[0]
    blocks = min(n, 1024)
    size = (n + blocks - 1) // max(blocks, 1)
    for block in numba.prange(blocks):
        images = np.empty(groups, dtype=np.uint64)
        legal = np.empty(jumps, dtype=np.int64)
        for i in range(block * size, min(n, (block + 1) * size)):
            p = positions[i]
            count = 0
            for j in range(jumps):
                legal[count] = j
                count += ((p & need[j]) == need[j]) & ((p & free[j]) == 0)
            for g in range(groups):
                image = np.uint64(0)
                rest = p
                for byte in range(tables.shape[1]):
                    image |= tables[g, byte, rest & _BYTE]
                    rest >>= _EIGHT
                images[g] = image
            k = offsets[i]
            for t in range(count):
                j = legal[t]
                best = images[0] ^ flip_images[j, 0]
                for g in range(1, groups):
                    candidate = images[g] ^ flip_images[j, g]
                    best = candidate if candidate < best else best
                out[k + t] = best
    return out


@numba.njit(cache=True, nogil=True, parallel=True)
def _signatures(positions, tables):
    out = np.empty(positions.shape[0], dtype=np.uint64)
    for i in numba.prange(positions.shape[0]):
        out[i] = _signature(positions[i], tables)
    return out


def signatures(codec: Codec, positions: np.ndarray) -> np.ndarray:
    """Signatures of positions (the compiled twin of `Codec.signatures`, which tests compare)."""
    return _signatures(np.ascontiguousarray(positions, dtype=np.uint64), codec.tables)


def fanout(codec: Codec, positions: np.ndarray) -> np.ndarray:
    """How many legal jumps each position has (int64, one per position)."""
    return _fanout(np.ascontiguousarray(positions, dtype=np.uint64), codec.need, codec.free)


def expand(codec: Codec, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Children of `positions` as signatures, unsorted and with repeats, plus each parent's fanout.

    Children appear in parent order: the first ``fanout[0]`` belong to ``positions[0]`` and so on, so
    a value carried by each parent (a path count) is spread over its children with ``np.repeat``.
    """
    positions = np.ascontiguousarray(positions, dtype=np.uint64)
    counts = _fanout(positions, codec.need, codec.free)
    offsets = np.zeros(positions.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    children = _children(positions, offsets, codec.need, codec.free, codec.flip_images,
                         codec.tables)
    return children, counts


def deduplicate(signatures: np.ndarray) -> np.ndarray:
    """The distinct signatures, sorted ascending as unsigned integers (sorts in place)."""
    signatures.sort()
    if signatures.shape[0] == 0:
        return signatures
    keep = np.empty(signatures.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(signatures[1:], signatures[:-1], out=keep[1:])
    return signatures[keep]

"""Ascending numbers as varint gaps: sorted positions and a bitmap's set bits come back exactly, and
the bytes a bitmap's gaps take never exceed the bound its buffer is sized by (the kernel writes
without bounds checks, so an overrun would corrupt memory, not fail)."""

from __future__ import annotations

import numpy as np
import pytest

from pegsearch.kernel.gaps import ones_bound, or_ones, pack_ones, pack_sorted, unpack_sorted


@pytest.mark.parametrize("bits", [8, 20, 45, 64])
def test_sorted_positions_come_back_exactly(bits: int) -> None:
    rng = np.random.default_rng(bits)
    top = np.uint64((1 << bits) - 1)
    drawn = rng.integers(0, 1 << 62, 5000, dtype=np.uint64) >> np.uint64(max(0, 62 - bits))
    keys = np.unique(np.concatenate([np.array([0, top], dtype=np.uint64), drawn & top]))
    stream = pack_sorted(keys)
    back = np.empty(len(keys), dtype=np.uint64)
    unpack_sorted(stream, back)
    np.testing.assert_array_equal(back, keys)
    # A gap under 128 is one byte: consecutive numbers cost a byte each.
    assert len(pack_sorted(np.arange(1000, dtype=np.uint64))) == 1000


def _offsets(words: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little"))


def _words(offsets: np.ndarray, ranks: int) -> np.ndarray:
    bits = np.zeros(ranks, dtype=bool)
    bits[offsets] = True
    return np.packbits(bits, bitorder="little").view(np.uint64).copy()


@pytest.mark.parametrize("offsets", [
    np.array([0]), np.array([(1 << 20) - 1]),  # one bit, at either end
    np.arange(0, 1 << 20, 128), np.arange(127, 1 << 20, 128),  # every gap just two bytes
    np.arange(0, 1 << 20, 16384), np.arange(0, 1 << 20),  # three bytes; every bit
    np.unique(np.random.default_rng(3).integers(0, 1 << 20, 30_000)),  # about 3 % set
], ids=["first", "last", "gaps-128", "gaps-128-late", "gaps-16384", "full", "random"])
def test_set_bits_come_back_exactly_within_their_bound(offsets: np.ndarray) -> None:
    ranks = 1 << 20
    words = _words(offsets, ranks)
    stream = np.empty(ones_bound(len(words), len(offsets)) + 64, dtype=np.uint8)
    stream[:] = 0xAB
    written = pack_ones(words, stream)
    assert written <= ones_bound(len(words), len(offsets))
    assert (stream[written:] == 0xAB).all()
    held = _words(np.array([5, 200_000]), ranks)
    or_ones(stream[:written], held)
    np.testing.assert_array_equal(_offsets(held), np.union1d(offsets, [5, 200_000]))

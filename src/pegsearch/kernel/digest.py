"""Content digests: a 64-bit fingerprint of a set of positions and the values they carry.

Each position (with its value) is mixed into 64 well-spread bits (splitmix64's finaliser) and the
mixes are summed modulo 2**64. A sum does not care about order, so a level's digest is the sum of
its parts' digests however an engine split the level into parts, and two runs of one search compare
by their manifests alone: equal digests level by level, or the first level that differs.
"""

from __future__ import annotations

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
MODULUS = 1 << 64


def _mix(words: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on every word (after adding the golden ratio, so 0 mixes too)."""
    z = words + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def digest(positions: np.ndarray, values: np.ndarray | None = None) -> int:
    """The digest of some positions (and their value rows, when carried)."""
    positions = np.asarray(positions, dtype=np.uint64)
    with np.errstate(over="ignore"):
        mixed = _mix(positions)
        if values is not None and len(values):
            values = np.asarray(values, dtype=np.uint64)
            mixed = _mix(mixed ^ _mix(values[:, 0]) ^ _mix(_mix(values[:, 1])))
        return int(np.sum(mixed, dtype=np.uint64))


def combined(digests: list[int]) -> int:
    """The digest of the union of disjoint sets, from theirs."""
    return sum(digests) % MODULUS


def as_text(value: int) -> str:
    """A digest as the manifest writes it: 16 hex digits."""
    return f"{value:016x}"

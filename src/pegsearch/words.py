"""Counts in words, for every face: `1 peg`, `2 pegs`, `1 symmetry`, `8 symmetries`, `1,544 positions`."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """A count with its noun in the right number (`nouns` when adding "s" is wrong)."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"

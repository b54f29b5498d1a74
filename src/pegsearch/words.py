"""Counts in words, for every face: `1 peg`, `2 pegs`, `1 symmetry`, `8 symmetries`, `1,544 positions`,
`512 MiB`."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """A count with its noun in the right number (`nouns` when adding "s" is wrong)."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def readable(size: int) -> str:
    """Bytes as people write them: 128 KiB, 512 MiB, 8 GiB."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):,.3g} {unit}"
    return f"{size} bytes"


def levels_named(levels: list[int]) -> str:
    """Levels named as a span when they follow each other ("levels 0 to 11"), else listed."""
    if len(levels) == 1:
        return f"level {levels[0]}"
    if levels == list(range(levels[0], levels[-1] + 1)):
        return f"levels {levels[0]} to {levels[-1]}"
    return "levels " + ", ".join(map(str, levels))

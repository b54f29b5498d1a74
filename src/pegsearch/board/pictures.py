"""Positions as text: the board drawn with pegs and empty holes, or with its hole numbers.

A position is an integer, bit ``i - 1`` set when hole ``i`` holds a peg; these pictures are what the
command line prints and the service sends for a client to show.
"""

from __future__ import annotations

from collections.abc import Sequence

from pegsearch.board.geometry import EMPTY, PEG, Board


def holes_with_pegs(position: int) -> list[int]:
    """The hole numbers that hold a peg."""
    return [i + 1 for i in range(int(position).bit_length()) if position >> i & 1]


def render(board: Board, position: int | None = None, numbers: bool = False,
           labels: Sequence[str] | None = None) -> str:
    """A text picture of the board: pegs and empty holes, or hole numbers when `numbers` is set,
    or `labels`, one for each hole (a pagoda function's weights)."""
    if numbers:
        labels = [str(hole) for hole in range(1, board.holes + 1)]
    width = max(map(len, labels)) if labels else 1
    rows: dict[int, list[tuple[int, str]]] = {}
    for hole, (col, row) in enumerate(board.cells, start=1):
        if labels:
            mark = labels[hole - 1].rjust(width)
        else:
            mark = PEG if position is not None and position >> (hole - 1) & 1 else EMPTY
        rows.setdefault(row, []).append((col * width, mark))
    lines = []
    for row in range(min(rows), max(rows) + 1):
        line = ""
        for col, mark in rows.get(row, []):
            line = line.ljust(col) + mark
        lines.append(line.rstrip())
    indent = min(len(line) - len(line.lstrip()) for line in lines if line)
    return "\n".join(line[indent:] for line in lines)

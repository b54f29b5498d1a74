"""Pictures as files: states per level on a log scale, and a strip of boards along a line of play.

matplotlib is an optional dependency (`pegsearch[plotting]`), imported only when a picture is asked
for, with the Agg backend so no display is needed. The file's suffix (.png or .svg) picks the format.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType

from pegsearch.board.geometry import Board
from pegsearch.errors import UsageError

FORMATS = (".png", ".svg")
STRIP_COLUMNS = 9


def check_picture_path(path: Path, formats: tuple[str, ...] = FORMATS) -> Path:
    """Refuse a picture file whose suffix is not a format we write, before any work is done."""
    if path.suffix.lower() not in formats:
        raise UsageError(f"{path}: a picture file must end in {' or '.join(formats)}")
    if not path.parent.is_dir():
        raise UsageError(f"{path}: folder {path.parent} does not exist")
    return path


def _pyplot() -> ModuleType:
    try:
        import matplotlib
    except ImportError:
        raise UsageError("pictures need matplotlib: pip install 'pegsearch[plotting]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def level_plot(path: Path, title: str, states: list[int], winnable: list[int] | None = None,
               winnable_label: str = "winnable") -> None:
    """States per level (and winnable states) on a log scale; empty levels are left off the line."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(8, 4.5))
    levels = range(len(states))
    axes.plot(levels, states, marker="o", markersize=3, label="states")
    if winnable is not None:
        shown = [(k, n) for k, n in zip(levels, winnable, strict=True) if n > 0]
        axes.plot([k for k, _ in shown], [n for _, n in shown], marker="o", markersize=3,
                  label=winnable_label)
    axes.set_yscale("log")
    axes.set_xlabel("level (jumps made)")
    axes.set_ylabel("positions")
    axes.set_title(title)
    axes.grid(True, which="major", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def board_strip(path: Path, board: Board, positions: list[int], captions: list[str],
                landed: list[int | None]) -> None:
    """One small board per position, captioned, wrapped every STRIP_COLUMNS boards.

    `landed` names the hole a peg just jumped into (drawn in orange), or None for the start.
    """
    plt = _pyplot()
    points = [_point(board, col, row) for col, row in board.cells]
    columns = min(STRIP_COLUMNS, len(positions))
    rows = math.ceil(len(positions) / columns)
    figure, grid = plt.subplots(rows, columns, figsize=(1.9 * columns, 2.1 * rows), squeeze=False)
    for axes in grid.flat:
        axes.set_axis_off()
    for axes, position, caption, hole in zip(grid.flat, positions, captions, landed, strict=False):
        pegs = [position >> i & 1 for i in range(board.holes)]
        colours = ["darkorange" if h + 1 == hole else ("black" if peg else "white")
                   for h, peg in enumerate(pegs)]
        axes.scatter([x for x, _ in points], [y for _, y in points], s=60, c=colours,
                     edgecolors="grey", linewidths=0.8)
        axes.set_aspect("equal")
        axes.margins(0.12)
        axes.set_title(caption, fontsize=9)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def _point(board: Board, col: int, row: int) -> tuple[float, float]:
    """A hole's place in the picture: text columns are half a hole apart; triangle rows are closer."""
    rise = math.sqrt(3) / 2 if board.grid == "triangle" else 1.0
    return col / 2, -row * rise

"""Pictures as files: states per level on a log scale, and a strip of boards along a line of play.

matplotlib is an optional dependency (`pegsearch[plotting]`), imported only when a picture is asked
for, with the Agg backend so no display is needed. The file's suffix (.png or .svg) picks the format.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType

from pegsearch.board.geometry import Board, Jump
from pegsearch.errors import UsageError

FORMATS = (".png", ".svg")
# How a strip rings the holes of the jump just made (the landing hole is filled orange).
JUMP_RIMS = {"from": "royalblue", "over": "crimson"}
STRIP_COLUMNS = 9


def check_picture_path(path: Path, formats: tuple[str, ...] = FORMATS) -> Path:
    """Refuse, before any work is done, a picture file whose suffix is not a format we write, whose
    folder does not exist, or that cannot be drawn because matplotlib is not installed."""
    if path.suffix.lower() not in formats:
        raise UsageError(f"{path}: a picture file must end in {' or '.join(formats)}")
    if not path.parent.is_dir():
        raise UsageError(f"{path}: folder {path.parent} does not exist")
    _pyplot()  # a missing matplotlib is said now, not after the work
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
    from matplotlib.ticker import MaxNLocator

    figure, axes = plt.subplots(figsize=(8, 4.5))
    levels = range(len(states))
    axes.plot(levels, states, marker="o", markersize=3, label="states")
    if winnable is not None:
        shown = [(k, n) for k, n in zip(levels, winnable, strict=True) if n > 0]
        axes.plot([k for k, _ in shown], [n for _, n in shown], marker="o", markersize=3,
                  label=winnable_label)
    axes.set_yscale("log")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("level (jumps made)")
    axes.set_ylabel("positions")
    axes.set_title(title)
    axes.grid(True, which="major", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def board_strip(path: Path, title: str, board: Board, positions: list[int], captions: list[str],
                jumps: list[Jump | None]) -> None:
    """One small board per position, captioned, wrapped every STRIP_COLUMNS boards, under a title.

    `jumps` names the jump that made each position (None for the start): the hole its peg landed in
    is drawn orange, the holes it left and jumped over ringed in blue and red.
    """
    plt = _pyplot()
    points = [_point(board, col, row) for col, row in board.cells]
    columns = min(STRIP_COLUMNS, len(positions))
    rows = math.ceil(len(positions) / columns)
    figure, grid = plt.subplots(rows, columns, figsize=(1.9 * columns, 2.1 * rows), squeeze=False)
    for axes in grid.flat:
        axes.set_axis_off()
    for axes, position, caption, jump in zip(grid.flat, positions, captions, jumps, strict=False):
        pegs = [position >> i & 1 for i in range(board.holes)]
        landed = jump.to if jump else None
        colours = ["darkorange" if h + 1 == landed else ("black" if peg else "white")
                   for h, peg in enumerate(pegs)]
        rims = [JUMP_RIMS.get(_role(jump, h + 1), "grey") for h in range(board.holes)]
        axes.scatter([x for x, _ in points], [y for _, y in points], s=60, c=colours,
                     edgecolors=rims, linewidths=[0.8 if rim == "grey" else 2.0 for rim in rims])
        axes.set_aspect("equal")
        axes.margins(0.12)
        axes.set_title(caption, fontsize=9)
    figure.suptitle(title, fontsize=11)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def _role(jump: Jump | None, hole: int) -> str:
    """What a hole was in the jump just made: "from", "over", or nothing."""
    if jump is None:
        return ""
    return "from" if hole == jump.start else "over" if hole == jump.over else ""


def _point(board: Board, col: int, row: int) -> tuple[float, float]:
    """A hole's place in the picture: text columns are half a hole apart; triangle rows are closer."""
    rise = math.sqrt(3) / 2 if board.grid == "triangle" else 1.0
    return col / 2, -row * rise

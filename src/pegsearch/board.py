"""Boards: holes, legal jumps and the symmetry group, derived from a layout drawn on a grid.

A board file draws its holes as text; the geometry (which triples of holes are jump lines, which
permutations of holes are symmetries) is derived from the grid, never written by hand, so a new
board needs nothing but its drawing. Holes are numbered from 1, row by row, left to right; bit
``i - 1`` of a position is hole ``i``.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from itertools import product
from pathlib import Path

from pegsearch.errors import UsageError

MAX_HOLES = 64
# A drawing of at most 64 holes is a few hundred bytes; anything past this is not a board file, and
# parsing it whole would take seconds and gigabytes before the layout check could refuse it.
MAX_BOARD_BYTES = 1 << 20
PEG, EMPTY = "o", "."

# Unit steps of each grid, in lattice coordinates. Square grids: (column, row) with holes two text
# columns apart. Triangle grid: axial coordinates (q, r) of the triangular lattice, where the text
# draws row r shifted by one column per row, so text column = 2q + r.
GRID_STEPS: dict[str, tuple[tuple[int, int], ...]] = {
    "square": ((1, 0), (-1, 0), (0, 1), (0, -1)),
    "square-diagonal": ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)),
    "triangle": ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)),
}
# The point groups that preserve each lattice: a square grid's 8 and a triangle grid's 12 isometries.
# Diagonal jumps do not change the lattice, so square-diagonal shares the square group.
LATTICE_STEPS = {"square": GRID_STEPS["square"], "square-diagonal": GRID_STEPS["square"],
                 "triangle": GRID_STEPS["triangle"]}
KNOWN_KEYS = {"name", "description", "grid", "layout"}


@dataclass(frozen=True)
class Jump:
    """A jump from `start` over `over` into `to`; legal when start and over hold pegs and to is empty."""

    start: int
    over: int
    to: int

    def __str__(self) -> str:
        return f"{self.start}-{self.over}-{self.to}"


@dataclass(frozen=True)
class Board:
    """A board: its drawing plus everything derived from it.

    `cells` are the holes' text coordinates (column, row) in hole order; `empty` lists the holes
    drawn empty, which is the default start.
    """

    name: str
    grid: str
    layout: str
    cells: tuple[tuple[int, int], ...]
    empty: tuple[int, ...]
    description: str = ""
    source: str = field(default="", compare=False)

    @property
    def holes(self) -> int:
        return len(self.cells)

    @cached_property
    def lattice(self) -> tuple[tuple[int, int], ...]:
        """Lattice coordinates of every hole, in hole order."""
        return tuple(_to_lattice(self.grid, col, row) for col, row in self.cells)

    @cached_property
    def jumps(self) -> tuple[Jump, ...]:
        """Every jump of the board, ordered by starting hole then direction."""
        where = {point: hole for hole, point in enumerate(self.lattice, start=1)}
        found = []
        for hole, (q, r) in enumerate(self.lattice, start=1):
            for dq, dr in GRID_STEPS[self.grid]:
                over = where.get((q + dq, r + dr))
                to = where.get((q + 2 * dq, r + 2 * dr))
                if over and to:
                    found.append(Jump(hole, over, to))
        return tuple(found)

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetry group as permutations: ``perm[i]`` is the image of hole ``i + 1``.

        Found as the isometries of the lattice (a point-group element followed by the translation
        that lines up the smallest points) that map the set of holes onto itself. The identity is
        first.
        """
        points = self.lattice
        where = {point: index for index, point in enumerate(points)}
        anchor = min(points)
        found: list[tuple[int, ...]] = []
        for matrix in _point_group(self.grid):
            image = [_apply(matrix, p) for p in points]
            low = min(image)
            shift = (anchor[0] - low[0], anchor[1] - low[1])
            moved = [(x + shift[0], y + shift[1]) for x, y in image]
            if all(p in where for p in moved):
                perm = tuple(where[p] for p in moved)
                if perm not in found:
                    found.append(perm)
        found.sort(key=lambda perm: perm != tuple(range(len(points))))
        return tuple(found)

    @cached_property
    def digest(self) -> str:
        """A hash of the geometry (grid and holes), so a stored run can be matched to its board."""
        text = self.grid + ";" + ";".join(f"{c},{r}" for c, r in self.cells)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def stabilizer(self, position: int) -> tuple[tuple[int, ...], ...]:
        """The symmetries that map `position` onto itself (the identity first).

        Reducing by this subgroup rather than the whole group keeps every answer exact per hole:
        the positions reachable from a start, and their path counts, are invariant under it.
        """
        return tuple(perm for perm in self.symmetries
                     if all(position >> perm[i] & 1 for i in range(self.holes) if position >> i & 1))

    def hole_of(self, number: int) -> int:
        """Check a user-given hole number and return it."""
        if not 1 <= number <= self.holes:
            raise UsageError(
                f"hole {number} does not exist on {self.name}: holes are numbered 1 to {self.holes}"
                f" (see `pegsearch show {self.name}`)"
            )
        return number

    def start_position(self, empty: tuple[int, ...] | None = None) -> int:
        """The position with pegs everywhere except `empty` (default: the holes drawn empty)."""
        holes = self.empty if empty is None else tuple(self.hole_of(h) for h in empty)
        full = (1 << self.holes) - 1
        return full & ~sum(1 << (h - 1) for h in set(holes))

    def definition(self) -> dict[str, str]:
        """What a run directory stores so that any engine can rebuild this board without its file."""
        return {"name": self.name, "description": self.description, "grid": self.grid,
                "layout": self.layout}


def check_start(board: Board, empty: tuple[int, ...]) -> None:
    """Refuse a start with no peg: there is nothing to jump, and a "complete" run of it would report
    zero pegs as the fewest reachable. (One peg is a start already solved: a run of one level.)"""
    if board.start_position(empty) == 0:
        drawn = " (the layout draws every hole empty)" if set(empty) == set(board.empty) else ""
        holes = f"all {board.holes} holes are" if board.holes > 1 else "its one hole is"
        raise UsageError(f"the start leaves no peg on {board.name}: {holes} empty{drawn}; leave at"
                         " least one hole with a peg (--start names the holes empty at the start)")


def _to_lattice(grid: str, col: int, row: int) -> tuple[int, int]:
    if grid == "triangle":
        return ((col - row) // 2, row)
    return (col // 2, row)


def _apply(matrix: tuple[int, int, int, int], point: tuple[int, int]) -> tuple[int, int]:
    a, b, c, d = matrix
    return (a * point[0] + b * point[1], c * point[0] + d * point[1])


def _point_group(grid: str) -> list[tuple[int, int, int, int]]:
    """The integer matrices that permute the lattice's unit steps: its isometries fixing a point."""
    steps = set(LATTICE_STEPS[grid])
    return [m for m in product((-1, 0, 1), repeat=4)
            if abs(m[0] * m[3] - m[1] * m[2]) == 1 and {_apply(m, s) for s in steps} == steps]


def parse_board(text: str, source: str) -> Board:
    """Parse a board file's text; `source` names the file in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{source}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise UsageError(f"{source} line {_key_line(text, unknown[0])}: unknown key '{unknown[0]}'"
                         f" (a board file has {', '.join(sorted(KNOWN_KEYS))})")
    for key in ("name", "grid", "layout"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise UsageError(f"{source}: missing or empty '{key}' (a text value is required)")
    grid = data["grid"]
    if grid not in GRID_STEPS:
        raise UsageError(f"{source} line {_key_line(text, 'grid')}: unknown grid '{grid}'"
                         f" (use one of: {', '.join(GRID_STEPS)})")
    first_line = _key_line(text, "layout") + (1 if re.search(r'layout\s*=\s*"""\s*\n', text) else 0)
    cells, empty = _read_layout(data["layout"], grid, source, first_line)
    return Board(name=data["name"], grid=grid, layout=data["layout"], cells=cells, empty=empty,
                 description=data.get("description", ""), source=source)


def _key_line(text: str, key: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if re.match(rf"\s*{re.escape(key)}\s*=", line):
            return number
    return 1


def _read_layout(layout: str, grid: str, source: str,
                 first_line: int) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """Read holes from the drawing, checking each sits on the grid; returns cells and empty holes."""
    cells: list[tuple[int, int]] = []
    empty: list[int] = []
    parity: int | None = None
    for row, line in enumerate(layout.split("\n")):
        for col, char in enumerate(line):
            where = f"{source} line {first_line + row}, column {col + 1}"
            if char.isspace():
                continue
            if char not in (PEG, EMPTY):
                raise UsageError(f"{where}: unexpected {char!r} in layout"
                                 f" (draw a hole with '{PEG}' for a peg or '{EMPTY}' for empty)")
            here = (col + row) % 2 if grid == "triangle" else col % 2
            if parity is None:
                parity = here
            elif here != parity:
                rule = ("each row is shifted one column from the next and holes are two columns"
                        " apart" if grid == "triangle" else "holes are two columns apart")
                raise UsageError(f"{where}: hole is off the {grid} grid ({rule})")
            cells.append((col, row))
            if char == EMPTY:
                empty.append(len(cells))
    if not cells:
        raise UsageError(f"{source}: the layout has no holes (draw them with '{PEG}' and '{EMPTY}')")
    if len(cells) > MAX_HOLES:
        raise UsageError(f"{source}: the layout has {len(cells)} holes; at most {MAX_HOLES} fit")
    return tuple(cells), tuple(empty)


def shipped_boards() -> list[str]:
    """Names of the boards shipped inside the package."""
    folder = resources.files("pegsearch") / "boards"
    return sorted(p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml"))


def load_board(name_or_path: str) -> Board:
    """Load a shipped board by name, or any board file by path.

    A name of a shipped board wins over a folder of that name (a run directory made with
    ``--out english-33``); a regular file of that name, or any ``.toml`` path, is read as a file.
    """
    path = Path(name_or_path)
    shipped = resources.files("pegsearch") / "boards" / f"{name_or_path}.toml"
    named = path.suffix != ".toml" and "/" not in name_or_path and shipped.is_file()
    if named and not path.is_file():
        return parse_board(shipped.read_text(encoding="utf-8"), f"boards/{name_or_path}.toml")
    if path.suffix == ".toml" or os.path.lexists(path):
        return parse_board(read_board_file(path), str(path))
    raise UsageError(f"unknown board '{name_or_path}': use one of {', '.join(shipped_boards())}"
                     " or a path to a .toml board file")


def read_board_file(path: Path) -> str:
    """The text of a board file, or one line saying why it cannot be one.

    What it is, and its size, are checked on the open descriptor before a byte is read: opening is
    non-blocking, so a FIFO with no writer is refused rather than waited on forever, and a file
    larger than MAX_BOARD_BYTES is refused without being read. A UTF-8 byte-order mark (an editor on
    Windows) is allowed.
    """
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UsageError(f"board file {path} {_open_problem(path, exc)}") from None
    try:
        info = os.fstat(handle)
        mode, size = info.st_mode, info.st_size
        if stat.S_ISDIR(mode):
            raise UsageError(f"board file {path} is a directory: give the path of a .toml file")
        if not stat.S_ISREG(mode):
            raise UsageError(f"board file {path} is {_kind(mode)}, not a regular file: save the"
                             " board in a .toml file")
        data = b"" if size > MAX_BOARD_BYTES else _read_at_most(handle, MAX_BOARD_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"board file {path} cannot be read: {exc.strerror}") from None
    finally:
        os.close(handle)
    if size > MAX_BOARD_BYTES or len(data) > MAX_BOARD_BYTES:
        raise UsageError(f"board file {path} is {max(size, len(data)):,} bytes, too large for a"
                         f" board file (at most {MAX_BOARD_BYTES:,}): is it the right file?")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"board file {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at"
                         f" offset {exc.start}): save it as UTF-8") from None


def _read_at_most(handle: int, limit: int) -> bytes:
    """Up to `limit` bytes from `handle`, to its end (a file that grew since it was measured is
    still read no further than the limit)."""
    chunks: list[bytes] = []
    while (got := sum(map(len, chunks))) < limit and (chunk := os.read(handle, limit - got)):
        chunks.append(chunk)
    return b"".join(chunks)


def _open_problem(path: Path, exc: OSError) -> str:
    """Why `path` could not be opened, as the end of a sentence naming it."""
    if exc.errno == errno.ENOENT:
        if path.is_symlink():
            return f"is a symbolic link to {os.readlink(path)}, which does not exist"
        return "does not exist"
    if exc.errno == errno.ELOOP:
        return "is a symbolic link that leads back to itself (a loop): link it to a real file"
    if exc.errno == errno.ENXIO:  # a socket, or a device with nothing behind it
        return f"is {_kind(os.stat(path).st_mode)}, not a regular file: save the board in a .toml file"
    if exc.errno == errno.EACCES:
        return "cannot be read: permission denied (check its permissions and its folders')"
    return f"cannot be opened: {exc.strerror}"


def _kind(mode: int) -> str:
    """What a non-regular, non-directory file is, with an article."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file"


def board_from_definition(definition: dict[str, str], source: str) -> Board:
    """Rebuild a board from what a run directory stored (see `Board.definition`)."""
    text = "\n".join(f"{key} = {_toml_string(value)}" for key, value in definition.items() if value)
    return parse_board(text, source)


def _toml_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'

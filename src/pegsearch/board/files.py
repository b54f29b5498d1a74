"""Board files: reading, checking and parsing the TOML drawing of a board, shipped or the user's.

A board file is user input, so everything here refuses in one line what cannot be a board (not
TOML, unknown keys, a hole off the grid, a FIFO, a file of gigabytes) before it costs anything.
"""

from __future__ import annotations

import difflib
import errno
import os
import re
import stat
import tomllib
import unicodedata
from importlib import resources
from pathlib import Path

from pegsearch.board.geometry import EMPTY, GRID_STEPS, MAX_HOLES, PEG, Board
from pegsearch.errors import UsageError

# A drawing of at most 64 holes is a few hundred bytes; anything past this is not a board file, and
# parsing it whole would take seconds and gigabytes before the layout check could refuse it.
MAX_BOARD_BYTES = 1 << 20
KNOWN_KEYS = {"name", "description", "grid", "layout"}
# What a text field may hold besides printable characters: a description may run over lines; a
# name is one line. Any other control character (NUL, BEL, DEL, a bare CR, an ESC that drives a
# terminal) is refused: every face prints these fields, and a stored NUL could not be read back.
ALLOWED_CONTROLS = {"name": "", "description": "\n\t"}
SHIPPED = resources.files("pegsearch.board") / "shipped"
# Names a shipped board also answers to, each to its file's name: the triangles are named by side
# (triangle-4 to triangle-10) but side 7 ships as its puzzle's name, and a researcher going up the
# sides types triangle-7.
OTHER_NAMES = {"triangle-7": "skippy-xl"}


def parse_board(text: str, source: str) -> Board:
    """Parse a board file's text; `source` names the file in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{source}: not valid TOML: {exc}") from None
    except ValueError:  # a number past Python's 4,300 digits, refused in the interpreter's words
        long = re.search(r"\d{100,}", text)
        where = f" (line {text.count(chr(10), 0, long.start()) + 1})" if long else ""
        raise UsageError(f"{source}: a number of thousands of digits{where}; no value of a board"
                         " file is near so large") from None
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise UsageError(f"{source} line {_key_line(text, unknown[0])}: unknown key '{unknown[0]}'"
                         f" (a board file has {', '.join(sorted(KNOWN_KEYS))})")
    for key in ("name", "grid", "layout"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise UsageError(f"{source}: missing or empty '{key}' (a text value is required)")
    _check_text(data, text, source)
    grid = data["grid"]
    if grid not in GRID_STEPS:
        raise UsageError(f"{source} line {_key_line(text, 'grid')}: unknown grid '{grid}'"
                         f" (use one of: {', '.join(GRID_STEPS)})")
    first_line = _key_line(text, "layout") + (1 if re.search(r'layout\s*=\s*"""\s*\n', text) else 0)
    cells, empty = _read_layout(data["layout"], grid, source, first_line)
    return Board(name=data["name"], grid=grid, layout=data["layout"], cells=cells, empty=empty,
                 description=data.get("description", ""), source=source)


def _check_text(data: dict, text: str, source: str) -> None:
    """Refuse a name or description holding a control character (see ALLOWED_CONTROLS), in one
    line naming the key, its line and the character."""
    for key, allowed in ALLOWED_CONTROLS.items():
        value = data.get(key)
        if not isinstance(value, str):
            continue
        bad = next((char for char in value if unicodedata.category(char) == "Cc"
                    and char not in allowed), None)
        if bad is not None:
            raise UsageError(f"{source} line {_key_line(text, key)}: '{key}' holds the control"
                             f" character U+{ord(bad):04X}; write it in printable characters")


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
    """Names of the boards shipped inside the package, by family and then size (triangle-10
    after triangle-9, not before triangle-4)."""
    names = [p.name.removesuffix(".toml") for p in SHIPPED.iterdir() if p.name.endswith(".toml")]
    return sorted(names, key=lambda name: (name.rstrip("0123456789"), len(name), name))


def shipped_name(name: str) -> str | None:
    """The shipped board `name` names, by its own name or another (OTHER_NAMES), or None."""
    name = OTHER_NAMES.get(name, name)
    return name if name in shipped_boards() else None


def other_names(name: str) -> list[str]:
    """The other names the shipped board `name` answers to (`pegsearch boards` lists them)."""
    return [other for other, shipped in OTHER_NAMES.items() if shipped == name]


def load_board(name_or_path: str) -> Board:
    """Load a shipped board by name (its own or another, OTHER_NAMES), or any board file by path.

    A name of a shipped board wins over a folder of that name (a run directory made with
    ``--out english-33``); a regular file of that name, or any ``.toml`` path, is read as a file.
    """
    path = Path(name_or_path)
    shipped = shipped_name(name_or_path)
    named = path.suffix != ".toml" and "/" not in name_or_path and shipped is not None
    if named and not path.is_file():
        return parse_board((SHIPPED / f"{shipped}.toml").read_text(encoding="utf-8"),
                           f"boards/{shipped}.toml")
    if path.suffix == ".toml" or os.path.lexists(path):
        return parse_board(read_board_file(path), str(path))
    raise UsageError(f"unknown board '{name_or_path}': {board_choices(name_or_path)}")


def board_choices(name: str) -> str:
    """What to name instead of `name`, which is no board: the nearest shipped board, if one is
    near, and every one."""
    close = difflib.get_close_matches(name, [*shipped_boards(), *OTHER_NAMES], n=1)
    guess = f"did you mean '{close[0]}'? " if close else ""
    return f"{guess}use one of {', '.join(shipped_boards())} or a path to a .toml board file"


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

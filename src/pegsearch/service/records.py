"""Queue records: what the service must remember about a search beyond its run directory.

The manifest says which levels exist and whether the run finished; a record adds what the manifest
cannot: the request (so a search that never started can start after a restart), whether the user
still wants it to run (a cancelled search is not resumed by a restarted server), the submission
order, and why it failed. Records live in the server's state folder (``ROOT/.pegsearch-service``
for a local runs root, see storage.state_folder) as ``records/ID.json``, written atomically, so
nothing is lost with the server.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pegsearch.board.files import board_from_definition
from pegsearch.board.geometry import Board
from pegsearch.board.spec import SearchSpec, survey_name
from pegsearch.errors import Conflict, UsageError
from pegsearch.store import Location

SERVICE_FOLDER = ".pegsearch-service"
# Ids are folder names the server made (or the CLI's run names): no dots, slashes or other path syntax.
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def valid_id(search_id: str) -> bool:
    """Whether `search_id` can name a search: a plain folder name, never a path."""
    return ID_PATTERN.fullmatch(search_id) is not None


def new_id(board: Board, start: list[int], symmetry: str, count_paths: bool, survey: bool,
           fewest_moves: bool = False) -> str:
    """A fresh id: the name the command line gives such a run (a survey's, for a survey)."""
    if survey:
        return survey_name(board, count_paths, fewest_moves)
    return SearchSpec(board, tuple(start), symmetry, count_paths, fewest_moves).name()


class Unreadable(Conflict):
    """A record that cannot be read back (cut short, edited by hand, or holding a board a server
    before the board files' checks accepted): the search is damaged, listed as such and can be
    deleted; it is never a fault of the request that met it, nor of every listing."""


@dataclass
class Record:
    """One submitted search: the request, whether it should run, and its failure if it failed.

    A `survey` searches every class of start holes (`start` is then empty) into one folder, or
    with `depth_first` asks the solver every (start, finish) pair.
    """

    id: str
    board: dict[str, str]
    start: list[int]
    symmetry: str
    count_paths: bool
    engine: str
    settings: dict[str, str | int] = field(default_factory=dict)
    submitted: int = field(default_factory=time.time_ns)
    wanted: bool = True
    error: str | None = None
    survey: bool = False
    fewest_moves: bool = False
    keep: str = "all"  # what the run keeps of its levels (board.spec.KEEPS)
    depth_first: bool = False  # a survey by the solver, pair by pair (answers.door.survey_reason)


class Records:
    """The records of one server's state folder (with its workers' logs, locks and progress)."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.folder = state / "records"
        self.logs = state / "logs"
        self.locks = state / "locks"
        self.progress_folder = state / "progress"
        for folder in (self.folder, self.logs, self.locks, self.progress_folder):
            folder.mkdir(parents=True, exist_ok=True)

    def get(self, search_id: str) -> Record | None:
        """The search's record, None when it has none; `Unreadable` when it cannot be read."""
        try:  # read, not looked for first: a delete may remove it between the two
            text = (self.folder / f"{search_id}.json").read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:  # a folder in its place: said without the server's path
            raise Unreadable(f"the record of search {search_id} cannot be read"
                             f" ({exc.strerror or type(exc).__name__}); delete the search") from None
        except ValueError as exc:  # bytes that are not UTF-8
            raise Unreadable(f"the record of search {search_id} cannot be read ({exc});"
                             " delete the search") from None
        return _record(search_id, text)

    def ids(self) -> set[str]:
        """The ids of every record, readable or not (a damaged one is listed, to be deleted)."""
        return {path.stem for path in self.folder.glob("*.json") if valid_id(path.stem)}

    def put(self, record: Record) -> None:
        write_json(self.folder / f"{record.id}.json", asdict(record))

    def remove(self, search_id: str) -> None:
        for path in (self.folder / f"{search_id}.json", self.logs / f"{search_id}.log",
                     self.locks / f"{search_id}.lock", self.progress(search_id)):
            path.unlink(missing_ok=True)

    def all(self) -> list[Record]:
        """Every record, oldest submission first (the queue order)."""
        records = [self.readable(search_id) for search_id in self.ids()]
        return sorted((r for r in records if r is not None), key=lambda r: r.submitted)

    def readable(self, search_id: str) -> Record | None:
        """The record, or None when it has none or it cannot be read (what the queue does with a
        search: a damaged record is never run, only listed and deleted)."""
        try:
            return self.get(search_id)
        except Unreadable:
            return None

    def log(self, search_id: str) -> Path:
        return self.logs / f"{search_id}.log"

    def lock(self, search_id: str) -> Path:
        return self.locks / f"{search_id}.lock"

    def progress(self, search_id: str) -> Path:
        """The latest progress inside the level being made ({"level", "pegs", "done", "total"}),
        written by the search's worker a few times a second."""
        return self.progress_folder / f"{search_id}.json"

    def latest_progress(self, search_id: str) -> dict | None:
        try:
            return json.loads(self.progress(search_id).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None


def _record(search_id: str, text: str) -> Record:
    """A record from its file's text, checked as far as every reader needs it: JSON of a record's
    fields, and a board that can be rebuilt (a NUL in its name made every listing a 400)."""
    try:
        record = Record(**json.loads(text))
        board_from_definition(record.board, f"search {search_id} (board)")
    except UsageError as exc:
        raise Unreadable(f"the record of search {search_id} cannot be read: {exc.line()};"
                         " delete the search") from None
    except (ValueError, TypeError, AttributeError) as exc:  # not JSON, or not a record's fields
        raise Unreadable(f"the record of search {search_id} cannot be read ({exc});"
                         " delete the search") from None
    return record


def write_json(path: Path, document: dict) -> None:
    """Replace a small JSON file whole (a reader sees the old or the new one, never a mix)."""
    text = json.dumps(document, indent=1) + "\n"
    Location.parse(path.parent).replace(path.name, text.encode())

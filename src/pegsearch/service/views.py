"""The searches of a runs root as the service shows them: run directories, records and the queue.

Framework-free on purpose: the application only routes requests here. The documents themselves are
the typed answers of `pegsearch.answers.documents`, the same as the command line's `--json`, so
scripts read the API and the CLI alike; what is added here is what only the service knows (ids,
queue status, settings, why a search failed).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from pegsearch.answers.documents import counts_answer, run_counts
from pegsearch.answers.shapes import BY, SEARCHED
from pegsearch.board.files import board_from_definition
from pegsearch.errors import Conflict, NotFound, UsageError
from pegsearch.service.jobs import Jobs
from pegsearch.service.records import Record, Unreadable, valid_id
from pegsearch.service.storage import (
    is_survey,
    open_run,
    run_ids,
    survey_results,
    without_root,
)
from pegsearch.service.storage import level_parts as stored_parts
from pegsearch.store import Location, Run

CREATED = "%Y-%m-%dT%H:%M:%S%z"  # as run manifests write it, so listings sort by it
# Statuses of a search whose run a writer is changing now: a part missing then is not damage (a
# cancelled search's worker, stopped inside its level's commit, lists and removes parts before it
# writes the manifest it ends with: 2 of 35 cancels polled every 20 ms were called damaged, then
# interrupted, and verify passed). Damage is what a run shows once no one writes it.
WRITING = ("running", "cancelling", "deleting")
T = TypeVar("T")


class Searches:
    """The searches of a runs root as the API shows them: run directories plus queue records."""

    def __init__(self, root: Location, jobs: Jobs) -> None:
        self.root = root
        self.jobs = jobs

    def find(self, search_id: str) -> tuple[Run | None, Record | None]:
        """The run and record of a search; 404 for an id that is not one (paths never are)."""
        record = self.jobs.records.get(checked_id(search_id))
        try:
            run = open_run(self.root, search_id)
        except UsageError:  # no manifest, or half a one: damage, or a delete under way
            self._unless_deleted(search_id)
            raise
        if run is None and record is None and not is_survey(self.root, search_id):
            raise NotFound(f"no search '{search_id}'")
        return run, record

    def _unless_deleted(self, search_id: str) -> None:
        """404 for a search being deleted, or gone since it was found: a run read while its
        folder is removed looked damaged (5 reads in some 19,000 during deletes), and a resume
        racing a delete was refused as "not a pegsearch run" (400)."""
        if self.jobs.status(search_id) == "deleting":  # NotFound once it is gone
            raise NotFound(f"search {search_id} is being deleted")

    def _is_survey(self, run: Run | None, record: Record | None) -> bool:
        """A survey's folder: the service's by its record, the command line's (no record, no run
        of its own) by its answers file (see `find`)."""
        return record.survey if record is not None else run is None

    def status(self, search_id: str) -> str:
        """The search's status as the queue and its manifest say (see `Jobs.status`); a search
        deleted since it was found is answered 404."""
        return self.jobs.status(search_id)

    def document(self, search_id: str, answers: bool = True) -> dict:
        """One search in the CLI's `--json` shape plus id, status and settings; with `answers`, a
        complete run also says where the last peg stands. A run that cannot be read whole is a
        state of the run, not a fault of the server's: status `damaged`, the reason, and the
        levels before the first that cannot be read."""
        try:
            run, record = self.find(search_id)
        except NotFound:
            raise
        except UsageError as exc:  # a manifest or record that cannot be read
            return {"id": search_id, "kind": "search", "status": "damaged",
                    "error": without_root(self.root, exc.line()), "levels": []}
        with self.reading(search_id):
            return self._document(search_id, run, record, answers)

    def _document(self, search_id: str, run: Run | None, record: Record | None,
                  answers: bool) -> dict:
        status = self.status(search_id)
        if self._is_survey(run, record):
            return self._survey(search_id, record, status)
        damage = run.first_damage() if run is not None else None
        if damage is not None:
            self._unless_deleted(search_id)
        if damage is not None and status not in WRITING:
            document = _with_status(run_counts(run, answers=False).as_document(), "damaged")
            document["levels"] = document["levels"][:damage.level]
            return {"id": search_id, "kind": "search", **document,
                    "error": without_root(self.root, damage.line())}
        if run is not None:
            document = run_counts(run, answers=answers and status == "complete").as_document()
            if damage is not None:  # a writer at work: the levels before what it is changing
                document["levels"] = document["levels"][:damage.level]
        else:
            board = board_from_definition(record.board, f"search {search_id} (board)")
            document = {"board": board.name, "holes": board.holes, "start": record.start,
                        "reduced": record.symmetry != "none", "symmetry": record.symmetry,
                        "count_paths": record.count_paths, "fewest_moves": record.fewest_moves,
                        "engine": record.engine,
                        "created": _created(record),
                        "levels": []}
        document = {"id": search_id, "kind": "search", **document, "status": status}
        if record is not None:
            document["settings"] = record.settings
        _with_status(document, status)
        if status == "failed":
            document["error"] = self._error(search_id, record)
        return document

    def counts(self, search_id: str, winnable: bool, finish: int | None) -> dict:
        """The level table of a search, as `pegsearch counts` prints it: of a search not finished,
        the levels made so far, with its status (and no verdict); winnable positions need it whole."""
        run, record = self._answerable(search_id)
        status = self.status(search_id)
        if self._is_survey(run, record):
            raise UsageError(f"{search_id} is a survey: its answers are the 'starts' of its document")
        if run is None:
            raise Conflict(f"search {search_id} is {status}: it has made no level yet")
        if status != "complete" and winnable:
            raise Conflict(f"search {search_id} is {status}: winnable positions need a complete run")
        with self.reading(search_id):
            run.check_parts()
            counts = counts_answer(run, winnable, finish, answers=status == "complete")
        return _with_status(counts.as_document(), status)

    def _survey(self, search_id: str, record: Record | None, status: str) -> dict:
        """A survey: what was asked, and once finished, the answer for every start hole. One made
        on the command line has no record: its answers file says what was asked."""
        results = survey_results(self.root, search_id) if status == "complete" else None
        if record is not None:
            board = board_from_definition(record.board, f"search {record.id} (board)")
            asked = {"board": board.name, "holes": board.holes, "count_paths": record.count_paths,
                     "fewest_moves": record.fewest_moves, "engine": record.engine,
                     "by": BY if record.depth_first else SEARCHED,
                     "settings": record.settings, "created": _created(record)}
        else:
            asked = {key: results.get(key) for key in ("board", "holes", "count_paths", "engine",
                                                       "created")}
            asked["fewest_moves"] = "fewest_moves" in results
        document = {"id": search_id, "kind": "survey", **asked, "start": [], "levels": [],
                    "status": status}
        if results is not None:
            document.update({key: value for key, value in results.items()
                             if key in ("by", "starts", "solvable_starts", "verdict", "fewest_moves",
                                        "fewest_moves_starts")})
        if status == "failed":
            document["error"] = self._error(search_id, record)
        return document

    def _error(self, search_id: str, record: Record) -> str | None:
        """A failed search's one line, from its record read again: the one `find` read may be
        older than the status, since a worker ending in between settles both (a failed search
        was answered, now and then, with error null)."""
        fresh = self.jobs.records.get(search_id)
        return (fresh or record).error

    def listing(self) -> list[dict]:
        """Every search under the root, newest first: those with a run directory and queued ones."""
        ids = run_ids(self.root) | self.jobs.records.ids()
        rows = []
        for search_id in ids:
            try:
                document = self.document(search_id, answers=False)
            except NotFound:  # deleted while listing
                continue
            rows.append({key: document.get(key) for key in (
                "id", "kind", "board", "start", "symmetry", "count_paths", "fewest_moves", "engine",
                "status", "verdict")}
                | {"levels": len(document["levels"]),
                   "states": sum(level["states"] for level in document["levels"]),
                   "created": document.get("created", ""),
                   "in_progress": (document.get("in_progress") or {}).get("note")})
        return sorted(rows, key=lambda row: (row["created"], row["id"]), reverse=True)

    def _answerable(self, search_id: str) -> tuple[Run | None, Record | None]:
        """`find`, for an answer: a manifest that cannot be read is refused as the run's state
        (409), as a damaged part is, not as a fault of the request."""
        try:
            return self.find(search_id)
        except (NotFound, Unreadable):
            raise
        except UsageError as exc:
            raise Conflict(f"{without_root(self.root, exc.line())}; the run is damaged") from None

    def complete_run(self, search_id: str) -> Run:
        """The run of a search whose answers are asked for; 409 while it is not complete."""
        run, record = self._answerable(search_id)
        status = self.status(search_id)
        if self._is_survey(run, record):
            raise UsageError(f"{search_id} is a survey: its answers are the 'starts' of its document")
        if run is None or status != "complete":
            raise Conflict(f"search {search_id} is {status}: answers need a complete run")
        self.read(search_id, run.check_parts)
        return run

    @contextmanager
    def reading(self, search_id: str) -> Iterator[None]:
        """Reads of a search's run: what fails while a delete removes its folder (a part gone, a
        file cut off under a reader) is the delete's, answered 404, never "damaged" (12 of 761
        `/counts` reads racing deletes were told so); anything else is raised as it came."""
        try:
            yield
        except NotFound:
            raise
        except (UsageError, OSError, ValueError):  # a part gone; pyarrow's ArrowInvalid too
            self._unless_deleted(search_id)
            raise

    def read(self, search_id: str, reader: Callable[..., T], *args: object) -> T:
        """`reader(*args)`, a read of the search's run, as `reading` guards it (for a read run in
        a worker thread)."""
        with self.reading(search_id):
            return reader(*args)


def checked_id(search_id: str) -> str:
    """`search_id`, when it can name a search; 404 for one that cannot (a path never can)."""
    if not valid_id(search_id):
        raise NotFound(f"no search '{search_id[:80]}': ids are the names the server gave")
    return search_id


def _with_status(document: dict, status: str) -> dict:
    """`document` with the service's status: a manifest's "complete" counts once the queue agrees,
    and the answers only a complete run has are left out before."""
    document["status"] = status
    if status != "complete":
        for answer in ("verdict", "solvable", "moves", "finishes_exact_per_hole", "finishes"):
            document.pop(answer, None)
    return document


def _created(record: Record) -> str:
    return time.strftime(CREATED, time.localtime(record.submitted / 1e9))


def level_parts(run: Run, level: int) -> list[dict]:
    """The part entries of a stored level; 404 for a level the run does not have (yet)."""
    if not 0 <= level < len(run.levels):
        raise NotFound(f"level {level} does not exist: the run has levels 0 to {len(run.levels) - 1}")
    return stored_parts(run, level)

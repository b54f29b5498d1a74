"""One search in its own process: ``python -m pegsearch.service.worker ROOT STATE ID``.

The server never runs the driver in its request loop: a search takes seconds to days and the kernels
hold the interpreter. A worker rebuilds the request from its record and calls the same `search` as
the CLI, resuming when the run directory already exists. SIGTERM (cancel, server shutdown) becomes
a KeyboardInterrupt, so the driver marks the run interrupted and it stays resumable. If the server
dies, the worker notices it was orphaned and stops the same way; an exclusive lock on the search
keeps a restarted server's worker from touching the run until the old one has let go.
"""

from __future__ import annotations

import fcntl
import os
import signal
import sys
import threading
import time
from pathlib import Path

from pegsearch.answers.documents import survey_document
from pegsearch.answers.survey import store_answers, survey
from pegsearch.board.files import board_from_definition
from pegsearch.board.spec import SearchSpec
from pegsearch.engines import make_engine
from pegsearch.engines.driver import search
from pegsearch.errors import UsageError, failure
from pegsearch.service.records import Records, write_json
from pegsearch.service.storage import has_run
from pegsearch.store import Location

INTERRUPTED = 130  # SIGTERM stops a worker as a KeyboardInterrupt (see _stop): 128 + SIGINT
PROGRESS_SECONDS = 0.25


def run_search(root: Location, records: Records, search_id: str) -> None:
    """Search (or resume) the recorded request into ``root/search_id`` (a folder or a store
    prefix); a survey reuses its finished start runs and resumes the others."""
    record = records.get(search_id)
    if record is None:
        raise UsageError(f"no record of search {search_id}")
    board = board_from_definition(record.board, f"search {search_id} (board)")
    if record.survey:
        results = survey(board, root / search_id, lambda: make_engine(record.engine, **record.settings),
                         record.count_paths, fewest_moves=record.fewest_moves)
        store_answers(root / search_id, survey_document(board, results, record.engine))
        return
    spec = SearchSpec.asked(board, record.start, record.symmetry, record.count_paths,
                            record.fewest_moves)
    engine = make_engine(record.engine, **record.settings)
    search(spec, root / search_id, engine, resume=has_run(root, search_id),
           progress=ProgressFile(records.progress(search_id)))


class ProgressFile:
    """The driver's progress events inside a level, kept in a small file the server streams from;
    written at most every PROGRESS_SECONDS (and at a level's end), never per chunk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.written = 0.0

    def __call__(self, event: dict) -> None:
        if "done" not in event:
            return  # committed levels reach the server through the manifest
        now = time.monotonic()
        if now - self.written >= PROGRESS_SECONDS or event["done"] == event["total"]:
            write_json(self.path, event)
            self.written = now


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _watch_parent(parent: int) -> None:
    """Stop this worker when the server that started it is gone (a crash leaves no one to cancel)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGTERM)


def main(argv: list[str]) -> int:
    records, search_id = Records(Path(argv[1])), argv[2]
    signal.signal(signal.SIGTERM, _stop)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    try:
        with open(records.lock(search_id), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            run_search(Location.parse(argv[0]), records, search_id)
    except (Exception, KeyboardInterrupt) as exc:
        ended = failure(exc)
        if ended is None:
            raise
        print(ended.line, file=sys.stderr)  # the last line of the log is the search's error
        return ended.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

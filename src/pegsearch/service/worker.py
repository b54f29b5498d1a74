"""One search in its own process: ``python -m pegsearch.service.worker ROOT STATE ID``.

The server never runs the driver in its request loop: a search takes seconds to days and the kernels
hold the interpreter. A worker rebuilds the request from its record and calls the same `search` as
the CLI, resuming when the run directory already exists. SIGTERM (cancel, server shutdown) becomes
a KeyboardInterrupt, so the driver marks the run interrupted and it stays resumable. If the server
dies, the worker notices it was orphaned and stops the same way; an exclusive lock on the search
keeps a restarted server's worker from touching the run until the old one has let go.

Spark searches run in one kept worker instead (`serve_kept`), which keeps its Spark session from one
search to the next: a new session costs a JVM, executors and Python workers loading the kernels,
about ten seconds before the first job, where a kept one starts it at once.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from pegsearch import interrupts
from pegsearch.answers import PAIR_SECONDS
from pegsearch.answers.by_solver import survey_by_solver
from pegsearch.answers.door import fewest_survey_solver, survey_solver
from pegsearch.answers.fewest_survey import fewest_survey
from pegsearch.answers.shapes import BY, Survey
from pegsearch.answers.survey import store_answers, survey
from pegsearch.board.files import board_from_definition
from pegsearch.board.spec import SearchSpec
from pegsearch.engines import make_engine
from pegsearch.engines.driver import search
from pegsearch.environment import environment_seconds
from pegsearch.errors import UsageError, failure
from pegsearch.service.records import Records, write_json
from pegsearch.service.storage import has_run
from pegsearch.store import Location

INTERRUPTED = 130  # the exit code of a worker a signal stopped (SIGTERM too): 128 + SIGINT
# Seconds the kept Spark worker waits for a next search before it lets a cluster's session go
# (engines.spark.session.release_shared_session); PEGSEARCH_SPARK_IDLE sets it.
SPARK_IDLE = 30.0
PROGRESS_SECONDS = 0.25


def spark_idle() -> float:
    """SPARK_IDLE, or the seconds PEGSEARCH_SPARK_IDLE gives (refused in one line unless it is a
    number of seconds: `pegsearch serve` checks it as it starts)."""
    return environment_seconds("PEGSEARCH_SPARK_IDLE", SPARK_IDLE,
                               "how long a server's idle Spark worker keeps a cluster's session")


def run_search(root: Location, records: Records, search_id: str) -> None:
    """Search (or resume) the recorded request into ``root/search_id`` (a folder or a store
    prefix); a survey reuses its finished start runs and resumes the others."""
    record = records.get(search_id)
    if record is None:
        raise UsageError(f"no record of search {search_id}")
    board = board_from_definition(record.board, f"search {search_id} (board)")
    if record.survey and record.depth_first and record.fewest_moves:
        (root / search_id).make()
        surveyed = fewest_survey(board, PAIR_SECONDS, fewest_survey_solver())
        store_answers(root / search_id, surveyed.as_document())
        return
    if record.survey and record.depth_first:
        (root / search_id).make()
        results = survey_by_solver(board, PAIR_SECONDS, survey_solver())
        store_answers(root / search_id, Survey(board, tuple(results), BY).as_document())
        return
    if record.survey:
        results = survey(board, root / search_id, lambda: make_engine(record.engine, **record.settings),
                         record.count_paths, fewest_moves=record.fewest_moves)
        store_answers(root / search_id, Survey(board, tuple(results), record.engine).as_document())
        return
    spec = SearchSpec.asked(board, record.start, record.symmetry, record.count_paths,
                            record.fewest_moves)
    engine = make_engine(record.engine, **record.settings)
    search(spec, root / search_id, engine, resume=has_run(root, search_id), keep=record.keep,
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


def _watch_parent(parent: int) -> None:
    """Stop this worker when the server that started it is gone (a crash leaves no one to cancel)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGTERM)


def search_once(root: Location, records: Records, search_id: str,
                say: Callable[[str], None]) -> int:
    """Run one search under its lock; returns its exit code, its failure's one line given to
    `say` (the last line of the search's log is its error)."""
    try:
        with open(records.lock(search_id), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            run_search(root, records, search_id)
    except (Exception, KeyboardInterrupt) as exc:
        ended = failure(exc)
        if ended is None:
            raise
        say(ended.line)
        return INTERRUPTED if ended.interrupted else ended.exit_code
    return 0


def serve_kept(root: Location, records: Records) -> int:
    """`python -m pegsearch.service.worker --kept ROOT STATE`: Spark searches one after another in
    one process that keeps its Spark session (see engines.spark.session.sessions_kept), so each
    after the first starts its first job at once. Search ids come on stdin, a line each; each
    search's end goes to stdout as `ID CODE`. SIGINT stops the running search (a cancel: its Spark
    job is cancelled and the session stays sound, see interrupts.cancelling); SIGTERM stops it and
    ends the worker (the server stopping). Idle for PEGSEARCH_SPARK_IDLE seconds, a session on a
    shared cluster is let go (its YARN application ends), a local one kept."""
    from pegsearch.engines.spark.session import release_shared_session, sessions_kept

    idle = spark_idle()
    interrupts.install()
    # Only this worker's reports go to the server's pipe: anything else printed (Spark's JVM
    # inherits the standard streams) goes to the log with the standard error.
    reports = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    with sessions_kept():
        while True:
            try:
                if not select.select([sys.stdin], [], [], idle)[0] and release_shared_session():
                    print(f"idle {idle:g} s: the Spark session on the cluster is let go; the next"
                          " search starts another", file=sys.stderr)
                line = sys.stdin.readline()
            except interrupts.Interrupted:  # between searches: nothing to cancel
                if interrupts.rearm() == signal.SIGTERM:
                    return INTERRUPTED
                continue
            if not line:
                return 0
            search_id = line.strip()
            log = records.log(search_id)
            log.write_text(f"searched by the Spark worker {os.getpid()}, which keeps its session\n")
            code = search_once(root, records, search_id, partial(_append, log))
            stopped = interrupts.rearm()
            print(search_id, INTERRUPTED if stopped else code, file=reports)
            if stopped == signal.SIGTERM:
                return INTERRUPTED


def _append(path: Path, line: str) -> None:
    with open(path, "a", encoding="utf-8") as log:
        print(line, file=log)


def main(argv: list[str]) -> int:
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    if argv[0] == "--kept":
        return serve_kept(Location.parse(argv[1]), Records(Path(argv[2])))
    records, search_id = Records(Path(argv[1])), argv[2]
    # SIGTERM (a cancel) as the command line takes Ctrl-C: recorded, so a KeyboardInterrupt a
    # dispatcher swallows is raised again at the next check and the search never goes on to
    # complete after it (a cancel answered `cancelling` was followed by `complete`).
    interrupts.install()
    return search_once(Location.parse(argv[0]), records, search_id,
                       lambda line: print(line, file=sys.stderr))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

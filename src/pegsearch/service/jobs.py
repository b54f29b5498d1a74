"""The job queue: searches waiting, searches running in worker processes, N at a time, in order.

A scheduler thread starts the oldest wanted search whenever a slot is free and reaps the workers
that ended: exit 0 means the run is complete; a cancelled (or otherwise interrupted: a signal, kill
-9 too) worker leaves its run interrupted; any other ending stores the worker's last line as the
search's failure. At
start the queue is rebuilt from the records, so searches a crashed or stopped server was running
(or had queued) are resumed. Spark searches go to the kept Spark worker when it is free
(`KeptWorker`: one process, one Spark session for search after search).
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Protocol

from pegsearch.errors import Conflict, NotFound, PegsearchError, UsageError
from pegsearch.service.records import Record, Records, Unreadable
from pegsearch.service.storage import is_complete, open_run, remove_run, run_status, stored_levels
from pegsearch.service.worker import INTERRUPTED
from pegsearch.store import Location, Run

TICK = 0.2  # seconds between scheduler rounds
CANCEL_WAIT = 5.0  # seconds a cancel waits for the worker it stopped, to say how it ended
WAIT_STEP = 0.02  # seconds between looks at that worker


class Watcher(Protocol):
    """What is told of each worker's start (with the levels its run had then) and end."""

    def launched(self, search_id: str, levels: int) -> None: ...

    def finished(self, search_id: str) -> None: ...


class KeptWorker:
    """The one worker process that runs Spark searches one after another and keeps its Spark
    session between them (`python -m pegsearch.service.worker --kept`), started with the first."""

    def __init__(self, root: Location, records: Records) -> None:
        self.root, self.records = root, records
        self.process: subprocess.Popen | None = None
        self.current: str | None = None
        self.ended: dict[str, int] = {}
        self.changed = threading.Condition()

    def idle(self) -> bool:
        with self.changed:
            return self.current is None

    def start(self, search_id: str) -> KeptSearch:
        """Hand the worker a search (it must be idle), starting the worker if none runs."""
        with self.changed:
            if self.process is None or self.process.poll() is not None:
                with open(self.records.state / "spark-worker.log", "a", encoding="utf-8") as log:
                    self.process = subprocess.Popen(
                        [sys.executable, "-m", "pegsearch.service.worker", "--kept", self.root.uri,
                         str(self.records.state)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=log, text=True, start_new_session=True)
                threading.Thread(target=self._listen, args=(self.process,), daemon=True,
                                 name="pegsearch-kept-worker").start()
            self.current = search_id
            self.ended.pop(search_id, None)
            assert self.process.stdin is not None
            self.process.stdin.write(search_id + "\n")
            self.process.stdin.flush()
            return KeptSearch(self, search_id)

    def _listen(self, process: subprocess.Popen) -> None:
        """Note each search's end as the worker reports it; a worker that dies ends its search
        with its exit code."""
        assert process.stdout is not None
        for line in process.stdout:
            search_id, _, code = line.strip().partition(" ")
            if not code.lstrip("-").isdigit():
                continue
            with self.changed:
                self.ended[search_id] = int(code)
                self.current = None
                self.changed.notify_all()
        code = process.wait()
        with self.changed:
            if self.process is process and self.current is not None:
                self.ended[self.current] = code or 1
                self.current = None
            self.changed.notify_all()

    def signal(self, search_id: str, signum: int) -> None:
        with self.changed:
            if self.current == search_id and self.process is not None:
                self.process.send_signal(signum)

    def stop(self, deadline: float | None = None) -> None:
        """End the worker (its running search is interrupted, resumable), waiting for it until
        `deadline` (time.monotonic; None: as long as it takes)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            _ends_within(self.process, deadline)


class KeptSearch:
    """A search in the kept worker, handled as a worker process is: poll, send_signal, wait."""

    def __init__(self, worker: KeptWorker, search_id: str) -> None:
        self.worker, self.search_id = worker, search_id

    def poll(self) -> int | None:
        with self.worker.changed:
            return self.worker.ended.get(self.search_id)

    def send_signal(self, signum: int) -> None:
        """SIGTERM (a cancel) stops this search only: SIGINT to the worker."""
        self.worker.signal(self.search_id, signal.SIGINT if signum == signal.SIGTERM else signum)

    def wait(self) -> int:
        with self.worker.changed:
            self.worker.changed.wait_for(lambda: self.search_id in self.worker.ended)
            return self.worker.ended[self.search_id]


class Jobs:
    """Queued and running searches of one runs root (a folder or a store prefix), their records in
    the server's `state` folder; every method is safe to call from any thread."""

    def __init__(self, root: Location, state: Path, slots: int) -> None:
        self.root = root
        self.slots = slots
        self.records = Records(state)
        self.queue: deque[str] = deque()
        self.running: dict[str, subprocess.Popen | KeptSearch] = {}
        self.kept = KeptWorker(root, self.records)
        self.cancelled: set[str] = set()  # running searches told to stop
        self.deleting: set[str] = set()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.draining = False  # the server is shutting down: nothing more is started
        self.deadline: float | None = None  # by when a drain has workers end (time.monotonic)
        self.watchers: list[Watcher] = []  # told of each worker's start and end (the metrics)
        self.thread = threading.Thread(target=self._schedule, name="pegsearch-jobs", daemon=True)

    # ----- life cycle
    def start(self) -> None:
        """Queue every search still wanted and not complete (a restart resumes them), then run."""
        for record in self.records.all():
            if record.wanted and record.error is None and not is_complete(self.root, record.id):
                self.queue.append(record.id)
        self.thread.start()

    def alive(self) -> bool:
        """Whether the scheduler still runs (it ends only with `stop`, or with a bug)."""
        return self.thread.is_alive() and not self.stopping.is_set()

    def drain(self, deadline: float) -> None:
        """Start nothing more, and interrupt the running workers as `stop` does, waiting for them
        until `deadline` (time.monotonic): each records its run interrupted at its next
        checkpoint, its record still wanted, so the next server resumes it; the queued searches
        stay queued for that server. Then `stop` waits no longer than `deadline` either."""
        with self.lock:
            self.draining, self.deadline = True, deadline
            running = list(self.running.values())
            for process in running:
                process.send_signal(signal.SIGTERM)
        for process in running:
            _ends_within(process, deadline)
        with self.lock:
            self._reap()
        self.kept.stop(deadline)  # the kept Spark worker, idle now: its session takes a moment

    def stop(self) -> None:
        """Interrupt running workers (their runs stay resumable, their records still wanted),
        waiting for them (after a drain, until its deadline: one still running then stops by
        itself, at its next checkpoint, once it sees its server gone)."""
        self.stopping.set()
        self.thread.join()
        with self.lock:
            for process in self.running.values():
                process.send_signal(signal.SIGTERM)
            for process in self.running.values():
                _ends_within(process, self.deadline)
            self._reap()
            self.running.clear()
        self.kept.stop(self.deadline)

    # ----- requests
    # A request's check and its change happen under one hold of the lock, so no interleaving of
    # submit, cancel, resume and delete acts on what another has just changed: a resume never
    # writes back the record a delete removed, and a delete is final.
    def submit(self, record: Record) -> None:
        """Store the record and queue the search, unless the service already holds it."""
        with self.lock:
            if record.id in self.deleting:
                raise Conflict(f"search {record.id} is being deleted; submit it again once it is gone")
            self._submit(record)

    def _submit(self, record: Record) -> None:
        self.records.put(record)
        if record.id not in self.queue and self._held(record.id) != "running":
            self.queue.append(record.id)  # a search still cancelling starts again once it ended

    def status(self, search_id: str) -> str:
        """queued, running, cancelling (stopped, its worker still ending) or deleting while the
        service holds the search; else failed, complete, running (written by a process outside
        the service) or interrupted, as its record and manifest say, or damaged when its record
        cannot be read. NotFound when it is no search."""
        with self.lock:
            held = self._held(search_id)
        return held or self._settled(search_id)

    def _held(self, search_id: str) -> str | None:
        if search_id in self.deleting:
            return "deleting"
        if search_id in self.queue:
            return "queued"
        if search_id in self.running:
            return "cancelling" if search_id in self.cancelled else "running"
        return None

    def _settled(self, search_id: str) -> str:
        try:
            record = self.records.get(search_id)
        except Unreadable:
            return "damaged"
        if record is not None and record.error is not None:
            return "failed"
        stored = run_status(self.root, search_id)
        if stored is None and record is None:
            raise NotFound(f"no search '{search_id}'")
        return stored or "interrupted"  # a record without a run: cancelled before it started

    def cancel(self, search_id: str) -> str:
        """Take a search out of the queue ("interrupted") or signal its worker to stop, and say
        how that ended: "interrupted" once the worker has, "cancelling" while it still ends
        after CANCEL_WAIT; 409 when the worker had made the run complete before the signal came
        (answered "cancelling", it ended complete). A cancelled search is not resumed on restart."""
        with self.lock:
            status = self._held(search_id) or self._settled(search_id)
            if status == "running" and search_id not in self.running:
                raise Conflict(f"search {search_id} is being written by a process outside this"
                               " service: stop that process")
            if status not in ("queued", "running"):
                raise Conflict(f"search {search_id} is {status}, not queued or running")
            process = self._stop(search_id)
            if process is None:
                return "interrupted"
        _ends_within(process, time.monotonic() + CANCEL_WAIT)
        with self.lock:
            self._reap()
            status = self._held(search_id) or self._settled(search_id)
        if status == "complete":
            raise Conflict(f"search {search_id} was complete before the cancel reached it: nothing"
                           " was stopped")
        # What this cancel did; a resume or delete since may have changed the search again.
        return "cancelling" if status == "cancelling" else "interrupted"

    def _stop(self, search_id: str) -> subprocess.Popen | KeptSearch | None:
        """Unqueue the search and signal its worker; returns the worker, to wait for."""
        record = self.records.readable(search_id)
        if record is not None:
            record.wanted = False
            self.records.put(record)
        if search_id in self.queue:
            self.queue.remove(search_id)
        process = self.running.get(search_id)
        if process is not None and search_id not in self.cancelled:
            self.cancelled.add(search_id)
            process.send_signal(signal.SIGTERM)
        return process

    def resume(self, search_id: str) -> None:
        """Queue an interrupted or failed search again (a run made by the CLI gets a record first)."""
        with self.lock:
            status = self._held(search_id) or self._settled(search_id)
            if status not in ("interrupted", "failed"):
                raise Conflict(f"search {search_id} is {status}: only an interrupted or failed"
                               " search can be resumed")
            record = self.records.get(search_id) or _adopt(open_run(self.root, search_id), search_id)
            record.wanted, record.error = True, None
            self._submit(record)

    def delete(self, search_id: str) -> None:
        """Stop the search if it runs, then remove its run directory and its record; nothing can
        queue it again meanwhile (it is "deleting")."""
        with self.lock:
            status = self._held(search_id) or self._settled(search_id)
            if status == "deleting":
                raise Conflict(f"search {search_id} is being deleted")
            if status == "running" and search_id not in self.running:
                raise Conflict(f"search {search_id} is being written by a process outside this"
                               " service: stop that process first")
            self.deleting.add(search_id)
            process = self._stop(search_id)
        try:
            if process is not None:
                process.wait()
            with self.lock:
                self._reap()
                remove_run(self.root, search_id)
                self.records.remove(search_id)
        finally:
            with self.lock:
                self.deleting.discard(search_id)

    # ----- the scheduler
    def _schedule(self) -> None:
        while not self.stopping.wait(TICK):
            with self.lock:
                self._reap()
                startable = [] if self.draining else [s for s in self.queue if s not in self.running]
                for search_id in startable[:self.slots - len(self.running)]:
                    self.queue.remove(search_id)
                    levels = _levels_made(self.root, search_id)  # before its worker makes any
                    self.running[search_id] = self._launch(search_id)
                    for watcher in self.watchers:
                        watcher.launched(search_id, levels)

    def _launch(self, search_id: str) -> subprocess.Popen | KeptSearch:
        """A worker process for the search, or the kept Spark worker when the search runs on
        Spark and that worker is free (a search queued behind a busy one would wait for it; a
        process of its own starts now, at a new session's cost)."""
        record = self.records.readable(search_id)
        if record is not None and record.engine == "spark" and self.kept.idle():
            return self.kept.start(search_id)
        with open(self.records.log(search_id), "w", encoding="utf-8") as log:  # the child keeps a copy
            return subprocess.Popen([sys.executable, "-m", "pegsearch.service.worker",
                                     self.root.uri, str(self.records.state), search_id],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    # A terminal's Ctrl-C reaches the server, which stops its workers.
                                    start_new_session=True)

    def _reap(self) -> None:
        for search_id, process in list(self.running.items()):
            code = process.poll()
            if code is None:
                continue
            del self.running[search_id]
            for watcher in self.watchers:
                watcher.finished(search_id)
            if code != 0:  # a worker killed mid-write leaves its manifest saying running
                with contextlib.suppress(OSError, UsageError):
                    Run.record_interrupted(self.root / search_id)
            if search_id in self.cancelled:
                self.cancelled.discard(search_id)
            elif code not in (0, INTERRUPTED) and code > 0:
                self._failed(search_id, code)
            # Else interrupted from outside (a signal: SIGTERM, or kill -9, code -9): the run is
            # resumable and `pegsearch runs` says interrupted; the service says so too, not failed.

    def _failed(self, search_id: str, code: int) -> None:
        record = self.records.readable(search_id)
        if record is None:
            return
        lines = [line for line in self.records.log(search_id).read_text(errors="replace").splitlines()
                 if line.strip()]
        record.error = lines[-1].strip() if lines else f"the worker ended with exit code {code}"
        self.records.put(record)


def _ends_within(process: subprocess.Popen | KeptSearch, deadline: float | None) -> None:
    """Wait until the worker has ended, or the `deadline` (time.monotonic; None: no end)."""
    if deadline is None:
        process.wait()
        return
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(WAIT_STEP)


def _levels_made(root: Location, search_id: str) -> int:
    """How many levels the search's run has (none when it has no run, or one that cannot be read)."""
    try:
        return len(stored_levels(root, search_id))
    except (PegsearchError, OSError):
        return 0


def _adopt(run: Run, search_id: str) -> Record:
    """A record for a run the service did not start (one made by `pegsearch run`), from its manifest."""
    return Record(id=search_id, board=run.board.definition(), start=list(run.start),
                  symmetry=run.spec.symmetry, count_paths=run.count_paths,
                  engine=run.manifest["engine"], fewest_moves=run.fewest_moves)

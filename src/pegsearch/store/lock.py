"""One writer per run: a second `run` or `--resume` on the same run is refused in one line.

Without a lock two processes could both pass the "already holds this run" check, and the loser
could write back an out-of-date manifest after the winner finished. On local disk the lock is an
OS file lock (`flock` on RUN/.lock), released by the kernel however the holder dies, so a kill -9
never leaves a run locked. Remote stores have no such lock: the writer keeps a lease object
(RUN/lock.json: owner, host, pid, expiry) that it renews while it works. A lease still running is
refused; an expired one, or one whose holder was a process on this host that no longer exists, is
taken over. pyarrow does not expose S3's conditional writes, so two writers starting within the
same instant could both take a lease; the lease is read back after a pause to narrow that window.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import socket
import threading
import time
from typing import IO

from pegsearch.errors import Busy
from pegsearch.store.location import Location

LOCK_FILE = ".lock"
LEASE = "lock.json"
LEASE_SECONDS = 120
SETTLE_SECONDS = 1.0
PROBE_SECONDS = 0.25  # how long a writer tries again for a lock a reader may be looking at


class WriterLock:
    """Held by the one process writing a run, from opening it for writing until `release`."""

    def __init__(self, location: Location, then: str = "continue with --resume") -> None:
        self.location = location
        self.then = then  # what the refused writer should do once the holder is done
        self._handle: IO[str] | None = None
        self._token = secrets.token_hex(8)
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        if location.local is not None:
            self._take_file_lock()
        else:
            self._take_lease()

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing the descriptor drops the flock
            self._handle = None
        if self._renewer is not None:
            self._stop.set()
            self._renewer.join()
            self._renewer = None
            # A store that does not answer keeps the lease: it expires, and a resume on this
            # host takes it over at once (its process is gone). Never an error in the cleanup
            # that called this, over the one that ended the search.
            with contextlib.suppress(OSError):
                if self._holder().get("owner") == self._token:
                    self.location.remove(LEASE)

    def _busy(self) -> str:
        """What a client of the service is told: the run is busy, not which process on which host
        holds it."""
        return f"{self.location} is being written by another process; ask again once it is done"

    # ----- local disk
    def _take_file_lock(self) -> None:
        path = self.location.local / LOCK_FILE
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (held until release)
        try:
            _flock_patiently(handle)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise Busy(f"{self.location} is being written by {holder}; wait for it to finish"
                       f" (or stop it) and then {self.then}", self._busy()) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pegsearch process {os.getpid()} on {socket.gethostname()}\n")
        handle.flush()
        self._handle = handle

    # ----- remote stores
    def _take_lease(self) -> None:
        holder = self._holder()
        if holder and not _stale(holder):
            raise Busy(f"{self.location} is being written by pegsearch process"
                             f" {holder.get('pid')} on {holder.get('host')} (its lease runs until"
                             f" {time.strftime('%H:%M:%S', time.localtime(holder.get('expires', 0)))});"
                             f" wait for it to finish (or stop it) and then {self.then}",
                       self._busy())
        self._write_lease()
        time.sleep(SETTLE_SECONDS)
        if self._holder().get("owner") != self._token:
            raise Busy(f"{self.location} was just taken by another pegsearch process; wait"
                       f" for it to finish and then {self.then}", self._busy())
        self._renewer = threading.Thread(target=self._renew, name="pegsearch-lease", daemon=True)
        self._renewer.start()

    def _write_lease(self) -> None:
        lease = {"owner": self._token, "host": socket.gethostname(), "pid": os.getpid(),
                 "expires": time.time() + LEASE_SECONDS}
        self.location.replace(LEASE, json.dumps(lease).encode())

    def _renew(self) -> None:
        while not self._stop.wait(LEASE_SECONDS / 4):
            # A passing network fault: the next renewal tries again before the lease expires.
            with contextlib.suppress(OSError):
                self._write_lease()

    def _holder(self) -> dict:
        return _lease(self.location)


def _lease(location: Location) -> dict:
    """The lease a remote run's writer keeps ({} when there is none, or it cannot be read)."""
    try:
        holder = json.loads(location.read(LEASE))
    except (FileNotFoundError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}


def writer_of(location: Location) -> str | None:
    """Who holds the run's lock now ("pegsearch process PID on HOST"), or None when no one does;
    looked at without taking the lock or writing anything."""
    if location.local is None:
        lease = _lease(location)
        return None if not lease or _stale(lease) else (f"pegsearch process {lease.get('pid')} on"
                                                        f" {lease.get('host')}")
    try:
        handle = open(location.local / LOCK_FILE, encoding="utf-8")  # noqa: SIM115 (closed below)
    except FileNotFoundError:
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return handle.read().strip() or "another process"
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return None


def _flock_patiently(handle: IO[str]) -> None:
    """Take the exclusive lock, trying again for PROBE_SECONDS: a reader asking `writer_of` holds
    a shared lock for an instant (every reader of a run its manifest calls running asks), which
    must not refuse a writer; a writer holds it for the whole search. BlockingIOError if held."""
    deadline = time.monotonic() + PROBE_SECONDS
    while True:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _stale(holder: dict) -> bool:
    """A lease past its expiry, or held by a process of this host that is gone (a kill -9)."""
    expires = holder.get("expires")
    if not isinstance(expires, int | float) or expires < time.time():
        return True
    if holder.get("host") != socket.gethostname() or not isinstance(holder.get("pid"), int):
        return False
    try:
        os.kill(holder["pid"], 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False

"""A drain on SIGTERM: the server stops taking new work, answers what it holds, and exits 0 within
DRAIN seconds, as a service manager, a load balancer or Kubernetes expect of a process they stop.

The first SIGTERM (or SIGINT: Ctrl-C) begins the drain, and the server goes on listening: a new
search or a resume is refused 503 with Retry-After (`Draining`: the next server, or another behind
the load balancer, takes it), /readyz answers 503 so a balancer sends no more, and every other
request is answered as before. Each running search's worker is sent SIGTERM, as a server stopping
always did: it records the run `interrupted` at its next checkpoint and exits, its record still
wanted, so the next server on the same state resumes it (as it does after a kill -9); queued
searches stay queued for that server. Once the workers have ended and no request is in flight
(or WORKERS seconds have passed: a hint still solving is then stopped and answered 503 with
Retry-After), the listener is closed, open connections get GRACE seconds to end (an event stream
of a queued search is cut), and the process exits 0. A worker still not stopped by then is left
to stop on its own (it notices its server is gone), under its lock, which keeps the next server's
worker off the run until it has.

A second SIGTERM or SIGINT exits at once, with 128 + the signal's number: nothing committed is
lost (a run's levels are committed by its manifest, records are replaced whole, and the workers,
processes of their own, stop themselves at their next checkpoint).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from types import FrameType

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from pegsearch.errors import Busy

DRAIN = 10.0  # seconds from the first SIGTERM to the exit, at most
GRACE = 3  # seconds open connections get once the listener is closed (uvicorn's graceful timeout)
CUT = 0.5  # seconds a request cut short then gets to be answered
WORKERS = DRAIN - GRACE - CUT - 1  # seconds the running searches and requests in flight get to end
RETRY_AFTER = 10  # seconds a refused client is told to wait: the server will be gone, or back
LOOK = 0.05  # seconds between looks at what is still running


class Draining(Busy):
    """New work asked of a server that is shutting down: nothing is wrong with the request, which
    another server (or this one restarted) takes: 503 with Retry-After."""

    retry_after = RETRY_AFTER


class Drain:
    """Whether the server is draining, and the requests it is answering (event streams aside:
    one lasts as long as its search)."""

    def __init__(self) -> None:
        self.began = threading.Event()
        self.lock = threading.Lock()
        self.in_flight = 0
        self.stoppers: list[Callable[[float], None]] = []  # each ends its work by a deadline
        self.cutters: list[Callable[[], None]] = []  # each cuts short what is still answered

    @property
    def draining(self) -> bool:
        return self.began.is_set()

    def refuse_new_work(self, what: str) -> None:
        """Raise Draining, saying `what` is refused, once the drain has begun."""
        if self.draining:
            raise Draining(f"the server is shutting down: {what} is refused; ask again in"
                           f" {RETRY_AFTER} s (another server, or this one restarted, takes it)")

    def run(self, deadline: float) -> None:
        """Begin the drain, stop the work of every stopper by `deadline` (time.monotonic), then
        wait until no request is in flight, or the deadline; then cut short what is (a hint
        asked for more seconds than the drain has: answered 503) and give it CUT seconds."""
        self.began.set()
        for stop in self.stoppers:
            stop(deadline)
        while self.busy() and time.monotonic() < deadline:
            time.sleep(LOOK)
        if self.busy():
            for cut in self.cutters:
                cut()
            until = time.monotonic() + CUT
            while self.busy() and time.monotonic() < until:
                time.sleep(LOOK)

    def busy(self) -> bool:
        with self.lock:
            return self.in_flight > 0


class InFlight:
    """Count the HTTP requests being answered, for the drain to wait for (event streams aside)."""

    def __init__(self, app: ASGIApp, drain: Drain) -> None:
        self.app, self.drain = app, drain

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].endswith("/events"):
            await self.app(scope, receive, send)
            return
        with self.drain.lock:
            self.drain.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            with self.drain.lock:
                self.drain.in_flight -= 1


class DrainingServer(uvicorn.Server):
    """uvicorn's server, draining on its first SIGTERM or SIGINT (see the module) rather than
    closing its listener at once, and exiting at once on the second."""

    def __init__(self, config: uvicorn.Config, drain: Drain) -> None:
        super().__init__(config)
        self.drain = drain

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.drain.draining or self.should_exit:
            os._exit(128 + sig)  # at once: nothing committed waits on this process
        self.drain.began.set()  # from here on new work is refused
        threading.Thread(target=self._drain, name="pegsearch-drain", daemon=True).start()

    def _drain(self) -> None:
        self.drain.run(time.monotonic() + WORKERS)
        self.should_exit = True  # uvicorn closes the listener, then gives connections GRACE

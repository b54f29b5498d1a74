"""Hints and solutions by the solver (the Play page's, and a search's not complete): one solver for
the whole service, its share bounded. Who answers is decided in `answers.door`; here is only how
the service waits for the solver.

Every hint shares one `Solver` (its tables, per board and goal, are what a second player is
answered from at once) and a bounded memory of whole hint documents, kept only once every verdict
in them is decided: an undecided one is asked again, when the tables may settle it.

The solver's share of the server is bounded: hints run on a pool of their own, AT_ONCE at a time
(each searches on every core), at most WAITING more wait for it, and any beyond are refused at once
(503 with Retry-After), so the framework's threads, which lifecycle routes and the dashboard run
on, are never held by hints (45 abandoned 60 s hints took 95-129 threads, and a listing 28 s). A
hint whose client hangs up is stopped within a step of the solver, or never started.

Nor do hints take the CPU from those routes: the pool's threads run at a lower priority (NICENESS,
Linux's per-thread nice value, which the threads a hint starts to search on every core inherit),
so a listing waits for no solver's time slice. With 16 clients asking triangle-9 hints the
listing took 0.004-0.005 s (median) and at most 0.177 s, against 0.013-0.014 s and 0.34-0.39 s at
the same priority, as many hints decided (AMD EPYC, 2 cores, nothing else running;
`python bench/solver_hint_benchmark.py triangle-9 --samples 64 --clients 16`, alternated); on a
machine busy with other work it took 0.5-0.8 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

from pegsearch.answers.door import Asked, hint_of, solution_of
from pegsearch.answers.shapes import Hint, Solution
from pegsearch.answers.solver import Solver, Stopped
from pegsearch.errors import Busy
from pegsearch.kernel.threads import WORKERS
from pegsearch.service.drain import RETRY_AFTER, Draining

HINT_SECONDS = 3.0  # the solver's bound on one hint, unless the request asks for another
SOLUTION_SECONDS = 10.0  # and on one solution
MAX_SECONDS = 60.0  # the most a request may ask for (it holds one of the pool's threads as long)
KEPT = 4096  # decided answers' documents kept
# Hints solved at once (each on every core already: more only share the cores), and waiting.
AT_ONCE = max(2, WORKERS // 2)
WAITING = 8 * AT_ONCE
LOOK = 0.2  # seconds between looks at whether a waiting client is still there
NICENESS = 10  # added to the hint threads' nice value: a route's thread gets the CPU ~9 times in 10

class Gone(Exception):
    """The client hung up before its hint was made: nothing is sent."""


class Hints:
    """The service's hints by the solver: the decided ones kept, the others made on the pool."""

    def __init__(self, solver: Solver, at_once: int = AT_ONCE, waiting: int = WAITING) -> None:
        self.solver = solver
        self.kept: OrderedDict[tuple, dict] = OrderedDict()
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(at_once, thread_name_prefix="pegsearch-hints",
                                       initializer=_yield_the_cpu)
        self.most = at_once + waiting
        self.workers = at_once
        self.held = 0  # hints running or waiting for the pool
        self.busy = 0  # hints running on the pool's threads
        self.stops: set[threading.Event] = set()  # each running or waiting hint's
        self.cut_short = False  # the server drains: a hint stopped now is answered 503

    async def hint(self, question: Asked, position: int, finish: int | None, seconds: float,
                   from_start: bool, gone: Callable[[], Awaitable[bool]]) -> dict:
        """The hint's document by the solver (see `answer`)."""
        return await self.answer(("hint", question.board.digest, position, finish, from_start),
                                 lambda stop: hint_of(question, position, finish, seconds,
                                                      self.solver, from_start, stop), gone)

    async def solution(self, question: Asked, finish: int | None, seconds: float,
                       gone: Callable[[], Awaitable[bool]]) -> dict:
        """The solution's document by the solver (see `answer`)."""
        key = ("solution", question.board.digest, question.board.start_position(question.start), finish)
        return await self.answer(key, lambda _stop: solution_of(question, finish, seconds,
                                                                 self.solver), gone)

    async def answer(self, key: tuple, work: Callable[[threading.Event], Hint | Solution],
                     gone: Callable[[], Awaitable[bool]]) -> dict:
        """The document kept under `key`, or made by `work(stop)` on the pool (its document too,
        pictures and all, there rather than on the server's event loop, and once); `gone` says
        whether the client has hung up (then the work is stopped, and `Gone` is raised). Busy when
        the pool's queue is full. A decided answer's document is kept (one undecided is asked
        again, when the tables may settle it)."""
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
            if self.held >= self.most:
                raise Busy(f"the solver is busy with {self.held} questions; ask again in a few seconds")
            self.held += 1
        stop = threading.Event()
        try:
            future = self.pool.submit(self._solved, work, stop)
        except BaseException:
            self._release(stop, None)
            raise
        with self.lock:
            self.stops.add(stop)
        future.add_done_callback(partial(self._release, stop))  # counted until its thread is free
        waiting = asyncio.wrap_future(future)
        try:
            while not (await asyncio.wait({waiting}, timeout=LOOK))[0]:
                if await gone():
                    raise Gone
        except BaseException:  # the client gone, or the server stopping (the task cancelled)
            stop.set()
            future.cancel()  # one still waiting for the pool never starts
            waiting.add_done_callback(_unread)
            raise
        try:
            decided, document = waiting.result()
        except Stopped:
            if self.cut_short:
                raise Draining("the server is shutting down: this hint was stopped before its"
                               f" bound; ask again in {RETRY_AFTER} s") from None
            raise
        if decided:
            with self.lock:
                self.kept[key] = document
                while len(self.kept) > KEPT:
                    self.kept.popitem(last=False)
        return document

    def _solved(self, work: Callable[[threading.Event], Hint | Solution], stop: threading.Event
                ) -> tuple[bool, dict]:
        """`_documented`, counted as busy while it runs (on the pool's thread)."""
        with self.lock:
            self.busy += 1
        try:
            return _documented(work, stop)
        finally:
            with self.lock:
                self.busy -= 1

    def _release(self, stop: threading.Event, _future: Future | None) -> None:
        with self.lock:
            self.held -= 1
            self.stops.discard(stop)

    def cut(self) -> None:
        """Stop every hint now, each answered 503 with Retry-After (the drain's time is up)."""
        with self.lock:
            self.cut_short = True
            for stop in self.stops:
                stop.set()

    def close(self) -> None:
        """Stop every hint (the server is stopping): none holds its exit up to its bound."""
        with self.lock:
            for stop in self.stops:
                stop.set()
        self.pool.shutdown(wait=False, cancel_futures=True)


def _yield_the_cpu() -> None:
    """Lower this pool thread's priority, and so that of the threads it starts (Linux's nice value
    is a thread's own and inherited); where a thread has no priority of its own (not Linux), the
    pool runs at the server's."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                       os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) + NICENESS)


def _documented(work: Callable[[threading.Event], Hint | Solution], stop: threading.Event
                ) -> tuple[bool, dict]:
    """What `work` answers, as whether it is decided and its document (on the pool's thread)."""
    found = work(stop)
    return found.decided, found.as_document()


def _unread(waiting: asyncio.Future) -> None:
    """Take the outcome of a hint no one waits for any more (`Stopped`), unlogged."""
    if not waiting.cancelled():
        waiting.exception()


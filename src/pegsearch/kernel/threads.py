"""Every core for the compiled loops: a serial numba function, run on slices of its work at once.

Every kernel is compiled serial and `nogil`, and this module calls one per core from a pool of
Python threads, each taking one contiguous slice of the items (blocks or partitions): contiguous,
so no two threads write the same cache line (`spread`); or each taking the next of a stream of
items as soon as it is free (`stream`). Why not numba's parallel loops: they compile slower,
and their OpenMP threads were the suspects when a process aborted at exit after its work was done
(docs/performance.md has the figures).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from functools import cache
from queue import SimpleQueue
from typing import Any

import numba

from pegsearch.interrupts import check

# Threads per kernel call: every core, unless NUMBA_NUM_THREADS says fewer (Spark sets it to 1 on
# its executors, which already run one task per core).
WORKERS = int(os.environ.get("NUMBA_NUM_THREADS") or 0) or os.cpu_count() or 1


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(WORKERS, thread_name_prefix="pegsearch-kernel")


@numba.njit(cache=True, nogil=True, inline="always")
def slice_start(items, index, slices):
    """Where slice `index` of `slices` equal slices of `items` starts (and index - 1 ends)."""
    return items * index // slices


def spread(function: Callable[..., Any], items: int, *args: Any) -> list[Any]:
    """``function(*args, first, step)`` on every core, call `first` of `step` working on items
    ``slice_start(items, first, step)`` to ``slice_start(items, first + 1, step)``; returns each
    call's result.
    Not for use from inside such a call (the pool is shared).
    """
    step = max(1, min(WORKERS, items))
    calls = [_pool().submit(function, *args, first, step) for first in range(step)]
    results = [call.result() for call in calls]
    check()  # a signal whose KeyboardInterrupt a dispatcher swallowed stops the search here
    return results


def stream(function: Callable[..., Any], items: Iterable[Any], *args: Any) -> None:
    """``function(item, *args, worker)`` for each of `items`, on whichever core is free: a core
    takes the next item as soon as it is done with its last, so no core waits for another
    between items, as every core waits for the slowest slice of a `spread` (on 16 cores, a
    level spread a chunk at a time took 1.56 times as long, docs/performance.md). `worker`, 0 to WORKERS - 1,
    is never given to two calls at once: a call may write memory of its own core's. At most
    WORKERS items are held at once. Not for use from inside such a call (the pool is shared).
    """
    free: SimpleQueue[int] = SimpleQueue()
    for worker in range(WORKERS):
        free.put(worker)

    def call(item: Any, worker: int) -> None:
        try:
            function(item, *args, worker)
        finally:
            free.put(worker)

    calls: list[Future] = []
    try:
        for item in items:
            worker = free.get()  # a core done with its last item; a failed one raises below
            for done in [c for c in calls if c.done()]:
                done.result()
                calls.remove(done)
            calls.append(_pool().submit(call, item, worker))
    finally:
        wait(calls)  # none runs on after a failure or a signal, each a chunk's work at most
    for done in calls:
        done.result()
    check()

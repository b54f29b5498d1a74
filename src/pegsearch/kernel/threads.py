"""Every core for the compiled loops: a serial numba function, run on slices of its work at once.

Every kernel is compiled serial and `nogil`, and this module calls one per core from a pool of
Python threads, each taking one contiguous slice of the items (blocks or partitions): contiguous,
so no two threads write the same cache line. Why not numba's parallel loops: they compile slower,
and their OpenMP threads were the suspects when a process aborted at exit after its work was done
(docs/performance.md has the figures).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
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

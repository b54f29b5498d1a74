"""Kernels compiled in this process: said once, and timed.

numba loads a kernel from its cache when the cache holds one for this source, numba version and
compile target; otherwise it compiles it, and a first run after an upgrade, with a fresh cache or
for another target spends up to a minute compiling before it prints anything. Measuring the
compile target says so itself (kernel.target), but a kept target does not mean kept kernels, so
`watch` listens to numba's own compile events (fired only when no cached kernel fits): the first
one of a process says one line on stderr, whatever stderr is (a pipe waits as long as a terminal).

The same events are timed (`seconds`): the driver records the compiling a level waited for
beside its seconds, so `pegsearch estimate` prices a level's work, not the compiler's, and the
solver's time bounds run on `clock`, which leaves the compiling out.
"""

from __future__ import annotations

import sys
import threading
import time

from numba.core import event

# Said before the first kernel a process compiles (the compile target is named: a kernel compiled
# for one target is compiled again for another). Each command compiles the kernels it needs: on a
# fresh install `run`, `solve` and `estimate` each said "once" (issue 64, item 10), so it says whose.
COMPILING = ("compiling the kernels this command needs for {target} (numba's cache holds none for"
             " this version and CPU yet): up to a minute; later runs load them")

_lock = threading.Lock()
_said: list[bool] = []  # whether this process has said it compiles
_depth = [0]  # compile events open now (numba compiles a kernel's callees inside its own event)
_began = [0.0, 0.0]  # when the compile under way began: wall clock, and its thread's CPU clock
_total = [0.0, 0.0]  # wall and CPU seconds spent in outermost compile events so far


def say(line: str) -> None:
    """Say `line` on stderr unless this process said it compiles already (once is enough)."""
    with _lock:
        if _said:
            return
        _said.append(True)
    print(f"pegsearch: {line}", file=sys.stderr, flush=True)


def seconds() -> tuple[float, float]:
    """The wall and CPU seconds this process has spent compiling kernels so far (a compile under
    way counts up to now). Both, as a machine shared with other work stretches the wall seconds
    of a compile and not its CPU seconds: each is taken from its own kind of figure."""
    with _lock:
        if not _depth[0]:
            return _total[0], _total[1]
        return (_total[0] + time.perf_counter() - _began[0],
                _total[1] + time.thread_time() - _began[1])


def clock() -> float:
    """Seconds as a time bound counts them: the wall clock (perf_counter) less the seconds spent
    compiling, which stands still while a kernel compiles. A solver's bound is the user's time to
    search: a first `solve --fewest-moves` on a fresh cache spent most of its bound compiling
    and said so as seconds of search (issue 81, item 4)."""
    return time.perf_counter() - seconds()[0]


class _Listener(event.Listener):
    """numba's compile events: the first says so; the outermost ones are timed. numba holds its
    compiler lock around every compile, so events of different threads never interleave."""

    def __init__(self, target: str) -> None:
        self.target = target

    def on_start(self, _event: event.Event) -> None:
        with _lock:
            _depth[0] += 1
            if _depth[0] == 1:
                _began[:] = time.perf_counter(), time.thread_time()
        say(COMPILING.format(target=self.target))

    def on_end(self, _event: event.Event) -> None:
        with _lock:
            _depth[0] -= 1
            if _depth[0] == 0:  # the event ends on the thread it began on: one thread's CPU
                _total[0] += time.perf_counter() - _began[0]
                _total[1] += time.thread_time() - _began[1]


def watch(target: str) -> None:
    """Listen to numba's compile events from now on in this process (the kernel package calls it
    once, before any kernel is loaded); `target` is the model the kernels are compiled for."""
    event.register("numba:compile", _Listener(target))

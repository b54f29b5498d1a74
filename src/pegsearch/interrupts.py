"""Ctrl-C and SIGTERM end a search one clean way: the run is marked interrupted, one line, 128 + signal.

Python's own SIGINT handler raises KeyboardInterrupt wherever the main thread happens to be. Most
of a search's time the main thread is inside a numba dispatcher or waiting on the kernel threads,
and a KeyboardInterrupt raised while a dispatcher is between its Python and compiled halves comes
out as ``SystemError: CPUDispatcher(...) returned a result with an exception set``, with the
KeyboardInterrupt as its cause (issue 11 saw it after about one Ctrl-C in eight). SIGTERM, by
default, kills the process without unwinding, leaving the manifest saying "running". So `install`
gives both signals one handler that raises `Interrupted` (a KeyboardInterrupt, so every ``except
KeyboardInterrupt`` and ``except BaseException`` cleanup already applies); `interruption` finds it
again behind a SystemError; and `check`, called between kernel calls and levels, raises it again should a
dispatcher (or a weakref callback, which Python only prints) have swallowed it, so a signal can
delay a search by one block but never be lost. A
search stops once: signals after the first are ignored while it records how it ended.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from types import FrameType

HANDLED = (signal.SIGINT, signal.SIGTERM)
# Where py4j logs what a Ctrl-C inside its calls did: a logger's filter sees only the records made
# on that logger, not those its children pass up, so each is named.
LOGGERS_OF_THE_INTERRUPT = ("", "py4j.java_gateway", "py4j.clientserver")
_received: list[int] = []  # the signals handled so far, in order
_installed: list[bool] = []  # whether `install` was called: the command line's process, not a library


class Interrupted(KeyboardInterrupt):
    """The search was stopped by a signal; the process exits with 128 + its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def install() -> None:
    """Handle SIGINT and SIGTERM by raising `Interrupted` in the main thread.

    A signal the process was started ignoring (``nohup``, a shell's background job) stays ignored.
    """
    _installed.append(True)
    sys.unraisablehook = partial(_unless_interrupted, sys.unraisablehook)
    for name in LOGGERS_OF_THE_INTERRUPT:
        logging.getLogger(name).addFilter(_not_the_interrupt)
    for signum in HANDLED:
        before = signal.getsignal(signum)
        if before in (signal.SIG_IGN, None) or before is _handle:  # None: set outside Python
            continue
        signal.signal(signum, _handle)
        # A forked child (mrjob's local runner's pool workers) is not the search, which reports the
        # signal: the child ends at once and silently (Ctrl-C reaches the whole process group),
        # and the SIGTERM its pool ends it with keeps its old meaning.
        child = _quiet_exit if signum == signal.SIGINT else before
        os.register_at_fork(after_in_child=partial(signal.signal, signum, child))


def _handle(signum: int, _frame: FrameType | None) -> None:
    _stopping(signum)
    raise Interrupted(signum)


def _unless_interrupted(previous: Callable[[object], None], unraisable: object) -> None:
    """`sys.unraisablehook`, quiet for `Interrupted`: a signal handled where Python cannot raise
    (a weakref callback, a `__del__`) came out as an "Exception ignored in" traceback before the
    search's one line. It is recorded before it is raised, so `check` raises it again; any other
    exception goes to the hook there was before."""
    if not isinstance(getattr(unraisable, "exc_value", None), Interrupted):
        previous(unraisable)


def _not_the_interrupt(record: logging.LogRecord) -> bool:
    """A logger filter: drop a record whose exception is `Interrupted` or was raised while handling
    it. py4j logs the KeyboardInterrupt it was sending a command through ("KeyboardInterrupt
    while sending command.", root logger) and then the broken pipe of shutting that connection
    down ("Exception occurred while shutting down connection", py4j.clientserver), each with a
    traceback, before passing the interrupt on; a Ctrl-C that lands in a py4j call outside a Spark
    job (`cancelling` covers the jobs) printed them ahead of the search's one line."""
    error = record.exc_info[1] if record.exc_info else None
    while error is not None:
        if isinstance(error, Interrupted):
            return False
        error = error.__cause__ or error.__context__
    return True


def _stopping(signum: int) -> None:
    """Record the signal, and ignore every later one: a search stops once. A second Ctrl-C would
    otherwise land in the cleanup the first began (a thread's join, the manifest's commit, the
    interpreter's exit) and end it in a traceback or a killed process; SIGKILL still ends it."""
    _received.append(signum)
    for each in HANDLED:
        signal.signal(each, signal.SIG_IGN)


def rearm() -> int | None:
    """Take signals again after a stopped search, in a process that goes on to the next (the
    service's Spark worker); returns the signal that stopped the last one, if any."""
    stopped = _received[0] if _received else None
    _received.clear()
    for signum in HANDLED:
        if signal.getsignal(signum) is signal.SIG_IGN:
            signal.signal(signum, _handle)
    return stopped


def _quiet_exit(signum: int, _frame: FrameType | None) -> None:
    os._exit(128 + signum)


@contextmanager
def cancelling(cancel: Callable[[], None]) -> Iterator[None]:
    """Around calls that block in another runtime (a Spark job, through py4j), where raising
    KeyboardInterrupt would leave the call half-done and print that runtime's tracebacks: a signal
    there is recorded and `cancel` run on a thread of its own; the blocked call then fails (or
    returns), and `Interrupted` is raised in place of whatever it raised."""
    if not _installed or threading.current_thread() is not threading.main_thread():
        yield
        return

    def record(signum: int, _frame: FrameType | None) -> None:
        _stopping(signum)
        threading.Thread(target=cancel, name="pegsearch-cancel", daemon=True).start()

    previous = {signum: signal.signal(signum, record)
                for signum in HANDLED if signal.getsignal(signum) is _handle}
    try:
        yield
    except BaseException:
        check()  # the call's failure is the cancel's doing: it ends as the signal's
        raise
    finally:
        if not _received:  # after a signal, later ones stay ignored
            for signum, handler in previous.items():
                signal.signal(signum, handler)
    check()


def check() -> None:
    """Raise `Interrupted` if a signal has arrived: its first raise may have been swallowed."""
    if _received:
        raise Interrupted(_received[0])


def interruption(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt behind `exc`: `exc` itself, or the cause or context of the SystemError
    a numba dispatcher wraps it in; None when `exc` has nothing to do with an interrupt."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def signal_of(interrupt: KeyboardInterrupt) -> int:
    """The signal behind an interrupt (SIGINT for a KeyboardInterrupt raised another way)."""
    return interrupt.signum if isinstance(interrupt, Interrupted) else signal.SIGINT

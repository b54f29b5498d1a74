"""The errors a user sees as one line, and how every face ends on one: an exit code or an HTTP status.

Anything a user can get wrong (a board file, a hole number, an output directory, an engine that is
not available) raises a `UsageError` whose message says what, where and what to do. The command
line, the service's worker and the entry point all turn an exception into its line and exit code
with `failure`, and the service into its status with `http_status`, so the same problem ends the
same way whichever face met it. Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import dataclass
from string import Formatter

from pegsearch.interrupts import interruption, signal_of


class PegsearchError(Exception):
    """A problem reported as one line: `exit_code` from the command line, `http_status` from the
    service."""

    exit_code = 2
    http_status = 400

    def line(self) -> str:
        return one_line(str(self))


class UsageError(PegsearchError):
    """A problem with the user's input or environment."""


class InputError(UsageError):
    """Bad input in fields each face names its own way. `template` names the fields as {field} in
    the vocabulary's words (memory, start, count_paths) and a board to look at as {board}; `values`
    fill the rest. Its text is the command line's (--memory, `pegsearch show NAME`); the service
    words it with `worded` (settings.memory, GET /api/boards/NAME), and by `served` where the
    command line's words tell a fact of the host (its memory) a client is not to learn."""

    def __init__(self, template: str, board: str | None = None, served: str | None = None,
                 **values: object) -> None:
        self.template, self.board, self.served, self.values = template, board, served, values
        super().__init__(self.worded(option, lambda name: f"`pegsearch show {name}`"))

    def worded(self, field: Callable[[str], str], board: Callable[[str], str],
               host: bool = True) -> str:
        """The message with each field named by `field` and the board pointed to by `board`;
        without the host's facts unless `host`."""
        template = self.template if host or self.served is None else self.served
        names = {key for _, key, _, _ in Formatter().parse(template) if key}
        return template.format_map({
            key: self.values[key] if key in self.values else board(str(self.board))
            if key == "board" else field(key) for key in names})


# Fields the command line takes as positional arguments, named as its usage shows them.
POSITIONAL = ("position",)


def option(field: str) -> str:
    """A field as the command line names it: --driver-below for driver_below, a positional
    argument (a hint's position) by its own name."""
    return field if field in POSITIONAL else "--" + field.replace("_", "-")


class NotFound(UsageError):
    """Something asked for by name that does not exist (a search id, a level, a part)."""

    http_status = 404


class Conflict(UsageError):
    """A request that the thing's present state does not allow (answers of an unfinished run)."""

    http_status = 409


class Busy(UsageError):
    """Something another process (or thread) is writing now: nothing is wrong with the request,
    which succeeds once the writer is done (the service answers 503 with Retry-After)."""

    http_status = 503
    retry_after = 5  # seconds

    def __init__(self, message: str, served: str | None = None) -> None:
        super().__init__(message)
        self.served = served

    def served_line(self) -> str:
        """The line for a client of the service: what is busy, without who holds it (a process
        id and a host name are the server's to know, as `InputError.served` keeps its memory)."""
        return one_line(self.served or str(self))


class TooLarge(UsageError):
    """A request larger than the service accepts."""

    http_status = 413


class PathCountOverflow(PegsearchError, ArithmeticError):
    """A path count exceeded what a decimal(38, 0) column holds: the search stops, and the levels
    before it are kept. Nothing the user typed was wrong, so it is not a usage error."""

    exit_code = 1
    http_status = 422

    def line(self) -> str:
        return f"{super().line()}; the levels before it are kept"


def one_line(message: str) -> str:
    """`message` with control characters (a newline in a file name) escaped: an error is one line."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in message)


@dataclass(frozen=True)
class Failure:
    """How an exception ends a command: one line, the exit code, and whether it was a signal."""

    line: str
    exit_code: int
    interrupted: bool


def failure(exc: BaseException, resume: str | None = None, levels: bool = True) -> Failure | None:
    """The one-line ending of `exc`, or None when it is a bug (which keeps its traceback).

    SIGINT and SIGTERM end a search the same way on every engine: completed levels are kept, and
    the exit code is 128 + the signal's number; `resume` is the whole command that continues it,
    when the face knows it. Work that makes no levels (`levels` False: a hint, a solution, a
    survey by the solver) says only what stopped it: nothing of it is there to resume.
    """
    if isinstance(exc, PegsearchError):
        return Failure(exc.line(), exc.exit_code, False)
    interrupt = interruption(exc)  # a SystemError from numba's dispatcher may wrap one
    if interrupt is None:
        return None
    signum = signal_of(interrupt)
    what = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    if not levels:
        return Failure(what, 128 + signum, True)
    how = f"continue with `{resume}`" if resume else "resume with --resume"
    return Failure(f"{what}; completed levels are kept ({how})", 128 + signum, True)

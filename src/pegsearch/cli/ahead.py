"""Every command's kernels compiled ahead, once per install, machine and compile target, before the
first command that needs kernels does its work, so that "once" is once and no time bound pays for
the compiler (issue 81, item 4; the record is kernel.ahead's).

numba compiles a kernel for the argument types it is first called with, so what compiles them all
is a small instance of every kind of command: a child process runs the commands of AHEAD in a
folder of its own (a few small searches, solutions, hints and surveys: most of a minute on a
quiet machine, all of it compiling), and each later command loads them from numba's cache. A
child, so that the command that waits for it keeps none of its threads, tables or memory.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time

from pegsearch.kernel import ahead, target

# One of each kind of work a command gives the kernels (each compiled kernel serves every board:
# its types are the same), on boards small enough that only the compiling takes time.
AHEAD = (
    ("run", "triangle-5", "--out", "t5"),
    ("run", "triangle-5", "--count-paths", "--out", "paths"),
    ("run", "triangle-5", "--fewest-moves", "--out", "moves"),
    ("run", "triangle-6", "--raw", "--out", "raw"),
    ("run", "english-33", "--until", "6", "--out", "square"),
    ("winnable", "t5"),
    ("counts", "t5", "--winnable", "--finish", "13"),
    ("hint", "t5", "4-2-1"),
    ("solve", "paths"),
    ("solve", "moves", "--fewest-moves"),
    ("verify", "t5", "--recompute", "3"),
    ("solve", "triangle-5", "--start", "1"),
    ("solve", "triangle-5", "--start", "1", "--fewest-moves"),
    ("hint", "triangle-5", "4-2-1"),
    ("survey", "triangle-4", "--depth-first", "--seconds", "1"),
    ("survey", "triangle-4", "--out", "survey"),
    ("estimate", "triangle-6"),
)
SAID = ("compiling the kernels of every command for {target}, once for this machine (numba's cache"
        " holds none for this version and CPU yet): up to a few minutes; later commands load them")
# Set (to anything) in a process that must not compile ahead: the child doing it, and a caller
# that wants a command's own compiling measured (tests/kernel/test_compiling.py).
NOT_AHEAD = "PEGSEARCH_NOT_AHEAD"


def ensure() -> None:
    """Compile every command's kernels now, in a child process, unless that was done for this
    machine and target; a second process meanwhile waits for the first. A child that fails is
    said in one line and the command goes on, compiling what it needs itself."""
    if os.environ.get(NOT_AHEAD) or ahead.compiled():
        return
    with ahead.locked():
        if ahead.compiled():
            return
        # Said whatever was said before (the compile target measured first): minutes of silence
        # else. A kernel this process compiles after all (one AHEAD missed) is said by compiling.
        print(f"pegsearch: {SAID.format(target=target.choose().target)}", file=sys.stderr, flush=True)
        began = time.perf_counter()
        child = subprocess.run([sys.executable, "-m", "pegsearch.cli.ahead"], capture_output=True,
                               text=True, env={**os.environ, NOT_AHEAD: "1"}, check=False)
        if child.returncode != 0:
            last = (child.stderr.strip().splitlines() or [f"exit {child.returncode}"])[-1]
            print(f"pegsearch: compiling ahead failed ({last}); this command compiles what it"
                  " needs", file=sys.stderr, flush=True)
            return
        ahead.keep(time.perf_counter() - began)


def main() -> int:
    """The child: each command of AHEAD in a folder of its own, its output dropped; the first
    that fails ends it, naming the command."""
    from pegsearch.cli.main import answer

    with tempfile.TemporaryDirectory(prefix="pegsearch-ahead-") as folder, \
            contextlib.chdir(folder):
        for argv in AHEAD:
            said = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(said):
                code = answer(list(argv))
            if code != 0:
                print(f"`pegsearch {' '.join(argv)}` ended {code}: {said.getvalue().strip()}",
                      file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Whether every command's kernels are compiled already on this machine: a record beside numba's
cache, kept per machine and compile target.

numba compiles a kernel the first time it is called with argument types its cache holds none
for, so each kind of command compiled its own kernels when first used: on a fresh install the
first `solve`, the first `--fewest-moves`, the first depth-first survey and the first raw search
each spent up to a minute compiling, inside their time bounds, after a line saying "once"
(issue 81, item 4). The command line now compiles them all ahead, the first time any command
needs kernels (cli.ahead), and records it here; the record is keyed as the compile target's
choice is (the CPU, numba, llvmlite and the kernels' source) and by the target itself, so a change
to any of them compiles ahead again. A record that says so while numba compiles anyway (a cache
emptied by hand) costs only that: kernel.compiling still says each process that compiles.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from pegsearch import numba_cache
from pegsearch.kernel import target

FILE = "pegsearch-compiled.json"


def record_file() -> Path:
    """Beside the compile target's choice, which is beside numba's cache."""
    return target.wisdom_file().with_name(FILE)


def key() -> str:
    """What a record holds for: the machine's key and the model the kernels are compiled for."""
    return f"{target.machine_key()} | compiled for {target.choose().target}"


def compiled() -> bool:
    """Whether every command's kernels were compiled ahead for this machine and target: beside
    the cache in use, or in the package where that cache holds the package's kernels (a read-only
    install, compiled by its administrator's first command, whose kernels numba_cache seeds the
    user's cache with). A NUMBA_CACHE_DIR of the user's own holds none of the package's: a record
    there said "compiled" over an empty cache, and the first command compiled in its time bound."""
    found = key()
    places = [target.wisdom_file()]
    if numba_cache.holds_the_packages_kernels():
        places.append(target.packaged_file())
    return any(found in target.read_kept(path.with_name(FILE)) for path in places)


def keep(seconds: float) -> None:
    """Record that they are; a folder that cannot be written keeps no record, and the next
    command compiles ahead again (loading most of it from numba's cache, in seconds)."""
    path = record_file()
    kept = target.read_kept(path)
    kept[key()] = {"seconds": round(seconds, 1),
                   "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with contextlib.suppress(OSError):
        target.write_kept(path, kept)


def locked() -> contextlib.AbstractContextManager:
    """Held while compiling ahead: a second command started meanwhile waits for the first."""
    return target.locked(record_file())

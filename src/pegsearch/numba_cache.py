"""Where numba keeps the compiled kernels, so that a read-only install still imports and runs.

The kernels are compiled with ``cache=True``: numba keeps them in the package's ``__pycache__``,
else under the user's ``~/.cache``, and when it can write neither (a system-wide or container
install run by a user without a writable home) every import fails with "cannot cache function ...
no locator available". So when the package folder is not writable, `choose` points numba at the
first folder that is: ``$XDG_CACHE_HOME/pegsearch/numba``, ``~/.cache/pegsearch/numba``, or a
folder of this user's own in the temporary directory. It must run before numba compiles anything,
which is why the package's ``__init__`` calls it; a ``NUMBA_CACHE_DIR`` the user set is kept.

numba reads only the cache it writes, so kernels an administrator compiled into the package's
own ``__pycache__`` (the first search after installing, while the folder was writable) would be
compiled again by every user, 30-50 s each: they are copied into the user's cache first (`_seed`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).parent
# The cache `choose` pointed numba at and seeded from the package's, if it did (see `seeded`).
_seeded: list[Path] = []


def choose() -> None:
    """Set NUMBA_CACHE_DIR to a writable folder when numba could not write next to the package."""
    if os.environ.get("NUMBA_CACHE_DIR") or _writable(PACKAGE / "__pycache__"):
        return
    for folder in _candidates():
        if _writable(folder):
            os.environ["NUMBA_CACHE_DIR"] = str(folder)
            config = sys.modules.get("numba.core.config")
            if config is not None:  # numba was imported first and has read its settings already
                config.CACHE_DIR = str(folder)
            _seed(folder)
            _seeded.append(folder)
            return


def holds_the_packages_kernels() -> bool:
    """Whether the cache numba uses holds what was compiled into the package: the package's own
    ``__pycache__`` (no NUMBA_CACHE_DIR), or a user's cache `choose` seeded from it. A
    NUMBA_CACHE_DIR set by the user is never seeded, so the package's kernels are not in it."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    return not folder or Path(folder) in _seeded


def _seed(cache: Path) -> None:
    """Copy the kernels compiled into the package's ``__pycache__`` folders into `cache`, where
    numba looks for them under NUMBA_CACHE_DIR, unless the copy there is as new. Whether a kernel
    is then used stays numba's decision: an entry loads only where the source, numba's version
    and the compile target (CPU model and features) match this process's, so kernels compiled on
    another machine or for another model are compiled again, never run. A copy that fails costs
    that compilation, nothing else; each is renamed into place whole, so a process loading the
    kernels beside this one never reads half a file."""
    from numba.core.caching import _CacheLocator  # its layout of NUMBA_CACHE_DIR

    for kept in PACKAGE.rglob("__pycache__"):
        folder = cache / _CacheLocator.get_suitable_cache_subpath(str(kept.parent / "__init__.py"))
        for source in [*kept.glob("*.nbi"), *kept.glob("*.nbc")]:
            copy = folder / source.name
            with contextlib.suppress(OSError):
                if copy.exists() and copy.stat().st_mtime >= source.stat().st_mtime:
                    continue
                folder.mkdir(parents=True, exist_ok=True)
                part = folder / f"{source.name}.{secrets.token_hex(4)}.tmp"
                shutil.copy2(source, part)
                os.replace(part, copy)


def _candidates() -> list[Path]:
    """The user cache folders to try, best first; the last one, in the temporary directory, is
    named for this user and trusted only if it is this user's alone (see `_private`)."""
    found = []
    if os.environ.get("XDG_CACHE_HOME"):
        found.append(Path(os.environ["XDG_CACHE_HOME"]) / "pegsearch" / "numba")
    with contextlib.suppress(RuntimeError):  # no HOME and no password entry
        found.append(Path.home() / ".cache" / "pegsearch" / "numba")
    mine = Path(tempfile.gettempdir()) / f"pegsearch-{os.getuid()}"
    try:
        mine.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return found
    return [*found, mine / "numba"] if _private(mine) else found


def _private(folder: Path) -> bool:
    """True if `folder` is a real folder owned by this user that nobody else can write: numba loads
    what it finds in its cache, so a folder another user made or can write must not be used."""
    info = os.lstat(folder)
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _writable(folder: Path) -> bool:
    """Whether numba can keep files in `folder`: the test numba itself makes (a temporary file)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True

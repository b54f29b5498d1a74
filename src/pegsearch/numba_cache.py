"""Where numba keeps the compiled kernels, so that a read-only install still imports and runs.

The kernels are compiled with ``cache=True``: numba keeps them in the package's ``__pycache__``,
else under the user's ``~/.cache``, and when it can write neither (a system-wide or container
install run by a user without a writable home) every import fails with "cannot cache function ...
no locator available". So when the package folder is not writable, `choose` points numba at the
first folder that is: ``$XDG_CACHE_HOME/pegsearch/numba``, ``~/.cache/pegsearch/numba``, or a
folder of this user's own in the temporary directory. It must run before numba compiles anything,
which is why the package's ``__init__`` calls it; a ``NUMBA_CACHE_DIR`` the user set is kept.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).parent


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
            return


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

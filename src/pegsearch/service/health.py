"""Whether the server is alive and whether it can serve, for a load balancer's health check or
Kubernetes's liveness and readiness probes (GET /healthz, GET /readyz).

Both answer without a token: a probe carries none, and neither says anything a client could use
(no search, no path, no host fact: "alive", "ready", or which of the two folders fails and the
kind of error, the details going to the server's log).
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from pegsearch.errors import PegsearchError
from pegsearch.store import Location

PROBE = ".pegsearch-ready"  # the name a readiness probe writes in the runs root, then removes

_log = logging.getLogger(__name__)


class NotReady(PegsearchError):
    """The server cannot serve now (its runs root cannot be written, its state cannot be read):
    nothing is wrong with the request, so 503, not a 4xx."""

    http_status = 503


def readiness(root: Location, state: Path) -> None:
    """Raise NotReady with the first reason the server cannot serve: its runs root (a folder or a
    store) not reachable or not writable, its state folder's records not readable."""
    runs = "store" if root.local is None else "folder"
    _probe(f"the runs {runs} cannot be written", lambda: _write_and_remove(root))
    _probe("the state folder cannot be read", lambda: os.listdir(state / "records"))


def _write_and_remove(root: Location) -> None:
    """Write a small file in the runs root and remove it (a name of its own: probes may overlap)."""
    name = f"{PROBE}-{secrets.token_hex(4)}"
    root.write(name, b"")
    root.remove(name)


def _probe(what: str, action: Callable[[], object]) -> None:
    """Run `action`; NotReady saying `what` and the error's kind when it fails (its message, with
    the server's paths, goes to the log only)."""
    try:
        action()
    except (OSError, ValueError, PegsearchError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        _log.warning("pegsearch serve: not ready: %s: %s", what, exc)
        raise NotReady(f"not ready: {what} ({type(exc).__name__}); see the server's log") from None

"""Starting the service: the bind check, then uvicorn in this process (the workers are children)."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

from pegsearch.errors import UsageError

GRACE = 3  # seconds open event streams get to end when the server stops


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(host: str, port: int, root: Path, slots: int, token: str | None) -> None:
    """Serve the runs root `root` until interrupted. Refuses a non-loopback bind without a token:
    anyone who can reach the port could otherwise start searches and delete runs."""
    if not is_loopback(host) and not token:
        raise UsageError(f"refusing to bind {host} without a token: pass --token or set"
                         " PEGSEARCH_TOKEN (or bind 127.0.0.1)")
    if slots < 1:
        raise UsageError(f"--jobs {slots}: give at least 1")
    if root.exists() and not root.is_dir():
        raise UsageError(f"--runs {root}: not a directory")
    try:
        import uvicorn

        from pegsearch.service.app import create_app
    except ImportError as exc:
        raise UsageError(f"the service needs the package '{exc.name}': install it with"
                         " pip install 'pegsearch[serve]'") from None
    root.mkdir(parents=True, exist_ok=True)
    app = create_app(root.resolve(), slots, token)
    print(f"pegsearch serve: http://{host}:{port}/ over {root} ({slots} search"
          f"{'es' if slots > 1 else ''} at a time)", file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=GRACE)

"""Starting the service: the bind check, then uvicorn in this process (the workers are children)."""

from __future__ import annotations

import ipaddress
import logging
import socket
import sys
from pathlib import Path

from pegsearch.engines import make_engine
from pegsearch.errors import UsageError
from pegsearch.service.storage import state_folder
from pegsearch.store import Location

IDLE = 5  # seconds a connection may send nothing, before its first request or between requests


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(host: str, port: int, runs: str, state: Path | None, slots: int, token: str | None,
          engine: str = "local", fixed: dict[str, str] | None = None,
          log_format: str = "text") -> None:
    """Serve the runs root `runs` (a folder or a store prefix) until interrupted, its searches run
    by `engine` with the settings `fixed` (its master, its YARN queue), which requests may not
    change, logging in `log_format` (`service.logs`). Refuses a non-loopback bind without a
    token: anyone who can reach the port could otherwise start searches and delete runs."""
    if not is_loopback(host) and not token:
        raise UsageError(f"refusing to bind {host} without a token: pass --token or set"
                         " PEGSEARCH_TOKEN (or bind 127.0.0.1)")
    if slots < 1:
        raise UsageError(f"--jobs {slots}: give at least 1")
    root = Location.parse(runs)
    root.check()
    fixed = fixed or {}
    # An engine not installed, a setting it does not take; mrjob's queue is its hadoop runner's
    # (a request naming another runner is refused), whose cluster and queue are checked so.
    runner = {"runner": "hadoop"} if engine == "mrjob" and "queue" in fixed else {}
    make_engine(engine, **runner, **fixed)
    master = fixed.get("master")
    if engine == "spark" and "queue" in fixed and master != "yarn":
        raise UsageError("--queue names a YARN queue: serve Spark's searches on YARN with"
                         " --master yarn")
    if engine == "spark" and master is not None:
        from pegsearch.engines import hadoop
        from pegsearch.engines.spark.session import check_master

        # Else every search submitted would fail on them, one by one.
        hadoop.check_queue(check_master(master), fixed.get("queue"))
    if engine == "spark":
        from pegsearch.service.worker import spark_idle

        spark_idle()  # else its Spark worker would fail on it, at the first search
    try:
        import uvicorn
        from uvicorn.config import LOGGING_CONFIG

        from pegsearch.service.app import Defaults, create_app
        from pegsearch.service.connections import GuardedConnection
        from pegsearch.service.drain import GRACE, Drain, DrainingServer, InFlight
        from pegsearch.service.logs import RequestIds, use_json_lines
    except ImportError as exc:
        raise UsageError(f"the service needs the package '{exc.name}': install it with"
                         " pip install 'pegsearch[serve]'") from None
    _check_port(host, port)
    root.make()
    folder = state_folder(root, state)
    drain = Drain()
    app = create_app(root, folder, slots, token, Defaults(engine, fixed), drain)
    on = engine + (f" on {master}" if master else "") + (
        f" in queue {fixed['queue']}" if "queue" in fixed else "")
    started = (f"pegsearch serve: http://{host}:{port}/ over {root} ({slots} search"
               f"{'es' if slots > 1 else ''} at a time, {on}; state in {folder})")
    if log_format == "json":  # every line of the log a JSON object, this one too
        use_json_lines()
        logging.getLogger("pegsearch.serve").info(started)
    else:
        print(started, file=sys.stderr, flush=True)
    # Request ids outside the whole application, the framework's error handling too: a 500 has
    # its id and its line as every other answer. SIGTERM drains (`service.drain`).
    counted = RequestIds(app, answered=app.state.metrics.request)
    config = uvicorn.Config(InFlight(counted, drain), host=host, port=port,
                            log_level="warning", timeout_graceful_shutdown=GRACE,
                            http=GuardedConnection, timeout_keep_alive=IDLE, access_log=False,
                            log_config=None if log_format == "json" else LOGGING_CONFIG)
    DrainingServer(config, drain).run()


def _check_port(host: str, port: int) -> None:
    """Refuse a port that cannot be bound (in use, or privileged) before anything is announced."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror}): choose another --port"
                         " or stop what holds it") from None

"""The server's log as an operator ships it, and the request id that ties a client's request to
its lines.

Every request gets an id: the client's `X-Request-ID` when it sends a sane one (a load balancer or
a client library sets it, so their logs and ours meet), else a fresh one; it is echoed in the
answer's `X-Request-ID` header. With `--log-format json` every line the server logs is one JSON
object (`time`, `level`, `logger`, `message`, and the request's fields where there is one: a
traceback is a field, never lines of its own), and each request answered is a line of its own:
`request_id`, `method`, `route` (the route's template, `/api/searches/{search_id}`: a handful of
values to count by, not every URL), `path`, `status`, `duration` (seconds) and `search_id` where
the request names a search or makes one. The text format (the default) keeps the log as it was:
warnings and errors only.
"""

from __future__ import annotations

import contextvars
import json
import logging
import logging.config
import re
import time
import uuid
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = b"x-request-id"
# An id a client may give: what request-id schemes use (UUIDs, hex, AWS's Root=1-...;Parent=...),
# never a space, quote or control character, and short.
SANE_ID = re.compile(rb"[A-Za-z0-9][A-Za-z0-9._:/=+@;-]{0,127}")
REQUEST_FIELDS = ("request_id", "method", "route", "path", "status", "duration", "search_id")
PATH_SHOWN = 200  # characters of a request's path kept in its line (a URL may be 100 KB)

requests_log = logging.getLogger("pegsearch.requests")
current_request = contextvars.ContextVar("pegsearch_request_id", default=None)


class JsonLines(logging.Formatter):
    """One JSON object a line for every record: the fields a log shipper indexes, the request's
    id from the request being answered when the record does not carry one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                    + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(), "logger": record.name,
            "message": record.getMessage()}
        for key in REQUEST_FIELDS:
            value = getattr(record, key, None)
            if value is not None:
                line[key] = value
        if "request_id" not in line and current_request.get() is not None:
            line["request_id"] = current_request.get()
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line)


def use_json_lines() -> None:
    """Send every logger's records (uvicorn's, the service's, one line per request) to stderr
    through `JsonLines`: warnings and errors, and the service's own lines from info up."""
    logging.config.dictConfig({
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonLines}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json",
                                "stream": "ext://sys.stderr"}},
        "root": {"handlers": ["stderr"], "level": "WARNING"},
        "loggers": {"pegsearch": {"level": "INFO"}}})


class RequestIds:
    """Give every HTTP request an id (the client's sane `X-Request-ID`, else a fresh one), echo it
    in the answer's header, and log the request once answered. It wraps the whole application,
    so a refusal by a middleware (401, 413, a query's parameter twice) and a 500 from the
    framework's error handling have their id and line too."""

    def __init__(self, app: ASGIApp, answered: Callable[[Scope, int, float], None] | None = None
                 ) -> None:
        self.app = app
        self.answered = answered  # told of each request answered (the metrics count it)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(dict(scope["headers"]).get(HEADER, b""))
        token = current_request.set(request_id)
        began, answered = time.monotonic(), {"status": 500}

        async def with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                answered["status"] = message["status"]
                message["headers"] = [*message.get("headers", []),
                                      (HEADER, request_id.encode("ascii"))]
            await send(message)

        try:
            await self.app(scope, receive, with_id)
        finally:
            current_request.reset(token)
            seconds = time.monotonic() - began
            _log_request(scope, request_id, answered["status"], seconds)
            if self.answered is not None:
                self.answered(scope, answered["status"], seconds)


def _request_id(given: bytes) -> str:
    """The client's id when it is sane, else a fresh one (a bad one is not an error: the request
    is answered, under an id of the server's)."""
    return given.decode("ascii") if SANE_ID.fullmatch(given) else uuid.uuid4().hex


def _log_request(scope: Scope, request_id: str, status: int, seconds: float) -> None:
    """The request's line: its route's template when a route took it, and the search it names
    (a path's search_id, or the id a submit made, left in the request's state by the route)."""
    route = getattr(scope.get("route"), "path", None)
    search_id = scope.get("path_params", {}).get("search_id") \
        or scope.get("state", {}).get("search_id")
    requests_log.info("%s %s %d", scope["method"], route or "-", status, extra={
        "request_id": request_id, "method": scope["method"], "route": route,
        "path": _cut(scope["path"]), "status": status, "duration": round(seconds, 6),
        "search_id": _cut(search_id) if isinstance(search_id, str) else None})


def _cut(text: str) -> str:
    """What a client sent, as its line keeps it: cut short (a URL may be 100 KB)."""
    return text if len(text) <= PATH_SHOWN else f"{text[:PATH_SHOWN - 1]}…"

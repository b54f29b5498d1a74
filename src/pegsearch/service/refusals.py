"""How the service refuses: the bearer token, the body limit, a query that names a parameter twice,
and every error as one line of JSON.

Every error a client can cause is answered as ``{"error": "one line"}`` with a 4xx status, in the
API's words (a request's field, never the framework's location or the command line's option); an
unexpected one is a 500 with one line, its traceback going to the server's log, never to the client.
"""

from __future__ import annotations

import secrets
from urllib.parse import parse_qsl

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pegsearch.board.numbers import shown
from pegsearch.engines.settings import served
from pegsearch.errors import Busy, InputError, PegsearchError, one_line
from pegsearch.service.hints import Gone
from pegsearch.service.storage import without_root
from pegsearch.store import Location

# The engine settings a request may give, as engines.settings declares them (never mrjob_conf:
# that is a path on the server).
SERVICE_SETTINGS = served()


class Bearer:
    """Every API request must carry ``Authorization: Bearer TOKEN`` (the scheme in any case, as
    RFC 9110 has it: `bearer TOKEN` is the same); the dashboard's static files (which hold no
    data) load without it, so the page can ask for the token; /metrics needs it too (a scrape
    sends it), the health probes do not (`health`). Plain ASGI, not the framework's
    `http` middleware, which hid a client's hanging up from the routes (an abandoned hint solved
    on to its bound on a server with a token)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (scope["path"].startswith("/api")
                                        or scope["path"] == "/metrics"):
            given = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
            scheme, _, value = given.strip().partition(" ")
            if scheme.lower() != "bearer" or not secrets.compare_digest(value.strip().encode(),
                                                                        self.expected):
                refusal = error_response(401, "missing or wrong token: send 'Authorization: Bearer TOKEN'",
                                 {"WWW-Authenticate": 'Bearer realm="pegsearch"'})
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class OneOfEach:
    """Refuse (400) a query that gives a parameter more than once: each takes one value, and the
    routes took the last of several without a word (`?position=...&position=...`, `finish=` twice),
    as the command line now refuses `--start 5 --start 6`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            names = [name for name, _ in parse_qsl(scope["query_string"].decode("latin-1"),
                                                   keep_blank_values=True)]
            repeated = next((name for name in names if names.count(name) > 1), None)
            if repeated is not None:
                refusal = error_response(400, f"the query gives {repeated}= more than once: give it"
                                              " once")
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class BodyLimit:
    """Refuse request bodies over `limit` bytes (413), counted as they arrive, whatever the headers
    say: the body is read (it is small) before the application sees it."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = error_response(413, f"request body larger than {self.limit // 1024} KiB")
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > self.limit:
            await refusal(scope, receive, send)
            return
        messages: list[Message] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":  # gone before its body came (or cut off)
                return
            messages.append(message)
            if message["type"] != "http.request":
                break
            seen += len(message.get("body", b""))
            if seen > self.limit:
                await refusal(scope, receive, send)
                return
            if not message.get("more_body"):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


def _allowed(request: Request) -> str:
    """The methods a path answers (for a 405's Allow): those of every route matching it, or only of
    the routes naming it literally (POST /api/boards/check, not GET /api/boards/{name})."""
    matching = [route for route in request.app.router.routes
                if isinstance(route, APIRoute) and route.matches(request.scope)[0] != Match.NONE]
    literal = [route for route in matching if route.path == request.url.path]
    methods = {method for route in literal or matching for method in route.methods} - {"HEAD"}
    return ", ".join(sorted(methods))


def _field(field: str) -> str:
    """A field of a request as the API names it: an engine's setting inside `settings`."""
    return f"settings.{field}" if field in SERVICE_SETTINGS else field


def _board(name: str) -> str:
    """Where a client sees a board: its holes' numbers are in the document."""
    return f"GET /api/boards/{name}"


# The validator's complaints in the service's words (it spoke its own: "query.position: Field
# required", "query.finish: Input should be a valid integer"); any other keeps its message.
WORDED = {
    "missing": "{where} is required",
    "int_parsing": "{where} {value}: not a whole number; write it with the digits 0-9",
    "int_parsing_size": "{where} {value}: not a whole number; write it with the digits 0-9",
    "int_type": "{where}: give a whole number",
    "int_from_float": "{where}: give a whole number",
    "bool_parsing": "{where} {value}: give true or false",
    "bool_type": "{where}: give true or false",
    "string_type": "{where}: give a string",
    "list_type": "{where}: give a list",
    "dict_type": "{where}: give an object",
    "extra_forbidden": "{where}: no such field",
    "literal_error": "{where} {value}: use one of {expected}",
    "too_short": "{where}: give at least {min_length}",
    "string_too_short": "{where} is empty: give a value",
    "greater_than_equal": "{where} {value}: give a number of at least {ge}",
}
# What the validator adds to a location inside a union of types ("settings.memory.str"): not a field.
UNION_TAGS = {"str", "int", "float", "bool", "list", "dict"}


def _worded(where: str, error: dict) -> str:
    """One validation error as the service words its refusals."""
    template = WORDED.get(error["type"])
    if template is None:
        return f"{where}: {error['msg']}"
    given = error.get("input", "")
    value = "null" if given is None else repr(shown(str(given)))  # JSON's word, not Python's None
    context = error.get("ctx", {})
    return template.format(where=where, value=value, expected=context.get("expected", ""),
                           min_length=context.get("min_length", 1), ge=context.get("ge", ""))


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": one_line(message)}, status_code=status, headers=headers)


def errors(app: FastAPI, root: Location) -> None:
    """Every failure as one line of JSON: the client never sees a traceback, nor where the server
    keeps its runs (a run's folder is named by its search id)."""

    @app.exception_handler(PegsearchError)
    async def refused(request: Request, exc: PegsearchError) -> JSONResponse:
        if isinstance(exc, InputError):
            line = exc.worded(_field, _board, host=False)
        else:
            line = exc.served_line() if isinstance(exc, Busy) else exc.line()
        # Busy: another writer (a first hint keeping its sets) holds the run; ask again soon.
        retry = {"Retry-After": str(exc.retry_after)} if isinstance(exc, Busy) else None
        return error_response(exc.http_status, without_root(root, line), retry)

    @app.exception_handler(Gone)
    async def gone(request: Request, exc: Gone) -> JSONResponse:
        # 499, as nginx logs it: the client closed the request; no one reads this answer.
        return error_response(499, "the client closed the request before its hint was made")

    @app.exception_handler(HTTPException)
    async def http(request: Request, exc: HTTPException) -> JSONResponse:
        headers = {"Allow": _allowed(request)} if exc.status_code == 405 else exc.headers
        return error_response(exc.status_code, str(exc.detail), headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            reason = first.get("ctx", {}).get("error", "")
            return error_response(400, f"the body is not valid JSON ({reason})")
        where = ".".join(str(part) for part in first["loc"]
                         if part not in ("body", "query", "path") and part not in UNION_TAGS)
        if not where:
            return error_response(400, "the body must be a JSON object (send Content-Type: application/json)")
        return error_response(400, _worded(where, first))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        return error_response(500, f"internal error ({type(exc).__name__}); see the server's log")

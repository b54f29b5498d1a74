"""The FastAPI application: its routes.

Routes only check and translate requests; documents come from `views`, jobs from `jobs`, hints by
the solver from `hints`; the token, the body limit and every refusal's one line from `refusals`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParameter
from fastapi.concurrency import run_in_threadpool
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from pegsearch import __version__
from pegsearch.answers import PAIR_SECONDS, SURVEY_WHOLE, door
from pegsearch.answers.by_solver import open_starts
from pegsearch.answers.documents import moves_counts
from pegsearch.answers.door import Asked, asked, shared_solver, solution_of
from pegsearch.answers.hint import played, read_position
from pegsearch.answers.shapes import board_document
from pegsearch.answers.solver import time_bound
from pegsearch.board.files import (
    OTHER_NAMES,
    board_from_definition,
    load_board,
    parse_board,
    shipped_boards,
    shipped_name,
)
from pegsearch.board.geometry import Board
from pegsearch.board.numbers import is_digits
from pegsearch.board.spec import SearchSpec, check_values
from pegsearch.engines import ENGINES, make_engine
from pegsearch.engines.settings import SETTINGS, numbers
from pegsearch.errors import (
    Conflict,
    InputError,
    NotFound,
    PegsearchError,
    TooLarge,
    UsageError,
)
from pegsearch.service import schema
from pegsearch.service.drain import Drain
from pegsearch.service.health import NotReady, readiness
from pegsearch.service.hints import HINT_SECONDS, MAX_SECONDS, SOLUTION_SECONDS, Hints
from pegsearch.service.jobs import Jobs
from pegsearch.service.metrics import CONTENT_TYPE as METRICS_TYPE
from pegsearch.service.metrics import Metrics
from pegsearch.service.records import Record, new_id
from pegsearch.service.refusals import SERVICE_SETTINGS, Bearer, BodyLimit, OneOfEach, errors
from pegsearch.service.schema import answers
from pegsearch.service.storage import part_bytes
from pegsearch.service.views import Searches, checked_id, level_parts
from pegsearch.store import Location


# Query parameters as the OpenAPI document gives them (it allowed `position=` empty and a hole 0,
# both refused): a hole is numbered from 1, a position is never empty.
def _digits(value: object) -> object:
    """A number of a path or query as written: digits 0-9 only, refused in the validator's words
    for a whole number otherwise (it read `+1`, ` 1` and `1_0`, as 1, 1 and 10)."""
    if isinstance(value, str) and not is_digits(value):
        raise PydanticCustomError("int_parsing", "Input should be a valid integer")
    return value


Digits = BeforeValidator(_digits)
Finish = Annotated[int | None, Query(ge=1, description="the hole the last peg must end on"), Digits]
Level = Annotated[int, PathParameter(description="the level: positions after that many jumps"),
                  Digits]
Index = Annotated[int, PathParameter(description="the part's index in the level's list"), Digits]
Position = Annotated[str, Query(min_length=1, description="the holes with pegs (2,3,5), or jumps"
                                                           " from the start (5-9-14,...)")]

MAX_BOARD_FILE = 16 * 1024  # bytes of an uploaded board file (the largest shipped one is ~0.4 KiB)
MAX_BODY = 64 * 1024  # bytes of any request body
POLL = 0.3  # seconds between looks at a running search's manifest for the event stream
NUMBER_SETTINGS = numbers()  # engine settings given as numbers, not words
STATIC = resources.files("pegsearch") / "service" / "static"


def _settings_described() -> dict:
    """Each setting a request may give, as engines.settings declares it: its help line, and
    `integer` for a number (the dashboard learns from this which to send as numbers). A word may
    be sent as a number, which is read as its digits (a bare 5 is then a size too small)."""
    word = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    return {setting.name: {**({"type": "integer"} if setting.name in NUMBER_SETTINGS else word),
                           "description": f"{', '.join(setting.engines)}: {setting.help}"
                                          f"{setting.shown_default}"}
            for setting in SETTINGS if setting.name in SERVICE_SETTINGS}


class BoardUpload(BaseModel):
    """A board file's text, checked by the same parser as the CLI's board files."""

    model_config = ConfigDict(extra="forbid", strict=True)
    board_file: str


class SearchRequest(BaseModel):
    """A search to run: a shipped board or an uploaded board file, the start and what to count;
    or, with `survey`, one search per class of start holes."""

    # Exactly one of `board` and `board_file`: the description's oneOf says so.
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "oneOf": [{"required": ["board"]}, {"required": ["board_file"]}]})
    board: str = Field(None, description="a shipped board's name (or its other name, as"  # type: ignore[assignment]
                       " triangle-7 of skippy-xl)",
                       json_schema_extra={"enum": [*shipped_boards(), *OTHER_NAMES]})
    board_file: str = Field(None, description="a board file's text (TOML)",  # type: ignore[assignment]
                            min_length=1)
    # Holes are numbered from 1: the description says so, and a hole the board lacks is refused by
    # the start rule in the same line as on the command line.
    start: list[int] = Field(  # type: ignore[assignment]
        None, description="the holes empty at the start (default: those the board draws empty)",
        min_length=1, json_schema_extra={"items": {"type": "integer", "minimum": 1}})
    symmetry: Literal["board", "start", "none"] = "board"
    count_paths: bool = False
    fewest_moves: bool = False
    engine: str = Field(None, description="the engine (default: the server's, `pegsearch serve"  # type: ignore[assignment]
                        " --engine`)", json_schema_extra={"enum": sorted(ENGINES)})
    settings: dict[str, str | int] = Field(  # type: ignore[assignment]
        {}, description="the engine's settings, by the names of `pegsearch run`'s options with _",
        json_schema_extra={"properties": _settings_described(), "additionalProperties": False})
    survey: bool = False
    depth_first: bool = Field(False, description="with survey: every (start, finish) pair by the"
                              f" depth-first solver, each within {PAIR_SECONDS} s (with"
                              " fewest_moves: each start's fewest moves to one peg, proved or the"
                              " best found with its proved bound), rather than a search per start"
                              f" (always, for boards past {SURVEY_WHOLE} holes, where a search of"
                              " every start takes hours or more)")
    keep: Literal["all", "last"] = Field("all", description="what the run keeps: every level's parts"
                                         " (all), or only the last level's (last: counts, not"
                                         " solutions or hints; disk for two levels)")


@dataclass(frozen=True)
class Defaults:
    """The engine a server's searches use unless a request names another, and the settings it
    fixes for that engine (its master): a request may leave them out, never choose others."""

    engine: str = "local"
    fixed: dict[str, str] = field(default_factory=dict)


def create_app(root: Location, state: Path, slots: int = 1, token: str | None = None,
               defaults: Defaults = Defaults(), drain: Drain | None = None) -> FastAPI:
    """The service over the runs root `root` (a folder or a store prefix), its queue kept in the
    local folder `state`, running `slots` searches at a time with `defaults`; `drain` (the
    server's, `service.drain`) says when new work is refused and stops the searches."""
    jobs = Jobs(root, state, slots)
    drain = drain or Drain()
    drain.stoppers.append(jobs.drain)
    searches = Searches(root, jobs)
    hints = Hints(shared_solver())
    drain.cutters.append(hints.cut)
    metrics = Metrics(jobs, hints, drain)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        jobs.start()
        threading.Thread(target=door.ready_for_hints, name="pegsearch-ready", daemon=True).start()
        yield
        hints.close()
        await run_in_threadpool(jobs.stop)

    app = FastAPI(title="pegsearch", summary="Exhaustive peg-solitaire searches over HTTP",
                  version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.openapi = lambda: _describe(app, token is not None)  # type: ignore[method-assign]
    app.state.metrics = metrics  # for `logs.RequestIds`, outside the application, to count requests
    errors(app, root)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(OneOfEach)
    if token:
        app.add_middleware(Bearer, token=token)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    _probes(app, jobs, root, state, drain)

    @app.get("/metrics", include_in_schema=False)
    def metrics_text() -> Response:
        """The server's metrics in Prometheus's text format (`service.metrics`); with the token,
        as /api (a Prometheus scrape sends it: `authorization` in its scrape config)."""
        return Response(metrics.text(), media_type=METRICS_TYPE)

    # HEAD too: uptime checks ask with HEAD, and were answered 405.
    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    def dashboard() -> FileResponse:
        return FileResponse(str(STATIC / "index.html"))

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        """No icon, said without an error: a browser asks for one on every page (a 404 in its
        console)."""
        return Response(status_code=204)

    @app.get("/api/boards", response_model=None, responses=answers(list[schema.Board]))
    def boards() -> list[dict]:
        """The shipped boards, with hole coordinates and pictures."""
        return [board_document(load_board(name)) for name in shipped_boards()]

    @app.get("/api/boards/{name}", response_model=None, responses=answers(schema.Board, 404))
    def board(name: str) -> dict:
        return board_document(_shipped(name))

    @app.get("/api/boards/{name}/hint", response_model=None,
             responses=answers(schema.Hint, 400, 404, 503))
    async def board_hint(request: Request, name: str, position: Position, finish: Finish = None,
                         seconds: str | None = None) -> dict:
        """A hint by the depth-first solver, for any position of a shipped board (the holes with
        pegs, 2,3,5; or jumps from the board's start, 5-9-14,...): whether it can still be won
        (to one peg, on `finish` when given), each legal jump won, lost or undecided, and the holes
        the last peg can still end on. `seconds` bounds the solver (default 3, at most 60); 503
        while the solver has as many hints as it takes, and a hint whose client hangs up stops."""
        question = asked(_shipped(name))
        began = time.monotonic()
        document = await hints.hint(question, read_position(question.board, question.start, position),
                                    finish, _seconds(seconds, HINT_SECONDS), played(position),
                                    request.is_disconnected)
        metrics.hint("solver", time.monotonic() - began, document)
        return document

    @app.get("/api/boards/{name}/starts", response_model=None, responses=answers(schema.Starts, 404))
    def board_starts(name: str) -> dict:
        """The single-vacancy starts of a shipped board that the position classes do not rule out
        (the Play page offers them when a start can never be won)."""
        return open_starts(_shipped(name))

    @app.post("/api/boards/check", response_model=None, responses=answers(schema.Board))
    def check_board(upload: BoardUpload) -> dict:
        """Parse an uploaded board file (to draw it before submitting); 400 says what is wrong."""
        return board_document(_uploaded(upload.board_file))

    @app.post("/api/searches", status_code=202, response_model=None,
              responses=answers(schema.Accepted, 503, status=202))
    def submit(search: SearchRequest, request: Request) -> dict:
        """Queue a search; answers its id at once (503 while the server shuts down)."""
        drain.refuse_new_work("a new search")
        record = _record(search, defaults)
        jobs.submit(record)
        request.state.search_id = record.id  # for the request's line in the log
        return {"id": record.id, "status": "queued", "url": f"/api/searches/{record.id}"}

    @app.get("/api/searches", response_model=None, responses=answers(list[schema.SearchRow]))
    def listing() -> list[dict]:
        """Every search under the root, newest first: queued ones and run directories."""
        return searches.listing()

    @app.get("/api/searches/{search_id}", response_model=None, responses=answers(schema.Search, 404))
    def one(search_id: str) -> dict:
        """One search: what was asked, its levels, and its answers once complete."""
        return searches.document(search_id)

    @app.get("/api/searches/{search_id}/events", response_class=StreamingResponse,
             responses=answers(None, 404, media="text/event-stream",
                               description="server-sent events: level, progress, status"))
    async def events(search_id: str) -> StreamingResponse:
        """Server-sent events: `level` per finished level, `status` on every change of status."""
        await run_in_threadpool(searches.find, search_id)
        return StreamingResponse(_stream(searches, search_id), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    @app.post("/api/searches/{search_id}/cancel", response_model=None,
              responses=answers(schema.Accepted, 404, 409))
    def cancel(search_id: str) -> dict:
        """Stop a queued or running search; its run keeps its levels and can be resumed. A running
        one is `cancelling` until its worker has ended, then `interrupted`."""
        # The queue alone decides (409 while the search is deleted, 404 for no search): a reader
        # of its folder first would meet a delete's removal half done.
        return {"id": search_id, "status": jobs.cancel(checked_id(search_id))}

    @app.post("/api/searches/{search_id}/resume", status_code=202, response_model=None,
              responses=answers(schema.Accepted, 404, 409, 503, status=202))
    def resume(search_id: str) -> dict:
        """Queue an interrupted or failed search again, from its last complete level (503 while
        the server shuts down)."""
        drain.refuse_new_work("a resume")
        jobs.resume(checked_id(search_id))  # as cancel: the queue decides
        return {"id": search_id, "status": "queued"}

    @app.delete("/api/searches/{search_id}", response_model=None,
                responses=answers(schema.Deleted, 404, 409))
    def delete(search_id: str) -> dict:
        """Stop the search if needed and remove its run directory (a damaged one too)."""
        jobs.delete(checked_id(search_id))  # as cancel: the queue decides
        return {"id": search_id, "deleted": True}

    @app.get("/api/searches/{search_id}/counts", response_model=None,
             responses=answers(schema.RunDocument | schema.MovesCount, 404, 409, 503))
    def counts(search_id: str, winnable: bool = False, finish: Finish = None,
               by_moves: bool = False) -> dict:
        """States per level (and winnable positions per level with `winnable`), of a search not
        finished the levels made so far, with its status; with `by_moves`, the positions of a
        fewest-moves run by the fewest moves reaching them instead."""
        if by_moves:
            if winnable or finish is not None:
                raise UsageError("by_moves is a table of its own: drop winnable and finish")
            return searches.read(search_id, moves_counts, searches.complete_run(search_id)).as_document()
        return searches.counts(search_id, winnable, finish)

    @app.get("/api/searches/{search_id}/solution", response_model=None,
             responses=answers(schema.Solution, 400, 404, 409, 503))
    async def solution(request: Request, search_id: str, finish: Finish = None,
                       seconds: str | None = None) -> dict:
        """One solution as jumps and pictures, or a line reaching the fewest pegs: walked back
        through a complete search's levels, or, of a search not complete, found by the solver
        within `seconds` (default 10, at most 60), as `pegsearch solve` answers."""
        question = await run_in_threadpool(_asked_of_search, searches, search_id)
        bound = _seconds(seconds, SOLUTION_SECONDS)
        if question.run is None:
            return await hints.solution(question, finish, bound, request.is_disconnected)
        solution = await run_in_threadpool(searches.read, search_id, solution_of, question, finish,
                                           bound, hints.solver)
        return solution.as_document()

    @app.get("/api/searches/{search_id}/board", response_model=None,
             responses=answers(schema.Board, 404))
    def board_of(search_id: str) -> dict:
        """The board the search was made on, drawn as GET /api/boards/{name} draws a shipped one
        (an uploaded board's too): its run's, or before it has one (queued, or failed before its
        first level), its record's."""
        run, record = searches.find(search_id)
        if run is not None:
            return board_document(run.board)
        if record is None:  # a survey the command line made: its document names the board
            raise NotFound(f"search {search_id} is a survey made by the command line: see its"
                           " document's 'board'")
        return board_document(board_from_definition(record.board, f"search {search_id} (board)"))

    @app.get("/api/searches/{search_id}/hint", response_model=None,
             responses=answers(schema.Hint, 404, 409, 503))
    async def hint_of(request: Request, search_id: str, position: Position, finish: Finish = None,
                      seconds: str | None = None) -> dict:
        """Whether a position (the holes with pegs, 2,3,5; or jumps from the start, 5-9-14,...)
        is reached by the search, can still be won (to one peg, on `finish` when given), and
        which of its legal jumps keep it so. The first hint of a search keeps its winnable sets;
        one of a search not complete is the solver's, within `seconds` (default 3, at most 60)."""
        question = await run_in_threadpool(_asked_of_search, searches, search_id)
        at = read_position(question.board, question.start, position)
        bound = _seconds(seconds, HINT_SECONDS)
        began = time.monotonic()
        if question.run is None:
            document = await hints.hint(question, at, finish, bound, played(position),
                                        request.is_disconnected)
            metrics.hint("solver", time.monotonic() - began, document)
            return document
        found = await run_in_threadpool(searches.read, search_id, door.hint_of, question, at, finish,
                                        bound, hints.solver, played(position))
        document = found.as_document()
        metrics.hint("run", time.monotonic() - began, document)
        return document

    @app.get("/api/searches/{search_id}/levels/{level}", response_model=None,
             responses=answers(schema.LevelParts, 404))
    def level(search_id: str, level: Level) -> dict:
        """A stored level: its states and the URLs of its Parquet part files."""
        run, _ = searches.find(search_id)
        if run is None:
            raise NotFound(f"search {search_id} has no stored levels yet")
        parts = level_parts(run, level)
        base = f"/api/searches/{search_id}/levels/{level}/parts"
        return {"level": level, "states": run.levels[level]["states"],
                "parts": [{"index": i, "url": f"{base}/{i}"} for i in range(len(parts))]}

    @app.get("/api/searches/{search_id}/levels/{level}/parts/{index}", response_class=Response,
             responses=answers(None, 404, 409, media="application/vnd.apache.parquet",
                               description="the part file, as stored (409: missing or damaged)"))
    def part(search_id: str, level: Level, index: Index) -> Response:
        """One Parquet part file of a level, as stored (checked against the manifest first)."""
        run, _ = searches.find(search_id)
        parts = level_parts(run, level) if run is not None else []
        if not 0 <= index < len(parts):
            raise NotFound(f"level {level} of {search_id} has no part {index}")
        name = f"{search_id}-level-{level:03d}-part-{index}.parquet"
        return Response(searches.read(search_id, part_bytes, run, level, parts[index]),
                        media_type="application/vnd.apache.parquet",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    return app


def _probes(app: FastAPI, jobs: Jobs, root: Location, state: Path, drain: Drain) -> None:
    """GET /healthz and /readyz, for a load balancer's or Kubernetes's probes (`health`): outside
    /api, so they need no token, and outside the API's description, as the dashboard is."""

    @app.api_route("/healthz", methods=["GET", "HEAD"], include_in_schema=False)
    def healthz() -> dict:
        """Alive: the process answers and its scheduler runs (else a restart is what helps).
        Nothing is read or written, so a probe every second costs nothing."""
        if not jobs.alive():
            raise NotReady("not alive: the scheduler of searches has stopped; restart the server")
        return {"status": "alive"}

    @app.api_route("/readyz", methods=["GET", "HEAD"], include_in_schema=False)
    def readyz() -> dict:
        """Ready: the runs root can be written and the state folder read, and the server is not
        shutting down (503 and why not: a balancer then sends its requests elsewhere)."""
        if drain.draining:
            raise NotReady("not ready: the server is shutting down")
        readiness(root, state)
        return {"status": "ready"}


def _describe(app: FastAPI, bearer: bool) -> dict:
    """The OpenAPI description as the service behaves: its own error shape and codes (FastAPI's
    422 `detail` never reaches a client: a request that does not fit is a 400 `{"error"}`) and, on
    a server with a token, the bearer scheme every /api route needs."""
    if app.openapi_schema:
        return app.openapi_schema
    described = get_openapi(title=app.title, version=app.version, summary=app.summary,
                            routes=app.routes)
    for operations in described["paths"].values():
        for operation in operations.values():
            operation["responses"].pop("422", None)
    shapes = described.setdefault("components", {}).setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        shapes.pop(unused, None)
    _link_search_routes(described)
    if bearer:
        described["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        described["security"] = [{"bearer": []}]
        refused = {"description": schema.ERRORS[401], "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Error"}}}}
        for operations in described["paths"].values():
            for operation in operations.values():
                operation["responses"]["401"] = refused
    app.openapi_schema = described
    return described


def _link_search_routes(described: dict) -> None:
    """Links from a submitted search's id to the routes about it, so a client (or Schemathesis's
    stateful tests) can follow a search from its submission to its answers and its deletion."""
    paths = described["paths"]
    accepted = paths["/api/searches"]["post"]["responses"]["202"]
    accepted["links"] = {
        f"{method}_{path.rsplit('/', 1)[-1].strip('{}')}": {
            "operationId": paths[path][method]["operationId"],
            "parameters": {"search_id": "$response.body#/id"}}
        for path in paths if path.startswith("/api/searches/{search_id}") and "{level}" not in path
        for method in paths[path]}


def _asked_of_search(searches: Searches, search_id: str) -> Asked:
    """Who answers a question of a search (`answers.door`): its run when complete; the solver, on
    its board and start, while it is not complete but readable."""
    try:
        return asked(searches.complete_run(search_id))
    except Conflict as refused:
        try:
            run, _ = searches.find(search_id)
        except PegsearchError:
            raise refused from None
        if run is None or run.status == "complete":
            raise
        return asked(run)


def _seconds(text: str | None, default: float) -> float:
    """The solver's time bound as a client asked for it: a number of seconds above 0 in digits
    and a decimal point, at most MAX_SECONDS (an answer holds one of the solver's threads for as
    long)."""
    if text is None:
        return default
    seconds = time_bound(text, decimal=True)
    if seconds > MAX_SECONDS:
        raise InputError("{seconds} {text}: at most {most} s", text=text, most=MAX_SECONDS)
    return seconds


def _shipped(name: str) -> Board:
    """A shipped board by name only: a client never names a file on the server."""
    if shipped_name(name) is None:
        raise NotFound(f"unknown board '{name[:80]}': use one of {', '.join(shipped_boards())}")
    return load_board(name)


def _uploaded(text: str) -> Board:
    if len(text.encode()) > MAX_BOARD_FILE:
        raise TooLarge(f"the board file is larger than {MAX_BOARD_FILE // 1024} KiB")
    return parse_board(text, "uploaded board file")


def _record(request: SearchRequest, defaults: Defaults) -> Record:
    """Check a search request as the CLI checks its arguments, and make its record (the server's
    engine when the request names none, and the settings the server fixes for it)."""
    if (request.board is None) == (request.board_file is None):
        raise UsageError("give either 'board' (a shipped board's name) or 'board_file' (its text)")
    if request.board is not None:
        if shipped_name(request.board) is None:
            raise UsageError(f"unknown board '{request.board[:80]}': use one of"
                               f" {', '.join(shipped_boards())} or upload a board file")
        board = load_board(request.board)
    else:
        board = _uploaded(request.board_file)
    by_solver = False  # a survey's pairs by the solver (answers.door decides, as for the CLI)
    if request.survey:
        given = sorted({"start", "symmetry"} & request.model_fields_set)
        if given:
            raise UsageError(f"a survey searches every start hole, each reduced by the symmetries"
                               f" fixing it: drop '{given[0]}'")
        start = []
        if request.keep != "all":
            raise UsageError("a survey keeps every level of its searches: drop 'keep'")
        by_solver = door.survey_reason(board, request.depth_first, request.count_paths,
                                       request.fewest_moves) is not None
    elif request.depth_first:
        raise UsageError("'depth_first' applies to a survey: a search's hints and solutions are"
                         " asked of the solver where its run cannot answer them; drop it")
    else:
        start = list(SearchSpec.asked(board, request.start, request.symmetry).start)
    check_values(request.count_paths, request.fewest_moves)
    foreign = sorted(set(request.settings) - set(SERVICE_SETTINGS))
    if foreign:
        raise UsageError(f"setting '{foreign[0]}' is not accepted (use {', '.join(SERVICE_SETTINGS)})")
    # Sizes, runners and masters are words, as on the command line (a bare 5 is not 5 bytes).
    settings = {key: value if key in NUMBER_SETTINGS else str(value)
                for key, value in request.settings.items()}
    engine = request.engine or defaults.engine
    if engine == defaults.engine:
        for key, value in defaults.fixed.items():
            if settings.get(key, value) != value:
                raise UsageError(f"setting '{key}': this server runs its {engine} searches with"
                                 f" {key} {value}; leave it out")
            settings[key] = value
    make_engine(engine, **settings)
    return Record(id=new_id(board, start, request.symmetry, request.count_paths, request.survey,
                            request.fewest_moves),
                  board=board.definition(), start=start, symmetry=request.symmetry,
                  count_paths=request.count_paths, engine=engine, settings=settings,
                  survey=request.survey, fewest_moves=request.fewest_moves, keep=request.keep,
                  depth_first=by_solver)


async def _stream(searches: Searches, search_id: str) -> AsyncIterator[str]:
    """Levels as they are committed and status changes, until the search is no longer held.

    Event kinds: `level` ({"level", "pegs", "states"[, "paths"]}), `status` ({"status", and
    "verdict", "solvable", "error" when known}) and, while a level is made, `progress` ({"level",
    "pegs", "done", "total"}: parents expanded out of the total, as the terminal's bar shows).
    """
    sent, last, moving = 0, None, None
    while True:
        try:
            document = await run_in_threadpool(searches.document, search_id, False)
        except NotFound:
            yield _event("status", {"status": "deleted"})
            return
        for level in document["levels"][sent:]:
            yield _event("level", level)
        sent = len(document["levels"])
        progress = searches.jobs.records.latest_progress(search_id)
        if progress and progress.get("level") == sent and progress != moving:
            moving = progress
            yield _event("progress", progress)
        if document["status"] != last:
            last = document["status"]
            yield _event("status", {key: document[key] for key in ("status", "verdict", "solvable", "error")
                                    if key in document})
        if last not in ("queued", "running", "cancelling"):
            return
        await asyncio.sleep(POLL)


def _event(kind: str, data: dict) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"

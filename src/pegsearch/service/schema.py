"""What the service's answers look like, for its OpenAPI description: the documents of
`pegsearch.answers.documents` (and the service's own few) as models, the one error shape, and the
codes each route answers with.

The routes return the documents themselves; these models only describe them (a client generator
reads them, Schemathesis checks every answer against them in the tests), so a field the answers
add later is allowed by `extra`, never dropped.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Document(BaseModel):
    model_config = ConfigDict(extra="allow")


class Error(Document):
    """Every refusal and failure: one line, never a traceback or a server path."""

    error: str


class Board(Document):
    name: str
    description: str
    grid: str
    holes: int
    jumps: int
    symmetries: int
    empty: list[int]
    cells: list[list[int]] = Field(description="each hole's (column, row) on the board file's text grid")
    picture: str
    start_picture: str


class Starts(Document):
    """A board's single-vacancy starts from which one peg can still be reached as far as the
    position classes tell (a start outside them can never be won)."""

    board: str
    starts: list[int]
    note: str


class Accepted(Document):
    id: str
    status: str
    url: str | None = None


class Deleted(Document):
    id: str
    deleted: bool


class Level(Document):
    level: int
    pegs: int
    states: int
    paths: int | None = Field(None, description="the level's path total (count_paths runs)")
    moves: int | None = Field(None, description="the fewest moves of any of its positions"
                                                " (fewest_moves runs)")
    winnable: int | None = None
    engine: str | None = Field(None, description="the engine that made the level: local, mrjob, spark,"
                                                 " or 'spark (driver)' for a small level the Spark"
                                                 " engine made in its driver (none for level 0)")
    nodes: list[str] | None = Field(None, description="each node of the cluster YARN lost (its tasks"
                                                      " made again on the others) or got back while"
                                                      " the level was made, a line each")


class InProgress(Document):
    """The level a search is making in passes, as far as its committed passes (checkpoints) go."""

    level: int
    pegs: int
    states: int = Field(description="positions in the passes committed so far")
    passes_done: int
    passes: int = Field(description="passes planned for the level (re-estimated after each pass)")
    note: str


class Finish(Document):
    hole: int | None = None
    holes: list[int] | None = None
    paths: int | None = None
    moves: int | None = None


class SurveyStart(Document):
    start: int
    solvable: bool
    finishes: list[int]
    states: int
    searched: int
    solutions: int | None = None
    fewest_moves: int | None = None
    moves_by_finish: dict[str, int] | None = None
    # A survey of fewest moves by the solver (answers.fewest_survey): the best line's moves, whether
    # proved fewest, the fewest any solution can have as proved, and the line.
    moves: int | None = None
    proved: bool | None = None
    at_least: int | None = None
    line: str | None = None


class RunDocument(Document):
    """A run as `pegsearch run --json` and `counts --json` print it (`answers.documents`): what was
    searched, its levels, and once complete its verdict and where the last peg stands."""

    board: str
    holes: int
    start: list[int]
    status: str
    levels: list[Level]
    in_progress: InProgress | None = None
    engine: str
    count_paths: bool
    fewest_moves: bool = False
    symmetry: str | None = None
    reduced: bool | None = None
    symmetries: int | None = None
    created: str | None = None
    settings: dict[str, str | int] | None = None
    verdict: str | None = None
    solvable: bool | None = None
    moves: int | None = None
    finishes_exact_per_hole: bool | None = None
    finishes: list[Finish] | None = None
    by: str | None = Field(None, description="a survey's: breadth-first (a search per start) or"
                                             " depth-first (the solver, pair by pair)")
    starts: list[SurveyStart] | None = None
    solvable_starts: int | None = None
    fewest_moves_starts: list[int] | None = None
    error: str | None = None


class Search(RunDocument):
    """A search or survey (`kind`): the run's document plus the service's id, status and settings;
    a complete survey adds its start holes. A `damaged` run whose manifest cannot be read has only
    its id, status, error and no levels."""

    id: str
    kind: str
    board: str | None = None
    holes: int | None = None
    start: list[int] | None = None
    engine: str | None = None
    count_paths: bool | None = None


class SearchRow(Document):
    id: str
    kind: str
    status: str
    levels: int
    states: int
    board: str | None = None  # None for a damaged run whose manifest cannot be read
    start: list[int] | None = None
    engine: str | None = None
    count_paths: bool | None = None
    fewest_moves: bool | None = None
    symmetry: str | None = None
    verdict: str | None = None
    created: str | None = None
    in_progress: str | None = Field(None, description="the level made in passes, as far as its"
                                                      " committed passes go")


class MovesCount(Document):
    board: str
    start: list[int]
    symmetry: str
    status: str
    by_moves: list[dict[str, int]]
    positions: int


class Jump(Document):
    from_: int = Field(alias="from")
    over: int
    to: int
    move: int


class Solution(Document):
    solved: bool
    note: str
    finish: int | None = Field(description="solved: the hole the last peg ends on (the one asked,"
                               " or the line's own with none asked); else the one asked (null:"
                               " anywhere)")
    moves: int
    fewest_moves: bool
    jumps: list[Jump]
    positions: list[list[int]]
    pictures: list[str]
    board: Board
    start: list[int] | None = Field(None, description="(by the solver) the start holes")
    by: str | None = Field(None, description="depth-first: found by the solver, not a stored run")
    outcome: str | None = Field(None, description="(by the solver) won, lost or undecided")
    how: str | None = Field(None, description="(by the solver) how a loss was proved, or the bound"
                            " that left it undecided")
    examined: int | None = Field(None, description="(by the solver) positions examined")
    seconds: float | None = Field(None, description="(by the solver) seconds it searched")


class HintJump(Document):
    jump: str = Field(description="FROM-OVER-TO")
    winnable: bool | None = Field(description="whether the game can still be won after it (null:"
                                  " the solver reached its time bound undecided)")
    outcome: str | None = Field(None, description="(by the solver) won, lost or undecided")
    position: list[int] = Field(description="the holes with pegs after it")
    solutions: int | None = Field(None, description="(a --count-paths run, the finish exact) the"
                                  " jump sequences from the position after it down to the finish")
    moves_left: int | None = Field(None, description="(a --fewest-moves run, the finish exact, a"
                                   " winnable jump) the fewest moves left after it, its peg free to"
                                   " go on jumping")


class Hint(Document):
    board: str
    position: list[int] = Field(description="the holes with pegs")
    picture: str
    pegs: int
    level: int | None = Field(None, description="the jumps played to reach it (by the solver: known"
                              " when the position was given as jumps)")
    finish: int | None = Field(description="won means one peg on this hole (null: anywhere)")
    reachable: bool | None = Field(description="whether the start reaches it (null: the solver was"
                                   " given holes, not jumps, and does not say)")
    exact: bool = Field(description="false when the run is reduced by symmetries that move the"
                                    " start: reachable then means from the start or an image of it")
    winnable: bool | None = Field(description="null: the solver reached its time bound undecided")
    by: str | None = Field(None, description="depth-first: answered by the solver, not a stored run")
    outcome: str | None = Field(None, description="(by the solver) won, lost or undecided")
    finishes: list[int] = Field(description="the holes the last peg can still end on from this"
                                " position (empty: none, it cannot be won)")
    finishes_undecided: list[int] | None = Field(None, description="(by the solver) finishing holes"
                                                 " its time bound left undecided")
    jumps: list[HintJump]
    solutions: int | None = Field(None, description="(a --count-paths run, the finish exact) the jump"
                                  " sequences from the position down to the finish")
    moves_left: int | None = Field(None, description="(a --fewest-moves run, the finish exact, a"
                                   " winnable position) the fewest moves left, the next jump"
                                   " beginning one")
    note: str | None = None


class PartLink(Document):
    index: int
    url: str


class LevelParts(Document):
    level: int
    states: int
    parts: list[PartLink]


# The refusals a route may answer with, and what each code means here: every route 400, 408, 413
# and 500 (and 401 on a server with a token, added to the description there), besides its own.
ERRORS = {400: "a request the search's rules refuse (one line says why)",
          401: "the server wants a token: send 'Authorization: Bearer TOKEN'",
          404: "no such search, board, level or part",
          408: "the request's headers or body took over 10 s to arrive",
          409: "the search is not in a state that allows it (not complete, not running, ...)",
          413: "a request body or board file too large",
          500: "the server failed (a damaged stored run, a bug): one line, details in its log",
          503: "busy for now: the run is being written (its first hint keeping its sets), the"
               " solver has as many hints as it takes, or the server is shutting down (a new"
               " search or a resume); ask again after Retry-After seconds"}


# What a non-JSON answer holds: a part file's bytes, or server-sent events (each an event name and
# its JSON data, see the events route).
MEDIA_SCHEMAS = {
    "application/vnd.apache.parquet": {"type": "string", "format": "binary"},
    "text/event-stream": {"type": "object", "required": ["event", "data"],
                          "properties": {"event": {"type": "string",
                                                   "enum": ["level", "progress", "status"]},
                                         "data": {"type": "string"}}},
}


def answers(model: object, *codes: int, media: str | None = None, description: str = "the answer",
            status: int = 200) -> dict:
    """A route's `responses`: its answer (a model, or a media type such as text/event-stream) and
    the error codes it may give, all as `Error`."""
    if media is not None:
        ok: dict = {"description": description, "content": {media: {"schema": MEDIA_SCHEMAS[media]}}}
    else:
        ok = {"description": description, "model": model}
    refusals = {code: {"description": ERRORS[code], "model": Error}
                for code in sorted({400, 408, 413, 500, *codes})}
    return {status: ok, **refusals}

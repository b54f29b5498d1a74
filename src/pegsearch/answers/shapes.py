"""Typed answers: each a frozen dataclass whose fields a face reads (the command line prints from
them) and whose `as_document()` is the JSON both faces send. The service's schema
(service/schema.py) is checked against these documents by tests/answers/test_shapes.py, so a field
added here and not there (or there and not here) fails a test instead of a client.

A board's own document is here too: every answer that draws the board carries it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, fields

from pegsearch.answers import PAIR_SECONDS, SURVEY_WHOLE
from pegsearch.answers.fewest import move_numbers
from pegsearch.answers.finishes import FinishClass
from pegsearch.answers.solver import UNDECIDED
from pegsearch.answers.survey import StartResult
from pegsearch.board.geometry import Board, Jump
from pegsearch.board.pagoda import Pagoda
from pegsearch.board.pictures import holes_with_pegs, render

BY = "depth-first"  # an answer's `by`: found by the solver, not read from a run's levels
SEARCHED = "breadth-first"  # a survey's `by`: a search per start


def board_document(board: Board) -> dict:
    """A board with what a client needs to draw it: hole coordinates on the text grid, pictures."""
    return {"name": board.name, "description": board.description, "grid": board.grid,
            "holes": board.holes, "jumps": len(board.jumps), "symmetries": len(board.symmetries),
            "empty": list(board.empty), "cells": [list(cell) for cell in board.cells],
            "picture": render(board, numbers=True),
            "start_picture": render(board, board.start_position())}


@dataclass(frozen=True)
class Step:
    """One jump of a line of play, with the number of the move it belongs to (a move is a peg's
    jumps in a row)."""

    jump: Jump
    move: int

    def as_document(self) -> dict:
        return {"from": self.jump.start, "over": self.jump.over, "to": self.jump.to,
                "move": self.move}


def steps(jumps: list[Jump] | tuple[Jump, ...]) -> tuple[Step, ...]:
    """A line's jumps as steps, each numbered with its move."""
    return tuple(Step(jump, number) for jump, number in zip(jumps, move_numbers(jumps), strict=True))


@dataclass(frozen=True)
class Found:
    """What the solver says of an answer it found rather than read: the start it searched from,
    its outcome (won, lost, undecided), how (a proof, or the bound that stopped it), and its cost;
    asked for the fewest moves, the fewest any solution can have as proved (the line's own moves
    once proved fewest)."""

    start: tuple[int, ...]
    outcome: str
    how: str
    examined: int
    seconds: float
    moves_at_least: int | None = None
    pagoda: Pagoda | None = None  # a `pagoda` proof's function

    def as_document(self) -> dict:
        document = {"start": list(self.start), "by": BY, "outcome": self.outcome, "how": self.how,
                    "examined": self.examined, "seconds": round(self.seconds, 3)}
        if self.moves_at_least is not None:
            document["moves_at_least"] = self.moves_at_least
        return document


@dataclass(frozen=True)
class Solution:
    """One line of play from the start: to one peg (on `finish` when given) when `solved`, else the
    line to the fewest pegs found, and `note` says why there is no better one. `positions` holds
    the position before the first jump and after each."""

    solved: bool
    note: str
    finish: int | None
    fewest_moves: bool  # the line has the fewest moves (read from a fewest-moves run, or proved)
    steps: tuple[Step, ...]
    positions: tuple[int, ...]
    board: Board
    found: Found | None = None  # None: read from a complete run's levels

    @property
    def jumps(self) -> list[Jump]:
        return [step.jump for step in self.steps]

    @property
    def moves(self) -> int:
        return self.steps[-1].move if self.steps else 0

    @property
    def decided(self) -> bool:
        """Whether asking again could say more: not when read from a run, or won or proved lost."""
        return self.found is None or self.found.outcome != UNDECIDED

    @property
    def ends_on(self) -> int | None:
        """The hole the last peg of a solved line stands on: the finish asked, or, with none asked,
        the one the line found ends on (a solved document said `"finish": null` there, leaving
        its reader to decode the last position); None when not solved."""
        return self.positions[-1].bit_length() if self.solved else None

    def as_document(self) -> dict:
        document = {"solved": self.solved, "note": self.note,
                    "finish": self.finish if self.ends_on is None else self.ends_on,
                    "moves": self.moves, "fewest_moves": self.fewest_moves,
                    "jumps": [step.as_document() for step in self.steps],
                    "positions": [holes_with_pegs(p) for p in self.positions],
                    "pictures": [render(self.board, p) for p in self.positions],
                    "board": board_document(self.board)}
        if self.found is not None:
            document |= self.found.as_document()
            if self.found.pagoda is not None:  # the proof, to check: each hole's weight
                document["pagoda"] = {"weights": list(self.found.pagoda.weights),
                                      "position_weighs": self.found.pagoda.weight(self.positions[0]),
                                      "goal_weighs_at_least": self.found.pagoda.threshold}
        return document


def _present(answer: object) -> dict:
    """An answer's fields as a document: every field but the optional ones not given (None), which
    are left out rather than sent as null (each says which kind of run or answer has it)."""
    return {f.name: getattr(answer, f.name) for f in fields(answer)  # type: ignore[arg-type]
            if f.name not in answer.OPTIONAL or getattr(answer, f.name) is not None}


@dataclass(frozen=True)
class HintJump:
    """One legal jump of a hinted position: whether the game can still be won after it (None: the
    solver's bound left it undecided), and what a counting run keeps of the position after it."""

    OPTIONAL = frozenset({"outcome", "solutions", "moves_left"})

    jump: str  # FROM-OVER-TO
    winnable: bool | None
    position: list[int]  # the holes with pegs after it
    outcome: str | None = None  # by the solver: won, lost or undecided
    solutions: int | None = None  # a --count-paths run, the finish exact: sequences left
    moves_left: int | None = None  # a --fewest-moves run, the finish exact, a winnable jump

    def as_document(self) -> dict:
        return _present(self)


@dataclass(frozen=True)
class Hint:
    """What a player asks of a position (hint.hint from a run's kept sets, by_solver.hint_by_solver
    by the solver): whether it is reached and can still be won, on which holes the last peg can
    end, and each legal jump's verdict. The service's schema.Hint describes the same document."""

    OPTIONAL = frozenset({"level", "by", "outcome", "finishes_undecided", "solutions", "moves_left",
                          "note"})

    board: str
    position: list[int]  # the holes with pegs
    picture: str
    pegs: int
    finish: int | None  # won means one peg on this hole (None: anywhere)
    reachable: bool | None  # None: the solver was given holes, not jumps, and does not say
    exact: bool  # False: the run is reduced by symmetries moving the start (see `note`)
    winnable: bool | None  # None: the solver's bound left it undecided
    finishes: list[int]
    jumps: tuple[HintJump, ...]
    level: int | None = None  # the jumps played to reach it (the solver knows it from jumps only)
    by: str | None = None  # BY: the solver's answer
    outcome: str | None = None  # by the solver: won, lost or undecided
    finishes_undecided: list[int] | None = None  # by the solver: the holes its bound left open
    solutions: int | None = None  # a --count-paths run, the finish exact
    moves_left: int | None = None  # a --fewest-moves run, the finish exact, a winnable position
    note: str | None = None

    @property
    def decided(self) -> bool:
        """Whether every verdict in it is known (asking again could decide no more)."""
        return self.winnable is not None and not self.finishes_undecided and \
            all(jump.winnable is not None for jump in self.jumps)

    def as_document(self) -> dict:
        return _present(self) | {"jumps": [jump.as_document() for jump in self.jumps]}


@dataclass(frozen=True)
class Survey:
    """A survey of every start hole (answers.survey's searches, or by_solver.survey_by_solver's
    pairs): one result a start hole, how many can be played down to one peg, and its verdict in a
    sentence. Its document is kept with the survey's folder, which says to a reader that did not
    ask what was asked."""

    board: Board
    results: tuple[StartResult, ...]
    engine: str  # the engine that searched, or BY
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    seconds: float = PAIR_SECONDS  # by the solver: each pair's time bound

    @property
    def solvable(self) -> int:
        return sum(result.solvable for result in self.results)

    @property
    def fewest_moves(self) -> int | None:
        """The fewest moves to one peg from any single vacancy (None: not asked, or none)."""
        return min((r.fewest_moves for r in self.results if r.fewest_moves is not None), default=None)

    @property
    def verdict(self) -> str:
        said = f"one peg is reachable from {self.solvable} of {len(self.results)} start holes"
        open_ = [result.start for result in self.results if result.undecided]
        if open_:
            pairs = sum(len(result.undecided) for result in self.results)
            said += (f"; {pairs} start-to-finish pair{'s' if pairs > 1 else ''} from"
                     f" {len(open_)} start hole{'s' if len(open_) > 1 else ''} undecided"
                     f" (each pair's time bound, {self.seconds:g} s, was reached): {self._deciding()}")
        if self.fewest_moves is not None:
            best = self._fewest_starts()
            said += (f"; the fewest moves to one peg from a single vacancy: {self.fewest_moves}"
                     f" (from hole{'s' if len(best) > 1 else ''} {', '.join(map(str, best))})")
        return said

    def _deciding(self) -> str:
        """How to decide the pairs left undecided, as the commands to type: they appeared only in
        `survey --help` and the docs (issue 81, item 2). A board the survey searches whole by
        default is surveyed by the solver only with --depth-first, which the commands then keep."""
        command = f"pegsearch survey {self.board.name}"
        if self.board.holes <= SURVEY_WHOLE:
            command += " --depth-first"
        more = max(PAIR_SECONDS, 10 * self.seconds)
        return (f"decide them with `{command} --seconds {more:g}` (each pair up to {more:g} s) or"
                f" `{command} --whole-search` (each of their starts searched whole)")

    def _fewest_starts(self) -> list[int]:
        return [r.start for r in self.results if r.fewest_moves == self.fewest_moves]

    def as_document(self) -> dict:
        document = {"board": self.board.name, "holes": self.board.holes,
                    "count_paths": self.results[0].solutions is not None, "engine": self.engine,
                    "by": SEARCHED if self.results[0].lines is None else BY,
                    "created": self.created, "starts": [r.document() for r in self.results],
                    "solvable_starts": self.solvable, "verdict": self.verdict}
        if self.fewest_moves is not None:
            document |= {"fewest_moves": self.fewest_moves,
                         "fewest_moves_starts": self._fewest_starts()}
        return document


@dataclass(frozen=True)
class LevelCount:
    """One committed level as clients see it: its positions (and path total, or the fewest moves
    reaching any of them), the positions that can still be won when walked back, the engine
    that made it (a resumed run may have changed engines; the Spark engine makes small levels in
    its driver; level 0 has none), and the cluster's nodes lost or back while it was made."""

    OPTIONAL = frozenset({"engine", "paths", "moves", "winnable", "nodes"})

    level: int
    pegs: int
    states: int
    engine: str | None = None
    paths: int | None = None  # a --count-paths run
    moves: int | None = None  # a --fewest-moves run
    winnable: int | None = None  # asked for: walked back from one peg (on a hole)
    nodes: tuple[str, ...] | None = None  # what happened to the cluster's nodes while it was made

    def as_document(self) -> dict:
        return _present(self)


@dataclass(frozen=True)
class InProgress:
    """The level a run is making in passes, as far as its committed passes (checkpoints) go."""

    level: int
    pegs: int
    states: int  # in the passes committed so far
    passes_done: int
    passes: int  # planned, re-estimated after each pass
    note: str


@dataclass(frozen=True)
class Counts:
    """A run's counts (`pegsearch run` and `counts`, a search of the service): what was searched,
    its levels, and once complete its verdict and, when asked, where the last peg stands (one
    class of holes a row, or one hole a row when `finishes_exact_per_hole`)."""

    OPTIONAL = frozenset({"in_progress", "verdict", "solvable", "moves", "finishes_exact_per_hole",
                          "finishes"})

    board: str
    holes: int
    symmetries: int
    start: list[int]
    reduced: bool
    symmetry: str
    count_paths: bool
    fewest_moves: bool
    engine: str
    created: str
    status: str
    levels: tuple[LevelCount, ...]
    in_progress: InProgress | None = None  # a level made in passes, not yet committed
    verdict: str | None = None  # complete runs
    solvable: bool | None = None  # complete runs
    moves: int | None = None  # complete fewest-moves runs: the fewest moves to the fewest pegs
    finishes_exact_per_hole: bool | None = None  # asked for: see `finishes`
    finishes: tuple[FinishClass, ...] | None = None

    @property
    def winnable(self) -> list[int] | None:
        """The winnable column when it was asked for."""
        if not self.levels or self.levels[0].winnable is None:
            return None
        return [level.winnable for level in self.levels]

    def as_document(self) -> dict:
        document = _present(self) | {"levels": [level.as_document() for level in self.levels]}
        if self.in_progress is not None:
            document["in_progress"] = asdict(self.in_progress)
        if self.finishes is not None:
            document["finishes"] = _finish_rows(self.finishes, self.finishes_exact_per_hole)
        return document


def _finish_rows(classes: tuple[FinishClass, ...], exact: bool) -> list[dict]:
    """Where the last peg stands (with its paths, or its fewest moves): one entry per hole when
    exact, else per class of holes."""
    def values(c: FinishClass, paths: int | None) -> dict:
        return {**({"paths": paths} if paths is not None else {}),
                **({"moves": c.moves} if c.moves is not None else {})}

    if exact:
        return sorted(({"hole": h, **values(c, c.per_hole)} for c in classes for h in c.holes),
                      key=lambda entry: entry["hole"])
    return [{"holes": list(c.holes), **values(c, c.paths)} for c in classes]


@dataclass(frozen=True)
class ByMoves:
    """A run's positions counted by the fewest moves reaching them (not by jumps: a level holds
    positions of many move counts, and one move count spans many levels)."""

    board: str
    start: list[int]
    symmetry: str
    status: str
    by_moves: dict[int, int]  # moves: positions

    @property
    def positions(self) -> int:
        return sum(self.by_moves.values())

    def as_document(self) -> dict:
        return {"board": self.board, "start": self.start, "symmetry": self.symmetry,
                "status": self.status,
                "by_moves": [{"moves": moves, "positions": count}
                             for moves, count in self.by_moves.items()],
                "positions": self.positions}


@dataclass(frozen=True)
class WinnableSets:
    """A run's winnable sets as kept beside its levels (`pegsearch winnable`): per level, the
    positions from which one peg (on `finish`) can still be reached, the bytes they take in the
    store, and whether this asking walked them back or found them kept. Its document is the
    manifest's record of them, which a reader of the run finds there too."""

    record: dict  # the manifest's: finish, engine, values, seconds, created, levels (level 0 first)
    walked: bool  # walked back by this asking (False: kept already)

    @property
    def states(self) -> list[int]:
        """Per level, level 0 first, the positions kept."""
        return [level["states"] for level in self.record["levels"]]

    @property
    def stored(self) -> int:
        """The bytes the sets take in the store."""
        return sum(f["bytes"] for level in self.record["levels"] for f in level["files"])

    @property
    def seconds(self) -> float:
        """The walk back's, when it was made."""
        return self.record["seconds"]

    def as_document(self) -> dict:
        return self.record

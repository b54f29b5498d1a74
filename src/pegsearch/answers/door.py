"""One door for a hint, a solution and a survey: whether a run's levels (or a search per start)
answer or the depth-first solver does, and why, and how large the solver is, decided here for the
command line and the service alike, so the same question asked of either gets the same answer.

A complete run answers from its levels. A board (no run at all), a run not yet complete, or a
run asked with `--depth-first` is answered by the solver, and the reason is kept to be said. A
survey searches each start unless the board is too large for that or the solver is asked for.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from pegsearch.answers import SURVEY_WHOLE
from pegsearch.answers.by_solver import WORKERS, fewest_by_solver, hint_by_solver, solution_by_solver
from pegsearch.answers.documents import require_complete, solution_document
from pegsearch.answers.hint import hint
from pegsearch.answers.shapes import Hint, Solution
from pegsearch.answers.solve import WalkProgress
from pegsearch.answers.solver import Solver
from pegsearch.board.files import load_board
from pegsearch.board.geometry import Board
from pegsearch.board.spec import check_start
from pegsearch.errors import InputError, UsageError
from pegsearch.store import Run

# Goals whose tables one board's solver keeps: a hint and a survey ask for one peg anywhere and
# on each hole; a solution for one peg anywhere or on the asked hole.
SOLUTION_GOALS = 2
# Goals kept by a solver shared by many boards (the service's), each a quarter of its memory: with
# a 64th each, triangle-9's dead table was full after some twenty hints and forgot proofs it needed
# again.
SHARED_GOALS = 4


@dataclass(frozen=True)
class Asked:
    """What a question is asked of: the board and its start, the complete run whose levels answer
    (None: the solver answers), and why the solver answers (None: the run does)."""

    board: Board
    start: tuple[int, ...]
    run: Run | None
    reason: str | None
    location: str  # the run's URI or the board's name, as an answer's JSON says where it came from


def asked(subject: Run | Board, start: list[int] | None = None, depth_first: bool = False) -> Asked:
    """Decide who answers a question asked of a run or a board. `start` applies to a board only (a
    run has its own); `depth_first` asks the solver even of a complete run."""
    if isinstance(subject, Board):
        holes = tuple(start) if start else subject.empty
        check_start(subject, holes)  # each hole checked, and a peg left: as `run` refuses it
        return Asked(subject, holes, None, f"{subject.name} is a board, not a run", subject.name)
    if start:
        raise UsageError(f"--start applies to a board: the run {subject.uri} has its own start"
                         f" (hole {', '.join(map(str, subject.start))})")
    reason = (f"{subject.uri} is an incomplete run ({subject.status})"
              if subject.status != "complete" else "--depth-first" if depth_first else None)
    return Asked(subject.board, tuple(subject.start), None if reason else subject, reason,
                 subject.uri)


def survey_reason(board: Board, depth_first: bool, count_paths: bool = False,
                  fewest_moves: bool = False) -> str | None:
    """Why the solver surveys `board` (None: a search per start does). A count of solutions needs
    a search per start: asked for with the solver, that is one line saying so. The fewest moves
    the solver answers per start (answers.fewest_survey), as Bell's table asks."""
    if not depth_first and board.holes <= SURVEY_WHOLE:
        return None
    if count_paths:
        raise InputError("{depth_first} finds one solution per pair: drop {count_paths}, or survey"
                         " by searching (without {depth_first})" if depth_first else
                         "{count_paths} needs a search per start, which {name} is too large for"
                         " here: survey without it (the solver finds one solution per pair)",
                         name=board.name)
    return "--depth-first" if depth_first else (f"{board.holes} holes: a search of every start would"
                                                " take hours or more")


def board_solver(board: Board, memory: str | int | None = None) -> Solver:
    """A solver for hints and surveys of one board: the tables of one peg anywhere and on each
    hole kept, in `memory` (default the local engine's)."""
    return Solver(memory, goals=board.holes + 1)


def survey_solver(memory: str | int | None = None) -> Solver:
    """A solver for a survey by the solver: the tables of the goals its pairs search at once
    (WORKERS pairs, each both ways, and the next pairs' as those end), each as large as `memory`
    allows: a pair searched for minutes examines hundreds of millions of positions, and a table
    a 42nd of the memory (one for each goal of the board, as hints keep) forgot most of them."""
    return Solver(memory, goals=3 * WORKERS)


def fewest_survey_solver(memory: str | int | None = None) -> Solver:
    """A solver for a survey of fewest moves by the solver: the table of one peg anywhere, which
    every start shares, and beside it each start searched at once its table of states known
    short (half a goal's: answers.fewest_solver), within `memory`."""
    return Solver(memory, goals=WORKERS + 1)


def solution_solver(memory: str | int | None = None) -> Solver:
    """A solver for one solution: one peg anywhere, or on the asked hole."""
    return Solver(memory, goals=SOLUTION_GOALS)


def shared_solver(memory: str | int | None = None) -> Solver:
    """A solver shared by every board a service is asked about (see SHARED_GOALS)."""
    return Solver(memory, goals=SHARED_GOALS)


def ready_for_hints() -> None:
    """Load what a board's first hint would wait for: scipy's linear programming (the pagoda
    functions; 1.2 s to import) and the solver's kernels (from numba's cache), by one hint on
    triangle-5 with a solver of its own (the service's keeps its tables for the boards asked). A
    service calls it as it starts: its first hint took 3.1 s on a quiet machine, 6.7 s loaded,
    against a bound of 3 (issue 64, item 11)."""
    board = load_board("triangle-5")
    start = board.start_position(board.empty)
    hint_by_solver(board, start, None, 0.5, Solver(1 << 24), True, None)


def hint_of(question: Asked, position: int, finish: int | None, seconds: float, solver: Solver,
            from_start: bool = False, stop: threading.Event | None = None) -> Hint:
    """The hint for a position: the run's, read from its kept winnable sets, or the
    solver's within `seconds` (`stop` ends it early: its asker went away)."""
    if question.run is None:
        return hint_by_solver(question.board, position, finish, seconds, solver, from_start, stop)
    return hint(require_complete(question.run, "a hint"), position, finish, from_start=from_start)


def fewest_asked(question: Asked) -> Asked:
    """Who answers a question of the fewest moves: a complete run that carries them, else the
    solver (a complete run without them is said to be the reason)."""
    run = question.run
    if run is None or run.fewest_moves:
        return question
    return Asked(question.board, question.start, None,
                 f"{run.uri} carries no fewest moves", question.location)


def solution_of(question: Asked, finish: int | None, seconds: float, solver: Solver,
                progress: WalkProgress | None = None, fewest_moves: bool = False) -> Solution:
    """One solution from the start: walked back through the run's levels, or found by the solver
    within `seconds`; or why there is none (or none yet). `fewest_moves`, asked of the solver
    (`fewest_asked`): the line with the fewest moves, proved or the best found."""
    if question.run is None:
        answer = fewest_by_solver if fewest_moves else solution_by_solver
        return answer(question.board, question.start, finish, seconds, solver)
    return solution_document(require_complete(question.run, "a solution"), finish, progress)

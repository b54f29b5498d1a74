"""Bell's table of shortest solutions by the solver: every single vacancy's fewest moves to one peg.

A survey by searching (answers.survey) reads each start's fewest moves from a whole search, which
past triangle-7 takes minutes and gigabytes a start. The solver answers one start's fewest moves
without it (answers.fewest_solver: proved fewest, or the best line found and the bound proved
below it); this asks it of one start per class of holes, a core each, and every hole of a class
takes its start's answer through a symmetry (a symmetry maps a line onto a line with the same
moves). The least over the starts is proved once some start's line has M moves and no start can
have fewer (each start proved, or its bound at least M): G. I. Bell's A127500 asks exactly that.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from pegsearch.answers import SURVEY_WHOLE
from pegsearch.answers.fewest import move_numbers
from pegsearch.answers.fewest_solver import FewestFound, fewest_moves
from pegsearch.answers.shapes import BY
from pegsearch.answers.solver import LOST_WORD, Solver
from pegsearch.board.geometry import Board, Jump
from pegsearch.board.symmetry import Permutation, hole_classes, image_of_hole, image_of_jump
from pegsearch.kernel.threads import WORKERS


@dataclass(frozen=True)
class FewestStart:
    """One start hole's fewest moves to one peg anywhere: `moves` the best line's (None: no line),
    `at_least` the fewest any solution can have as proved, `proved` whether they are the same (or,
    lost, that no solution exists); `searched` the hole whose answer this is, through a symmetry."""

    start: int
    searched: int
    outcome: str
    moves: int | None
    at_least: int
    proved: bool
    line: tuple[Jump, ...]
    examined: int
    seconds: float

    @property
    def said(self) -> str:
        """The fewest moves as the table says them: `13`, `15 found, at least 13`, `none` (proved
        lost), `undecided, at least 12`."""
        if self.outcome == LOST_WORD:
            return "none"
        if self.moves is None:
            return f"undecided, at least {self.at_least}"
        return str(self.moves) if self.proved else f"{self.moves} found, at least {self.at_least}"

    @property
    def numbers(self) -> list[int]:
        """Each jump's move, counted from 1."""
        return move_numbers(self.line)

    @property
    def finish(self) -> int | None:
        """The hole the line leaves its last peg on."""
        return self.line[-1].to if self.line else None

    def document(self) -> dict:
        """A survey start's document (the fields every survey's starts have, which the service's
        description reads) with the fewest moves: moves, proved, at_least and the line."""
        return {"start": self.start, "searched": self.searched, "solvable": self.moves is not None,
                "finishes": [self.finish] if self.line else [], "states": self.examined,
                "outcome": self.outcome, "moves": self.moves, "proved": self.proved,
                "at_least": self.at_least, "line": ",".join(map(str, self.line)),
                "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class FewestSurvey:
    """Every start hole's fewest moves (`fewest_survey`) and what they prove of the least."""

    board: Board
    results: tuple[FewestStart, ...]
    seconds: float  # each start's time bound
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))

    @property
    def fewest(self) -> int | None:
        """The fewest moves of any line found (None: none found)."""
        return min((r.moves for r in self.results if r.moves is not None), default=None)

    @property
    def open_below(self) -> list[FewestStart]:
        """The starts that may still have fewer moves than the least found: not proved, their
        bound below it (every start, when no line was found)."""
        fewest = self.fewest
        return [r for r in self.results if not r.proved and (fewest is None or r.at_least < fewest)]

    @property
    def proved(self) -> bool:
        """Whether the least is proved: a line with it found, and no start can do better."""
        return self.fewest is not None and not self.open_below

    @property
    def verdict(self) -> str:
        fewest, open_ = self.fewest, self.open_below
        if fewest is None:
            said = "no line to one peg found from any single vacancy"
        else:
            best = [r.start for r in self.results if r.moves == fewest]
            said = (f"the fewest moves to one peg from a single vacancy: {fewest}"
                    f" (from {_named('hole', best)})")
        if not open_:
            said += ", proved"
            unproved = [r.start for r in self.results if not r.proved]
            if unproved:  # their own fewest, not the least
                said += (f" (the own fewest of {_named('start', unproved)} not proved: none has"
                         f" fewer than {fewest})")
            return said
        least = min(r.at_least for r in open_)
        command = f"pegsearch survey {self.board.name} --fewest-moves"
        if self.board.holes <= SURVEY_WHOLE:
            command += " --depth-first"
        searched = sorted({r.searched for r in open_})
        others = " and the holes symmetric to them" if len(open_) > len(searched) else ""
        return (f"{said}, not proved: {_named('start', searched)}{others}"
                f" may need as few as {least} (each start's time bound, {self.seconds:g} s, was"
                f" reached); decide them with `{command} --seconds {10 * self.seconds:g}`")

    def as_document(self) -> dict:
        return {"board": self.board.name, "holes": self.board.holes, "count_paths": False,
                "engine": BY, "by": BY, "created": self.created, "seconds": self.seconds,
                "starts": [r.document() for r in self.results],
                "solvable_starts": sum(r.moves is not None for r in self.results),
                "fewest_moves": self.fewest, "proved": self.proved,
                "fewest_moves_starts": [r.start for r in self.results
                                        if self.fewest is not None and r.moves == self.fewest],
                "verdict": self.verdict}


def fewest_survey(board: Board, seconds: float, solver: Solver,
                  progress: Callable[[FewestStart], None] | None = None) -> FewestSurvey:
    """Every single vacancy of `board` to one peg anywhere in the fewest moves, by the solver: one
    start per class of holes, each within `seconds`, a start a core at once (they share the
    solver's table of one peg anywhere); `progress` hears each searched start as it ends."""
    searched = [holes[0] for holes in hole_classes(board)]

    def answered(start: int) -> FewestFound:
        found = fewest_moves(board, board.start_position((start,)), None, seconds, solver)
        if progress:
            progress(_carried(start, start, found, board.symmetries[0]))
        return found

    with ThreadPoolExecutor(WORKERS, thread_name_prefix="pegsearch-fewest") as pool:
        found = dict(zip(searched, pool.map(answered, searched), strict=True))
    results = {hole: _carried(hole, holes[0], found[holes[0]],
                              next(p for p in board.symmetries if image_of_hole(p, holes[0]) == hole))
               for holes in hole_classes(board) for hole in holes}
    return FewestSurvey(board, tuple(results[hole] for hole in sorted(results)), seconds)


def _carried(start: int, searched: int, found: FewestFound, perm: Permutation) -> FewestStart:
    """`searched`'s answer carried by `perm` onto `start`: a symmetry maps each jump onto a jump,
    and a move (jumps in a row by one peg) onto a move, so the moves and bound stay."""
    return FewestStart(start, searched, found.outcome, found.moves, found.at_least, found.proved,
                       tuple(image_of_jump(perm, jump) for jump in found.line), found.examined,
                       found.seconds)


def _named(noun: str, holes: list[int]) -> str:
    """`hole 3`, `holes 1, 3`."""
    return f"{noun}{'s' if len(holes) > 1 else ''} {', '.join(map(str, holes))}"

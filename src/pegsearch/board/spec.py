"""The search specification: what makes two runs the same search, and the rules for a valid start.

Both faces (the command line and the service) turn a request into a `SearchSpec` here, so a start
is checked, defaulted and named the same way whoever asked.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from pegsearch.board.classes import invariants, kept_by
from pegsearch.board.geometry import Board
from pegsearch.board.symmetry import Permutation
from pegsearch.errors import InputError, UsageError

SYMMETRY_MODES = ("board", "start", "none")
# How a run's folder name says what was reduced and counted (the default reduction says nothing).
SYMMETRY_TAGS = {"board": "", "start": "-bystart", "none": "-raw"}
# How a run takes signatures (see SearchSpec.signing): "class" for every run made now; "group" for
# runs made before it, whose manifests do not say (they stay readable, and resume as they were).
SIGNATURES = ("class", "group")
# What a run keeps of its levels (`run --keep`): "all" of every level's parts, or "last": once a
# level is committed the parts of the levels before it are removed (their records stay: pegs,
# states, digest, bytes, and "dropped"), so the disk holds at most two levels' parts, the one
# being made and its parents. Enough to count the next level; not to walk back (solve, hint).
# Here, beside the other choices a run is made with, so the command line's parser lists them light.
KEEPS = ("all", "last")


@dataclass(frozen=True)
class SearchSpec:
    """What makes two runs the same search: board geometry, start, reduction and what is counted.

    `symmetry` says which group signatures are taken under: "board" (the board's whole group, one
    position per orbit: the published convention), "start" (only the symmetries that fix the start,
    which keeps finishing holes and per-hole path counts exact) or "none" (raw positions).
    `signatures` says how a position's representative is chosen (see `signing`); it changes which
    positions are stored, never how many.
    """

    board: Board
    start: tuple[int, ...]
    symmetry: str = "board"
    count_paths: bool = False
    fewest_moves: bool = False
    signatures: str = "class"

    @classmethod
    def asked(cls, board: Board, start: Iterable[int] | None, symmetry: str = "board",
              count_paths: bool = False, fewest_moves: bool = False) -> SearchSpec:
        """The search a user asked for: `start` checked hole by hole (each named once, see
        `Board.start_position`), or the holes drawn empty."""
        holes = tuple(sorted(board.hole_of(h) for h in start)) if start else board.empty
        if not holes:
            raise UsageError(f"{board.name} has no empty hole to start from: name the holes empty"
                             " at the start (--start HOLE, or 'start' in a request)")
        if symmetry not in SYMMETRY_MODES:
            raise UsageError(f"symmetry '{symmetry}': use one of {', '.join(SYMMETRY_MODES)}")
        check_values(count_paths, fewest_moves)
        spec = cls(board, holes, symmetry, count_paths, fewest_moves)
        check_start(board, holes)
        return spec

    @property
    def reduced(self) -> bool:
        return self.symmetry != "none"

    @property
    def group(self) -> tuple[tuple[int, ...], ...]:
        """The permutations signatures are taken under, identity first."""
        if self.symmetry == "board":
            return self.board.symmetries
        if self.symmetry == "start":
            return self.board.stabilizer(self.board.start_position(self.start))
        return self.board.symmetries[:1]

    @cached_property
    def signing(self) -> tuple[Permutation, ...]:
        """The permutations signatures are taken under, identity first: those of `group` that keep
        the start's position class ("class"), or all of `group` (runs made before, "group").

        Every reachable position lies in the start's class c, and a symmetry either keeps c or
        carries all of it to another class; so a position's orbit under `group` meets c in exactly
        its images under the symmetries keeping c. The least of those is as good a representative:
        one per orbit, so the same counts, path counts and fewest moves, and every stored position
        stays in c, where a level's bitmap needs to span only c (kernel.ranks). Triangles searched
        from a corner are the case in point: their rotations move the start's class.
        """
        if self.signatures == "group":
            return self.group
        start, basis = self.board.start_position(self.start), invariants(self.board)
        return tuple(perm for perm in self.group if kept_by((perm,), start, basis))

    def as_json(self) -> dict:
        return {"board": self.board.definition(), "board_digest": self.board.digest,
                "start": list(self.start), "reduced": self.reduced, "symmetry": self.symmetry,
                "count_paths": self.count_paths, "fewest_moves": self.fewest_moves,
                "signatures": self.signatures}

    def same_search(self, other: SearchSpec) -> bool:
        """Whether two specs ask the same question: all but how signatures are taken, which a
        stored run keeps when it is resumed."""
        return {**self.as_json(), "signatures": None} == {**other.as_json(), "signatures": None}

    def describe(self) -> str:
        holes = ", ".join(str(h) for h in self.start)
        return f"{self.board.name} from hole{'s' if len(self.start) > 1 else ''} {holes}"

    def name(self) -> str:
        """A folder name that says what the search is and when it started, with a random tail so
        that two searches started in the same second never share one."""
        holes = "-".join(map(str, self.start))[:40]
        tag = SYMMETRY_TAGS[self.symmetry] + values_tag(self.count_paths, self.fewest_moves)
        return f"{slug(self.board.name)}-h{holes}{tag}-{timestamp()}"


def values_tag(count_paths: bool, fewest_moves: bool) -> str:
    """How a folder name says what its positions carry."""
    return "-paths" if count_paths else "-moves" if fewest_moves else ""


def check_values(count_paths: bool, fewest_moves: bool) -> None:
    """One value per position: path counts and fewest moves are two searches."""
    if count_paths and fewest_moves:
        raise InputError("{count_paths} and {fewest_moves} cannot be combined: a run carries one"
                         " value per position; search once with each")


def survey_name(board: Board, count_paths: bool, fewest_moves: bool = False) -> str:
    """A folder name for a survey of every start hole of `board`."""
    return f"survey-{slug(board.name)}{values_tag(count_paths, fewest_moves)}-{timestamp()}"


def slug(name: str) -> str:
    """A board name reduced to letters, digits and dashes (it may come from an uploaded file)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "board"


def timestamp() -> str:
    """The time to the second, and a random tail: names made together differ."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def check_start(board: Board, empty: tuple[int, ...]) -> None:
    """Refuse a start with no peg: there is nothing to jump, and a "complete" run of it would report
    zero pegs as the fewest reachable. (One peg is a start already solved: a run of one level.)"""
    if board.start_position(empty) == 0:
        drawn = " (the layout draws every hole empty)" if set(empty) == set(board.empty) else ""
        holes = f"all {board.holes} holes are" if board.holes > 1 else "its one hole is"
        raise InputError("the start leaves no peg on {name}: {holes} empty{drawn}; leave at least"
                         " one hole with a peg ({start} names the holes empty at the start)",
                         name=board.name, holes=holes, drawn=drawn)

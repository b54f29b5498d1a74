"""The start-hole survey: which single vacancies can be played down to one peg, and where it stands.

Holes related by a symmetry of the board give the same game, so one start per class of holes is
searched, each as an ordinary run (resumable, verifiable, readable by `counts` and `solve`) reduced
only by the symmetries fixing its start, which makes its finishing holes exact. Every other hole of
the class takes the same result carried through a symmetry g: the finishes of g(s) are g(finishes of s).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pegsearch.answers.finishes import finishes
from pegsearch.board.geometry import Board, Jump
from pegsearch.board.spec import SearchSpec
from pegsearch.board.symmetry import hole_classes, image_of_hole
from pegsearch.engines import Engine
from pegsearch.engines.driver import Progress, search
from pegsearch.errors import UsageError
from pegsearch.store import MANIFEST, Location, Run

# A finished survey's answers, beside its start-NN runs: what makes the folder a survey to every
# reader (the service's listing, `pegsearch runs`), whichever face made it.
SURVEY = "survey.json"
START_FOLDER = re.compile(r"start-\d+")


@dataclass(frozen=True)
class StartResult:
    """The survey's answer for one start hole; `searched` is the hole whose run answered it."""

    start: int
    searched: int
    solvable: bool
    finishes: tuple[int, ...]
    states: int
    solutions: int | None
    run: str
    moves: tuple[int, ...] | None = None  # the fewest moves to each of `finishes` (--fewest-moves)
    # By the solver (answers.by_solver): a line of play to each finishing hole, the holes proved
    # out of reach with how, and those no bound let it decide.
    lines: dict[int, tuple[Jump, ...]] | None = None
    lost: dict[int, str] | None = None
    undecided: tuple[int, ...] = ()
    record: str = ""  # the proof of the shipped record that decided some pairs (answers.records)

    @property
    def fewest_moves(self) -> int | None:
        """The fewest moves to one peg on any hole (None when not asked, or not solvable)."""
        return min(self.moves, default=None) if self.moves is not None else None

    def document(self) -> dict:
        document = {"start": self.start, "solvable": self.solvable, "finishes": list(self.finishes),
                    "states": self.states, "searched": self.searched}
        if self.solutions is not None:
            document["solutions"] = self.solutions
        if self.moves is not None:
            document["fewest_moves"] = self.fewest_moves
            document["moves_by_finish"] = {str(hole): moves
                                           for hole, moves in zip(self.finishes, self.moves, strict=True)}
        if self.lines is not None:
            document["lines"] = {str(hole): ",".join(map(str, line)) for hole, line in self.lines.items()}
            document["lost"] = {str(hole): how for hole, how in (self.lost or {}).items()}
            document["undecided"] = list(self.undecided)
            if self.run:  # the whole search that settled pairs the solver left undecided
                document["whole_search"] = self.run
            if self.record:  # the shipped record that did
                document["record"] = self.record
        return document


def survey(board: Board, out: str | Path, make_engine: Callable[[], Engine], count_paths: bool = False,
           progress: Callable[[int], Progress | None] | None = None,
           fewest_moves: bool = False) -> list[StartResult]:
    """Search one start per class of holes into `out/start-NN` and answer for every hole.

    A start whose run in `out` is already complete is read, not searched again; an unfinished one is
    resumed, so an interrupted survey continues where it stopped.
    """
    results: dict[int, StartResult] = {}
    folder = Location.parse(out)
    folder.check()
    refuse_other_searches(board, folder, count_paths, fewest_moves)
    for holes in hole_classes(board):
        spec = SearchSpec.asked(board, (holes[0],), "start", count_paths, fewest_moves)
        searched = _searched(spec, folder / f"start-{holes[0]:02d}", make_engine,
                             progress(holes[0]) if progress else None)
        for hole in holes:
            perm = next(p for p in board.symmetries if image_of_hole(p, searched.start) == hole)
            moved = sorted((image_of_hole(perm, f), moves) for f, moves in
                           zip(searched.finishes, searched.moves or [None] * len(searched.finishes),
                               strict=True))
            results[hole] = StartResult(hole, searched.start, searched.solvable,
                                        tuple(f for f, _ in moved), searched.states,
                                        searched.solutions, searched.run,
                                        tuple(m for _, m in moved) if fewest_moves else None)
    return [results[hole] for hole in sorted(results)]


def _searched(spec: SearchSpec, folder: Location, make_engine: Callable[[], Engine],
              progress: Progress | None) -> StartResult:
    run = whole_search(spec, folder, make_engine, progress)
    classes = finishes(run)
    by_hole = sorted((hole, c) for c in classes for hole in c.holes)
    solutions = sum(c.paths for c in classes) if spec.count_paths else None
    moves = tuple(c.moves for _, c in by_hole) if spec.fewest_moves else None
    return StartResult(spec.start[0], spec.start[0], bool(by_hole), tuple(h for h, _ in by_hole),
                       sum(r["states"] for r in run.levels), solutions, run.uri, moves)


def whole_search(spec: SearchSpec, folder: Location, make_engine: Callable[[], Engine],
                 progress: Progress | None = None) -> Run:
    """The complete run of `spec` in `folder`: read when already complete there, resumed when
    unfinished, else searched; a folder holding another search is refused in one line."""
    stored = Run.open(folder) if folder.is_file(MANIFEST) else None
    if stored is not None:
        _refuse_another(stored, spec, folder)
        stored.require_every_level("a survey")
    if stored is not None and stored.status == "complete":
        return stored
    return search(spec, folder, make_engine(), resume=stored is not None, progress=progress)


def refuse_other_searches(board: Board, folder: Location, count_paths: bool = False,
                          fewest_moves: bool = False) -> None:
    """Refuse, before any start is searched, a survey folder whose start-NN runs hold another
    search than the survey would make there: each start's own check comes only at its turn, after
    the searches before it (or the solver's pass over every pair: minutes on diamond-41)."""
    for name in _start_folders(folder):
        start, into = int(name.removeprefix("start-")), folder / name
        if 1 <= start <= board.holes:
            spec = SearchSpec.asked(board, (start,), "start", count_paths, fewest_moves)
            _refuse_another(Run.open(into), spec, into)


def _refuse_another(stored: Run, spec: SearchSpec, folder: Location) -> None:
    """A survey's start-NN folder holding another search than `spec`: one line, choose another --out."""
    if stored.spec.as_json() != spec.as_json():
        raise UsageError(f"{folder} holds another search ({stored.describe()}, count paths:"
                         f" {stored.count_paths}, fewest moves: {stored.fewest_moves}); a survey"
                         " folder is reused only for the same board, --count-paths and"
                         " --fewest-moves: choose another --out")


def store_answers(folder: Location, document: dict) -> None:
    """Keep a finished survey's document (`survey --json`'s) in its folder, replaced whole."""
    folder.replace(SURVEY, (json.dumps(document, indent=1) + "\n").encode())


def stored_answers(folder: Location) -> dict | None:
    """A finished survey's document, or None before it finished (or where no survey is)."""
    return json.loads(folder.read(SURVEY)) if folder.is_file(SURVEY) else None


def start_runs(folder: Location) -> list[Location]:
    """The start-NN runs of a survey folder (none in a folder that is no survey)."""
    return [folder / name for name in _start_folders(folder)]


def _start_folders(folder: Location) -> list[str]:
    """The names of a survey folder's start-NN folders that hold a run, in order."""
    return [name for name in sorted(folder.folders())
            if START_FOLDER.fullmatch(name) and (folder / name).is_file(MANIFEST)]

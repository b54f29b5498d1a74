"""The start-hole survey: which single vacancies can be played down to one peg, and where it stands.

Holes related by a symmetry of the board give the same game, so one start per class of holes is
searched, each as an ordinary run (resumable, verifiable, readable by `counts` and `solve`) reduced
only by the symmetries fixing its start, which makes its finishing holes exact. Every other hole of
the class takes the same result carried through a symmetry g: the finishes of g(s) are g(finishes of s).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pegsearch.answers.finishes import finishes
from pegsearch.board.geometry import Board
from pegsearch.board.spec import SearchSpec
from pegsearch.board.symmetry import hole_classes, image_of_hole
from pegsearch.engines import Engine
from pegsearch.engines.driver import Progress, search
from pegsearch.errors import UsageError
from pegsearch.store import MANIFEST, Location, Run


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

    def document(self) -> dict:
        document = {"start": self.start, "solvable": self.solvable, "finishes": list(self.finishes),
                    "states": self.states, "searched": self.searched}
        if self.solutions is not None:
            document["solutions"] = self.solutions
        return document


def survey(board: Board, out: str | Path, make_engine: Callable[[], Engine], count_paths: bool = False,
           progress: Callable[[int], Progress | None] | None = None) -> list[StartResult]:
    """Search one start per class of holes into `out/start-NN` and answer for every hole.

    A start whose run in `out` is already complete is read, not searched again; an unfinished one is
    resumed, so an interrupted survey continues where it stopped.
    """
    results: dict[int, StartResult] = {}
    folder = Location.parse(out)
    folder.check()
    for holes in hole_classes(board):
        searched = _searched(board, holes[0], folder / f"start-{holes[0]:02d}", make_engine,
                             count_paths, progress(holes[0]) if progress else None)
        for hole in holes:
            perm = next(p for p in board.symmetries if image_of_hole(p, searched.start) == hole)
            results[hole] = StartResult(hole, searched.start, searched.solvable,
                                        tuple(sorted(image_of_hole(perm, f) for f in searched.finishes)),
                                        searched.states, searched.solutions, searched.run)
    return [results[hole] for hole in sorted(results)]


def _searched(board: Board, start: int, folder: Location, make_engine: Callable[[], Engine],
              count_paths: bool, progress: Progress | None) -> StartResult:
    spec = SearchSpec(board, (start,), "start", count_paths)
    stored = Run.open(folder) if folder.is_file(MANIFEST) else None
    if stored is not None and stored.spec.as_json() != spec.as_json():
        raise UsageError(f"{folder} holds another search ({stored.describe()}, count paths:"
                         f" {stored.count_paths}); a survey folder is reused only for the same board"
                         " and --count-paths: choose another --out")
    run = stored
    if stored is None or stored.status != "complete":
        run = search(spec, folder, make_engine(), resume=stored is not None, progress=progress)
    classes = finishes(run)
    holes = tuple(sorted({hole for c in classes for hole in c.holes}))
    solutions = sum(c.paths for c in classes) if count_paths else None
    return StartResult(start, start, bool(classes), holes, sum(r["states"] for r in run.levels),
                       solutions, run.uri)

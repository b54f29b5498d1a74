"""The JSON documents the service answers, built from run directories, records and the job queue.

Framework-free on purpose: the application only routes requests here. Run documents reuse the CLI's
`--json` shape (`report.run_document`) so scripts read the API and the CLI alike.
"""

from __future__ import annotations

import time
from pathlib import Path

from pegsearch.analysis import exact_per_hole, finishes, solve, winnable_counts
from pegsearch.board import Board, board_from_definition
from pegsearch.codec import holes_with_pegs, render
from pegsearch.errors import UsageError
from pegsearch.report import finish_documents, run_document
from pegsearch.search import verdict
from pegsearch.service.jobs import Jobs
from pegsearch.service.records import Record, valid_id
from pegsearch.service.storage import is_complete, open_run, run_ids, survey_results
from pegsearch.service.storage import level_parts as stored_parts
from pegsearch.store import Run

CREATED = "%Y-%m-%dT%H:%M:%S%z"  # as run manifests write it, so listings sort by it


class Refused(Exception):
    """A request the service answers with a 4xx status and one line saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def board_document(board: Board) -> dict:
    """A board with what a client needs to draw it: hole coordinates on the text grid, pictures."""
    return {"name": board.name, "description": board.description, "grid": board.grid,
            "holes": board.holes, "jumps": len(board.jumps), "symmetries": len(board.symmetries),
            "empty": list(board.empty), "cells": [list(cell) for cell in board.cells],
            "picture": render(board, numbers=True), "start_picture": render(board, board.start_position())}


class Searches:
    """The searches of a runs root as the API shows them: run directories plus queue records."""

    def __init__(self, root: Path, jobs: Jobs) -> None:
        self.root = root
        self.jobs = jobs

    def find(self, search_id: str) -> tuple[Run | None, Record | None]:
        """The run and record of a search; 404 for an id that is not one (paths never are)."""
        if not valid_id(search_id):
            raise Refused(404, f"no search '{search_id[:80]}': ids are the names the server gave")
        record = self.jobs.records.get(search_id)
        run = open_run(self.root, search_id)
        if run is None and record is None:
            raise Refused(404, f"no search '{search_id}'")
        return run, record

    def status(self, search_id: str, run: Run | None, record: Record | None) -> str:
        held = self.jobs.state(search_id)
        if held is not None:
            return held
        if record is not None and record.error is not None:
            return "failed"
        return "complete" if is_complete(self.root, search_id) else "interrupted"

    def document(self, search_id: str, answers: bool = True) -> dict:
        """One search in the CLI's `--json` shape plus id, status and settings; with `answers`, a
        complete run also says where the last peg stands."""
        run, record = self.find(search_id)
        status = self.status(search_id, run, record)
        if record is not None and record.survey:
            return self._survey(record, status)
        if run is not None:
            document = run_document(run)
            document.update(symmetry=run.identity.symmetry, count_paths=run.count_paths,
                            engine=run.manifest["engine"], created=run.manifest["created"])
        else:
            board = board_from_definition(record.board, f"search {search_id} (board)")
            document = {"board": board.name, "holes": board.holes, "start": record.start,
                        "reduced": record.symmetry != "none", "symmetry": record.symmetry,
                        "count_paths": record.count_paths, "engine": record.engine,
                        "created": _created(record),
                        "levels": []}
        document = {"id": search_id, "kind": "search", **document, "status": status}
        if record is not None:
            document["settings"] = record.settings
        if run is not None and status == "complete":
            document["verdict"] = verdict(run).sentence()
            document["solvable"] = verdict(run).solvable
            if answers:
                document["finishes_exact_per_hole"] = exact_per_hole(run)
                document["finishes"] = finish_documents(finishes(run), exact_per_hole(run))
        if status == "failed":
            document["error"] = record.error
        return document

    def _survey(self, record: Record, status: str) -> dict:
        """A survey: what was asked, and once finished, the answer for every start hole."""
        board = board_from_definition(record.board, f"search {record.id} (board)")
        document = {"id": record.id, "kind": "survey", "board": board.name, "holes": board.holes,
                    "start": [], "count_paths": record.count_paths, "engine": record.engine,
                    "settings": record.settings,
                    "created": _created(record), "levels": [], "status": status}
        results = survey_results(self.root, record.id) if status == "complete" else None
        if results is not None:
            document["starts"] = results["starts"]
            solvable = sum(start["solvable"] for start in results["starts"])
            document["verdict"] = f"one peg is reachable from {solvable} of {board.holes} start holes"
        if status == "failed":
            document["error"] = record.error
        return document

    def listing(self) -> list[dict]:
        """Every search under the root, newest first: those with a run directory and queued ones."""
        ids = run_ids(self.root) | {record.id for record in self.jobs.records.all()}
        rows = []
        for search_id in ids:
            try:
                document = self.document(search_id, answers=False)
            except (Refused, UsageError):  # deleted while listing, or a damaged run directory
                continue
            rows.append({key: document.get(key) for key in (
                "id", "kind", "board", "start", "symmetry", "count_paths", "engine", "status", "verdict")}
                | {"levels": len(document["levels"]),
                   "states": sum(level["states"] for level in document["levels"]),
                   "created": document.get("created", "")})
        return sorted(rows, key=lambda row: (row["created"], row["id"]), reverse=True)

    def complete_run(self, search_id: str) -> Run:
        """The run of a search whose answers are asked for; 409 while it is not complete."""
        run, record = self.find(search_id)
        status = self.status(search_id, run, record)
        if record is not None and record.survey:
            raise Refused(400, f"{search_id} is a survey: its answers are the 'starts' of its document")
        if run is None or status != "complete":
            raise Refused(409, f"search {search_id} is {status}: answers need a complete run")
        return run


def _created(record: Record) -> str:
    return time.strftime(CREATED, time.localtime(record.submitted / 1e9))


def counts_document(run: Run, winnable: bool, finish: int | None) -> dict:
    """The per-level table, with the winnable positions per level when asked for."""
    if finish is not None:
        run.board.hole_of(finish)
    document = run_document(run, winnable_counts(run, finish) if winnable else None)
    document["verdict"] = verdict(run).sentence()
    return document


def solution_document(run: Run, finish: int | None) -> dict:
    """One line of play from the real start: its jumps and the board after each (holes with pegs,
    and the CLI's text picture), or the best line when one peg cannot be reached."""
    if finish is not None:
        run.board.hole_of(finish)
    line = solve(run, finish)
    positions = [line.start, *line.positions]
    return {"solved": line.solved, "note": line.note, "finish": finish,
            "jumps": [{"from": j.start, "over": j.over, "to": j.to} for j in line.jumps],
            "positions": [holes_with_pegs(p) for p in positions],
            "pictures": [render(run.board, p) for p in positions],
            "board": board_document(run.board)}


def level_parts(run: Run, level: int) -> list[dict]:
    """The part entries of a stored level; 404 for a level the run does not have (yet)."""
    if not 0 <= level < len(run.levels):
        raise Refused(404, f"level {level} does not exist: the run has levels 0 to {len(run.levels) - 1}")
    return stored_parts(run, level)

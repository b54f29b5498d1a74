"""The answers as documents: the one shape the command line's `--json` and the service both send.

Each document is built here once, with its preconditions (a complete run, a hole that exists), so a
script reads the CLI and the API alike and the two cannot drift apart. The faces only translate:
arguments or a request in, text or JSON out.
"""

from __future__ import annotations

from pegsearch.answers.finishes import FinishClass, exact_per_hole, finishes
from pegsearch.answers.solve import solve
from pegsearch.answers.survey import StartResult
from pegsearch.answers.verdict import verdict
from pegsearch.answers.winnable import winnable_per_level
from pegsearch.board.geometry import Board
from pegsearch.board.pictures import holes_with_pegs, render
from pegsearch.errors import Conflict, UsageError
from pegsearch.store import Run


def require_complete(run: Run, asking: str) -> Run:
    """Refuse answers that need the whole search from a run that has not finished."""
    if run.status != "complete":
        raise Conflict(f"{run.uri} is an incomplete run ({run.status}): finish it by resuming it"
                       f" before asking for {asking}")
    return run


def search_document(run: Run, winnable: list[int] | None = None, answers: bool = True) -> dict:
    """A run: what was searched, its levels (with winnable positions when walked) and, once it is
    complete, its verdict; with `answers`, also where the last peg stands (reads the last level)."""
    levels = [level_document(record) for record in run.levels]
    for document, count in zip(levels, winnable or [], strict=False):
        document["winnable"] = count
    document = {"board": run.board.name, "holes": run.board.holes,
                "symmetries": run.manifest["symmetries"], "start": list(run.start),
                "reduced": run.reduced, "symmetry": run.spec.symmetry, "count_paths": run.count_paths,
                "engine": run.manifest["engine"], "created": run.manifest["created"],
                "status": run.status, "levels": levels}
    if run.status == "complete":
        found = verdict(run)
        document.update(verdict=found.sentence(), solvable=found.solvable)
        if answers:
            exact = exact_per_hole(run)
            document.update(finishes_exact_per_hole=exact,
                            finishes=finish_documents(finishes(run), exact))
    return document


def level_document(record: dict) -> dict:
    """One committed level as clients see it: level, pegs, states (and its path total)."""
    document = {"level": record["level"], "pegs": record["pegs"], "states": record["states"]}
    if "paths" in record:
        document["paths"] = int(record["paths"])
    return document


def finish_documents(classes: list[FinishClass], exact: bool) -> list[dict]:
    """Where the last peg stands: one entry per hole when exact, else per class of holes."""
    counted = bool(classes) and classes[0].paths is not None
    if exact:
        return [{"hole": h, **({"paths": c.per_hole} if counted else {})}
                for c in classes for h in c.holes]
    return [{"holes": list(c.holes), **({"paths": c.paths} if counted else {})} for c in classes]


def counts_document(run: Run, winnable: bool = False, finish: int | None = None,
                    engine: str | None = None, master: str | None = None,
                    answers: bool = True) -> dict:
    """The level table, with the positions per level that can still reach one peg (on `finish`)
    when `winnable` is asked; `engine` walks the levels back (default: in this process); with
    `answers`, where the last peg stands (see `search_document`)."""
    if finish is not None:
        run.board.hole_of(finish)
        if not winnable:
            raise UsageError("a finishing hole applies to winnable positions: ask for both"
                             " (--winnable --finish HOLE, or winnable=true&finish=HOLE)")
    if (engine or master) and not winnable:
        raise UsageError("an engine or master applies to winnable positions: ask for them too")
    if not winnable:
        return search_document(run, answers=answers)
    require_complete(run, "winnable positions")
    return search_document(run, winnable_per_level(run, finish, engine, master), answers)


def solution_document(run: Run, finish: int | None = None) -> dict:
    """One line of play from the real start: its jumps and the board after each (holes with pegs,
    and the text picture), or the best line when one peg cannot be reached."""
    if finish is not None:
        run.board.hole_of(finish)
    require_complete(run, "a solution")
    line = solve(run, finish)
    positions = [line.start, *line.positions]
    return {"solved": line.solved, "note": line.note, "finish": finish,
            "jumps": [{"from": j.start, "over": j.over, "to": j.to} for j in line.jumps],
            "positions": [holes_with_pegs(p) for p in positions],
            "pictures": [render(run.board, p) for p in positions],
            "board": board_document(run.board)}


def survey_document(board: Board, results: list[StartResult]) -> dict:
    """A survey of every start hole: one row per hole, and how many holes can be played down to
    one peg."""
    solvable = sum(result.solvable for result in results)
    return {"board": board.name, "holes": board.holes,
            "starts": [result.document() for result in results], "solvable_starts": solvable,
            "verdict": f"one peg is reachable from {solvable} of {len(results)} start holes"}


def board_document(board: Board) -> dict:
    """A board with what a client needs to draw it: hole coordinates on the text grid, pictures."""
    return {"name": board.name, "description": board.description, "grid": board.grid,
            "holes": board.holes, "jumps": len(board.jumps), "symmetries": len(board.symmetries),
            "empty": list(board.empty), "cells": [list(cell) for cell in board.cells],
            "picture": render(board, numbers=True),
            "start_picture": render(board, board.start_position())}

"""The answers as documents: the one shape the command line's `--json` and the service both send.

Each document is built here once, with its preconditions (a complete run, a hole that exists), so a
script reads the CLI and the API alike and the two cannot drift apart. The faces only translate:
arguments or a request in, text or JSON out.
"""

from __future__ import annotations

from pegsearch.answers.finishes import FinishClass, exact_per_hole, finishes
from pegsearch.answers.shapes import Solution, steps
from pegsearch.answers.solve import WalkProgress, solve
from pegsearch.answers.verdict import require_complete, verdict
from pegsearch.answers.winnable import winnable_per_level
from pegsearch.board.pictures import holes_with_pegs, render
from pegsearch.errors import InputError, NotFound, UsageError
from pegsearch.kernel.path_counts import as_int
from pegsearch.store import Run


def search_document(run: Run, winnable: list[int] | None = None, answers: bool = True) -> dict:
    """A run: what was searched, its levels (with winnable positions when walked) and, once it is
    complete, its verdict; with `answers`, also where the last peg stands (reads the last level)."""
    levels = [level_document(record) for record in run.levels]
    for document, count in zip(levels, winnable or [], strict=False):
        document["winnable"] = count
    document = {"board": run.board.name, "holes": run.board.holes,
                "symmetries": run.manifest["symmetries"], "start": list(run.start),
                "reduced": run.reduced, "symmetry": run.spec.symmetry, "count_paths": run.count_paths,
                "fewest_moves": run.fewest_moves, "engine": run.manifest["engine"],
                "created": run.manifest["created"],
                "status": run.status, "levels": levels}
    checkpoint = run.in_progress
    if checkpoint is not None:
        document["in_progress"] = {key: checkpoint[key] for key in
                                   ("level", "pegs", "states", "passes_done", "passes")}
        document["in_progress"]["note"] = run.passes_note()
    if run.status == "complete":
        found = verdict(run)
        document.update(verdict=found.sentence(), solvable=found.solvable)
        if found.moves is not None:
            document["moves"] = found.moves
        if answers:
            exact = exact_per_hole(run)
            document.update(finishes_exact_per_hole=exact,
                            finishes=finish_documents(finishes(run), exact))
    return document


def level_document(record: dict) -> dict:
    """One committed level as clients see it: level, pegs, states (and its path total, or the
    fewest moves reaching any of its positions), and the engine that made it (a resumed run may
    have changed engines; the Spark engine makes small levels in its driver)."""
    document = {"level": record["level"], "pegs": record["pegs"], "states": record["states"]}
    if "engine" in record:
        document["engine"] = record["engine"]
    if "paths" in record:
        document["paths"] = int(record["paths"])
    if "moves" in record:
        document["moves"] = record["moves"]
    return document


def by_moves(run: Run) -> dict[int, int]:
    """How many positions of the run need exactly n moves at fewest, for every n (from the
    manifest: each level's record counts its positions by moves)."""
    if not run.fewest_moves:
        raise InputError("{uri} carries no fewest moves: search it with {fewest_moves} to count"
                         " positions by moves", uri=run.uri)
    counts: dict[int, int] = {}
    for record in run.levels:
        for moves, positions in record.get("by_moves", {}).items():
            counts[int(moves)] = counts.get(int(moves), 0) + positions
    return dict(sorted(counts.items()))


def finish_documents(classes: list[FinishClass], exact: bool) -> list[dict]:
    """Where the last peg stands (with its paths, or its fewest moves): one entry per hole when
    exact, else per class of holes."""
    def values(c: FinishClass, paths: int | None) -> dict:
        return {**({"paths": paths} if paths is not None else {}),
                **({"moves": c.moves} if c.moves is not None else {})}

    if exact:
        return sorted(({"hole": h, **values(c, c.per_hole)} for c in classes for h in c.holes),
                      key=lambda entry: entry["hole"])
    return [{"holes": list(c.holes), **values(c, c.paths)} for c in classes]


def counts_document(run: Run, winnable: bool = False, finish: int | None = None,
                    engine: str | None = None, master: str | None = None,
                    answers: bool = True) -> dict:
    """The level table, with the positions per level that can still reach one peg (on `finish`)
    when `winnable` is asked; `engine` walks the levels back (default: in this process); with
    `answers`, where the last peg stands (see `search_document`)."""
    if finish is not None:
        run.board.hole_of(finish, "finish")
        if not winnable:
            raise UsageError("a finishing hole applies to winnable positions: ask for both"
                             " (--winnable --finish HOLE, or winnable=true&finish=HOLE)")
    if (engine or master) and not winnable:
        raise UsageError("an engine or master applies to winnable positions: ask for them too")
    if not winnable:
        return search_document(run, answers=answers)
    require_complete(run, "winnable positions")
    return search_document(run, winnable_per_level(run, finish, engine, master), answers)


def moves_document(run: Run) -> dict:
    """The run's positions counted by the fewest moves reaching them (not by jumps: a level holds
    positions of many move counts, and one move count spans many levels)."""
    counts = by_moves(run)
    return {"board": run.board.name, "start": list(run.start), "symmetry": run.spec.symmetry,
            "status": run.status,
            "by_moves": [{"moves": moves, "positions": count} for moves, count in counts.items()],
            "positions": sum(counts.values())}


def solution_document(run: Run, finish: int | None = None,
                      progress: WalkProgress | None = None) -> Solution:
    """One line of play from the real start, walked back through the run's levels, or the best
    line when one peg cannot be reached."""
    if finish is not None:
        run.board.hole_of(finish, "finish")
    require_complete(run, "a solution")
    line = solve(run, finish, progress)
    return Solution(line.solved, line.note, finish, line.moves is not None, steps(line.jumps),
                    (line.start, *line.positions), run.board)


def files_document(run: Run, level: int | None = None) -> dict:
    """The part files the manifest lists (of one level, or of all), as URIs other tools open:
    what to give DuckDB, Polars or pyarrow instead of a glob, which would also take an interrupted
    attempt's files."""
    levels = range(len(run.levels)) if level is None else [_committed(run, level)]
    return {"run": run.uri, "columns": ["position", *run.carry.columns],
            "levels": [{"level": k, "pegs": run.levels[k]["pegs"], "states": run.levels[k]["states"],
                        "files": run.part_uris(k)} for k in levels]}


def positions_document(run: Run, level: int, limit: int | None = None) -> dict:
    """The positions of a committed level decoded: the holes with pegs and a picture of each (and
    its value, when the run carries one), the first `limit` in the order stored (part by part, each
    part ascending)."""
    _committed(run, level)
    if limit is not None and limit < 0:
        raise UsageError(f"--limit {limit}: give a number of positions, 0 or more")
    wanted = run.levels[level]["states"] if limit is None else limit
    rows: list[dict] = []
    for keys, values in run.iter_level(level, max(1, min(wanted, 1 << 20)), with_values=True):
        for index in range(min(len(keys), wanted - len(rows))):
            position = int(keys[index])
            row = {"position": position, "holes": holes_with_pegs(position),
                   "picture": render(run.board, position)}
            if run.count_paths:
                row["paths"] = as_int(values[index])
            if run.fewest_moves:
                row["moves"] = int(values[index, 1])
                row["last_holes"] = holes_with_pegs(int(values[index, 0]))
            rows.append(row)
        if len(rows) >= wanted:
            break
    reduced = ("one per symmetry class (the smallest of its images)" if run.reduced
               else "every position")
    return {"run": run.uri, "level": level, "pegs": run.levels[level]["pegs"],
            "states": run.levels[level]["states"], "symmetry": run.spec.symmetry,
            "meaning": reduced, "positions": rows}


def _committed(run: Run, level: int) -> int:
    """A level number the run has committed, or one line saying which it has."""
    if not 0 <= level < len(run.levels):
        raise NotFound(f"{run.uri} has levels 0 to {len(run.levels) - 1}, not {level}")
    return level

"""A run's answers (its counts, a solution, its files and positions): the one shape the command
line's `--json` and the service both send (a typed answer's `as_document()`, or a document).

Each is built here once, with its preconditions (a complete run, a hole that exists), so a
script reads the CLI and the API alike and the two cannot drift apart. The faces only translate:
arguments or a request in, text or JSON out.
"""

from __future__ import annotations

from dataclasses import replace

from pegsearch.answers.finishes import exact_per_hole, finishes
from pegsearch.answers.shapes import (
    ByMoves,
    Counts,
    InProgress,
    LevelCount,
    Solution,
    WinnableSets,
    steps,
)
from pegsearch.answers.solve import WalkProgress, solve
from pegsearch.answers.verdict import require_complete, verdict
from pegsearch.answers.winnable import kept_sets
from pegsearch.board.pictures import holes_with_pegs, render
from pegsearch.errors import InputError, NotFound, UsageError
from pegsearch.kernel.path_counts import as_int
from pegsearch.store import Run
from pegsearch.store.sets import stored_sets


def run_counts(run: Run, winnable: list[int] | None = None, answers: bool = True) -> Counts:
    """A run: what was searched, its levels (with winnable positions when walked) and, once it is
    complete, its verdict; with `answers`, also where the last peg stands (reads the last level)."""
    column = winnable or [None] * len(run.levels)
    levels = tuple(_level(record, count) for record, count in zip(run.levels, column, strict=True))
    checkpoint = run.in_progress
    progress = None if checkpoint is None else InProgress(
        **{key: checkpoint[key] for key in ("level", "pegs", "states", "passes_done", "passes")},
        note=run.passes_note())
    counts = Counts(run.board.name, run.board.holes, run.manifest["symmetries"], list(run.start),
                    run.reduced, run.spec.symmetry, run.count_paths, run.fewest_moves,
                    run.manifest["engine"], run.manifest["created"], run.status, levels, progress)
    if run.status != "complete":
        return counts
    found = verdict(run)
    counts = replace(counts, verdict=found.sentence(), solvable=found.solvable, moves=found.moves)
    if not answers:
        return counts
    return replace(counts, finishes_exact_per_hole=exact_per_hole(run),
                   finishes=tuple(finishes(run)))


def _level(record: dict, winnable: int | None) -> LevelCount:
    """One committed level's record as its count."""
    return LevelCount(record["level"], record["pegs"], record["states"], record.get("engine"),
                      int(record["paths"]) if "paths" in record else None, record.get("moves"),
                      winnable, tuple(record["nodes"]) if "nodes" in record else None)


def counts_answer(run: Run, winnable: bool = False, finish: int | None = None,
                  engine: str | None = None, master: str | None = None,
                  answers: bool = True) -> Counts:
    """The level table, with the positions per level that can still reach one peg (on `finish`)
    when `winnable` is asked; `engine` walks the levels back (default: in this process); with
    `answers`, where the last peg stands (see `run_counts`)."""
    if finish is not None:
        run.board.hole_of(finish, "finish")
        if not winnable:
            raise UsageError("a finishing hole applies to winnable positions: ask for both"
                             " (--winnable --finish HOLE, or winnable=true&finish=HOLE)")
    if (engine or master) and not winnable:
        raise UsageError("an engine or master applies to winnable positions: ask for them too")
    if not winnable:
        return run_counts(run, answers=answers)
    return run_counts(run, winnable_answer(run, finish, engine, master).states, answers)


def winnable_answer(run: Run, finish: int | None = None, engine: str | None = None,
                    master: str | None = None) -> WinnableSets:
    """The run's winnable sets for `finish`: read when kept, else walked back (on `engine`) and
    kept with the run first."""
    require_complete(run, "winnable positions")
    if finish is not None:
        run.board.hole_of(finish, "finish")
    walked = stored_sets(run, finish) is None
    return WinnableSets(kept_sets(run, finish, engine, master), walked)


def moves_counts(run: Run) -> ByMoves:
    """How many positions of the run need exactly n moves at fewest, for every n (from the
    manifest: each level's record counts its positions by moves)."""
    if not run.fewest_moves:
        raise InputError("{uri} carries no fewest moves: search it with {fewest_moves} to count"
                         " positions by moves", uri=run.uri)
    counts: dict[int, int] = {}
    for record in run.levels:
        for moves, positions in record.get("by_moves", {}).items():
            counts[int(moves)] = counts.get(int(moves), 0) + positions
    return ByMoves(run.board.name, list(run.start), run.spec.symmetry, run.status,
                   dict(sorted(counts.items())))


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

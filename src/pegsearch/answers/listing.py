"""The runs under a root folder (or store prefix): what a script or a person looks for after
starting searches without naming their folders.

Only manifests are read (no part file), so listing a root of large runs is quick; a folder whose
manifest cannot be read is listed as damaged rather than stopping the listing.
"""

from __future__ import annotations

from pathlib import Path

from pegsearch.answers.survey import SURVEY, start_runs
from pegsearch.errors import UsageError
from pegsearch.store import MANIFEST, Location, Run

# How deep runs are looked for: ROOT/RUN, and ROOT/SURVEY/start-NN.
DEPTH = 2


def runs_document(root: str | Path, missing_ok: bool = False) -> dict:
    """One row per run under `root`, newest first: where, board, start, status, levels, states,
    stored bytes, when it was created, and what it carries. A root that does not exist is refused
    in one line, unless `missing_ok` (the default root before the first run)."""
    location = Location.parse(root)
    location.check()
    if not location.exists() and not missing_ok:
        raise UsageError(f"{location} does not exist; give a folder (or store prefix) of runs")
    rows = _rows(location, DEPTH)
    rows.sort(key=lambda row: (row.get("created", ""), row["location"]), reverse=True)
    return {"root": location.uri, "runs": rows}


def _rows(location: Location, depth: int) -> list[dict]:
    """A row per run, and one per survey folder (its start runs inside it)."""
    found = []
    for name in location.folders():
        folder = location / name
        if folder.is_file(MANIFEST):
            found.append(_row(folder))
        elif starts := start_runs(folder):
            found.append(_survey_row(folder, [_row(start) for start in starts]))
        elif depth > 1 and not name.startswith("."):
            found += _rows(folder, depth - 1)
    return found


def _survey_row(folder: Location, starts: list[dict]) -> dict:
    """A survey as one entry: its start holes searched, their states and bytes together; complete
    once its answers are kept (an interrupted survey's next `survey` resumes it)."""
    if any(row["status"] == "damaged" for row in starts):
        return {"location": folder.uri, "kind": "survey", "status": "damaged",
                "error": next(row["error"] for row in starts if row["status"] == "damaged")}
    return {"location": folder.uri, "kind": "survey", "board": starts[0]["board"],
            "start": sorted(hole for row in starts for hole in row["start"]),
            "symmetry": "start", "carries": starts[0]["carries"],
            "status": "complete" if folder.is_file(SURVEY) else "interrupted",
            "levels": sum(row["levels"] for row in starts), "states": sum(row["states"] for row in starts),
            "bytes": sum(row["bytes"] for row in starts),
            "created": min(row["created"] for row in starts)}


def _row(folder: Location) -> dict:
    """A run's entry, read from its manifest and one listing of its folder: a run with a listed
    part missing or not its listed size is damaged, as every reader and the service say."""
    try:
        run = Run.open(folder, check_parts=False)
    except UsageError as exc:
        return {"location": folder.uri, "kind": "run", "status": "damaged", "error": str(exc)}
    carries = "paths" if run.count_paths else "moves" if run.fewest_moves else ""
    damage = run.first_damage()
    row = {"location": run.uri, "kind": "run", "board": run.board.name, "start": list(run.start),
           "symmetry": run.spec.symmetry, "carries": carries,
           "status": run.status if damage is None else "damaged",
           "levels": len(run.levels), "states": sum(r["states"] for r in run.levels),
           "bytes": sum(f.get("bytes", 0) for r in run.levels for f in r["files"]),
           "created": run.manifest.get("created", "")}
    if run.in_progress is not None:
        row["in_progress"] = run.passes_note()
    return row if damage is None else {**row, "error": damage.line()}

"""The runs under a root folder (or store prefix): what a script or a person looks for after
starting searches without naming their folders.

Only manifests are read (no part file), so listing a root of large runs is quick; a folder whose
manifest cannot be read is listed as damaged rather than stopping the listing.
"""

from __future__ import annotations

from pathlib import Path

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
    rows = [_row(folder) for folder in _run_folders(location, DEPTH)]
    rows.sort(key=lambda row: (row.get("created", ""), row["location"]), reverse=True)
    return {"root": location.uri, "runs": rows}


def _run_folders(location: Location, depth: int) -> list[Location]:
    found = []
    for name in location.folders():
        folder = location / name
        if folder.is_file(MANIFEST):
            found.append(folder)
        elif depth > 1 and not name.startswith("."):
            found += _run_folders(folder, depth - 1)
    return found


def _row(folder: Location) -> dict:
    try:
        run = Run.open(folder, check_parts=False)
    except UsageError as exc:
        return {"location": folder.uri, "status": "damaged", "error": str(exc)}
    carries = "paths" if run.count_paths else "moves" if run.fewest_moves else ""
    return {"location": run.uri, "board": run.board.name, "start": list(run.start),
            "symmetry": run.spec.symmetry, "carries": carries, "status": run.status,
            "levels": len(run.levels), "states": sum(r["states"] for r in run.levels),
            "bytes": sum(f.get("bytes", 0) for r in run.levels for f in r["files"]),
            "created": run.manifest.get("created", "")}

"""Where the service meets the run directories of its root: the only module that knows their layout.

Runs are opened through `Run.open` and read through the `Run` API; what is left here (does an id
have a run, which ids have runs, removing a run, a level's part files) is what must change when
runs live at store URIs rather than in local folders.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pegsearch.errors import UsageError
from pegsearch.service.records import valid_id, write_json
from pegsearch.store import MANIFEST, Run
from pegsearch.store.parts import read_checked

SURVEY = "survey.json"  # a finished survey's results, beside its start-NN runs


def has_run(root: Path, search_id: str) -> bool:
    return (root / search_id / MANIFEST).is_file()


def open_run(root: Path, search_id: str) -> Run | None:
    """The run of a search, or None before its worker made it. Its parts are checked only when
    answers are read from them (`Searches.complete_run`): a damaged run can still be listed,
    cancelled and deleted."""
    return Run.open(root / search_id, check_parts=False) if has_run(root, search_id) else None


def run_ids(root: Path) -> set[str]:
    """The ids of every run directory directly under the root (the CLI's runs too)."""
    return {entry.name for entry in root.iterdir() if valid_id(entry.name) and has_run(root, entry.name)}


def is_complete(root: Path, search_id: str) -> bool:
    """Whether the search's run finished; a damaged run is not (asking for it reports the damage)."""
    if (root / search_id / SURVEY).is_file():
        return True
    try:
        run = open_run(root, search_id)
    except UsageError:
        return False
    return run is not None and run.status == "complete"


def survey_results(root: Path, search_id: str) -> dict | None:
    """What a finished survey found (`pegsearch survey --json`'s document), or None before."""
    path = root / search_id / SURVEY
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def store_survey_results(root: Path, search_id: str, document: dict) -> None:
    write_json(root / search_id / SURVEY, document)


def remove_run(root: Path, search_id: str) -> None:
    shutil.rmtree(root / search_id, ignore_errors=True)


def level_parts(run: Run, level: int) -> list[dict]:
    """The manifest entries of a complete level's Parquet parts."""
    return run.levels[level]["files"]


def part_bytes(run: Run, level: int, entry: dict) -> bytes:
    """One part file's bytes, checked against the manifest (a damaged part is refused, not served)."""
    return read_checked(run.level_folder(level), entry, run.where(level))

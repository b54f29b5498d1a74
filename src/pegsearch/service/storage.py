"""Where the service meets the runs of its root: the only module that knows their layout.

The root is a folder or a store prefix (`s3://BUCKET/PREFIX`, `gs://...`, `hdfs://...`): runs are
opened through `Run.open` and read through the `Run` API, and what is left here (does an id have a
run, which ids have runs, removing a run, a survey's results, a level's part files) goes through
the store's `Location`, so a service in front of a cluster keeps its runs where the cluster writes
them. What only this server needs (queue records, workers' logs, locks, progress) is its *state*,
a local folder (see `state_folder`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pegsearch.answers.survey import SURVEY, stored_answers
from pegsearch.errors import UsageError
from pegsearch.service.records import SERVICE_FOLDER, valid_id
from pegsearch.store import MANIFEST, Location, Run
from pegsearch.store.manifest import read_manifest
from pegsearch.store.parts import read_checked


def state_folder(root: Location, state: Path | None) -> Path:
    """Where the server keeps its state: `state` when given; else inside a local root (so the CLI's
    runs and the service's share one folder), or, for a store root, a local folder named after it
    under the user's cache (a restarted server on this machine finds its queue again)."""
    if state is not None:
        return state.resolve()
    if root.local is not None:
        return root.local / SERVICE_FOLDER
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "pegsearch" / "serve" / re.sub(r"[^A-Za-z0-9]+", "-", root.uri).strip("-")


def without_root(root: Location, line: str) -> str:
    """A line for a client without where the server keeps its runs (a run's folder is named by
    its search id)."""
    for prefix in [f"{root.uri}/"] + ([f"{root.local.resolve()}/"] if root.local else []):
        line = line.replace(prefix, "")
    return line


def has_run(root: Location, search_id: str) -> bool:
    return (root / search_id).is_file(MANIFEST)


def open_run(root: Location, search_id: str) -> Run | None:
    """The run of a search, or None before its worker made it. Its parts are checked only when
    answers are read from them (`Searches.complete_run`): a damaged run can still be listed,
    cancelled and deleted."""
    return Run.open(root / search_id, check_parts=False) if has_run(root, search_id) else None


def stored_levels(root: Location, search_id: str) -> list[dict]:
    """The level records of the search's manifest (none before it has a run), its parts unread:
    what the metrics count."""
    location = root / search_id
    return read_manifest(location)["levels"] if location.is_file(MANIFEST) else []


def run_ids(root: Location) -> set[str]:
    """The ids of every run and finished survey directly under the root (the CLI's too)."""
    return {name for name in root.folders()
            if valid_id(name) and (has_run(root, name) or is_survey(root, name))}


def is_survey(root: Location, search_id: str) -> bool:
    """Whether the id names a finished survey's folder (one the command line made has no record)."""
    return (root / search_id).is_file(SURVEY)


def is_complete(root: Location, search_id: str) -> bool:
    """Whether the search's run finished; a damaged run is not (asking for it reports the damage)."""
    return run_status(root, search_id) == "complete"


def run_status(root: Location, search_id: str) -> str | None:
    """How the search's run stands: complete, running (its writer alive), or interrupted (a
    paused or damaged run too); None when it has no run."""
    if is_survey(root, search_id):
        return "complete"
    try:
        run = open_run(root, search_id)
    except UsageError:
        return "interrupted"
    if run is None:
        return None
    return run.status if run.status in ("complete", "running") else "interrupted"


def survey_results(root: Location, search_id: str) -> dict | None:
    """What a finished survey found (`pegsearch survey --json`'s document), or None before."""
    return stored_answers(root / search_id)


def remove_run(root: Location, search_id: str) -> None:
    root.remove_tree(search_id)


def level_parts(run: Run, level: int) -> list[dict]:
    """The manifest entries of a complete level's Parquet parts."""
    return run.levels[level]["files"]


def part_bytes(run: Run, level: int, entry: dict) -> bytes:
    """One part file's bytes, checked against the manifest (a damaged part is refused, not served)."""
    return read_checked(run.level_folder(level), entry, run.where(level))

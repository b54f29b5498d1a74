"""The manifest: the one JSON object a run's commit replaces whole, and the only truth about the run.

What it must hold to be read (every key a reader relies on, checked once here, so no command
meets a missing key or a wrong type later), how it is read on any store (again, a few times, on an
object store that shows a replacement cut short), and how a level's record writes its digest and its
summed-up values. The run (store.run) writes it; every reader opens it through `read_manifest`.
"""

from __future__ import annotations

import json
import time

from pegsearch.board.spec import KEEPS, SIGNATURES, SYMMETRY_MODES
from pegsearch.errors import UsageError
from pegsearch.kernel.digest import as_text, combined
from pegsearch.store.location import Location, reason
from pegsearch.store.parts import PART_NAME

MANIFEST = "manifest.json"
FORMAT = 1
# How often a manifest that is not JSON is read again on an object store, and the pause between.
REREADS, REREAD_SECONDS = 5, 0.2
# "paused": stopped on purpose after a chosen level (`--until`); "interrupted": by a signal or error.
STATUSES = ("running", "interrupted", "paused", "complete")


def level_digest(files: list[dict]) -> str | None:
    """A level's digest, from its parts' (None when a part has none: a run written before digests)."""
    if not all("digest" in entry for entry in files):
        return None
    return as_text(combined([int(entry["digest"], 16) for entry in files]))


def summary_as_json(summary: dict) -> dict:
    """A level's summed-up values as the manifest holds them: path totals as decimal text (they
    outgrow what other JSON readers hold exactly), positions by fewest moves as they are."""
    return {key: str(value) if key == "paths" else value for key, value in summary.items()}


def summary_from_json(stored: dict) -> dict:
    return {key: int(value) if key == "paths" else value for key, value in stored.items()}


def read_manifest(location: Location) -> dict:
    """The manifest, refused in one line unless it has the shape pegsearch writes.

    On an object store a manifest that is not JSON is read again a few times first: a store whose
    gateway streams an object while its replacement is being written (SeaweedFS's did, to a
    service reading a run its worker was committing) shows a manifest cut short for a moment.
    """
    for _ in range(REREADS if location.object_store else 0):
        try:
            return _parse_manifest(location)
        except UsageError as exc:
            if "damaged manifest" not in str(exc):
                raise
            time.sleep(REREAD_SECONDS)
    return _parse_manifest(location)


def _parse_manifest(location: Location) -> dict:
    where = f"{location.uri}/{MANIFEST}"
    try:
        text = location.read(MANIFEST)
    except FileNotFoundError:
        if not location.exists():
            raise UsageError(f"{location} does not exist; give the --out of a `pegsearch run`"
                             " (`pegsearch runs` lists the runs under runs/)") from None
        raise UsageError(f"{location} is not a pegsearch run (no {MANIFEST}); give the --out of a"
                         " `pegsearch run`") from None
    except IsADirectoryError:
        raise UsageError(f"{where} is a folder, not a manifest; the run cannot be read") from None
    except OSError as exc:
        raise UsageError(f"cannot read {where}: {reason(exc)}") from None
    try:
        manifest = json.loads(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{where}: damaged manifest (not UTF-8 text); the run cannot be read") \
            from None
    except ValueError as exc:
        raise UsageError(f"{where}: damaged manifest (not JSON: {exc}); the run cannot be read") \
            from None
    if not isinstance(manifest, dict):
        raise UsageError(f"{where}: damaged manifest (not a JSON object); the run cannot be read")
    if not isinstance(manifest.get("format"), int):
        raise UsageError(f"{where}: damaged manifest (no format number); the run cannot be read")
    if manifest.get("format") != FORMAT:
        raise UsageError(f"{where}: run format {manifest.get('format')!r} is not {FORMAT}; it was"
                         " written by another version of pegsearch")
    problem = _manifest_problem(manifest)
    if problem:
        raise UsageError(f"{where}: damaged manifest ({problem}); the run cannot be read")
    return manifest


def _manifest_problem(manifest: dict) -> str | None:
    """What is wrong with a manifest's shape, or None: every key the readers rely on is checked
    here, so no command meets a missing key or a wrong type later."""
    shapes = {"board": dict, "start": list, "reduced": bool, "status": str, "levels": list,
              "options": dict, "engine": str}
    for key, kind in shapes.items():
        if not isinstance(manifest.get(key), kind):
            return f"'{key}' is missing or not a {kind.__name__}"
    if manifest["status"] not in STATUSES:
        return f"status {manifest['status']!r} is not one of {', '.join(STATUSES)}"
    if not manifest["start"] or not all(type(h) is int for h in manifest["start"]):
        return "'start' is not a list of hole numbers"
    if manifest.get("symmetry", "board") not in SYMMETRY_MODES:
        return f"symmetry {manifest.get('symmetry')!r} is not one of {', '.join(SYMMETRY_MODES)}"
    if manifest.get("signatures", "group") not in SIGNATURES:
        return f"signatures {manifest.get('signatures')!r} is not one of {', '.join(SIGNATURES)}"
    if manifest.get("keep", "all") not in KEEPS:
        return f"keep {manifest.get('keep')!r} is not one of {', '.join(KEEPS)}"
    for index, record in enumerate(manifest["levels"]):
        if not isinstance(record, dict) or record.get("level") != index:
            return f"level entry {index} is not a record of level {index}"
        if not all(type(record.get(key)) is int for key in ("pegs", "states")):
            return f"level {index} lacks whole numbers for pegs and states"
        files = record.get("files")
        if not isinstance(files, list) or not all(_part_entry_ok(f) for f in files):
            return f"level {index} lists its part files wrongly"
        if record.get("dropped") and files:
            return f"level {index} is dropped but lists parts"
    checkpoint = manifest.get("in_progress")
    if checkpoint is not None and not _in_progress_ok(checkpoint, len(manifest["levels"])):
        return "'in_progress' does not record the level after the last rightly"
    sets = manifest.get("winnable", {})
    if not isinstance(sets, dict) or not all(_sets_ok(record) for record in sets.values()):
        return "'winnable' does not list its sets rightly"
    return None


def _in_progress_ok(record: object, level: int) -> bool:
    """A level in progress (Run.commit_pass): the level after the last committed one, its passes
    done and planned, the partitions done, how it was cut, and its parts so far."""
    return (isinstance(record, dict) and record.get("level") == level
            and all(type(record.get(key)) is int
                    for key in ("pegs", "states", "passes_done", "passes", "done"))
            and 0 < record["passes_done"] <= record["passes"]
            and isinstance(record.get("cut"), dict) and isinstance(record.get("summary"), dict)
            and isinstance(record.get("seconds"), int | float) and isinstance(record.get("files"), list)
            and all(_part_entry_ok(f) and type(f.get("bytes")) is int for f in record["files"]))


def _sets_ok(record: object) -> bool:
    """A kept winnable set's record (store.sets): its levels in order, each listing parts with the
    first and last position they hold."""
    if not isinstance(record, dict) or not isinstance(record.get("levels"), list):
        return False
    return all(isinstance(level, dict) and level.get("level") == index
               and type(level.get("states")) is int and isinstance(level.get("files"), list)
               and all(_part_entry_ok(f) and type(f.get("first")) is int
                       and type(f.get("last")) is int for f in level["files"])
               for index, level in enumerate(record["levels"]))


def _part_entry_ok(entry: object) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("name"), str)
            and PART_NAME.fullmatch(entry["name"]) is not None
            and type(entry.get("rows")) is int and isinstance(entry.get("sha256"), str))

"""Winnable sets kept with a run: per level, the stored positions that can still be played down to
one peg (on a finishing hole's class), so a hint, `solve` and `counts --winnable` read them instead
of walking the levels back again.

They are kept as the levels are (see store.run): parts written under names unique to the attempt,
in `winnable-KEY/level-NNN/` beside the levels, and committed by one manifest write that lists every
level's parts with rows, bytes, SHA-256 and digest, under manifest["winnable"][KEY]. KEY is `any`
(one peg anywhere), `hole-N`, or `finishes` (one peg anywhere, each position with the holes its
last peg can end on), so sets for one finishing hole sit beside sets for another. A
set's parts are consecutive ranges of it, each entry naming its first and last position, so a
position is looked for in one part. Sets of a `--count-paths` run also keep each position's
solutions (a `paths` column: the jump sequences from it down to the finish), those of a
`--fewest-moves` run its fewest moves left (`moves` and `last_holes`), the record's `values`
saying which. A run made before sets were kept simply has none.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from pegsearch.errors import UsageError
from pegsearch.kernel.digest import as_text, combined
from pegsearch.kernel.values import NO_VALUES, Carry
from pegsearch.store.location import Location, reason
from pegsearch.store.lock import WriterLock
from pegsearch.store.manifest import read_manifest
from pegsearch.store.parts import PART_ROWS, new_attempt, part_name, write_part
from pegsearch.store.run import Run, level_name

FOLDER = "winnable-"
# The `finish` of the sets to one peg anywhere that keep each position's finishing holes (KEY
# `finishes`): any finishing hole is then one lookup (answers.hint).
EVERY_HOLE = 0
# What a set's values are, in the manifest's record and in its parts' metadata.
VALUES = {Carry.NOTHING: "none", Carry.PATHS: "solutions", Carry.MOVES: "moves left",
          Carry.FINISHES: "finishing holes"}
MEANINGS = {Carry.NOTHING: "none",
            Carry.FINISHES: "finishes: the holes the position's last peg can end on (bit i-1 is"
                            " hole i, in the frame of the stored position)",
            Carry.PATHS: "paths: the jump sequences from the position down to one peg (on the"
                         " finishing hole's class), its solutions",
            Carry.MOVES: "moves: the fewest moves from the position down to one peg (on the"
                         " finishing hole's class), the next jump beginning one; last_holes: the"
                         " holes whose peg, had it moved last, needs one move fewer (going on)"}


def set_values(record: dict) -> Carry:
    """What a kept record's sets carry besides positions (sets kept before values carry none)."""
    return {name: carry for carry, name in VALUES.items()}.get(record.get("values", "none"),
                                                               Carry.NOTHING)


def set_key(finish: int | None) -> str:
    """The manifest's name for the sets to one peg anywhere, or on `finish`'s class, or anywhere
    with the finishing holes (EVERY_HOLE)."""
    return "any" if finish is None else "finishes" if finish == EVERY_HOLE else f"hole-{finish}"


def set_folder(run: Run, finish: int | None, level: int) -> Location:
    return run.location / f"{FOLDER}{set_key(finish)}" / level_name(level)


def stored_sets(run: Run, finish: int | None) -> dict | None:
    """The manifest's record of the run's winnable sets for `finish`, or None when not kept."""
    return run.manifest.get("winnable", {}).get(set_key(finish))


def set_parts(run: Run, finish: int | None, level: int, position: int) -> list[dict]:
    """The parts of a kept set of `level` that can hold `position` (by their first and last)."""
    record = stored_sets(run, finish)
    assert record is not None, "set_parts of sets not kept"
    return [entry for entry in record["levels"][level]["files"]
            if entry["first"] <= position <= entry["last"]]


class SetWriter:
    """Writes a run's winnable sets level by level (in any order), then commits them together.

    It holds the run's writer lock from start to commit or discard: a second process keeping sets
    of the run at the same time is refused in one line (else one's sweep would remove the files
    the other has yet to list)."""

    def __init__(self, run: Run, finish: int | None, carry: Carry = Carry.NOTHING) -> None:
        self.run, self.finish, self.carry = run, finish, carry
        try:
            self.lock = WriterLock(run.location, then="ask again (the sets it is keeping will serve)")
        except OSError as exc:  # a run this user may read but not write (HDFS, a read-only mount)
            raise UsageError(f"cannot keep the winnable sets with {run.location}, which this"
                             f" answer needs once: {reason(exc)}; ask as a user who may write the"
                             " run (once kept, the sets serve every reader), or copy the run"
                             " where you may") from None
        self.attempt = new_attempt()
        self.levels: dict[int, dict] = {}
        self.started = time.monotonic()

    def kept_meanwhile(self) -> dict | None:
        """The record of these sets if another process kept them since the run was opened (the
        manifest read again, under the lock)."""
        self.run.manifest = read_manifest(self.run.location)
        return stored_sets(self.run, self.finish)

    def write(self, level: int, winnable: np.ndarray, values: np.ndarray = NO_VALUES) -> None:
        """Keep `level`'s winnable set (sorted, distinct) as parts of at most PART_ROWS rows, with
        each position's values when the writer keeps some (solutions or moves left)."""
        folder = set_folder(self.run, self.finish, level)
        metadata = {**self.run.part_metadata(level), "pegsearch.winnable": set_key(self.finish),
                    "pegsearch.values": MEANINGS[self.carry]}
        files = []
        try:
            folder.make()
            for index, first in enumerate(range(0, len(winnable), PART_ROWS)):
                piece = winnable[first:first + PART_ROWS]
                entry = write_part(folder, part_name(index, self.attempt), piece, self.carry,
                                   values[first:first + PART_ROWS], metadata)
                files.append({**entry, "first": int(piece[0]), "last": int(piece[-1])})
        except OSError as exc:
            raise UsageError(f"cannot keep the winnable sets in {folder}: {reason(exc)}; the run"
                             " itself is unchanged") from None
        self.levels[level] = {"level": level, "states": len(winnable), "files": files,
                              "digest": as_text(combined([int(f["digest"], 16) for f in files]))}

    def commit(self, engine: str) -> dict:
        """List the sets in the manifest beside any sets kept for other finishing holes (the
        manifest is read again: another process may have added some), remove the files of the
        sets this attempt replaced, and let the run go."""
        record = {"finish": self.finish, "engine": engine, "values": VALUES[self.carry],
                  "seconds": round(time.monotonic() - self.started, 3),
                  "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                  "levels": [self.levels[level] for level in sorted(self.levels)]}
        try:
            manifest = read_manifest(self.run.location)
            manifest.setdefault("winnable", {})[set_key(self.finish)] = record
            self.run.manifest = manifest
            self.run.save()
            self.sweep()
        finally:
            self.lock.release()
        return record

    def discard(self) -> None:
        """Remove what this attempt wrote (sets not committed), and let the run go."""
        try:
            self._remove(lambda name: self.attempt in name)
        finally:
            self.lock.release()

    def sweep(self) -> None:
        """Remove the sets' files the manifest does not list (earlier or failed attempts)."""
        record = stored_sets(self.run, self.finish) or {"levels": []}
        listed = {f"{level_name(r['level'])}/{f['name']}" for r in record["levels"] for f in r["files"]}
        self._remove(lambda name: name not in listed)

    def _remove(self, chosen: Callable[[str], bool]) -> None:
        top = self.run.location / f"{FOLDER}{set_key(self.finish)}"
        for name in top.files():
            if chosen(name):
                top.remove(name)

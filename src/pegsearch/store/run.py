"""The run: a manifest plus one folder of Parquet part files per level, on any store.

The commit protocol holds where renaming is not atomic (object stores). An engine writes a level's
parts into the level's folder under names unique to its attempt (`part-00003-<attempt>.parquet`),
and the manifest, one object replaced whole, is the only commit: it lists each part's exact name,
rows, bytes and SHA-256. Readers open only what the manifest lists and check every part's size and
checksum before using it; `--resume` removes whatever the manifest does not list (a crashed or
speculative attempt's parts, temporary files). So a crash at any moment leaves the listed levels
whole, and a swapped or truncated part is refused by every command that reads it.

Here: a run's life (created or resumed under the writer's lock, levels and passes committed,
finished), and reading it. What a manifest must hold, and how it is read, is store.manifest; a
level's parts are written by store.writer's LevelWriter.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pegsearch import __version__
from pegsearch.board.files import board_from_definition
from pegsearch.board.spec import SearchSpec
from pegsearch.errors import Busy, Conflict, UsageError
from pegsearch.kernel import target
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.values import NO_VALUES, Carry
from pegsearch.store.location import Location, sync_folder
from pegsearch.store.lock import LEASE, LOCK_FILE, WriterLock, writer_of
from pegsearch.store.manifest import FORMAT, MANIFEST, level_digest, read_manifest, summary_as_json
from pegsearch.store.parts import COLUMN_TYPES, POSITION, DamagedLevel, iter_parts
from pegsearch.store.writer import LevelWriter, guard
from pegsearch.words import levels_named

if TYPE_CHECKING:
    import pyarrow.dataset

    from pegsearch.board.geometry import Board

# How a part's metadata says what a `position` is (docs/formats.md, "Levels other tools can read").
POSITION_MEANING = ("bit i-1 set: hole i holds a peg; int64 holding the unsigned 64-bit value; one"
                    " position per symmetry class under the stated symmetry: the smallest of its"
                    " images under those symmetries that keep the start's position class"
                    " (signatures 'class'), or under all of them ('group')")


# What a folder may hold and still count as empty for a new run: a lock left by a refused start.
HOUSEKEEPING = {LOCK_FILE, LEASE}


def level_name(level: int) -> str:
    return f"level-{level:03d}"


class Run:
    """An open run. The manifest in the store is the truth; this object mirrors it."""

    def __init__(self, location: Location, manifest: dict, lock: WriterLock | None = None) -> None:
        self.location = location
        self.manifest = manifest
        self.board = board_from_definition(manifest["board"], f"{location.uri}/{MANIFEST} (board)")
        self._lock = lock
        self._orphaned = False  # "running" in the manifest, but no process holds the writer's lock

    # ----- opening
    @classmethod
    def open(cls, where: str | Path | Location, check_parts: bool = True) -> Run:
        """Open an existing run for reading; one clear error if `where` does not hold one, or (with
        `check_parts`; `verify` lists every problem itself) if a part it lists is missing."""
        location = where if isinstance(where, Location) else Location.parse(where)
        location.check()
        run = cls(location, read_manifest(location))
        if run.manifest["status"] == "running" and writer_of(location) is None:
            # The writer saves its last status before it lets go of the lock: read again, so a
            # run that finished a moment ago is not taken for one whose writer died.
            run = cls(location, read_manifest(location))
            run._orphaned = run.manifest["status"] == "running"
        if check_parts:
            run.check_parts()
        return run

    @classmethod
    def create_or_resume(cls, where: str | Path | Location, spec: SearchSpec, engine: str,
                         options: dict, resume: bool, keep: str | None = None) -> Run:
        """Start a new run at `where`, or reopen the same search there when `resume` is set.

        `keep` ("all" or "last", KEEPS) applies to the levels committed from now on; None keeps
        a resumed run's choice ("all" for a new run). Levels already dropped stay dropped.

        The run is locked for this process until `finish`: a second writer is refused. The store
        is not probed here: `search` reaches it first, before an engine starts.
        """
        location = where if isinstance(where, Location) else Location.parse(where)
        # Refused first without the lock, so a refusal leaves the folder exactly as it was (no
        # lock file added to a user's folder, another run's lock not rewritten); checked again
        # under the lock, which alone decides between two writers.
        if location.is_file(MANIFEST):
            stored = cls(location, read_manifest(location))
            stored._refuse_unless(spec, resume, writer_of(location) if stored.status == "running"
                                  else None)
        elif resume:
            raise UsageError(f"{location} holds no run to resume; drop --resume to start one")
        else:
            cls._check_empty(location, locked=False)
        guard(location, "create the run folder", location.make, kept=False)
        lock = guard(location, "lock the run", lambda: WriterLock(location), kept=False)
        try:
            if location.is_file(MANIFEST):
                run = cls(location, read_manifest(location), lock)
                run._refuse_unless(spec, resume)
                run.discard_unlisted()
                run.check_parts()
                run.manifest.update(engine=engine, options=options, status="running",
                                    compile_target=compiled_for(), keep=keep or run.keep)
            elif resume:
                raise UsageError(f"{location} holds no run to resume; drop --resume to start one")
            else:
                cls._check_empty(location, locked=True)
                manifest = {"format": FORMAT, "pegsearch": __version__, **spec.as_json(),
                            "holes": spec.board.holes, "symmetries": len(spec.group),
                            "engine": engine, "options": options, "status": "running",
                            "compile_target": compiled_for(), "keep": keep or "all",
                            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "levels": []}
                run = cls(location, manifest, lock)
            run.save()
        except BaseException:
            lock.release()
            raise
        return run

    def _refuse_unless(self, spec: SearchSpec, resume: bool, writer: str | None = None) -> None:
        """Refuse to write this stored run unless it is the same search and `resume` says so; a
        `writer` still making it is named (--resume would be refused too until it ends)."""
        if not self.spec.same_search(spec):
            raise UsageError(f"{self.location} already holds a different run ({self.describe()});"
                             " choose another --out")
        if not resume and writer is not None:
            raise UsageError(f"{self.location} holds this run ({self.describe()}) and is being written"
                             f" by {writer} now; wait for it to finish (or stop it), or choose another"
                             " --out")
        if not resume and self.status == "complete":
            raise UsageError(f"{self.location} already holds this run ({self.describe()}, complete):"
                             f" read it with `pegsearch counts {self.location}`, or choose another"
                             " --out")
        if not resume:
            raise UsageError(f"{self.location} already holds this run ({self.describe()},"
                             f" {self.status}); pass --resume to continue it or choose another"
                             " --out")

    @staticmethod
    def _check_empty(location: Location, locked: bool) -> None:
        """Refuse a folder that holds anything but a run's lock.

        Checked first before the lock is taken, so nothing is added to a folder of someone else's
        files. But a writer takes its lock before it writes anything, so a folder holding a lock
        and other files may be a run another process is starting this instant: then the lock
        decides (it names that writer, or the manifest is there once it is done), and only a
        folder still not a run under the lock is refused.
        """
        files = set(location.files())
        if files - HOUSEKEEPING and (locked or not files & HOUSEKEEPING):
            raise UsageError(f"{location} exists and is not an empty folder or a pegsearch run;"
                             " choose another --out")

    # ----- reading
    @property
    def uri(self) -> str:
        return self.location.uri

    @property
    def spec(self) -> SearchSpec:
        return SearchSpec(self.board, self.start, self.manifest.get("symmetry", "board"),
                          self.count_paths, self.fewest_moves, self.manifest.get("signatures", "group"))

    def tables(self) -> BoardTables:
        """The kernel's tables for this run's board and the symmetries its signatures are taken
        under (made once per board and group in a process, see `_tables`)."""
        return _tables(self.board, self.spec.signing)

    def describe(self) -> str:
        return self.spec.describe()

    @property
    def start(self) -> tuple[int, ...]:
        return tuple(self.manifest["start"])

    @property
    def reduced(self) -> bool:
        return bool(self.manifest["reduced"])

    @property
    def count_paths(self) -> bool:
        return bool(self.manifest.get("count_paths"))

    @property
    def fewest_moves(self) -> bool:
        return bool(self.manifest.get("fewest_moves"))

    @property
    def carry(self) -> Carry:
        """What the run's positions carry: path counts, fewest moves, or nothing."""
        if self.count_paths:
            return Carry.PATHS
        return Carry.MOVES if self.fewest_moves else Carry.NOTHING

    @property
    def status(self) -> str:
        """How the run stands: the manifest's status, except that a run it calls running whose
        writer no longer holds the lock (killed with kill -9, or its lease expired) is
        interrupted, as every reader says: no one will finish it unless it is resumed."""
        return "interrupted" if self._orphaned else self.manifest["status"]

    @property
    def levels(self) -> list[dict]:
        return self.manifest["levels"]

    @property
    def keep(self) -> str:
        """What the run keeps of its levels' parts: "all", or "last" (KEEPS)."""
        return self.manifest.get("keep", "all")

    def dropped(self) -> list[int]:
        """The levels whose parts were removed (`--keep last`); their records stay."""
        return [record["level"] for record in self.levels if record.get("dropped")]

    def require_every_level(self, asking: str) -> None:
        """Refuse, in one line, an answer that reads every level from a run that dropped some."""
        dropped = self.dropped()
        if dropped:
            raise Conflict(f"{self.uri} keeps only its last level's parts (made with --keep last;"
                           f" {levels_named(dropped)} dropped), and {asking} needs every level: make"
                           " the run again with --keep all")

    @property
    def in_progress(self) -> dict | None:
        """The level being made in passes, with the passes committed so far (its parts, rows and
        digest, as a level's record), or None: readers of levels never see it."""
        return self.manifest.get("in_progress")

    def passes_note(self) -> str | None:
        """How far the level in progress is, for `runs`, `counts` and the service: "level 7: pass
        2 of 4 done, 8,475 positions so far"; None when no level is in progress."""
        checkpoint = self.in_progress
        if checkpoint is None:
            return None
        return (f"level {checkpoint['level']}: pass {checkpoint['passes_done']} of"
                f" {checkpoint['passes']} done, {checkpoint['states']:,} positions so far")

    def level_folder(self, level: int) -> Location:
        return self.location / level_name(level)

    def where(self, level: int) -> str:
        """How messages name a level: `level 7 of s3://runs/x`."""
        return f"level {level} of {self.uri}"

    def iter_level(self, level: int, rows: int, with_values: bool = False,
                   share: tuple[int, int] = (0, 1)) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Stream a committed level in batches of at most `rows` (positions, and the values the
        run carries when asked), every part checked against the manifest first; a dropped level
        (`--keep last`) is refused in one line, never read as empty. ``share=(i, n)`` streams
        parts i, i + n, ... alone, so n readers can read one level at once."""
        if self.levels[level].get("dropped"):
            raise Conflict(f"{self.where(level)}: its parts were dropped (the run was made with"
                           " --keep last: it keeps only its last level's); make the run again with"
                           " --keep all to read it")
        first, shares = share
        yield from iter_parts(self.level_folder(level), self.levels[level]["files"][first::shares],
                              rows, self.carry if with_values else Carry.NOTHING, self.where(level))

    def read_level(self, level: int) -> np.ndarray:
        """The positions (signatures) of a committed level as uint64, in part order."""
        pieces = [keys for keys, _ in self.iter_level(level, 1 << 62)]
        return np.concatenate(pieces) if pieces else np.empty(0, dtype=np.uint64)

    def read_level_with_values(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """The positions of a committed level and their values (path counts or fewest moves), row
        for row, in one read of its parts."""
        pieces = list(self.iter_level(level, 1 << 62, with_values=True))
        if not pieces:
            return np.empty(0, dtype=np.uint64), NO_VALUES
        return (np.concatenate([keys for keys, _ in pieces]),
                np.concatenate([values for _, values in pieces]))

    def read_level_values(self, level: int) -> np.ndarray:
        """The values of a committed level, row for row with `read_level`."""
        return self.read_level_with_values(level)[1]

    def part_paths(self, level: int) -> list[str]:
        """Where the parts of a committed level are, as their store names them (a local path, or
        BUCKET/KEY on an object store), in the manifest's order."""
        folder = self.level_folder(level)
        return [folder.path(entry["name"]) for entry in self.levels[level]["files"]]

    def part_uris(self, level: int) -> list[str]:
        """The parts of a committed level as URIs other tools open (s3://..., or local paths)."""
        folder = self.level_folder(level)
        if folder.local is not None:
            return self.part_paths(level)
        return [f"{folder.uri}/{entry['name']}" for entry in self.levels[level]["files"]]

    def dataset(self, levels: Iterable[int] | None = None) -> pyarrow.dataset.Dataset:
        """The listed parts of the run (or of `levels`) as one pyarrow dataset, with a `level`
        column: exactly what the manifest commits, never a part of an unfinished attempt that
        globbing `level-*/*.parquet` would also pick up. (pyarrow.dataset is imported here: a
        fifth of a second that no other command should pay at start-up.)"""
        import pyarrow.dataset as ds

        chosen = range(len(self.levels)) if levels is None else list(levels)
        paths, partitions = [], []
        for level in chosen:
            for path in self.part_paths(level):
                paths.append(path)
                partitions.append(ds.field("level") == pa.scalar(level, pa.int16()))
        schema = pa.schema([(POSITION, pa.int64()),
                            *((name, COLUMN_TYPES[name]) for name in self.carry.columns),
                            ("level", pa.int16())])
        return ds.FileSystemDataset.from_paths(paths, schema=schema, format=ds.ParquetFileFormat(),
                                               filesystem=self.location.fs, partitions=partitions)

    # ----- writing
    def save(self) -> None:
        data = (json.dumps(self.manifest, indent=1) + "\n").encode()
        guard(self.location, "write the manifest", lambda: self.location.replace(MANIFEST, data))

    def level_writer(self, level: int) -> LevelWriter:
        if level != len(self.levels):
            raise RuntimeError(f"level {level} written out of order after {len(self.levels)}")
        return LevelWriter(self, level)

    def commit_level(self, writer: LevelWriter, seconds: float) -> dict:
        """List the writer's parts in the manifest: from this moment the level exists."""
        level = writer.level
        if level != len(self.levels):
            raise RuntimeError(f"level {level} committed out of order after {len(self.levels)}")
        files = writer.entries()
        if writer.folder.local is not None:
            sync_folder(writer.folder.local)  # the parts' names survive a crash before the manifest
        record = {"level": level, "pegs": self.pegs_at(level),
                  "states": sum(f["rows"] for f in files), "files": files,
                  "digest": level_digest(files), "bytes": sum(f.get("bytes", 0) for f in files),
                  "seconds": round(writer.earlier_seconds + seconds, 3), **writer.notes}
        if self.count_paths:
            record["paths"] = str(writer.summary.get("paths", 0))
        if self.fewest_moves:
            by_moves = writer.summary.get("by_moves", {})
            record["moves"] = min(map(int, by_moves), default=0)
            record["by_moves"] = by_moves
        # `--keep last`: the levels before this one are dropped in the same write that commits it,
        # then their parts removed; a crash between leaves unlisted parts `--resume` removes.
        dropping = {r["level"]: r["files"] for r in self.levels
                    if self.keep == "last" and not r.get("dropped")}
        self.levels.append(record)
        checkpoint = self.manifest.pop("in_progress", None)
        for earlier, parts in dropping.items():
            self.levels[earlier].setdefault("bytes", sum(f.get("bytes", 0) for f in parts))
            self.levels[earlier].update(files=[], dropped=True)
        try:
            self.save()
        except BaseException:
            self.levels.pop()  # not committed: the manifest on the store does not list it
            for earlier, parts in dropping.items():
                self.levels[earlier].update(files=parts)
                del self.levels[earlier]["dropped"]
            if checkpoint is not None:
                self.manifest["in_progress"] = checkpoint
            raise
        writer.committed()
        for name in map(level_name, dropping):
            guard(self.location, "remove a dropped level's parts",
                   lambda name=name: self.location.remove_tree(name))
        return record

    def commit_pass(self, writer: LevelWriter, done: int, passes: int, cut: dict,
                    seconds: float) -> None:
        """A checkpoint: list the parts of a level's passes so far (partitions ``[0, done)`` of the
        level `cut` describes, `passes` planned in all) in the manifest as its level in progress,
        in the same one-write commit as a level's, so a killed level resumes at its next pass."""
        files = writer.entries()
        if writer.folder.local is not None:
            sync_folder(writer.folder.local)
        before = self.manifest.get("in_progress")
        self.manifest["in_progress"] = {
            "level": writer.level, "pegs": self.pegs_at(writer.level),
            "states": sum(f["rows"] for f in files), "files": files, "digest": level_digest(files),
            "seconds": round(writer.earlier_seconds + seconds, 3), "passes_done": writer.passes_done + 1,
            "passes": passes, "done": done, "cut": cut, "summary": summary_as_json(writer.summary)}
        try:
            self.save()
        except BaseException:
            self.manifest["in_progress"] = before
            raise
        writer.committed()

    def drop_in_progress(self) -> None:
        """Forget the level in progress (it cannot be continued as cut now): the manifest first,
        then its parts, so no moment lists a part that is gone."""
        checkpoint = self.manifest.pop("in_progress", None)
        if checkpoint is None:
            return
        self.save()
        folder = self.level_folder(checkpoint["level"])
        for entry in checkpoint["files"]:
            folder.remove(entry["name"])

    def check_parts(self) -> None:
        """Refuse the run, in one line, if a part its manifest lists is missing or not its listed
        size: one listing of the run's folder, so every reader (not only the one reading that
        level) sees a deleted or truncated part. Checksums stay `verify`'s job."""
        damage = self.first_damage()
        if damage is not None:
            raise damage

    def first_damage(self) -> DamagedLevel | None:
        """The first listed part that is missing or not its listed size (its level is the first
        that cannot be read), or None when every part is there."""
        present = self.location.files()
        for record in self.levels:
            for entry in record["files"]:
                size = present.get(f"{level_name(record['level'])}/{entry['name']}")
                if size is None:
                    problem = f"is missing from {self.level_folder(record['level'])}"
                elif entry.get("bytes") not in (None, size):
                    problem = (f"has {size:,} bytes, the manifest says {entry['bytes']:,}"
                               " (truncated or replaced)")
                else:
                    continue
                return DamagedLevel(f"{self.where(record['level'])}: part {entry['name']} {problem};"
                                    " the run is damaged (run `pegsearch verify` on it)",
                                    record["level"])
        return None

    def part_metadata(self, level: int) -> dict[str, str]:
        """What every part of `level` says of itself (Parquet key-value metadata), so a part read
        by another tool, without the manifest, still tells what its rows are."""
        return {"pegsearch.format": str(FORMAT), "pegsearch.version": __version__,
                "pegsearch.board": self.board.name, "pegsearch.board_digest": self.board.digest,
                "pegsearch.holes": str(self.board.holes), "pegsearch.level": str(level),
                "pegsearch.pegs": str(self.pegs_at(level)),
                "pegsearch.start": ",".join(map(str, self.start)),
                "pegsearch.symmetry": self.spec.symmetry,
                "pegsearch.signatures": self.spec.signatures,
                "pegsearch.values": ",".join(self.carry.columns) or "none",
                "pegsearch.position": POSITION_MEANING}

    def pegs_at(self, level: int) -> int:
        """Pegs in every position of a level: each jump removes exactly one."""
        return self.board.holes - len(self.start) - level

    def finish(self, status: str) -> None:
        """Record how the writing ended and let the next writer in."""
        try:
            self.manifest["status"] = status
            self.save()
        finally:
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    @classmethod
    def record_interrupted(cls, location: Location) -> None:
        """Say `interrupted` in the manifest of a run whose writer died without a word (kill -9,
        the OOM killer): every other reader of the folder (DuckDB, another tool) saw `running`.
        Only under the writer's lock, so a live writer's manifest is never overwritten; a remote
        run's lease outlives its dead writer for its term, and the run is left as it is."""
        try:
            lock = WriterLock(location)
        except Busy:
            return
        try:
            run = cls(location, read_manifest(location), lock)
            if run.status == "running":
                run.finish("interrupted")
        finally:
            lock.release()

    def discard_unlisted(self) -> None:
        """Remove what the manifest does not list: parts of unfinished or failed attempts, level
        folders of uncommitted levels, temporary manifests."""
        records = [*self.levels, *([self.in_progress] if self.in_progress else [])]
        listed = {f"{level_name(r['level'])}/{f['name']}" for r in records for f in r["files"]}
        for name in self.location.files():
            stray = name.startswith("level-") and name not in listed
            if stray or (name.startswith(f"{MANIFEST}.") and name.endswith(".tmp")):
                self.location.remove(name)
        kept = {level_name(r["level"]) for r in records if not r.get("dropped")}
        for folder in self.location.folders():
            if folder.startswith("level-") and folder not in kept:
                self.location.remove_tree(folder)


def compiled_for() -> dict:
    """What this process's kernels are compiled for (kernel.target), for the manifest: the CPU,
    the model and how it was chosen, so a run's seconds can be read against the machine. The
    process that writes the run says it; a Spark or mrjob task elsewhere chooses for its own."""
    choice = target.choose()
    return {"cpu": choice.cpu, "host": choice.host, "target": choice.target, "how": choice.how}


@lru_cache(maxsize=64)
def _tables(board: Board, group: tuple[tuple[int, ...], ...]) -> BoardTables:
    """The tables of a board under a group, made once a process: a run is opened again for every
    request the service answers from it, and making the tables (with their inverses) was a fifth of
    the server's time a hint."""
    return BoardTables.for_board(board, group=group)

"""The run directory: a manifest plus one folder of Parquet part files per level.

A level is written under a staging name and renamed into place only when complete, and the manifest
(which alone says which levels exist) is replaced atomically after that rename, so a crash at any
moment leaves every listed level whole and at worst an unlisted folder that `resume` removes. Every
part file carries a SHA-256 in the manifest, so a damaged or foreign level is caught when read.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pegsearch import __version__
from pegsearch.board import Board, board_from_definition
from pegsearch.codec import Codec
from pegsearch.errors import UsageError
from pegsearch.paths import PATHS, words_of
from pegsearch.paths import from_arrow as paths_from_arrow
from pegsearch.paths import to_arrow as paths_to_arrow
from pegsearch.paths import total as total_paths

MANIFEST = "manifest.json"
FORMAT = 1
POSITION = "position"
PART_ROWS = 1 << 22
STAGING_SUFFIX = ".staging"
NO_PATHS = np.empty((0, 2), dtype=np.uint64)


SYMMETRY_MODES = ("board", "start", "none")


@dataclass(frozen=True)
class Identity:
    """What makes two runs the same search: board geometry, start, reduction and what is counted.

    `symmetry` says which group signatures are taken under: "board" (the board's whole group, one
    position per orbit: the published convention), "start" (only the symmetries that fix the start,
    which keeps finishing holes and per-hole path counts exact) or "none" (raw positions).
    """

    board: Board
    start: tuple[int, ...]
    symmetry: str = "board"
    count_paths: bool = False

    @property
    def reduced(self) -> bool:
        return self.symmetry != "none"

    @property
    def group(self) -> tuple[tuple[int, ...], ...]:
        """The permutations signatures are taken under, identity first."""
        if self.symmetry == "board":
            return self.board.symmetries
        if self.symmetry == "start":
            return self.board.stabilizer(self.board.start_position(self.start))
        return self.board.symmetries[:1]

    def codec(self) -> Codec:
        return Codec.for_board(self.board, group=self.group)

    def as_json(self) -> dict:
        return {"board": self.board.definition(), "board_digest": self.board.digest,
                "start": list(self.start), "reduced": self.reduced, "symmetry": self.symmetry,
                "count_paths": self.count_paths}

    def describe(self) -> str:
        holes = ", ".join(str(h) for h in self.start)
        return f"{self.board.name} from hole{'s' if len(self.start) > 1 else ''} {holes}"


def level_name(level: int) -> str:
    return f"level-{level:03d}"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def write_json_atomically(path: Path, data: dict) -> None:
    """Replace `path` with `data` so that a reader sees the old or the new file, never a mix."""
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def write_part(path: Path, positions: np.ndarray, paths: np.ndarray | None = None) -> None:
    """Write sorted distinct positions (and their path counts) as one Parquet part file.

    Sorted positions differ by small steps, so delta encoding plus zstd stores them compactly.
    Arrays are wrapped from their buffers: `pa.array` on numpy data imports pandas (0.3 s).
    """
    positions = np.ascontiguousarray(positions, dtype=np.uint64)
    columns = [pa.Array.from_buffers(pa.int64(), len(positions), [None, pa.py_buffer(positions)])]
    if paths is not None:
        columns.append(paths_to_arrow(paths))
    table = pa.Table.from_arrays(columns, names=[POSITION, PATHS][:len(columns)])
    pq.write_table(table, path, row_group_size=PART_ROWS, compression="zstd",
                   use_dictionary=False, column_encoding={POSITION: "DELTA_BINARY_PACKED"})


def write_parts(folder: Path, positions: np.ndarray, paths: np.ndarray | None = None) -> None:
    """Write a whole level held in memory as the single part file of `folder`."""
    write_part(folder / "part-00000.parquet", positions, paths)


def positions_of(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A `position` column (int64 bits) as uint64 positions: a writable copy, because numba
    compiles (and caches) a second kernel for read-only arrays."""
    return words_of(column, "position").copy()


def read_positions(files: list[Path]) -> np.ndarray:
    """All positions of the given part files, as one uint64 array in file order."""
    arrays = [positions_of(pq.read_table(f, columns=[POSITION]).column(0)) for f in files]
    if not arrays:
        return np.empty(0, dtype=np.uint64)
    return np.concatenate(arrays)


def iter_level(files: list[Path], rows: int,
               with_paths: bool = False) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Stream part files in batches of at most `rows`: positions and path-count limbs (``(0, 2)``
    when not asked for), so a level larger than memory can be walked."""
    columns = [POSITION, PATHS] if with_paths else [POSITION]
    for file in files:
        for batch in pq.ParquetFile(file).iter_batches(batch_size=rows, columns=columns):
            paths = paths_from_arrow(batch.column(1)) if with_paths else NO_PATHS
            yield positions_of(batch.column(0)), paths


def read_paths(files: list[Path]) -> np.ndarray:
    """The path counts of the given part files as ``(n, 2)`` limbs, in the same order as positions."""
    arrays = [paths_from_arrow(pq.read_table(f, columns=[PATHS]).column(0)) for f in files]
    if not arrays:
        return np.empty((0, 2), dtype=np.uint64)
    return np.concatenate(arrays)


class Run:
    """An open run directory. The manifest on disk is the truth; this object mirrors it."""

    def __init__(self, path: Path, manifest: dict) -> None:
        self.path = path
        self.manifest = manifest
        self.board = board_from_definition(manifest["board"], f"{path / MANIFEST} (board)")

    # ----- opening
    @classmethod
    def open(cls, path: Path) -> Run:
        """Open an existing run for reading; one clear error if `path` is not a run directory."""
        manifest_path = Path(path) / MANIFEST
        if not manifest_path.is_file():
            raise UsageError(f"{path} is not a pegsearch run directory (no {MANIFEST});"
                             " give the --out directory of a `pegsearch run`")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"{manifest_path}: damaged manifest ({exc}); the run cannot be read") from None
        if manifest.get("format") != FORMAT:
            raise UsageError(f"{manifest_path}: run format {manifest.get('format')!r} is not"
                             f" {FORMAT}; it was written by another version of pegsearch")
        return cls(Path(path), manifest)

    @classmethod
    def create_or_resume(cls, path: Path, identity: Identity, engine: str, options: dict,
                         resume: bool) -> Run:
        """Start a new run in `path`, or reopen the same search there when `resume` is set."""
        path = Path(path)
        if (path / MANIFEST).is_file():
            run = cls.open(path)
            if run.identity.as_json() != identity.as_json():
                raise UsageError(f"{path} already holds a different run ({run.describe()}); choose"
                                 " another --out")
            if not resume:
                raise UsageError(f"{path} already holds this run ({run.describe()}, {run.status});"
                                 " pass --resume to continue it or choose another --out")
            run.discard_unlisted()
            run.manifest.update(engine=engine, options=options, status="running")
            run.save()
            return run
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise UsageError(f"{path} exists and is not an empty directory or a pegsearch run;"
                             " choose another --out")
        if resume:
            raise UsageError(f"{path} holds no run to resume; drop --resume to start one")
        path.mkdir(parents=True, exist_ok=True)
        manifest = {"format": FORMAT, "pegsearch": __version__, **identity.as_json(),
                    "holes": identity.board.holes,
                    "symmetries": len(identity.group),
                    "engine": engine, "options": options, "status": "running",
                    "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "levels": []}
        run = cls(path, manifest)
        run.save()
        return run

    # ----- reading
    @property
    def identity(self) -> Identity:
        return Identity(self.board, self.start, self.manifest.get("symmetry", "board"),
                        self.count_paths)

    @cached_property
    def _codec(self) -> Codec:
        return self.identity.codec()

    def codec(self) -> Codec:
        """The kernel's tables for this run's board and symmetry group (made once per run)."""
        return self._codec

    def describe(self) -> str:
        return self.identity.describe()

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
    def status(self) -> str:
        return self.manifest["status"]

    @property
    def levels(self) -> list[dict]:
        return self.manifest["levels"]

    def level_files(self, level: int) -> list[Path]:
        """The part files of a complete level, in the manifest's order."""
        record = self.levels[level]
        return [self.path / level_name(level) / f["name"] for f in record["files"]]

    def read_level(self, level: int) -> np.ndarray:
        """The positions (signatures) of a complete level as uint64."""
        return read_positions(self.level_files(level))

    def read_level_paths(self, level: int) -> np.ndarray:
        """The path counts of a complete level, row for row with `read_level`."""
        return read_paths(self.level_files(level))

    # ----- writing
    def save(self) -> None:
        write_json_atomically(self.path / MANIFEST, self.manifest)

    def staging(self, level: int) -> Path:
        """An empty folder where an engine writes level `level` before it is committed."""
        folder = self.path / (level_name(level) + STAGING_SUFFIX)
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir()
        return folder

    def commit_level(self, level: int, staging: Path, seconds: float) -> dict:
        """Checksum the staged parts, rename the folder into place, then list it in the manifest."""
        if level != len(self.levels):
            raise RuntimeError(f"level {level} committed out of order after {len(self.levels)}")
        files = []
        for part in sorted(staging.glob("part-*.parquet")):
            files.append({"name": part.name, "rows": pq.read_metadata(part).num_rows,
                          "sha256": sha256_of(part)})
        for leftover in staging.iterdir():
            if not leftover.name.startswith("part-"):
                leftover.unlink() if leftover.is_file() else shutil.rmtree(leftover)
        final = self.path / level_name(level)
        if final.exists():
            shutil.rmtree(final)
        _fsync_folder(staging)
        os.rename(staging, final)
        _fsync_folder(self.path)
        record = {"level": level, "pegs": self.pegs_at(level),
                  "states": sum(f["rows"] for f in files), "files": files,
                  "seconds": round(seconds, 3)}
        if self.count_paths:
            paths = read_paths([final / f["name"] for f in files])
            record["paths"] = str(total_paths(paths))
        self.levels.append(record)
        self.save()
        return record

    def pegs_at(self, level: int) -> int:
        """Pegs in every position of a level: each jump removes exactly one."""
        return self.board.holes - len(self.start) - level

    def finish(self, status: str) -> None:
        self.manifest["status"] = status
        self.save()

    def discard_unlisted(self) -> None:
        """Remove level folders the manifest does not list: staging leftovers or uncommitted levels."""
        listed = {level_name(r["level"]) for r in self.levels}
        for entry in self.path.iterdir():
            if entry.name.startswith("level-") and entry.name not in listed:
                shutil.rmtree(entry)


def staged_rows(staging: Path) -> int:
    """Rows an engine wrote into a staging folder, from the Parquet footers alone."""
    return sum(pq.read_metadata(part).num_rows for part in staging.glob("part-*.parquet"))


def discard(staging: Path) -> None:
    shutil.rmtree(staging)


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)

"""Part files: one Parquet file of sorted, distinct positions (and their values), checked when read.

A part is made in memory and written whole, so its size and SHA-256 are known before it lands and
go into the manifest entry that alone makes it part of a level. Reading is the mirror image: the
whole file is fetched (one GET on an object store), its size and checksum compared with the
manifest, and only then parsed. A part swapped for another run's, truncated or damaged is refused
with one line naming the level, whatever command was reading it.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pegsearch.errors import UsageError
from pegsearch.kernel.digest import as_text, digest
from pegsearch.kernel.moves import LAST_HOLES, MOVES, MOVES_TYPE
from pegsearch.kernel.path_counts import ARROW_TYPE, PATHS, words_of
from pegsearch.kernel.values import NO_VALUES, Carry
from pegsearch.store.location import BlocksMissing, Location

POSITION = "position"
# The value columns' types, as every part stores them (see kernel.values).
COLUMN_TYPES = {PATHS: ARROW_TYPE, MOVES: MOVES_TYPE, LAST_HOLES: pa.int64()}
PART_ROWS = 1 << 22
# Rows of a part's row group: the footer keeps each group's least and greatest position, so one
# position is found by reading one group (store.lookup); 64 Ki rows cost 0.7% more bytes than one
# group a part, and a group is read in about a millisecond.
ROW_GROUP = 1 << 16
# A part's name: its number in the level, and the attempt that wrote it (so attempts never collide).
PART_NAME = re.compile(r"part-[0-9A-Za-z_.-]+\.parquet")


def new_attempt() -> str:
    """A name for one attempt at writing parts, unique enough that two never meet in a folder."""
    return secrets.token_hex(4)


def part_name(index: int, attempt: str) -> str:
    """The name of part `index` of a level, as written by `attempt`."""
    return f"part-{index:05d}-{attempt}.parquet"


class DamagedLevel(UsageError):
    """A stored level does not match its manifest: never computed on, always reported. To a
    service's client it is a state of the run (HTTP 409, as for a run not finished), not a fault
    of the server's."""

    http_status = 409

    def __init__(self, line: str, level: int | None = None) -> None:
        super().__init__(line)
        self.level = level  # the first level that cannot be read, where known


def encode(positions: np.ndarray, carry: Carry = Carry.NOTHING, values: np.ndarray = NO_VALUES,
           metadata: dict[str, str] | None = None) -> bytes:
    """Sorted distinct positions (and the values they carry) as the bytes of one Parquet file,
    with `metadata` (what the part is: see `Run.part_metadata`) as the file's key-value metadata.

    Sorted positions differ by small steps, so delta encoding plus zstd stores them compactly;
    each page carries a checksum, so a lookup that reads one row group still knows it is sound.
    Arrays are wrapped from their buffers: `pa.array` on numpy data imports pandas (0.3 s).
    """
    positions = np.ascontiguousarray(positions, dtype=np.uint64)
    columns = [pa.Array.from_buffers(pa.int64(), len(positions), [None, pa.py_buffer(positions)])]
    columns += carry.to_arrow(values)
    table = pa.Table.from_arrays(columns, names=[POSITION, *carry.columns], metadata=metadata)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, row_group_size=ROW_GROUP, compression="zstd",
                   use_dictionary=False, column_encoding={POSITION: "DELTA_BINARY_PACKED"},
                   write_page_checksum=True)
    return sink.getvalue().to_pybytes()


def entry_for(name: str, data: bytes, rows: int, content: int) -> dict:
    """The manifest's record of a part: what a reader checks before trusting it, and the digest of
    what it holds (kernel.digest), by which runs compare without rereading their parts."""
    return {"name": name, "rows": rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "digest": as_text(content)}


def write_part(folder: Location, name: str, positions: np.ndarray, carry: Carry = Carry.NOTHING,
               values: np.ndarray = NO_VALUES, metadata: dict[str, str] | None = None) -> dict:
    """Write one part file whole into `folder`; returns its manifest entry."""
    data = encode(positions, carry, values, metadata)
    folder.write(name, data)
    return entry_for(name, data, len(positions), digest(positions, values))


class UnreachableLevel(UsageError):
    """A stored level whose parts the store cannot give now (HDFS: no DataNode holding their
    blocks is up): nothing is wrong with the run, and nothing is computed on without them. To a
    service's client the store is unavailable for now (HTTP 503)."""

    http_status = 503


def check_part(folder: Location, entry: dict) -> tuple[bytes | None, list[str]]:
    """A listed part's bytes (None when missing) and what is wrong with them against the manifest:
    one phrase per problem (`verify` lists them all, readers refuse at the first). A part whose
    blocks no DataNode gives is no problem of the run's: UnreachableLevel, at once."""
    try:
        data = folder.read(entry["name"])
    except FileNotFoundError:
        return None, [f"missing from {folder}"]
    except BlocksMissing:
        level = re.search(r"level-(\d+)/?$", folder.uri)
        which = f"level {int(level[1])}" if level else folder.uri
        raise UnreachableLevel(
            f"{which}'s blocks are missing from HDFS: no DataNode holding part {entry['name']} of"
            f" {folder} answers (its replicas were on nodes that are down); start those DataNodes"
            " again (their blocks come back with them) and run this again") from None
    problems = []
    size = entry.get("bytes")
    if size is not None and len(data) != size:
        problems.append(f"{len(data):,} bytes, the manifest says {size:,} (truncated or replaced)")
    if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        problems.append("checksum does not match the manifest (damaged or replaced)")
    return data, problems


def read_checked(folder: Location, entry: dict, where: str) -> bytes:
    """A listed part's bytes, refused unless they are exactly what the manifest recorded."""
    data, problems = check_part(folder, entry)
    if problems or data is None:
        raise DamagedLevel(f"{where}: part {entry['name']}: {problems[0]}; the run is damaged (run"
                           " `pegsearch verify` on it)")
    return data


def parse(data: bytes, where: str) -> pq.ParquetFile:
    """A checked part's bytes as a Parquet file (a damaged one that still passed is one line)."""
    try:
        return pq.ParquetFile(pa.BufferReader(data))
    except (OSError, pa.ArrowException) as exc:
        raise DamagedLevel(f"{where}: not a readable Parquet part ({exc})") from None


def iter_parts(folder: Location, entries: list[dict], rows: int, carry: Carry,
               where: str) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Stream checked parts in batches of at most `rows`: positions and the values `carry` names
    (``(0, 2)`` when nothing), so a level larger than memory can be walked. One part at a time is
    held."""
    columns = [POSITION, *carry.columns]
    for entry in entries:
        part = parse(read_checked(folder, entry, where), where)
        missing = set(columns) - set(part.schema_arrow.names)
        if missing:
            raise DamagedLevel(f"{where}: part {entry['name']} has no column {sorted(missing)[0]!r};"
                               " the run is damaged (run `pegsearch verify` on it)")
        for batch in part.iter_batches(batch_size=rows, columns=columns):
            values = carry.from_arrow(batch.columns[1:]) if carry else NO_VALUES
            yield positions_of(batch.column(0)), values


def positions_of(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A `position` column (int64 bits) as uint64 positions: a writable copy, because numba
    compiles (and caches) a second kernel for read-only arrays."""
    return words_of(column, "position").copy()

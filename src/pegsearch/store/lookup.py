"""Finding a few positions in stored parts without reading the parts whole.

A part holds sorted positions in row groups (parts.ROW_GROUP rows), and its footer keeps each
group's least and greatest position. A lookup reads a part's footer once (one ranged read on an
object store), then only the groups whose range holds a position asked for; the pages' checksums
vouch for what it reads, and the part's size is compared with the manifest's. The part's SHA-256,
which only a read of the whole part can check, stays the job of `verify` and of readers that read
parts whole. Footers and recently read groups are kept for the next lookups of the process (a
service answers many hints of one run), within a bound on the bytes held.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pegsearch.kernel.values import NO_VALUES, Carry
from pegsearch.store.location import Location
from pegsearch.store.parts import POSITION, DamagedLevel, positions_of

HELD_BYTES = 256 << 20  # row groups kept between lookups
FOOTERS = 1024  # parts kept open between lookups
ANYWHERE = (0, (1 << 64) - 1)


@dataclass
class _Part:
    """An opened part: its file and each row group's range of positions."""

    file: pq.ParquetFile
    lows: np.ndarray
    highs: np.ndarray


class Lookups:
    """Open parts and their recently read row groups, shared by the lookups of one process."""

    def __init__(self, held_bytes: int = HELD_BYTES) -> None:
        self.held_bytes = held_bytes
        self._parts: OrderedDict[tuple[str, str], _Part] = OrderedDict()
        self._groups: OrderedDict[tuple[str, str, int, int], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._held = 0
        self._guard = threading.Lock()  # a ParquetFile is not read from two threads at once

    def contains(self, folder: Location, entries: list[dict], positions: np.ndarray,
                 where: str) -> np.ndarray:
        """Whether each of `positions` (uint64) is in the parts `entries` of `folder`."""
        return self.find(folder, entries, positions, where)[0]

    def find(self, folder: Location, entries: list[dict], positions: np.ndarray, where: str,
             carry: Carry = Carry.NOTHING) -> tuple[np.ndarray, np.ndarray]:
        """Whether each of `positions` (uint64) is in the parts `entries` of `folder`, and the
        values `carry` names of those found (a row of zeros for one not found; ``(0, 2)`` when
        nothing is carried)."""
        found = np.zeros(len(positions), dtype=bool)
        values = np.zeros((len(positions) if carry else 0, 2), dtype=np.uint64)
        with self._guard:
            for entry in entries:
                part = self._part(folder, entry, where)
                for index, position in enumerate(positions.tolist()):
                    if found[index]:
                        continue
                    for group in np.flatnonzero((part.lows <= position) & (position <= part.highs)):
                        rows, held = self._group(folder, entry, part, int(group), carry, where)
                        at = int(np.searchsorted(rows, np.uint64(position)))
                        if at < len(rows) and int(rows[at]) == position:
                            found[index] = True
                            if carry:
                                values[index] = held[at]
                            break
        return found, values

    def _part(self, folder: Location, entry: dict, where: str) -> _Part:
        key = (folder.path(entry["name"]), entry["sha256"])
        part = self._parts.get(key)
        if part is None:
            part = _open(folder, entry, where)
            self._parts[key] = part
            if len(self._parts) > FOOTERS:
                self._parts.popitem(last=False)[1].file.close()
        self._parts.move_to_end(key)
        return part

    def _group(self, folder: Location, entry: dict, part: _Part, group: int, carry: Carry,
               where: str) -> tuple[np.ndarray, np.ndarray]:
        key = (folder.path(entry["name"]), entry["sha256"], group, int(carry))
        held = self._groups.get(key)
        if held is None:
            try:
                table = part.file.read_row_group(group, columns=[POSITION, *carry.columns])
            except (OSError, pa.ArrowException) as exc:
                raise _damaged(where, entry, f"row group {group} cannot be read ({exc})") from None
            held = (positions_of(table.column(POSITION)),
                    carry.from_arrow(table.columns[1:]) if carry else NO_VALUES)
            self._groups[key] = held
            self._held += held[0].nbytes + held[1].nbytes
            while self._held > self.held_bytes and len(self._groups) > 1:
                rows, values = self._groups.popitem(last=False)[1]
                self._held -= rows.nbytes + values.nbytes
        self._groups.move_to_end(key)
        return held


def _open(folder: Location, entry: dict, where: str) -> _Part:
    """A listed part opened for lookups: refused when missing, not its listed size, or unreadable."""
    try:
        handle = folder.fs.open_input_file(folder.path(entry["name"]))
    except FileNotFoundError:
        raise _damaged(where, entry, f"missing from {folder}") from None
    if entry.get("bytes") not in (None, handle.size()):
        handle.close()
        raise _damaged(where, entry, f"{handle.size():,} bytes, the manifest says"
                       f" {entry['bytes']:,} (truncated or replaced)")
    try:
        file = pq.ParquetFile(handle, page_checksum_verification=True)
    except (OSError, pa.ArrowException) as exc:
        handle.close()
        raise _damaged(where, entry, f"not a readable Parquet part ({exc})") from None
    ranges = [_range(file.metadata.row_group(group).column(0).statistics)
              for group in range(file.metadata.num_row_groups)]
    lows = np.array([low for low, _ in ranges], dtype=np.uint64)
    highs = np.array([high for _, high in ranges], dtype=np.uint64)
    return _Part(file, lows, highs)


def _range(statistics: pq.Statistics | None) -> tuple[int, int]:
    """A row group's least and greatest position; anywhere when the footer cannot tell (no
    statistics, or a 64-hole board's positions past 2^63, which int64 statistics order wrongly)."""
    if statistics is None or not statistics.has_min_max or statistics.min < 0 or statistics.max < 0:
        return ANYWHERE
    return statistics.min, statistics.max


def _damaged(where: str, entry: dict, problem: str) -> DamagedLevel:
    return DamagedLevel(f"{where}: part {entry['name']}: {problem}; the run is damaged (run"
                        " `pegsearch verify` on it)")

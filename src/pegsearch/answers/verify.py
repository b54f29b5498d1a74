"""Rereading a run directory and listing everything wrong with it.

A run is trusted only as far as its manifest and part files agree: each listed file must be present,
carry its checksum and row count, and hold what a level of this search can hold — distinct canonical
positions of this board with the level's peg count, sorted ascending as unsigned 64-bit — and the
values it carries must sum up to what the manifest says (the level's path total, or its positions
by fewest moves), each fewest-moves value possible (no more moves than jumps, the last moved peg on
a hole that holds one). A damaged, truncated or foreign level fails here
whatever engine wrote it, and every problem is reported, not just the first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pegsearch.answers.winnable import finished, reaching, targets
from pegsearch.errors import UsageError
from pegsearch.kernel.backward import parents_reaching
from pegsearch.kernel.digest import as_text, combined, digest
from pegsearch.kernel.expand import signatures
from pegsearch.kernel.members import Members, sorted_distinct
from pegsearch.kernel.path_counts import as_int
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.values import Carry, merge_summaries
from pegsearch.store import PART_ROWS, POSITION, Location, Run, level_name, positions_of
from pegsearch.store.manifest import level_digest
from pegsearch.store.parts import check_part, iter_parts
from pegsearch.store.sets import EVERY_HOLE, FOLDER, VALUES, set_folder, set_values

# What an unlisted file is and does, for `verify`'s report of one.
UNLISTED = ("left by an interrupted attempt: readers that take level-*/*.parquet would count it;"
            " `--resume` removes it")
# Positions a part's rules are checked on at a time, so a part of 60 M positions needs no copies
# of itself.
CHECK_ROWS = 1 << 22
_POPCOUNT = np.array([bin(value).count("1") for value in range(256)], dtype=np.uint8)


@dataclass
class Verification:
    """The outcome of verifying one run: problems (one line each) and what was checked."""

    problems: list[str] = field(default_factory=list)
    levels: int = 0
    states: int = 0
    dropped: list[int] = field(default_factory=list)  # levels whose parts were dropped (--keep last)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(path: str | Path) -> Verification:
    """Check every listed level of the run in `path` against its manifest and the search's rules.

    A level dropped by `--keep last` has only its record: its pegs are checked, and that nothing
    of it is left on disk (a stray part would be counted by readers that glob); it is named in
    `dropped`, as what could not be checked."""
    run = Run.open(path, check_parts=False)
    checked = Verification()
    digest = run.manifest.get("board_digest")
    if digest != run.board.digest:
        checked.problems.append(f"manifest: board digest {digest} does not match its board"
                               f" definition ({run.board.digest})")
    tables = run.tables()
    expected_start = tables.signatures(np.array([run.board.start_position(run.start)], np.uint64))
    readable = set()  # the levels whose parts all passed: the sets' checks read only those
    for index, record in enumerate(run.levels):
        where = f"level {index}"
        if record.get("level") != index or record.get("pegs") != run.pegs_at(index):
            checked.problems.append(f"{where}: manifest says level {record.get('level')} with"
                                   f" {record.get('pegs')} pegs, expected level {index} with"
                                   f" {run.pegs_at(index)} pegs")
        if record.get("dropped"):
            checked.dropped.append(index)
            ok = False
        else:
            ok = _check_level(run, index, tables, checked.problems)
        if ok:
            readable.add(index)
        if index == 0 and ok and not np.array_equal(run.read_level(0), expected_start):
            checked.problems.append(f"{where}: does not hold the start position of"
                                   f" {run.describe()}")
        checked.levels += 1
        checked.states += record.get("states", 0)
    checkpoint = run.in_progress
    if checkpoint is not None:
        _check_level(run, checkpoint["level"], tables, checked.problems, in_progress=True)
    kept = run.manifest.get("winnable", {})
    for key in kept:
        _check_sets(run, key, tables, checked.problems, readable)
    committed = {level_name(index) for index in range(len(run.levels) + bool(checkpoint))
                 if index not in checked.dropped}
    for folder in run.location.folders():
        if folder.startswith("level-") and folder not in committed and run.location.files(folder):
            checked.problems.append(f"{folder}/ is not listed in the manifest (a level never"
                                    f" committed: {UNLISTED})")
        elif (folder.startswith(FOLDER) and folder.removeprefix(FOLDER) not in kept
              and run.location.files(folder)):
            checked.problems.append(f"{folder}/ is not listed in the manifest (winnable sets never"
                                    " committed, left by an interrupted `pegsearch winnable`; the"
                                    " next one removes them)")
    return checked


def against(path: str | Path, other: str | Path) -> tuple[int, list[str]]:
    """Compare two runs of one search level by level, by their manifests' digests (each level's
    content, however its parts are split); returns the levels compared and the first difference,
    if any. A run stopped early (paused by `--until`, interrupted) is compared on the levels it
    holds: two complete runs of one search must hold the same levels, but a stage of a search
    agrees with the whole search on its own. A run written before digests has its levels' digests
    computed from its parts. Two runs
    whose signatures are taken under different symmetries (one made before signatures kept the
    start's class) store other representatives of the same orbits: they are compared by counts."""
    mine, theirs = Run.open(path), Run.open(other)
    if not mine.spec.same_search(theirs.spec):
        raise UsageError(f"{other} is another search ({theirs.describe()}, symmetry"
                         f" {theirs.spec.symmetry}); --against compares two runs of one search")
    shared = min(len(mine.levels), len(theirs.levels))
    by_digest = same_signatures(mine, theirs)
    for level in range(shared):
        ours, its = ((_digest_of(mine, level), _digest_of(theirs, level)) if by_digest else
                     (mine.levels[level]["states"], theirs.levels[level]["states"]))
        if ours != its:
            states = (mine.levels[level]["states"], theirs.levels[level]["states"])
            how = f" (digest {ours} against {its})" if by_digest else ""
            return level, [f"level {level} differs: {states[0]:,} positions against {states[1]:,}{how}"]
    if len(mine.levels) != len(theirs.levels) and mine.status == theirs.status == "complete":
        return shared, [f"the runs agree on levels 0 to {shared - 1}, but {path} has"
                        f" {len(mine.levels)} levels and {other} {len(theirs.levels)}, both complete"]
    return shared, []


def same_signatures(mine: Run, theirs: Run) -> bool:
    """Whether two runs take signatures under the same symmetries, so equal levels store the same
    positions (else they store other representatives of the same orbits)."""
    return set(mine.spec.signing) == set(theirs.spec.signing)


def _digest_of(run: Run, level: int) -> str:
    record = run.levels[level]
    stored = record.get("digest") or level_digest(record["files"])
    if stored:
        return stored
    pieces = [digest(positions, values if run.carry else None)
              for positions, values in run.iter_level(level, 1 << 22, with_values=True)]
    return as_text(combined(pieces))


def recompute(path: str | Path, upto: int) -> list[str]:
    """Levels 1 to `upto` of a run made again by a second computation, compared position for position.

    The second computation shares nothing with the engines but the board's jump and symmetry
    tables: every legal jump of every parent in plain numpy, canonicalised by `BoardTables.signatures`
    (numpy, not the compiled kernel) and deduplicated by a sort (`sorted_distinct`, not hash
    tables). It holds a level's children in memory, so it is for a run's smaller levels.
    """
    run = Run.open(path)
    tables = run.tables()
    problems = []
    level = sorted_distinct(run.read_level(0), in_place=False)
    for index in range(1, min(upto, len(run.levels) - 1) + 1):
        children = np.concatenate([level[(level & flip) == need] ^ flip
                                   for need, flip in zip(tables.need, tables.flip, strict=True)])
        level = sorted_distinct(tables.signatures(children))
        stored = np.sort(run.read_level(index))
        if not np.array_equal(level, stored):
            problems.append(f"level {index}: the stored {len(stored):,} positions differ from the"
                            f" {len(level):,} a second computation (numpy) finds")
    return problems


def _summary_problems(run: Run, index: int, summary: dict) -> list[str]:
    """What is wrong with a level's values summed up against its manifest record."""
    record = run.levels[index]
    if run.carry is Carry.PATHS:
        paths = summary.get("paths", 0)
        return [] if str(paths) == record.get("paths") else \
            [f"paths sum to {paths:,}, the manifest says {_number(_int(record.get('paths')))}"]
    by_moves = summary.get("by_moves", {})
    if by_moves != record.get("by_moves") or min(map(int, by_moves), default=0) != record.get("moves"):
        return [f"positions by fewest moves {by_moves}, the manifest says {record.get('by_moves')}"
                f" (fewest {record.get('moves')})"]
    return []


def _move_problems(index: int, positions: np.ndarray, values: np.ndarray) -> list[str]:
    """What is wrong with some positions' fewest-moves values against the rules of moves."""
    problems = []
    last, moves = values[:, 0], values[:, 1]
    if np.any(moves > index) or (index > 0 and np.any(moves < 1)):
        problems.append(f"a fewest-moves count outside 1..{index} (a move is at least one jump)")
    if np.any((last & ~positions) != 0) or (index > 0 and np.any(last == 0)):
        problems.append("a last moved peg on a hole without a peg, or on no hole")
    return problems


def _check_level(run: Run, index: int, tables: BoardTables, problems: list[str],
                 in_progress: bool = False) -> bool:
    """Check one level's files, a part at a time (a level may be larger than memory): each part
    against its entry and the rules, the parts together against the manifest's count and values'
    summary, the level's digest against its parts' sum, and no position in two parts. True when
    every part could be read. The level in progress (`in_progress`) is checked as far as its
    committed passes go: their parts, rows and digest (which a checkpoint always records; a level
    committed before digests has none); its values' summary is the level's only once its last
    pass is made."""
    record = run.in_progress if in_progress else run.levels[index]
    folder = run.level_folder(index)
    where = (f"level {index} (in progress, {record['passes_done']} of {record['passes']} passes)"
             if in_progress else f"level {index}")
    if (in_progress or "digest" in record) and record.get("digest") != level_digest(record["files"]):
        problems.append(f"{where}: the level's digest {record.get('digest')} is not its parts' sum")
    present = folder.files()
    if not present and record["files"]:  # on an object store, a folder is its objects
        problems.append(f"{where}: folder {folder} is missing")
        return False
    listed = {entry["name"] for entry in record["files"]}
    for stray in sorted(name for name in present if name not in listed):
        problems.append(f"{where}: {stray} is not listed in the manifest ({UNLISTED})")
    rows, readable, summary, moves = 0, [], {}, set()
    spans = Spans()
    for entry in record["files"]:
        read = _check_part(folder, entry, f"{where} {entry['name']}", run, index, tables, problems)
        if read is None:
            continue
        readable.append(entry)
        positions, values = read
        rows += len(positions)
        spans.add(positions)
        if values is not None:
            summary = merge_summaries(summary, run.carry.summary(values))
            if run.carry is Carry.MOVES:
                moves.update(_move_problems(index, positions, values))
    if rows != record.get("states"):
        problems.append(f"{where}: {rows:,} rows read, the manifest says {_number(record.get('states'))}"
                        " states")
    if not spans.disjoint(lambda: _parts(run, index, readable)):
        problems.append(f"{where}: a position appears in more than one part")
    complete = len(readable) == len(record["files"])
    if run.carry and complete and not in_progress:
        problems += [f"{where}: {problem}"
                     for problem in _summary_problems(run, index, summary) + sorted(moves)]
    return complete


def _parts(run: Run, index: int, entries: list[dict]) -> Iterator[np.ndarray]:
    """The positions of a level's parts `entries`, a batch at a time, read again."""
    for positions, _ in iter_parts(run.level_folder(index), entries, PART_ROWS, Carry.NOTHING,
                                   run.where(index)):
        yield positions


def _int(text: object) -> object:
    """A manifest's decimal text as an int when it is one (path totals are stored as text)."""
    return int(text) if isinstance(text, str) and text.isdigit() else text


def _number(value: object) -> str:
    """A manifest's number with thousands separators (and anything else as it is)."""
    return f"{value:,}" if type(value) is int else repr(value)


def _positions(table: pa.Table) -> np.ndarray:
    return positions_of(table.column(POSITION))


def _check_part(folder: Location, entry: dict, where: str, run: Run, index: int, tables: BoardTables,
                problems: list[str], carry: Carry | None = None
                ) -> tuple[np.ndarray, np.ndarray | None] | None:
    """Check one part file (of a level carrying `carry`, by default the run's); returns its
    positions and the values it carries (None when it carries none), or None when it cannot be
    read."""
    carry = run.carry if carry is None else carry
    data, found = check_part(folder, entry)
    problems += [f"{where}: {problem}" for problem in found]
    if data is None:
        return None
    try:
        table = pq.read_table(pa.BufferReader(data))
    except (OSError, pa.ArrowException) as exc:
        problems.append(f"{where}: unreadable Parquet ({exc})")
        return None
    wanted = [POSITION, *carry.columns]
    if table.column_names != wanted:
        problems.append(f"{where}: columns {table.column_names}, expected {wanted}")
        return None
    if table.num_rows != entry.get("rows"):
        problems.append(f"{where}: {table.num_rows:,} rows, the manifest says {_number(entry.get('rows'))}")
    missing = {name: table.column(name).null_count for name in carry.columns}
    if any(missing.values()):
        problems += [f"{where}: {count} values of {name} are missing" for name, count in missing.items()
                     if count]
        return None
    positions = _positions(table)
    if np.any(positions[1:] <= positions[:-1]):
        problems.append(f"{where}: positions are not sorted strictly ascending (unsigned)")
    pegs = run.pegs_at(index)
    off_board = np.uint64(~((1 << run.board.holes) - 1) & (2**64 - 1))
    wrong, outside, unsigned = 0, False, False
    for start in range(0, len(positions), CHECK_ROWS):  # a slice at a time: parts can be large
        piece = positions[start:start + CHECK_ROWS]
        outside |= bool(np.any(piece & off_board))
        wrong += int(np.count_nonzero(_POPCOUNT[piece.view(np.uint8).reshape(-1, 8)].sum(axis=1) != pegs))
        if not (outside or wrong):  # a foreign position has no signature to compare
            unsigned |= bool(np.any(signatures(tables, piece) != piece))
    if outside or wrong:
        problems.append(f"{where}: {wrong:,} positions do not have {pegs} pegs on the board's"
                        f" {run.board.holes} holes (a level of another search?)")
    elif unsigned:
        problems.append(f"{where}: positions are not signatures under the run's symmetry group")
    values = carry.from_arrow(table.columns[1:]) if carry else None
    if "digest" in entry and as_text(digest(positions, values)) != entry["digest"]:
        problems.append(f"{where}: its digest is {as_text(digest(positions, values))}, the manifest"
                        f" says {entry['digest']} (positions or values changed)")
    return positions, values


def _check_sets(run: Run, key: str, tables: BoardTables, problems: list[str],
                readable: set[int]) -> None:
    """Check the kept winnable sets `key` (store.sets): each part against its entry and the
    level's rules, and the sets against the game: each winnable position is in its level and has
    a winnable child on the next, and the last level's are its one-peg finishes (on the hole's
    class). A set is checked against its level only where the level is `readable` (a damaged
    level is a problem already named)."""
    record = run.manifest["winnable"][key]
    finish = record.get("finish")
    if len(record["levels"]) != len(run.levels):
        problems.append(f"winnable {key}: {len(record['levels'])} levels kept, the run has"
                        f" {len(run.levels)}")
        return
    top = run.location / f"{FOLDER}{key}"
    listed = {f"{level_name(r['level'])}/{f['name']}" for r in record["levels"] for f in r["files"]}
    problems += [f"winnable {key}: {name} is not listed in the manifest (left by an interrupted"
                 " attempt; the next `pegsearch winnable` removes it)"
                 for name in sorted(set(top.files()) - listed)]
    carry = set_values(record)
    after: np.ndarray | None = None
    after_values = np.empty((0, 2), dtype=np.uint64)
    for level in reversed(record["levels"]):
        index, where = level["level"], f"winnable {key} level {level['level']}"
        pieces = [_check_part(set_folder(run, finish, index), entry, f"{where} {entry['name']}", run,
                              index, tables, problems, carry) for entry in level["files"]]
        if any(piece is None for piece in pieces):
            after = None
            continue
        kept = (np.concatenate([positions for positions, _ in pieces]) if pieces  # type: ignore[misc]
                else np.empty(0, dtype=np.uint64))
        values = (np.concatenate([carried for _, carried in pieces]) if pieces and carry  # type: ignore[misc]
                  else np.empty((0, 2), dtype=np.uint64))
        if len(kept) != level["states"]:
            problems.append(f"{where}: {len(kept):,} rows, the manifest says {level['states']:,}")
        if index in readable:
            members = Members(kept)
            found = sum(int(members.reached(batch, np.arange(1, len(batch) + 1)).sum())
                        for batch in _parts(run, index, run.levels[index]["files"]))
            if found != len(kept):
                problems.append(f"{where}: {len(kept) - found:,} winnable positions are not in the"
                                " level")
        if after is None and index == len(run.levels) - 1:
            if not np.array_equal(np.sort(kept), targets(run, finish)):
                hole = "" if finish in (None, EVERY_HOLE) else f" on hole {finish} or its images"
                problems.append(f"{where}: not the level's one-peg finishes{hole}")
            elif carry and not np.array_equal(values, finished(carry, kept)):
                problems.append(f"{where}: a finish's {VALUES[carry]} are not those of a finish")
        elif after is not None:
            _check_children(tables, carry, kept, values, after, after_values, where, problems)
        after, after_values = kept, values


def _check_children(tables: BoardTables, carry: Carry, kept: np.ndarray, values: np.ndarray,
                    after: np.ndarray, after_values: np.ndarray, where: str,
                    problems: list[str]) -> None:
    """Each of a level's winnable positions `kept` has a winnable child in `after` (the next
    level's set), and, when the sets carry values, the values its children's make."""
    if carry:
        reached, made = reaching(carry)(tables, kept, after, after_values)
    else:
        reached, made = parents_reaching(tables, kept, Members(after)), values
    if len(reached) != len(kept):
        problems.append(f"{where}: a winnable position has no winnable child on the next level")
    elif not np.array_equal(made, values):
        wrong = int(np.flatnonzero((made != values).any(axis=1))[0])
        problems.append(f"{where}: position {int(kept[wrong])} keeps {VALUES[carry]}"
                        f" {_value_text(carry, values[wrong])}, its children's make"
                        f" {_value_text(carry, made[wrong])}")


def _value_text(carry: Carry, row: np.ndarray) -> str:
    if carry is Carry.FINISHES:
        return f"holes {int(row[0]):#x}"
    return f"{as_int(row):,}" if carry is Carry.PATHS else f"{int(row[1])} (holes {int(row[0]):#x})"


class Spans:
    """Whether a level's parts share no position, seen a part at a time: at once when the parts
    cover ascending ranges (every engine's parts of a bitmap level, and any level in one part);
    else by sorting the level's positions, kept while they are few (up to HELD bytes) and
    otherwise read again in rounds of a share of the positions each, split by a hash, so memory
    stays bounded however large the level (`np.unique` took 40 times as long as a sort on a raw
    skippy-xl level)."""

    HELD = 1 << 30

    def __init__(self) -> None:
        self.ranges: list[tuple[int, int]] = []
        self.held: list[np.ndarray] | None = []
        self.rows = 0

    def add(self, positions: np.ndarray) -> None:
        if not len(positions):
            return
        self.ranges.append((int(positions.min()), int(positions.max())))
        self.rows += len(positions)
        if self.held is not None:
            self.held.append(positions)
            if 8 * self.rows > self.HELD:
                self.held = None  # too many to hold: the rounds will read them again

    def disjoint(self, again: Callable[[], Iterator[np.ndarray]]) -> bool:
        """True when no position is in two parts; `again` reads the parts' positions anew."""
        if all(a[1] < b[0] for a, b in pairwise(self.ranges)):
            return True
        if self.held is not None:
            return _distinct(np.concatenate(self.held))
        rounds = -(-8 * 2 * self.rows // self.HELD)
        for share in range(rounds):
            picked = [batch[_mixed(batch) % np.uint64(rounds) == share] for batch in again()]
            if not _distinct(np.concatenate(picked)):
                return False
        return True


def _mixed(positions: np.ndarray) -> np.ndarray:
    """Positions scrambled (an odd multiplier, its high bits), so rounds split them evenly."""
    return (positions * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)


def _distinct(positions: np.ndarray) -> bool:
    return len(sorted_distinct(positions, in_place=False)) == len(positions)

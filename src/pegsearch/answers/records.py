"""Whole searches shipped as records anyone can check: what a breadth-first search from one start
proved, kept in a few KB where the search itself is tens of GB and hours.

The depth-first solver leaves a few pairs of the larger boards undecided at any bound (wiegleb-45's
hole 2 back to itself, diamond-41's corners); a whole search from their start decides every one of
its finishes at once, but takes hours and more disk than a survey should spend again. A record
keeps, per board and start: the command that makes the search, the positions of every level, the
last level's digest, and the holes one peg can stand on at the end (none where the fewest pegs
left is more than one). The survey by the solver, the Play page's starts and `pegsearch records`
use it where the solver is undecided, and say so; `pegsearch verify RUN --record` compares a run
made by the record's command (whole, or its first levels with `--until`) level by level.

Records live in answers/records/*.json, one a board and start, written by `record_of` from a
complete run (bench/make_record.py).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from pegsearch.answers.finishes import finishes
from pegsearch.answers.solver import LOST_WORD, Answer
from pegsearch.board.geometry import Board
from pegsearch.board.symmetry import image_of_hole
from pegsearch.store import Run

RECORDS = Path(__file__).parent / "records"
# An answer's `how` when a shipped record decided it.
RECORD = "record"


@dataclass(frozen=True)
class SearchRecord:
    """A whole search from one start: `levels` its positions per level, `digest` its last level's,
    `one_peg` every hole one peg can stand on at its end (empty: never one peg), `pegs` the fewest
    pegs it reaches, `recorded` when and where it was made, `note` how its figures were gathered
    where not from one run's manifest."""

    board: str
    start: tuple[int, ...]
    symmetry: str
    command: str
    levels: tuple[int, ...]
    digest: str
    one_peg: tuple[int, ...]
    pegs: int
    recorded: str
    note: str = ""  # how its figures were gathered, where not from one run's manifest

    @property
    def positions(self) -> int:
        return sum(self.levels)

    def proof(self) -> str:
        """Where its answers come from, in words a survey or a page prints beside them."""
        return (f"the whole search from hole {', '.join(map(str, self.start))},"
                f" {self.positions:,} positions, recorded {self.recorded}; remade by `{self.command}`")

    def as_document(self) -> dict:
        return {**asdict(self), "positions": self.positions}


def record_of(run: Run, recorded: str) -> SearchRecord:
    """The record of a complete run (its command as `pegsearch run` makes it again)."""
    if run.status != "complete":
        raise ValueError(f"{run.uri} is {run.status}: only a complete search is a record")
    symmetry = "" if run.spec.symmetry == "board" else f" --symmetry {run.spec.symmetry}"
    command = (f"pegsearch run {run.board.name} --start {' '.join(map(str, run.start))}{symmetry}"
               " --keep last")
    return SearchRecord(run.board.name, tuple(run.start), run.spec.symmetry, command,
                        tuple(level["states"] for level in run.levels), run.levels[-1]["digest"],
                        tuple(sorted(hole for c in finishes(run) for hole in c.holes)),
                        run.levels[-1]["pegs"], recorded)


def write_record(record: SearchRecord, folder: Path = RECORDS) -> Path:
    path = folder / f"{record.board}-{'-'.join(map(str, record.start))}.json"
    path.write_text(json.dumps(asdict(record), indent=1) + "\n", encoding="utf-8")
    return path


@cache
def shipped(folder: Path = RECORDS) -> tuple[SearchRecord, ...]:
    """Every record shipped with pegsearch (or kept in `folder`)."""
    found = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        found.append(SearchRecord(**{**data, "start": tuple(data["start"]), "levels": tuple(data["levels"]),
                                     "one_peg": tuple(data["one_peg"])}))
    return tuple(found)


def record_for(board: Board, hole: int, records: tuple[SearchRecord, ...] | None = None
               ) -> tuple[SearchRecord, tuple[int, ...]] | None:
    """The record (of `records`, default the shipped ones) of the single vacancy at `hole`, or of
    a start the board's symmetries carry onto it, with the holes one peg can stand on from `hole`
    itself; None if there is none."""
    for record in shipped() if records is None else records:
        if record.board != board.name or len(record.start) != 1:
            continue
        for perm in board.symmetries:
            if image_of_hole(perm, record.start[0]) == hole:
                return record, tuple(sorted(image_of_hole(perm, end) for end in record.one_peg))
    return None


def disagreements(record: SearchRecord, run: Run) -> list[str]:
    """What a run of the record's search disagrees with it on: each level it holds, its positions;
    once complete, its last level's digest and how many levels. Empty: it agrees."""
    if run.board.name != record.board or tuple(run.start) != record.start \
            or run.spec.symmetry != record.symmetry:
        return [f"{run.uri} is not the recorded search ({record.command})"]
    recorded = dict(enumerate(record.levels))
    problems = [f"level {level['level']}: {level['states']:,} positions, the record"
                f" {recorded[level['level']]:,}" if level["level"] in recorded else
                f"level {level['level']}: past the record's last, {len(record.levels) - 1}"
                for level in run.levels if recorded.get(level["level"]) != level["states"]]
    if run.status == "complete" and not problems:
        if len(run.levels) != len(record.levels):
            problems.append(f"{len(run.levels)} levels, the record {len(record.levels)}")
        elif run.levels[-1]["digest"] != record.digest:
            problems.append(f"the last level's digest {run.levels[-1]['digest']}, the record {record.digest}")
    return problems


def never_one_peg(board: Board, hole: int, records: tuple[SearchRecord, ...] | None = None) -> bool:
    """Whether a record (default a shipped one) proves the single vacancy at `hole` never ends in
    one peg."""
    recorded = record_for(board, hole, records)
    return recorded is not None and not recorded[1]


def settled_by_records(board: Board, found: dict[tuple[int, int], Answer]
                       ) -> tuple[dict[tuple[int, int], Answer], dict[int, SearchRecord]]:
    """`found` with each undecided (start, finish) pair a record proves lost decided so (see
    `recorded_loss`), and the records used, by start."""
    settled = dict(found)
    used: dict[int, SearchRecord] = {}
    for (start, finish), answer in found.items():
        lost = None if answer.decided else recorded_loss(board, answer.position, finish)
        if lost is not None:
            settled[start, finish] = lost
            used[start] = record_for(board, start)[0]
    return settled, used


def recorded_loss(board: Board, position: int, finish: int | None) -> Answer | None:
    """The loss a shipped record proves for one peg (on `finish`, or anywhere) from `position`, a
    single vacancy; None where no record covers it or its record reaches that finish (it holds no
    line to it: the solver, given longer, or the whole search finds one)."""
    empty = (1 << board.holes) - 1 & ~position
    recorded = record_for(board, empty.bit_length()) if empty.bit_count() == 1 else None
    if recorded is None or (finish in recorded[1] if finish is not None else recorded[1]):
        return None
    return Answer(LOST_WORD, position, finish, how=RECORD, examined=recorded[0].positions)


def start_proof(board: Board, position: int) -> str:
    """The proof a record gives of a single vacancy's losses, in words (see SearchRecord.proof)."""
    hole = ((1 << board.holes) - 1 & ~position).bit_length()
    recorded = record_for(board, hole)
    return "a shipped record" if recorded is None else recorded[0].proof()

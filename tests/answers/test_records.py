"""Whole searches shipped as records (answers.records): made from a complete run, compared with a
run of the same search level by level, and used where the solver is undecided: a survey's pair,
the Play page's starts. The shipped records' own figures are checked against runs made here as far
as a test can afford (their first levels), and their last level's digest against its positions.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pegsearch.answers.by_solver import open_starts, why
from pegsearch.answers.records import (
    RECORD,
    disagreements,
    never_one_peg,
    record_for,
    record_of,
    settled_by_records,
    shipped,
    write_record,
)
from pegsearch.answers.solver import LOST_WORD, UNDECIDED, Answer
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.kernel.digest import as_text, digest
from pegsearch.kernel.expand import signatures
from pegsearch.store import Run
from tests.helpers import assert_one_line_error, pegsearch


def made(board: str, start: int, out: Path, until: int | None = None) -> Run:
    loaded = load_board(board)
    return search(SearchSpec.asked(loaded, (start,), "start"), out, LocalEngine(), until=until)


def test_a_record_is_made_from_a_complete_run_and_read_back(tmp_path: Path) -> None:
    run = made("triangle-5", 1, tmp_path / "run")
    record = record_of(run, "2026-12-02, here")
    assert record.levels == tuple(level["states"] for level in run.levels)
    assert record.one_peg == (1, 7, 10, 13) and record.pegs == 1
    assert record.command == "pegsearch run triangle-5 --start 1 --symmetry start --keep last"
    folder = tmp_path / "records"
    folder.mkdir()
    write_record(record, folder)
    assert shipped(folder) == (record,)
    assert disagreements(record, run) == []


def test_a_run_that_differs_from_its_record_is_named_by_level(tmp_path: Path) -> None:
    run = made("triangle-5", 1, tmp_path / "run")
    record = record_of(run, "here")
    wrong = record.__class__(**{**record.__dict__, "levels": (*record.levels[:5], 7, *record.levels[6:])})
    assert disagreements(wrong, run) == [f"level 5: {run.levels[5]['states']:,} positions, the record 7"]
    digest_off = record.__class__(**{**record.__dict__, "digest": "0" * 16})
    assert disagreements(digest_off, run) == [f"the last level's digest {record.digest}, the record"
                                              f" {'0' * 16}"]
    other = made("triangle-5", 2, tmp_path / "other")
    assert "is not the recorded search" in disagreements(record, other)[0]


@pytest.mark.parametrize("record", shipped(), ids=lambda r: f"{r.board}-{r.start[0]}")
def test_a_shipped_record_agrees_with_its_first_levels_made_here(record, tmp_path: Path) -> None:
    """Each shipped record's levels 0-9 (the rest took hours), and its last level's digest
    against the positions it names: one peg on each `one_peg` hole (or, never one peg, nothing
    to check here)."""
    run = made(record.board, record.start[0], tmp_path / "run", until=9)
    assert disagreements(record, run) == []
    if record.one_peg:
        ends = np.array([1 << (hole - 1) for hole in record.one_peg], dtype=np.uint64)
        assert as_text(digest(np.unique(signatures(run.tables(), ends)))) == record.digest


def test_wiegleb_45s_hole_2_back_to_itself_is_lost_by_its_record() -> None:
    """The pair the solver never decides: lost by the shipped whole search, through a symmetry
    too (hole 2's mirror images start the same search); a finish the record reaches stays
    undecided (no line is recorded)."""
    board = load_board("wiegleb-45")
    recorded = record_for(board, 2)
    assert recorded is not None and 2 not in recorded[1] and 11 in recorded[1]
    position = board.start_position((2,))
    found = {(2, 2): Answer(UNDECIDED, position, 2), (2, 11): Answer(UNDECIDED, position, 11)}
    settled, used = settled_by_records(board, found)
    assert settled[2, 2].outcome == LOST_WORD and settled[2, 2].how == RECORD
    assert settled[2, 11].outcome == UNDECIDED and used == {2: recorded[0]}
    assert "80,606,448,234 positions" in why(board, settled[2, 2])
    mirrored = next(h for h in range(1, board.holes + 1) if h != 2 and record_for(board, h))
    assert len(record_for(board, mirrored)[1]) == len(recorded[1])


def test_the_play_page_does_not_offer_a_start_a_record_proves_never_wins(tmp_path: Path) -> None:
    """Hexagon-19: the position classes allow one peg from hole 1, but its whole search never
    reaches one (a real run's record): hole 1 and every hole the symmetries carry it onto are no
    longer offered; the other starts are, until a record says otherwise."""
    board = load_board("hexagon-19")
    record = record_of(made("hexagon-19", 1, tmp_path / "run"), "here")
    assert record.one_peg == () and record.pegs > 1
    before = open_starts(board)["starts"]
    after = open_starts(board, (record,))["starts"]
    images = {hole for hole in before if record_for(board, hole, (record,))}
    assert 1 in before and 1 in images and set(after) == set(before) - images and after


def test_records_are_listed_and_a_run_is_verified_against_its_record(tmp_path: Path) -> None:
    listed = pegsearch("records")
    assert listed.returncode == 0 and "wiegleb-45 from hole 2: 80,606,448,234 positions" in listed.stdout
    out = tmp_path / "run"
    made("wiegleb-45", 2, out, until=8)
    checked = pegsearch("verify", str(out), "--record")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert ("recorded: levels 0 to 8 of its 44 equal the record of the whole search from hole 2"
            in checked.stdout)
    other = tmp_path / "other"
    made("triangle-5", 1, other)
    assert_one_line_error(pegsearch("verify", str(other), "--record"), "--record: no record of")


def test_a_hint_at_a_recorded_start_is_lost_by_its_record() -> None:
    """Wiegleb-45 from hole 2, asked to end on hole 2: the solver alone says undecided at any
    bound a test affords; the record proves it lost, and so every jump."""
    board = load_board("wiegleb-45")
    pegs = ",".join(str(hole) for hole in range(1, board.holes + 1) if hole != 2)
    asked = pegsearch("hint", "wiegleb-45", pegs, "--finish", "2", "--json", "--seconds", "1")
    assert asked.returncode == 0, asked.stderr
    hint = json.loads(asked.stdout)
    assert hint["outcome"] == "lost" and "the whole search from hole 2" in hint["note"]
    assert all(jump["outcome"] == "lost" for jump in hint["jumps"])


def test_diamond_41s_records_leave_out_its_corners_and_decide_its_hole_2() -> None:
    """The whole searches from diamond-41's hole 1 (a corner) and hole 2, shipped: the Play page's
    starts leave out the four corners, which the position classes allow and which never reach one
    peg; from hole 2 and its seven images every finish but where its last peg can stand (holes 4
    and 19 from hole 2) is lost by the record, and those stay for the solver."""
    board = load_board("diamond-41")
    corners = {1, 17, 25, 41}
    assert all(never_one_peg(board, hole) for hole in corners)
    starts = set(open_starts(board)["starts"])
    assert starts and not starts & corners and 2 in starts
    recorded = record_for(board, 2)
    assert recorded is not None and recorded[1] == (4, 19)
    position = board.start_position((2,))
    found = {(2, f): Answer(UNDECIDED, position, f) for f in range(1, board.holes + 1)}
    settled, used = settled_by_records(board, found)
    assert {f for (_, f), answer in settled.items() if answer.outcome == UNDECIDED} == {4, 19}
    assert all(answer.how == RECORD for (_, f), answer in settled.items() if f not in (4, 19))
    assert used == {2: recorded[0]}

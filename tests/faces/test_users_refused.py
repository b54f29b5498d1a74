"""What a new user met on the command line (issue 55): a position with no pegs accepted, a board
name mistyped pointed at runs, a stopped hint told to resume levels, and a survey by the solver that
did not name the pairs it left undecided."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from pegsearch.answers.hint import read_position
from pegsearch.board.files import load_board
from pegsearch.errors import InputError
from tests.helpers import assert_one_line_error, pegsearch_process
from tests.helpers.serving import Server

EMPTY_PICTURE = " ".join("." * 15)  # triangle-5, every hole empty
NO_PEG = "the picture has no peg; a position holds at least one peg"


def test_a_position_with_no_pegs_is_refused_in_one_line(tmp_path: Path) -> None:
    """It was answered: exit 0, "0 pegs: pegs on" (and HTTP 200, "position": [] from the service,
    which reads positions with the same `read_position`)."""
    assert_one_line_error(pegsearch_process("hint", "triangle-5", EMPTY_PICTURE), NO_PEG)
    out = tmp_path / "run"
    assert pegsearch_process("run", "triangle-5", "--out", str(out)).returncode == 0
    assert_one_line_error(pegsearch_process("hint", str(out), EMPTY_PICTURE), NO_PEG)
    board = load_board("triangle-5")
    with pytest.raises(InputError, match=NO_PEG):
        read_position(board, board.empty, EMPTY_PICTURE)


def test_the_service_refuses_a_position_with_no_pegs_in_one_line(tmp_path: Path) -> None:
    """It answered 200 with `"position": []`."""
    server = Server(tmp_path / "runs")
    try:
        got, document = server.json("GET", f"/api/boards/triangle-5/hint?position={quote(EMPTY_PICTURE)}")
    finally:
        server.stop()
    assert got == 400 and NO_PEG in document["error"] and "\n" not in document["error"]


def test_a_name_that_is_no_board_and_no_run_lists_the_boards() -> None:
    """`solve nosuchboard` said "... does not exist; give the --out of a `pegsearch run`", where
    `survey nosuchboard` lists the boards."""
    for command in (("solve", "triangl-5"), ("hint", "triangl-5", "1,2")):
        result = pegsearch_process(*command)
        assert_one_line_error(result, "'triangl-5' is neither a board nor a run: did you mean"
                                      " 'triangle-5'? use one of ")
        assert "english-33" in result.stderr and "--out of a `pegsearch run`" in result.stderr
    assert_one_line_error(pegsearch_process("solve", "nosuchboard"), "use one of ")
    # A path is a run's place: it still says so.
    assert_one_line_error(pegsearch_process("solve", "/nonexistent/run"), "/nonexistent/run does not exist")


def test_a_hint_stopped_by_sigterm_says_so_without_levels_to_resume() -> None:
    """A hint makes no levels: it said "completed levels are kept (resume with --resume)"."""
    child = subprocess.Popen([sys.executable, "-m", "pegsearch", "hint", "wiegleb-45", "21-22-23",
                              "--seconds", "120"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    time.sleep(8)  # the kernels loaded and the solver at work (deciding takes far longer)
    assert child.poll() is None, child.communicate()
    child.send_signal(signal.SIGTERM)
    stdout, stderr = child.communicate(timeout=60)
    assert child.returncode == 128 + signal.SIGTERM, stderr
    assert stderr.strip().splitlines()[-1] == "pegsearch: stopped by SIGTERM"
    assert "levels" not in stderr and "Traceback" not in stderr and stdout == ""


def test_a_survey_by_the_solver_names_its_undecided_pairs_and_positions_examined(tmp_path: Path) -> None:
    """Its text said "from 12 start holes, some finishing holes are undecided" without naming them
    (--json did), and called the solver's positions examined `states`."""
    out = tmp_path / "survey"
    result = pegsearch_process("survey", "triangle-6", "--depth-first", "--seconds", "0.0001",
                               "--out", str(out))
    assert result.returncode == 0, result.stderr
    document = json.loads((out / "survey.json").read_text())
    undecided = {start["start"]: start["undecided"] for start in document["starts"]}
    assert any(undecided.values())  # a bound this short leaves some pairs undecided
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("start"))
    assert "positions examined" in header and "states" not in header
    assert "undecided finishes" in header
    column = header.index("undecided finishes") + len("undecided finishes")
    rows = lines[lines.index(header) + 1:lines.index(header) + 1 + len(undecided)]
    for row in rows:
        start = int(row.split()[0])
        named = row[:column].rsplit("  ", 1)[-1].strip()
        assert named == (", ".join(map(str, undecided[start])) or "-"), row
        solvable = next(s["solvable"] for s in document["starts"] if s["start"] == start)
        assert row.split()[2] == ("yes" if solvable else "undecided" if undecided[start] else "no")
    pairs = sum(map(len, undecided.values()))
    assert f"{pairs} start-to-finish pair" in lines[-1]

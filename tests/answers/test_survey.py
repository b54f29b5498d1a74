"""`pegsearch survey`: every start hole, exact finishing holes, and Bell's solvable-pair counts.

The triangle's symmetries are rebuilt here from barycentric coordinates (a hole's distances to the
three sides, permuted), independently of the board code, to count pairs up to symmetry (A130516)
and to check that each hole's answer is its class's answer carried through a symmetry.
"""

from __future__ import annotations

import json
import shlex
import shutil
import signal
import subprocess
import sys
import time
from itertools import permutations
from pathlib import Path

import pytest

from pegsearch.answers.shapes import BY, Survey
from pegsearch.answers.survey import StartResult
from pegsearch.board.files import load_board
from tests.helpers import assert_one_line_error, cell, hole_at, pegsearch, wait_for_levels

CORNER_CLASSES = {"1": (1, 11, 15), "2": (2, 3, 7, 10, 12, 14), "4": (4, 6, 13), "5": (5, 8, 9)}


def triangle_symmetries(side: int) -> list[dict[int, int]]:
    """The 6 symmetries of a triangle of side `side` as hole -> hole maps."""
    def barycentric(hole: int) -> tuple[int, int, int]:
        row, column = cell(hole)
        return (side - 1 - row, row - column, column)

    def from_barycentric(a: int, b: int, c: int) -> int:
        row = side - 1 - a
        return hole_at(row, c)

    holes = range(1, side * (side + 1) // 2 + 1)
    return [{h: from_barycentric(*(barycentric(h)[i] for i in order)) for h in holes}
            for order in permutations(range(3))]


def survey_json(board: str, out: Path, *flags: str) -> dict:
    result = pegsearch("survey", board, "--out", str(out), "--json", *flags)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def solvable_pair_classes(document: dict, side: int) -> int:
    """Orbits of solvable (start, finish) pairs under the triangle's symmetries."""
    pairs = {(s["start"], f) for s in document["starts"] for f in s["finishes"]}
    return len({min((g[s], g[f]) for g in triangle_symmetries(side)) for s, f in pairs})


def check_every_hole_is_its_class_carried_by_symmetry(document: dict, side: int) -> None:
    starts = {s["start"]: s for s in document["starts"]}
    assert sorted(starts) == list(range(1, side * (side + 1) // 2 + 1))
    for hole, entry in starts.items():
        assert entry["solvable"] == bool(entry["finishes"])
        for g in triangle_symmetries(side):
            image = starts[g[hole]]
            assert sorted(g[f] for f in entry["finishes"]) == image["finishes"]
            assert image["states"] == entry["states"]


def test_triangle5_survey_matches_durango_bill_and_a130516(published: dict, tmp_path: Path) -> None:
    document = survey_json("triangle-5", tmp_path / "survey", "--count-paths")
    assert document["board"] == "triangle-5"
    check_every_hole_is_its_class_carried_by_symmetry(document, 5)
    by_start = published["triangle5_solutions"]["by_start_hole"]
    for entry in document["starts"]:
        [named] = [h for h, holes in CORNER_CLASSES.items() if entry["start"] in holes]
        assert entry["solutions"] == by_start[named]
    corner = next(s for s in document["starts"] if s["start"] == 1)
    assert corner["finishes"] == sorted(map(int, published["triangle5_solutions"]
                                            ["corner_start_by_final_hole"]))
    assert solvable_pair_classes(document, 5) == published["triangle_solvable_pairs"]["by_side"]["5"]
    searched = sorted(p.name for p in (tmp_path / "survey").iterdir())
    assert searched == ["start-01", "start-02", "start-04", "start-05", "survey.json"]
    kept = json.loads((tmp_path / "survey" / "survey.json").read_text())
    assert kept["starts"] == document["starts"] and kept["count_paths"] is True  # the folder says it


def test_a_survey_folder_is_reused_and_its_text_lists_every_start(tmp_path: Path) -> None:
    out = tmp_path / "survey"
    first = survey_json("triangle-5", out)
    stamps = {p: p.stat().st_mtime_ns for p in out.glob("*/manifest.json")}
    result = pegsearch("survey", "triangle-5", "--out", str(out), "--whole-search")
    assert result.returncode == 0, result.stderr
    assert "--whole-search adds nothing here: every start of triangle-5 is searched whole" in result.stderr
    assert {p: p.stat().st_mtime_ns for p in out.glob("*/manifest.json")} == stamps
    rows = [line.split() for line in result.stdout.splitlines()[3:-1]]  # heading, its note, columns
    assert [int(row[0]) for row in rows] == list(range(1, 16))
    five = next(s for s in first["starts"] if s["start"] == 5)
    assert rows[4][:3] == ["5", "5", "yes"] and rows[4][4:] == [str(f) for f in five["finishes"]]
    assert result.stdout.splitlines()[-1] == "one peg is reachable from 15 of 15 start holes"
    assert_one_line_error(pegsearch("survey", "triangle-5", "--out", str(out), "--count-paths"),
                          "reused only for the same board, --count-paths and --fewest-moves")


def test_a_folder_holding_another_search_is_refused_before_any_start_is_searched(tmp_path: Path) -> None:
    """Only its last start's run left, a count of paths: the survey refused it at that start's
    turn, after searching every start before it (the solver's survey with --whole-search after its
    pass over every pair and the whole searches before); now at once, searching nothing."""
    out = tmp_path / "survey"
    survey_json("triangle-5", out, "--count-paths")
    for run in sorted(out.glob("start-*"))[:-1]:
        shutil.rmtree(run)
    kept = sorted(out.glob("start-*"))
    assert [run.name for run in kept] == ["start-05"]
    for args in ((), ("--depth-first", "--seconds", "0.0001", "--whole-search")):
        assert_one_line_error(pegsearch("survey", "triangle-5", "--out", str(out), *args),
                              f"{kept[0]} holds another search")
        assert sorted(out.glob("start-*")) == kept


def test_a_survey_stopped_names_the_folder_it_chose_to_continue_in(tmp_path: Path) -> None:
    """Stopped, a survey said to continue with the survey as typed: without --out that made a new
    folder under runs/ and searched again from nothing. The command it names carries its folder."""
    child = subprocess.Popen([sys.executable, "-m", "pegsearch", "survey", "skippy-xl"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("runs/*/start-01/manifest.json")) and time.monotonic() < deadline:
        time.sleep(0.01)
    [folder] = (tmp_path / "runs").iterdir()
    wait_for_levels(folder / "start-01", 2)
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 128 + signal.SIGTERM, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("pegsearch: stopped by SIGTERM; completed levels are kept (continue with `")
    command = shlex.split(last.split("`")[1])
    assert command[:3] == ["pegsearch", "survey", "skippy-xl"]
    assert Path(command[command.index("--out") + 1]) == folder.relative_to(tmp_path)


def test_the_solvers_survey_says_what_its_columns_are(tmp_path: Path) -> None:
    """`searched` and a "positions examined" that changed from run to run were explained nowhere
    (issue 64, item 13): the text says what each is, and its rows are the starts."""
    result = pegsearch("survey", "triangle-5", "--depth-first")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1].startswith("(searched: the start whose pairs answer the row")
    assert "changes from run to run with which pair proved a position first)" in lines[1]
    assert lines[2].split()[:4] == ["start", "searched", "solvable", "positions"]
    assert [int(line.split()[0]) for line in lines[3:-1]] == list(range(1, 16))


def test_triangle6_solvable_pairs_match_a130516(published: dict, tmp_path: Path) -> None:
    document = survey_json("triangle-6", tmp_path / "survey")
    check_every_hole_is_its_class_carried_by_symmetry(document, 6)
    assert solvable_pair_classes(document, 6) == published["triangle_solvable_pairs"]["by_side"]["6"]


@pytest.mark.slow
def test_skippy_xl_solvable_pairs_match_a130516(published: dict, tmp_path: Path) -> None:
    document = survey_json("skippy-xl", tmp_path / "survey")
    check_every_hole_is_its_class_carried_by_symmetry(document, 7)
    assert solvable_pair_classes(document, 7) == published["triangle_solvable_pairs"]["by_side"]["7"]
    assert not next(s for s in document["starts"] if s["start"] == 1)["solvable"]


def test_undecided_pairs_of_a_large_board_are_decided_by_the_commands_its_verdict_names() -> None:
    """A board past SURVEY_WHOLE holes is surveyed by the solver without --depth-first, and a
    longer bound is ten times the one that left pairs undecided (issue 81, item 2)."""
    board = load_board("wiegleb-45")
    open_ = StartResult(start=2, searched=2, solvable=False, finishes=(), states=0, solutions=None,
                        run="", lines={}, lost={}, undecided=(2, 5))
    verdict = Survey(board, (open_,), BY, seconds=120).verdict
    assert verdict.endswith("2 start-to-finish pairs from 1 start hole undecided (each pair's time"
                            " bound, 120 s, was reached): decide them with `pegsearch survey"
                            " wiegleb-45 --seconds 1200` (each pair up to 1200 s) or `pegsearch"
                            " survey wiegleb-45 --whole-search` (each of their starts searched whole)")

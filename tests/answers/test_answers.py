"""Solutions, winnable positions and per-hole solution counts, against published figures.

Jumps printed by `solve` are replayed with a triangle geometry written here from scratch (rows and
columns, the three line directions), not with the board code under test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pegsearch.answers import winnable as walk
from pegsearch.answers.finishes import exact_per_hole, finishes
from pegsearch.answers.hint import hint
from pegsearch.answers.solve import solve
from pegsearch.answers.winnable import targets, winnable_counts, winnable_parents, winnable_sets
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.kernel.tables import BoardTables
from pegsearch.store import Run
from tests.helpers import assert_one_line_error, cell, local_run, pegsearch

SYMMETRIES = ("board", "start", "none")


def triangle_run(tmp_path: Path, start: int, symmetry: str, count_paths: bool = False,
                 board: str = "triangle-5", signatures: str = "class") -> Path:
    out = tmp_path / f"{board}-{start}-{symmetry}-{signatures}"
    loaded = load_board(board)
    search(SearchSpec(loaded, (start,), symmetry, count_paths, signatures=signatures), out, LocalEngine())
    return out


# ----- an independent triangle: hole numbers <-> (row, column), rows from the apex
def replay_triangle(side: int, start: int, jumps: list[tuple[int, int, int]]) -> set[int]:
    """Play `jumps` from a full triangle with `start` empty, checking each; returns the pegs left."""
    pegs = set(range(1, side * (side + 1) // 2 + 1)) - {start}
    for a, b, c in jumps:
        (ra, ca), (rb, cb), (rc, cc) = cell(a), cell(b), cell(c)
        step = (rb - ra, cb - ca)
        assert step in {(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)}, (a, b, c)
        assert (rc - rb, cc - cb) == step and 0 <= cc <= rc < side, (a, b, c)
        assert a in pegs and b in pegs and c not in pegs, (a, b, c)
        pegs = (pegs - {a, b}) | {c}
    return pegs


def printed_jumps(stdout: str) -> list[tuple[int, int, int]]:
    [line] = [line for line in stdout.splitlines() if line.startswith("jumps:")]
    return [tuple(map(int, jump)) for jump in re.findall(r"(\d+)-(\d+)-(\d+)", line)]


# ----- solve
@pytest.mark.parametrize(("start", "symmetry"), [(1, "board"), (2, "none"), (4, "start"), (5, "board")])
def test_solve_prints_a_solution_that_replays_to_one_peg(start: int, symmetry: str,
                                                         tmp_path: Path) -> None:
    out = triangle_run(tmp_path, start, symmetry)
    result = pegsearch("solve", str(out))
    assert result.returncode == 0, result.stderr
    jumps = printed_jumps(result.stdout)
    assert len(jumps) == 13
    [last] = replay_triangle(5, start, jumps)
    assert f"last peg on hole {last}" in result.stdout
    lines = result.stdout.splitlines()
    final = next(index for index, line in enumerate(lines)
                 if line.startswith(f"13. {'-'.join(map(str, jumps[-1]))}  (move "))
    assert "".join(lines[final + 1:final + 6]).count("o") == 1


@pytest.mark.parametrize("symmetry", SYMMETRIES)
def test_solve_finish_reaches_exactly_durango_bills_final_holes(symmetry: str, published: dict,
                                                                tmp_path: Path) -> None:
    """From the corner, every hole is tried as --finish; exactly Bill's final holes succeed."""
    run = Run.open(triangle_run(tmp_path, 1, symmetry))
    expected = {int(h) for h in published["triangle5_solutions"]["corner_start_by_final_hole"]}
    reached = set()
    for hole in range(1, 16):
        line = solve(run, hole)
        jumps = [(j.start, j.over, j.to) for j in line.jumps]
        pegs = replay_triangle(5, 1, jumps)
        assert len(pegs) == 1
        if line.solved:
            assert pegs == {hole}
            reached.add(hole)
    assert reached == expected


def test_solve_when_one_peg_is_unreachable_shows_the_fewest_pegs(tmp_path: Path) -> None:
    """hexagon-19 from the centre cannot be won; the best line must end at the last level's pegs."""
    out = tmp_path / "hex"
    run = local_run("hexagon-19", out)
    fewest = run.levels[-1]["pegs"]
    result = pegsearch("solve", str(out))
    assert result.returncode == 0, result.stderr
    assert "one peg is not reachable" in result.stdout
    jumps = printed_jumps(result.stdout)
    assert len(jumps) == len(run.levels) - 1
    board = load_board("hexagon-19")
    lines = {(j.start, j.over, j.to) for j in board.jumps}
    pegs = set(range(1, 20)) - {10}
    for a, b, c in jumps:
        assert (a, b, c) in lines and a in pegs and b in pegs and c not in pegs
        pegs = (pegs - {a, b}) | {c}
    assert len(pegs) == fewest > 1


def test_solve_draws_svg_and_png_strips(tmp_path: Path) -> None:
    out = triangle_run(tmp_path, 1, "start")
    svg, png = tmp_path / "line.svg", tmp_path / "line.png"
    result = pegsearch("solve", str(out), "--finish", "13", "--svg", str(svg), "--png", str(png))
    assert result.returncode == 0, result.stderr
    assert replay_triangle(5, 1, printed_jumps(result.stdout)) == {13}
    assert "<svg" in svg.read_text()[:500]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The strip says what it shows (matplotlib writes each text into the SVG as a comment).
    assert "<!-- triangle-5, start: hole 1; solved in 13 jumps," in svg.read_text()


def test_a_picture_without_matplotlib_is_refused_before_the_work(tmp_path: Path) -> None:
    out = triangle_run(tmp_path, 1, "start")
    shadow = tmp_path / "no-matplotlib" / "matplotlib"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('matplotlib is not installed here')\n")
    environment = {**os.environ, "PYTHONPATH": str(shadow.parent)}
    result = subprocess.run([sys.executable, "-m", "pegsearch", "solve", str(out), "--png",
                             str(tmp_path / "line.png")], capture_output=True, text=True,
                            env=environment, timeout=300)
    assert_one_line_error(result, "pictures need matplotlib: pip install 'pegsearch[plotting]'")
    assert not (tmp_path / "line.png").exists()


def test_solve_refuses_bad_input(tmp_path: Path) -> None:
    out = triangle_run(tmp_path, 1, "board")
    assert_one_line_error(pegsearch("solve", str(out), "--finish", "16"),
                          "hole 16 does not exist on triangle-5")
    assert_one_line_error(pegsearch("solve", str(out), "--png", str(tmp_path / "x.svg")),
                          "must end in .png")
    assert_one_line_error(pegsearch("solve", str(tmp_path)), "is not a pegsearch run (no manifest.json)")


# ----- per final hole and winnable positions
@pytest.mark.parametrize("symmetry", ["start", "none", "board"])
def test_corner_solutions_per_final_hole_match_durango_bill(symmetry: str, published: dict,
                                                            tmp_path: Path) -> None:
    """Exact per hole, whatever the reduction: reduced by the whole group, signatures are taken
    under the symmetries keeping the corner's class, and those fix the corner."""
    out = triangle_run(tmp_path, 1, symmetry, count_paths=True)
    document = json.loads(pegsearch("counts", str(out), "--json").stdout)
    assert document["finishes_exact_per_hole"] is True
    by_hole = {str(entry["hole"]): entry["paths"] for entry in document["finishes"]}
    assert by_hole == published["triangle5_solutions"]["corner_start_by_final_hole"]
    text = pegsearch("counts", str(out)).stdout
    assert "last peg on each hole (exact" in text
    # Reduced by 6 symmetries, whose rotations move hole 1: the heading names the ones that count.
    assert "the run's symmetries all fix the start" not in text
    assert "those keeping the start's position class, all fix the start" in text
    assert re.search(r"^\s+13\s+16,128$", text, re.MULTILINE)


def test_board_reduced_counts_are_per_symmetry_class(published: dict, tmp_path: Path) -> None:
    """Signed under the whole group (a run made before signatures kept the start's class), a
    class's count is the sum of Bill's figures over its holes."""
    out = triangle_run(tmp_path, 1, "board", count_paths=True, signatures="group")
    document = json.loads(pegsearch("counts", str(out), "--json").stdout)
    assert document["finishes_exact_per_hole"] is False
    bill = {int(h): n for h, n in published["triangle5_solutions"]["corner_start_by_final_hole"].items()}
    for entry in document["finishes"]:
        assert entry["paths"] == sum(bill.get(hole, 0) for hole in entry["holes"])
    assert {h for e in document["finishes"] for h in e["holes"]} >= set(bill)
    assert "last peg up to symmetry" in pegsearch("counts", str(out)).stdout


def test_winnable_counts_agree_across_symmetry_modes(tmp_path: Path) -> None:
    """Winnable raw positions, reduced independently here, give the reduced walk's counts."""
    raw = Run.open(triangle_run(tmp_path, 4, "none"))
    reduced = Run.open(triangle_run(tmp_path, 4, "board"))
    tables = BoardTables.for_board(load_board("triangle-5"))
    orbits = {level: len(set(tables.signatures(w).tolist()))
              for level, w in winnable_sets(raw, targets(raw))}
    assert winnable_counts(reduced) == [orbits[k] for k in range(len(raw.levels))]
    assert winnable_counts(raw)[0] == 1 and winnable_counts(raw)[-1] == raw.levels[-1]["states"]


def test_the_backward_step_keeps_what_the_forward_step_keeps(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Each level's winnable positions, walked back from the level after: by predecessors (in
    slices of 4,096 positions, each a pass over the level in chunks) as by looking up
    every parent's children, down to the start, for every finish and for one hole's."""
    run = Run.open(triangle_run(tmp_path, 4, "board", board="triangle-6"))
    monkeypatch.setattr(walk, "SLICE", 4096)  # up to 8 slices of a level's 29,335
    for finish in (None, 4):
        winnable = targets(run, finish)
        for level in range(len(run.levels) - 2, -1, -1):
            forwards = winnable_parents(run, level, winnable, backwards=False)
            assert np.array_equal(winnable_parents(run, level, winnable, 5000, backwards=True),
                                  forwards)
            winnable = forwards
        assert winnable.tolist() == [run.read_level(0)[0]]


def test_counts_winnable_and_plot_through_the_cli(tmp_path: Path) -> None:
    out = triangle_run(tmp_path, 1, "start")
    plot = tmp_path / "levels.png"
    result = pegsearch("counts", str(out), "--winnable", "--finish", "13", "--json",
                       "--plot", str(plot))
    assert result.returncode == 0, result.stderr
    levels = json.loads(result.stdout)["levels"]
    assert levels[0]["winnable"] == 1 and levels[-1]["winnable"] == 1
    assert all(0 < level["winnable"] <= level["states"] for level in levels)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    drawn = tmp_path / "levels.svg"
    assert pegsearch("counts", str(out), "--plot", str(drawn)).returncode == 0
    ticks = re.findall(r"<!-- (\d+(?:\.\d+)?) -->", drawn.read_text())
    assert ticks and all("." not in tick for tick in ticks)  # whole levels only
    assert_one_line_error(pegsearch("counts", str(out), "--finish", "13"), "--winnable")
    assert_one_line_error(pegsearch("counts", str(out), "--plot", str(tmp_path / "p.txt")),
                          "must end in .png or .svg")


@pytest.mark.slow
def test_english_winnable_positions_match_a112738(published: dict, tmp_path: Path) -> None:
    run = local_run("english-33", tmp_path / "run")
    figures = published["english_centre_winnable_reduced_per_level"]
    counts = winnable_counts(run, finish=17)
    assert counts == figures["levels"]
    assert sum(counts) == figures["total"]


@pytest.mark.slow
def test_english_centre_to_centre_solutions(published: dict, tmp_path: Path) -> None:
    board = load_board("english-33")
    run = search(SearchSpec(board, (17,), "board", count_paths=True), tmp_path / "run", LocalEngine())
    assert exact_per_hole(run)
    [centre] = [c for c in finishes(run) if 17 in c.holes]
    assert centre.holes == (17,)
    assert centre.paths == published["english_centre_to_centre_solutions"]["count"]
    line = solve(run, 17)
    assert line.solved and line.last == 1 << 16 and len(line.jumps) == 31
    # Walked the other way: the solutions the kept sets count from the start, and a quarter after
    # each of its four (symmetric) first jumps.
    start = hint(run, board.start_position((17,)), 17).as_document()
    assert start["solutions"] == centre.paths
    assert [jump["solutions"] for jump in start["jumps"]] == [centre.paths // 4] * 4

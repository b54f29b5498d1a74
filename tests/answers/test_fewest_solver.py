"""Fewest moves by the solver, without the whole search: against the whole search's fewest moves
(a survey by searches, every start and finishing hole) and OEIS A127500, its lower bound against
the fewest moves left worked out here, and as the command line says it. (English and skippy-xl,
every start: bench/fewest_moves_agreement.py, minutes a start.)"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from pegsearch.answers.fewest_solver import fewest_moves
from pegsearch.answers.solver import LOST_WORD, WON_WORD, Solver, compiled_goal, goal_holes, goal_tables
from pegsearch.answers.survey import survey
from pegsearch.board.files import load_board
from pegsearch.board.geometry import Jump, legal_jumps
from pegsearch.board.regions import corners, merson_regions, region_order
from pegsearch.engines.local import LocalEngine
from pegsearch.kernel.move_bound import MoveGoal, beyond, needed
from tests.answers.test_fewest_moves import assert_plays
from tests.helpers import assert_one_line_error, pegsearch

MEMORY = 1 << 26


def assert_equal_to_the_searches(board_name: str, out: Path) -> int:
    """Every start's fewest moves, to one peg anywhere and on each finishing hole, proved by the
    solver, equal the survey by searches'; each line plays. Returns the fewest over all."""
    board = load_board(board_name)
    fewest = 99
    for result in survey(board, out, LocalEngine, fewest_moves=True):
        position = board.start_position((result.start,))
        by_finish = dict(zip(result.finishes, result.moves or (), strict=True))
        for finish in (None, *range(1, board.holes + 1)):
            if not goal_holes(board, position, finish):
                continue  # the classes rule it out: `solve` refuses it (tested below)
            expected = result.fewest_moves if finish is None else by_finish.get(finish)
            found = fewest_moves(board, position, finish, 120, Solver(MEMORY))
            assert found.proved, (result.start, finish)
            if expected is None:
                assert found.outcome == LOST_WORD, (result.start, finish)
                continue
            assert (found.outcome, found.moves, found.at_least) == (WON_WORD, expected, expected), \
                (result.start, finish)
            assert_plays(board, result.start, found.line, finish, expected)
            fewest = min(fewest, expected)
    return fewest


@pytest.mark.parametrize("side", [4, 5])
def test_the_solvers_fewest_moves_equal_the_whole_searches(side: int, published: dict,
                                                           tmp_path: Path) -> None:
    fewest = assert_equal_to_the_searches(f"triangle-{side}", tmp_path)
    assert fewest == published["triangle_shortest_solution_moves"]["by_side"][str(side)]


@pytest.mark.slow  # about a minute on 2 cores
def test_the_solvers_fewest_moves_equal_the_whole_searches_on_triangle_6(published: dict,
                                                                         tmp_path: Path) -> None:
    fewest = assert_equal_to_the_searches("triangle-6", tmp_path)
    assert fewest == published["triangle_shortest_solution_moves"]["by_side"]["6"]


def test_solve_fewest_moves_of_a_board_says_proved_fewest() -> None:
    result = pegsearch("solve", "triangle-5", "--start", "4", "--finish", "4", "--fewest-moves")
    assert result.returncode == 0, result.stderr
    assert "answered by the depth-first solver" in result.stderr
    assert "13 jumps, 9 moves (the fewest), last peg on hole 4" in result.stdout


def test_solve_fewest_moves_out_of_time_gives_the_best_line_and_the_bound() -> None:
    """English's centre game is not proved in two seconds: the best line found, the bound proved,
    and the note saying that they have not met."""
    result = pegsearch("solve", "english-33", "--fewest-moves", "--finish", "17", "--seconds", "2",
                       "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["solved"] and not document["fewest_moves"]
    assert document["how"] == "time"
    assert 8 <= document["moves_at_least"] <= 18 <= document["moves"]
    assert "the fewest moves are not proved" in document["note"]
    board = load_board("english-33")
    jumps = tuple(Jump(step["from"], step["over"], step["to"]) for step in document["jumps"])
    assert_plays(board, 17, jumps, 17, document["moves"])


def test_solve_fewest_moves_of_a_run_without_them_is_answered_by_the_solver(tmp_path: Path) -> None:
    out = tmp_path / "plain"
    assert pegsearch("run", "triangle-5", "--out", str(out)).returncode == 0
    result = pegsearch("solve", str(out), "--fewest-moves")
    assert result.returncode == 0, result.stderr
    assert f"({out} carries no fewest moves)" in result.stderr
    assert "10 moves (the fewest)" in result.stdout


@pytest.mark.parametrize("extra, fragment", [
    (["--seconds", "0"], "not a time bound"),
])
def test_bad_fewest_moves_questions_are_refused_in_one_line(extra: list[str], fragment: str) -> None:
    assert_one_line_error(pegsearch("solve", "triangle-5", "--fewest-moves", *extra), fragment)


@pytest.mark.parametrize("finish, proof", [
    ("2", "the position classes rule it out"),  # hole 2: in another class than the start's
    ("5", "every line of play was tried"),  # hole 5: in its class, and never reached all the same
])
def test_an_impossible_finish_is_answered_with_its_proof_whichever_proof(finish: str,
                                                                         proof: str) -> None:
    """From hole 1, triangle-5 ends on 1, 7, 10 or 13 only (Durango Bill, published.json): 2 and 5 both
    have no solution, and both are answers, exit 0, each with its proof."""
    result = pegsearch("solve", "triangle-5", "--fewest-moves", "--finish", finish, "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["outcome"] == "lost" and not document["solved"]
    assert f"one peg on hole {finish} from this start: proved: {proof}" in document["note"]
    if finish == "2":
        assert "the position classes allow one peg on 1, 5, 7, 10, 13" in document["note"]


def test_fewest_moves_on_a_board_past_64_holes_is_refused_in_one_line(tmp_path: Path) -> None:
    rows = ["          ."] + [" " * (10 - row) + " ".join("o" * (row + 1)) for row in range(1, 11)]
    toml = tmp_path / "triangle-11.toml"
    toml.write_text('name = "triangle-11"\ngrid = "triangle"\nlayout = """\n' + "\n".join(rows)
                    + '\n"""\n')
    result = pegsearch("solve", str(toml), "--fewest-moves", "--depth-first")
    assert_one_line_error(result, "the layout has 66 holes; at most 64 fit")


SQUARE_4 = """name = "square-16"
grid = "square"
layout = \"\"\"
o . o o
o o o o
o o o o
o o o o
\"\"\"
"""


@pytest.mark.parametrize("board_name, start", [("triangle-5", 4), ("triangle-5", 1), ("square-16", 2)])
def test_the_lower_bound_never_passes_the_fewest_moves_left(board_name: str, start: int,
                                                             tmp_path: Path) -> None:
    """Every state (position, hole of the peg that moved last) reachable from the start, its
    fewest moves to one peg worked out here by plain recursion, against the kernel's bound (both
    of its parts: the Merson regions and the mover classes); and the bound is exact for some of
    the winnable states (it does not stay 0)."""
    if board_name == "square-16":  # a square grid's Merson regions are its 2x2 blocks
        (tmp_path / "square-16.toml").write_text(SQUARE_4)
        board_name = str(tmp_path / "square-16.toml")
    board = load_board(board_name)
    goal = tuple(range(1, board.holes + 1))
    compiled = compiled_goal(board, goal, None, False)
    moves_goal = MoveGoal.compiled(board, goal_tables(board, None), compiled)
    mask = np.uint64((1 << board.holes) - 1)

    @functools.cache
    def left(position: int, last: int) -> float:
        if position.bit_count() == 1:
            return 0
        return min((left(child, jump.to) + (jump.start != last)
                    for jump, child in legal_jumps(board, position)), default=math.inf)

    tight = winnable = 0
    stack, seen = [(board.start_position((start,)), 0)], set()
    while stack:
        position, last = stack.pop()
        if (position, last) in seen:
            continue
        seen.add((position, last))
        state = (np.uint64(position), np.uint64(1 << (last - 1) if last else 0), moves_goal, mask)
        bound = int(needed(*state))
        exact = left(position, last)
        assert bound <= exact, (position, last)
        assert beyond(*state, bound - 1) and not beyond(*state, bound)  # the walk's question
        winnable += exact < math.inf
        tight += bound == exact
        stack.extend((child, jump.to) for jump, child in legal_jumps(board, position))
    assert tight > winnable // 100 > 0


def test_merson_regions_hold_their_property_and_no_corner() -> None:
    """A jump over a region's hole from outside lands inside it, on every board shipped."""
    for name in ("triangle-9", "english-33", "wiegleb-45", "hexagon-37"):
        board = load_board(name)
        cornered = corners(board)
        for region in merson_regions(board):
            assert not any(cornered >> (hole - 1) & 1 for hole in region)
            for jump in board.jumps:
                if jump.over in region and jump.start not in region:
                    assert jump.to in region, (name, sorted(region), jump)
        order = region_order(board)
        assert sorted(order) == sorted(sum(1 << (h - 1) for h in region) for region in merson_regions(board))
        assert [bin(mask).count("1") for mask in order] == sorted(len(r) for r in merson_regions(board))

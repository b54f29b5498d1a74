"""Fewest moves: against published figures (OEIS A127500, the English centre game) and against a
plain depth-first search written here, position for position, under every symmetry mode."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pegsearch.answers.documents import moves_counts
from pegsearch.answers.fewest import move_numbers
from pegsearch.answers.hint import hint
from pegsearch.answers.shapes import Survey
from pegsearch.answers.solve import solve
from pegsearch.answers.survey import survey
from pegsearch.board.files import load_board
from pegsearch.board.geometry import Board, legal_jumps
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.errors import UsageError
from pegsearch.store import Run
from tests.helpers import assert_one_line_error, pegsearch, values_by_position


def fewest_by_depth_first(board: Board, start: int) -> dict[int, dict[int, int]]:
    """Every raw position reachable from `start` empty, with the fewest moves reaching it with the
    last jump's peg on each hole: a depth-first walk over (position, last hole) that goes on only
    when it reaches a pair in fewer moves than before. Knows nothing of levels or signatures."""
    best: dict[tuple[int, int], int] = {}
    stack = [(board.start_position((start,)), 0, 0)]
    while stack:
        position, last, moves = stack.pop()
        for jump, child in legal_jumps(board, position):
            cost = moves + (jump.start != last)
            if cost < best.get((child, jump.to), cost + 1):
                best[(child, jump.to)] = cost
                stack.append((child, jump.to, cost))
    by_position: dict[int, dict[int, int]] = {board.start_position((start,)): {}}
    for (position, hole), moves in best.items():
        by_position.setdefault(position, {})[hole] = moves
    return by_position


def moves_run(board: str, start: tuple[int, ...], symmetry: str, out: Path,
              signatures: str = "class") -> Run:
    loaded = load_board(board)
    spec = SearchSpec.asked(loaded, start, symmetry, fewest_moves=True)
    return search(SearchSpec(loaded, spec.start, symmetry, fewest_moves=True, signatures=signatures),
                  out, LocalEngine())


@pytest.mark.parametrize("board", ["triangle-4", "triangle-5"])
def test_raw_runs_equal_a_depth_first_search_for_every_start(board: str, tmp_path: Path) -> None:
    loaded = load_board(board)
    for start in range(1, loaded.holes + 1):
        run = moves_run(board, (start,), "none", tmp_path / f"start-{start}")
        expected = fewest_by_depth_first(loaded, start)
        stored = {}
        for level in range(len(run.levels)):
            stored.update(values_by_position(run, level))
        assert set(stored) == set(expected), start
        for position, by_hole in expected.items():
            fewest = min(by_hole.values(), default=0)
            last = sum(1 << (hole - 1) for hole, moves in by_hole.items() if moves == fewest)
            assert stored[position] == (fewest, last), (start, position)


@pytest.mark.parametrize("symmetry", ["board", "start"])
def test_reduced_runs_keep_the_fewest_moves_of_their_classes(symmetry: str, tmp_path: Path) -> None:
    """A reduced run's position holds the fewest moves of any raw position it stands for."""
    raw = moves_run("triangle-6", (4,), "none", tmp_path / "raw")
    reduced = moves_run("triangle-6", (4,), symmetry, tmp_path / symmetry)
    tables = reduced.tables()
    assert [r["moves"] for r in reduced.levels] == [r["moves"] for r in raw.levels]
    for level in range(len(raw.levels)):
        fewest: dict[int, int] = {}
        by_raw = values_by_position(raw, level)
        signatures = tables.signatures(raw.read_level(level))
        for position, signature in zip(by_raw, signatures.tolist(), strict=True):
            fewest[signature] = min(fewest.get(signature, 99), by_raw[position][0])
        assert {p: v[0] for p, v in values_by_position(reduced, level).items()} == fewest, level


def test_surveys_give_oeis_a127500_for_triangles_of_side_4_5_6(published: dict, tmp_path: Path) -> None:
    expected = published["triangle_shortest_solution_moves"]["by_side"]
    for side in (4, 5, 6):
        board = load_board(f"triangle-{side}")
        results = survey(board, tmp_path / str(side), LocalEngine, fewest_moves=True)
        document = Survey(board, tuple(results), "local").as_document()
        assert document["fewest_moves"] == expected[str(side)], side
        assert f"single vacancy: {expected[str(side)]}" in document["verdict"]


def assert_plays(board: Board, start: int, jumps: tuple, finish: int | None, moves: int) -> None:
    """The jumps are legal one after the other from the start, end on one peg (on `finish`), and
    make `moves` moves."""
    position = board.start_position((start,))
    for jump in jumps:
        position = dict(legal_jumps(board, position))[jump]
    assert bin(position).count("1") == 1
    if finish is not None:
        assert position == 1 << (finish - 1)
    assert move_numbers(jumps)[-1] == moves


@pytest.mark.slow  # 38-116 s on 2 cores: too long for the quick suite
def test_english_centre_game_takes_18_moves(tmp_path: Path) -> None:
    """Bergholt's 18 moves (1912), shown minimal by Beasley (1964): found, and played out."""
    run = moves_run("english-33", (17,), "board", tmp_path / "english")
    line = solve(run, 17)
    assert line.solved and line.moves == 18
    assert_plays(run.board, 17, line.jumps, 17, 18)
    fewest = solve(run)
    assert_plays(run.board, 17, fewest.jumps, None, fewest.moves)
    assert fewest.moves == run.levels[-1]["moves"] <= 18
    # Walked the other way: the moves left, kept with the winnable sets, from the start and after
    # each of its four (symmetric) first jumps, whose peg may go on jumping.
    start = hint(run, run.board.start_position((17,)), 17).as_document()
    assert start["moves_left"] == 18
    assert [jump["moves_left"] for jump in start["jumps"]] == [17] * 4


@pytest.mark.parametrize("symmetry", ["start", "none"])
def test_solutions_have_the_fewest_moves_to_every_hole(symmetry: str, tmp_path: Path) -> None:
    board = load_board("triangle-5")
    expected = fewest_by_depth_first(board, 4)
    run = moves_run("triangle-5", (4,), symmetry, tmp_path / symmetry)
    for finish in range(1, 16):
        reached = expected.get(1 << (finish - 1))
        line = solve(run, finish)
        if reached is None:
            assert not line.solved and "cannot finish on hole" in line.note
        else:
            assert line.solved and line.moves == min(reached.values()), finish
            assert_plays(board, 4, line.jumps, finish, line.moves)


def test_a_board_reduced_run_answers_a_hole_only_where_its_class_minimum_lies(tmp_path: Path) -> None:
    """Signed under the whole group (a run made before signatures kept the start's class), a start
    the group moves merges finishing holes: the fewest moves to one hole is known only where the
    class's fewest lie; elsewhere the answer is refused. (Signed in its class, the same search is
    exact per hole: the symmetries keeping hole 4's class fix it.)"""
    board = load_board("triangle-5")
    expected = fewest_by_depth_first(board, 4)
    run = moves_run("triangle-5", (4,), "board", tmp_path / "board", signatures="group")
    answered = refused = 0
    final = values_by_position(run, len(run.levels) - 1)
    for finish in range(1, 16):
        reached = expected.get(1 << (finish - 1))
        signature = int(run.tables().signatures(np.array([1 << (finish - 1)], np.uint64))[0])
        try:
            line = solve(run, finish)
        except UsageError as refusal:
            assert "search with --symmetry start" in str(refusal)
            assert reached is None or min(reached.values()) > final[signature][0]
            refused += 1
        else:
            if reached is None:
                assert signature not in final and "cannot finish on hole" in line.note
                continue
            assert line.moves == min(reached.values()) == final[signature][0]
            assert_plays(board, 4, line.jumps, finish, line.moves)
            answered += 1
    assert answered and refused


def test_counts_by_moves_sum_to_the_runs_positions(tmp_path: Path) -> None:
    run = moves_run("triangle-5", (1,), "board", tmp_path / "t5")
    document = moves_counts(run).as_document()
    assert document["positions"] == sum(r["states"] for r in run.levels)
    expected: dict[int, int] = {}
    for level in range(len(run.levels)):
        for moves, _ in values_by_position(run, level).values():
            expected[moves] = expected.get(moves, 0) + 1
    assert {row["moves"]: row["positions"] for row in document["by_moves"]} == expected


def test_command_line_runs_solves_and_counts_by_moves(tmp_path: Path) -> None:
    out = tmp_path / "t5"
    assert pegsearch("run", "triangle-5", "--fewest-moves", "--out", str(out)).returncode == 0
    counts = pegsearch("counts", str(out))
    assert "fewest moves" in counts.stdout and "one peg in 10 moves at fewest" in counts.stdout
    solved = pegsearch("solve", str(out), "--finish", "13")
    assert solved.returncode == 0 and "10 moves (the fewest)" in solved.stdout
    by_moves = pegsearch("counts", str(out), "--by-moves")
    assert by_moves.returncode == 0 and "total      1,544" in by_moves.stdout


def test_paths_and_moves_together_are_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "both"
    result = pegsearch("run", "triangle-5", "--fewest-moves", "--count-paths", "--out", str(out))
    assert_one_line_error(result, "--count-paths and --fewest-moves cannot be combined")
    assert not out.exists()


def test_by_moves_of_a_run_without_moves_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "plain"
    assert pegsearch("run", "triangle-5", "--out", str(out)).returncode == 0
    assert_one_line_error(pegsearch("counts", str(out), "--by-moves"), "carries no fewest moves")

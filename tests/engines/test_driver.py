"""Level counts against published figures, and reduced counts against the raw search's orbits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pegsearch.answers.verdict import verdict
from pegsearch.board.files import load_board
from pegsearch.kernel.tables import BoardTables
from tests.helpers import local_run

TRIANGLE5_STARTS = {1: "start_hole_1_corner", 2: "start_hole_2_next_to_corner",
                    4: "start_hole_4_edge_middle", 5: "start_hole_5_interior"}


@pytest.mark.parametrize("hole", sorted(TRIANGLE5_STARTS))
def test_triangle5_raw_counts_match_scherphuis(hole: int, published: dict, tmp_path: Path) -> None:
    run = local_run("triangle-5", tmp_path / "run", start=(hole,), reduced=False)
    counts = [r["states"] for r in run.levels]
    expected = published["triangle5_raw_per_level"][TRIANGLE5_STARTS[hole]]
    assert counts == expected
    assert sum(counts) == published["triangle5_raw_per_level"]["totals"][str(hole)]
    assert verdict(run).solvable


@pytest.mark.parametrize(("board", "start"), [("triangle-5", (1,)), ("triangle-5", (5,)),
                                               ("triangle-6", (1,)), ("hexagon-19", (10,))])
def test_reduced_levels_are_the_orbits_of_the_raw_levels(board: str, start: tuple[int, ...],
                                                         tmp_path: Path) -> None:
    """A second computation: canonicalise every raw position independently (numpy, not numba)."""
    raw = local_run(board, tmp_path / "raw", start=start, reduced=False)
    reduced = local_run(board, tmp_path / "reduced", start=start, reduced=True)
    tables = BoardTables.for_board(load_board(board))
    assert len(raw.levels) == len(reduced.levels)
    for level in range(len(raw.levels)):
        orbits = np.unique(tables.signatures(raw.read_level(level)))
        assert np.array_equal(orbits, np.sort(reduced.read_level(level)))


@pytest.mark.slow
def test_english_reduced_counts_match_a112737(published: dict, tmp_path: Path) -> None:
    run = local_run("english-33", tmp_path / "run")
    figures = published["english_centre_reduced_per_level"]
    assert [r["states"] for r in run.levels] == figures["levels"]
    assert sum(r["states"] for r in run.levels) == figures["total"]
    assert verdict(run).solvable


@pytest.mark.slow
def test_english_raw_counts_match_published(published: dict, tmp_path: Path) -> None:
    run = local_run("english-33", tmp_path / "run", reduced=False)
    figures = published["english_centre_raw_per_level"]
    assert [r["states"] for r in run.levels] == figures["levels"]
    assert sum(r["states"] for r in run.levels) == figures["total"]


@pytest.mark.slow
def test_skippy_xl_reduced_is_the_orbits_of_raw(tmp_path: Path) -> None:
    raw = local_run("skippy-xl", tmp_path / "raw", reduced=False)
    reduced = local_run("skippy-xl", tmp_path / "reduced")
    tables = BoardTables.for_board(load_board("skippy-xl"))
    assert len(reduced.levels) == 26
    for level in range(26):
        orbits = np.unique(tables.signatures(raw.read_level(level)))
        assert np.array_equal(orbits, np.sort(reduced.read_level(level)))
    assert not verdict(reduced).solvable and verdict(reduced).fewest_pegs == 2

"""A solver's hint and its bound: a decided answer comes once decided, whatever the bound; what a
first hint waits for (compiling the walk) is not the bound; an asker who stops waiting stops it."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from pegsearch.answers.by_solver import hint_by_solver
from pegsearch.answers.hint import read_position
from pegsearch.answers.solver import Solver, Stopped
from pegsearch.board.files import load_board
from pegsearch.cli.ahead import NOT_AHEAD
from tests.helpers import pegsearch_process

AFTER_THREE = "4-2-1,6-5-4,13-9-6"  # triangle-9: every jump decided in about a second


def test_a_decided_hint_comes_at_once_whatever_its_bound() -> None:
    """A bound of 1e12 s: the jumps are decided in moments, and the answer comes then (it waited
    on its finishing holes for a share of the bound: for ever)."""
    began = time.monotonic()
    result = pegsearch_process("hint", "triangle-9", AFTER_THREE, "--json", "--seconds", "1e12", timeout=240)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["winnable"] is True
    assert all(jump["winnable"] is not None for jump in document["jumps"])
    assert time.monotonic() - began < 200  # compiling included, on a busy machine


def test_an_undecided_position_leaves_every_hole_the_classes_allow_undecided() -> None:
    """Undecided in its bound, a position's finishing holes are all undecided (not an empty list:
    the Play page offers them the same way at every jump)."""
    board = load_board("wiegleb-45")
    position = read_position(board, board.empty, "8-14-23,16-15-14")
    document = hint_by_solver(board, position, None, 0.05, Solver(memory="64M", goals=2)).as_document()
    if document["winnable"] is None:
        assert document["finishes"] == [] and len(document["finishes_undecided"]) > 1
    assert set(document["finishes"]) | set(document["finishes_undecided"]) <= set(range(1, 46))


def test_a_hint_whose_asker_stops_waiting_ends_within_moments() -> None:
    """A 60 s hint on wiegleb-45 (undecided for much longer), told to stop after half a second,
    raises Stopped within moments, its threads done."""
    board = load_board("wiegleb-45")
    position = read_position(board, board.empty, "8-14-23,16-15-14")
    solver = Solver(memory="64M", goals=2)
    hint_by_solver(board, position, None, 0.01, solver)  # compiled and tables made
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    began = time.monotonic()
    with pytest.raises(Stopped):
        hint_by_solver(board, position, None, 60, solver, stop=stop)
    assert time.monotonic() - began < 3
    assert not [thread.name for thread in threading.enumerate()
                if thread.name.startswith(("pegsearch-hint", "pegsearch-finishes"))]


@pytest.mark.slow
def test_a_first_hint_spends_its_bound_searching_not_compiling(tmp_path: Path) -> None:
    """With a fresh numba cache the walk compiles for many seconds on the first hint; the bound
    starts after, so triangle-5's start is decided in 1 s as on a warm cache."""
    result = pegsearch_process("hint", "triangle-5", "2,3,4,5,6,7,8,9,10,11,12,13,14,15", "--json",
                               "--seconds", "1", env={"NUMBA_CACHE_DIR": str(tmp_path / "numba"),
                                                      NOT_AHEAD: "1"},  # the hint's own compiling
                               timeout=600)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["winnable"] is True, document.get("note")
    assert all(jump["winnable"] is not None for jump in document["jumps"])

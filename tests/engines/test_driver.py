"""The driver: level counts against published figures, reduced counts against the raw search's
orbits, and searches stopped on purpose (`--until`) and resumed in stages."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pegsearch.answers.verdict import verdict
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.errors import UsageError
from pegsearch.kernel.tables import BoardTables
from tests.helpers import distinct, local_run, pegsearch

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
    """A second computation: canonicalise every raw position independently (numpy, not numba),
    under the symmetries the run takes signatures under; and under the whole group, where the
    stored positions are one per orbit of the raw ones."""
    raw = local_run(board, tmp_path / "raw", start=start, reduced=False)
    reduced = local_run(board, tmp_path / "reduced", start=start, reduced=True)
    signing = BoardTables.for_board(load_board(board), group=reduced.spec.signing)
    whole = BoardTables.for_board(load_board(board))
    assert len(raw.levels) == len(reduced.levels)
    for level in range(len(raw.levels)):
        positions, stored = raw.read_level(level), reduced.read_level(level)
        assert np.array_equal(distinct(signing.signatures(positions)), np.sort(stored))
        assert np.array_equal(distinct(whole.signatures(positions)),
                              np.sort(whole.signatures(stored)))


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
        orbits = distinct(tables.signatures(raw.read_level(level)))
        assert np.array_equal(orbits, np.sort(reduced.read_level(level)))
    assert not verdict(reduced).solvable and verdict(reduced).fewest_pegs == 2


def test_a_search_stops_on_purpose_and_resumes_in_stages(tmp_path: Path) -> None:
    """`--until` pauses a run after a chosen level; `--resume` continues it, stage by stage, to the
    same levels as a search made in one go."""
    out = tmp_path / "staged"

    def stage(*flags: str) -> dict:
        result = pegsearch("run", "triangle-6", "--raw", "--out", str(out), *flags, "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    first = stage("--until", "5")
    assert first["status"] == "paused" and len(first["levels"]) == 6 and "verdict" not in first
    assert "incomplete run (paused after level 5)" in pegsearch("counts", str(out)).stdout
    solved = pegsearch("solve", str(out), "--seconds", "30")  # the solver answers an unfinished run
    assert solved.returncode == 0 and "incomplete run (paused)" in solved.stderr
    assert "depth-first solver" in solved.stderr
    second = stage("--resume", "--until", "12")
    assert second["status"] == "paused" and second["levels"][:6] == first["levels"]
    assert len(second["levels"]) == 13
    assert stage("--resume", "--until", "3")["levels"] == second["levels"]  # nothing left to make
    whole = stage("--resume")
    straight = json.loads(pegsearch("run", "triangle-6", "--raw", "--out", str(tmp_path / "straight"),
                                    "--json").stdout)
    assert whole["status"] == "complete" and whole["levels"] == straight["levels"]
    assert whole["verdict"] == straight["verdict"]
    assert pegsearch("verify", str(out)).returncode == 0


def test_until_level_zero_and_a_negative_level(tmp_path: Path) -> None:
    board = load_board("triangle-5")
    run = search(SearchSpec(board, board.empty), tmp_path / "zero", LocalEngine(), until=0)
    assert run.status == "paused" and len(run.levels) == 1
    with pytest.raises(UsageError, match="--until -1"):
        search(SearchSpec(board, board.empty), tmp_path / "never", LocalEngine(), until=-1)
    assert not (tmp_path / "never").exists()


def test_a_search_stopped_while_its_start_is_written_leaves_a_run_verify_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cancel 1.6-3 s after a service's submit (its SIGTERM raised as `Interrupted` while level 0
    was being committed) left level-000/ unlisted beside a manifest of no level: the API said
    `interrupted`, `pegsearch verify` exited 1. The interrupt is raised here at that moment."""
    from pegsearch.interrupts import Interrupted
    from pegsearch.store import Run

    committing = Run.commit_level

    def interrupted_at_level_0(run: Run, writer: object, seconds: float) -> dict:
        if not run.levels:
            raise Interrupted(15)
        return committing(run, writer, seconds)

    monkeypatch.setattr(Run, "commit_level", interrupted_at_level_0)
    out = tmp_path / "run"
    with pytest.raises(Interrupted):
        search(SearchSpec(load_board("triangle-5"), (1,)), out, LocalEngine())
    monkeypatch.undo()
    checked = pegsearch("verify", str(out))
    assert "not listed in the manifest" not in checked.stdout + checked.stderr, checked.stdout
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert pegsearch("run", "triangle-5", "--resume", "--out", str(out)).returncode == 0

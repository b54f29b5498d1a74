"""The mrjob engine, run for real on mrjob's inline, local and Spark runners.

Each runner must give the local engine's level sets position for position; runners this machine
cannot use must be refused in one line before any level is computed; a level whose job fails must
leave a run that `--resume` completes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pegsearch.board import load_board
from pegsearch.engines import make_engine
from pegsearch.errors import UsageError
from pegsearch.search import search
from pegsearch.store import Identity, Run, read_positions
from tests.helpers import level_sets, local_run, pegsearch

pytest.importorskip("mrjob")

CONF = Path(__file__).parents[1] / "cluster" / "mrjob.conf"


@pytest.fixture(scope="module")
def triangle_5(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The 15-hole triangle searched by the local engine: what every runner must reproduce."""
    return local_run("triangle-5", tmp_path_factory.mktemp("local") / "run")


def assert_same_levels(run: Run, reference: Run) -> None:
    assert run.status == "complete"
    ours, theirs = level_sets(run), level_sets(reference)
    assert len(ours) == len(theirs)
    for level, (mine, expected) in enumerate(zip(ours, theirs, strict=True)):
        assert np.array_equal(mine, expected), f"level {level} differs"


def test_inline_runner_through_the_cli_matches_local_engine(triangle_5: Run, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = pegsearch("run", "triangle-5", "--engine", "mrjob", "--runner", "inline",
                       "--mrjob-conf", str(CONF), "--out", str(out))
    assert result.returncode == 0, result.stderr
    run = Run.open(out)
    assert run.manifest["engine"] == "mrjob"
    assert run.manifest["options"]["runner"] == "inline"
    assert_same_levels(run, triangle_5)


@pytest.mark.parametrize("symmetry", ["start", "none"])
def test_inline_runner_reduces_by_the_runs_group(symmetry: str, tmp_path: Path) -> None:
    """The job is given the run's symmetry group, not the board's: every group must match."""
    board = load_board("triangle-5")
    identity = Identity(board, board.empty, symmetry)
    run = search(identity, tmp_path / "mrjob", make_engine("mrjob", runner="inline"))
    assert_same_levels(run, search(identity, tmp_path / "local", make_engine("local")))


def test_local_runner_matches_local_engine(triangle_5: Run, tmp_path: Path) -> None:
    board = load_board("triangle-5")
    run = search(Identity(board, board.empty), tmp_path / "run",
                 make_engine("mrjob", runner="local", mrjob_conf=CONF))
    assert_same_levels(run, triangle_5)


def test_spark_runner_computes_the_widest_level_like_local_engine(triangle_5: Run,
                                                                   tmp_path: Path) -> None:
    """One spark-submit per level costs 10-20 s here, so the quick test runs the widest level only;
    the full search on Spark is the slow test below."""
    widest = max(range(len(triangle_5.levels) - 1), key=lambda k: triangle_5.levels[k]["states"])
    staging = tmp_path / "staging"
    staging.mkdir()
    with make_engine("mrjob", runner="spark", master="local[2]") as engine:
        engine.next_level(triangle_5, widest, staging)
    parts = sorted(staging.glob("part-*.parquet"))
    children = read_positions(parts)
    assert np.all(children[1:] > children[:-1]), "parts must be sorted and distinct"
    assert np.array_equal(children, np.sort(triangle_5.read_level(widest + 1)))


@pytest.mark.slow
def test_spark_runner_full_search_matches_local_engine(triangle_5: Run, tmp_path: Path) -> None:
    board = load_board("triangle-5")
    run = search(Identity(board, board.empty), tmp_path / "run",
                 make_engine("mrjob", runner="spark", master="local[2]"))
    assert_same_levels(run, triangle_5)


@pytest.mark.slow
def test_triangle_6_on_inline_runner_matches_local_engine(tmp_path: Path) -> None:
    board = load_board("triangle-6")
    run = search(Identity(board, board.empty), tmp_path / "mrjob",
                 make_engine("mrjob", runner="inline"))
    assert_same_levels(run, local_run("triangle-6", tmp_path / "local"))


@pytest.mark.parametrize(("runner", "says"), [
    ("hadoop", "needs the `hadoop` command"),
    ("yarn", "unknown mrjob runner 'yarn'"),
])
def test_unavailable_runner_fails_at_once_in_one_line(runner: str, says: str,
                                                      tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = pegsearch("run", "triangle-5", "--engine", "mrjob", "--runner", runner,
                       "--out", str(out))
    assert result.returncode == 2
    assert says in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert not out.exists(), "no run directory before the runner is known to work"


def test_failed_level_leaves_a_resumable_run(triangle_5: Run, tmp_path: Path) -> None:
    broken = tmp_path / "broken.conf"
    broken.write_text(json.dumps({"runners": {"local": {"setup": ["exit 1"]}}}))
    out = tmp_path / "run"
    failed = pegsearch("run", "triangle-5", "--engine", "mrjob", "--runner", "local",
                       "--mrjob-conf", str(broken), "--out", str(out))
    assert failed.returncode == 2
    assert "level 1 failed on the mrjob local runner" in failed.stderr.splitlines()[-1]
    assert "Traceback" not in failed.stderr
    interrupted = Run.open(out)
    assert (interrupted.status, len(interrupted.levels)) == ("interrupted", 1)

    resumed = pegsearch("run", "triangle-5", "--engine", "mrjob", "--runner", "inline",
                        "--out", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert_same_levels(Run.open(out), triangle_5)


def test_path_counting_is_refused(tmp_path: Path) -> None:
    board = load_board("triangle-5")
    identity = Identity(board, board.empty, count_paths=True)
    with pytest.raises(UsageError, match="does not count paths yet"):
        search(identity, tmp_path / "run", make_engine("mrjob", runner="inline"))
    assert Run.open(tmp_path / "run").status == "interrupted"

"""The mrjob engine, run for real on mrjob's inline, local and Spark runners, beyond the contract
every engine keeps (tests/engines/test_contract.py: the inline and local runners' levels, path
counts and Durango Bill's totals equal to the local engine's, a resume, a killed run, bad settings).

Here: fewest moves and the run's symmetry group carried through its tasks, batches cut anywhere,
path counts at and past the limit (failing the level, never wrapping), the launcher a Hadoop user
types, the spark runner, runners this machine cannot use refused in one line before any level is
computed, and a level whose job fails leaving a run that `--resume` completes.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines import make_engine
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.errors import PathCountOverflow, UsageError
from pegsearch.kernel.path_counts import LIMIT, as_int
from pegsearch.store import Run
from tests.helpers import level_sets, one_level_run, pegsearch_process, values_by_position, written

pytest.importorskip("mrjob")

# CI also runs this file on Python 3.13 with only the mrjob and tests extras installed.
needs_pyspark = pytest.mark.skipif(importlib.util.find_spec("pyspark") is None,
                                   reason="the mrjob spark runner needs pyspark: pip install"
                                          " 'pegsearch[spark]'")
ROOT = Path(__file__).parents[2]
CONF = ROOT / "cluster" / "mrjob.conf"


def local_counted(board: str, out: Path, start: tuple[int, ...] | None = None) -> Run:
    """A search with path counts by the local engine: the second engine the mrjob runs must match."""
    loaded = load_board(board)
    return search(SearchSpec(loaded, start or loaded.empty, count_paths=True), out, LocalEngine())


@pytest.fixture(scope="module")
def triangle_5(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The 15-hole triangle searched by the local engine, with path counts: what every runner must
    reproduce (runs that do not count paths are compared on positions only)."""
    return local_counted("triangle-5", tmp_path_factory.mktemp("local") / "run")


def paths_by_position(positions: np.ndarray, paths: np.ndarray) -> dict[int, int]:
    return {position: as_int(row) for position, row in zip(positions.tolist(), paths, strict=True)}


def level_paths(run: Run, level: int) -> dict[int, int]:
    return paths_by_position(run.read_level(level), run.read_level_values(level))


def assert_same_levels(run: Run, reference: Run) -> None:
    """Same positions at every level; and, when both runs count paths, the same count for each."""
    assert run.status == "complete"
    ours, theirs = level_sets(run), level_sets(reference)
    assert len(ours) == len(theirs)
    for level, (mine, expected) in enumerate(zip(ours, theirs, strict=True)):
        assert np.array_equal(mine, expected), f"level {level} differs"
    if run.count_paths and reference.count_paths:
        assert [r["paths"] for r in run.levels] == [r["paths"] for r in reference.levels]
        for level in range(len(run.levels)):
            assert level_paths(run, level) == level_paths(reference, level), f"level {level} paths"


@pytest.mark.parametrize("symmetry", ["board", "none"])
def test_inline_runner_carries_fewest_moves_like_local_engine(symmetry: str, tmp_path: Path) -> None:
    """Fewest moves travel as text between tasks (`moves,last_holes`) and are merged by the
    combiner and reducer: every position's value equals the local engine's."""
    spec = SearchSpec.asked(load_board("triangle-5"), (4,), symmetry, fewest_moves=True)
    run = search(spec, tmp_path / "mrjob", make_engine("mrjob", runner="inline"))
    reference = search(spec, tmp_path / "local", LocalEngine())
    assert_same_levels(run, reference)
    for level in range(len(reference.levels)):
        assert values_by_position(run, level) == values_by_position(reference, level), level


def test_batch_size_does_not_change_a_level(triangle_5: Run, tmp_path: Path) -> None:
    """Batches of 7 split the parents of a level anywhere: the sums must not depend on where.
    (Batches of 1 are checked by bench/mrjob_batching_benchmark.py, which times them.)"""
    board = load_board("triangle-5")
    run = search(SearchSpec(board, board.empty, count_paths=True), tmp_path / "run",
                 make_engine("mrjob", runner="inline", batch_size=7))
    assert run.manifest["options"]["batch_size"] == 7
    assert_same_levels(run, triangle_5)


@pytest.mark.parametrize("batch_size", [0, -3, "many"])
def test_bad_batch_size_is_a_usage_error(batch_size: object) -> None:
    with pytest.raises(UsageError, match="--batch-size"):
        make_engine("mrjob", runner="inline", batch_size=batch_size)


@pytest.mark.parametrize(("holes", "paths", "where"), [
    # Hole 1's two jumps are mirror images: one parent's children are summed in the mapper.
    ([1], [LIMIT // 2 + 1], "a path count exceeds"),
    # Holes 2 and 3 are mirror images with distinct children: two lines meet in combiner/reducer.
    ([2, 3], [LIMIT // 2, LIMIT // 2 + 2], "the path count of signature"),
])
def test_a_path_count_past_the_limit_fails_never_wraps(holes: list[int], paths: list[int],
                                                       where: str, tmp_path: Path) -> None:
    run = one_level_run(tmp_path / "run", "mrjob", holes, paths)
    with (make_engine("mrjob", runner="inline", batch_size=1) as engine,
          pytest.raises(PathCountOverflow, match=where)):
        engine.next_level(run, 0, run.level_writer(1))


def test_a_path_count_at_the_limit_is_kept_exactly(tmp_path: Path) -> None:
    """Holes 2 and 3 (mirror images) share both child signatures: each child's count is the sum."""
    run = one_level_run(tmp_path / "run", "mrjob", [2, 3], [LIMIT // 2, LIMIT // 2 + 1])
    writer = run.level_writer(1)
    with make_engine("mrjob", runner="inline", batch_size=1) as engine:
        engine.next_level(run, 0, writer)
    (positions, paths), = written(writer)
    counts = paths_by_position(positions, paths)
    assert len(counts) == 2
    assert set(counts.values()) == {LIMIT}


@pytest.mark.parametrize("symmetry", ["start", "none"])
def test_inline_runner_reduces_by_the_runs_group(symmetry: str, tmp_path: Path) -> None:
    """The job is given the run's symmetry group, not the board's: every group must match."""
    board = load_board("triangle-5")
    spec = SearchSpec(board, board.empty, symmetry)
    run = search(spec, tmp_path / "mrjob", make_engine("mrjob", runner="inline"))
    assert_same_levels(run, search(spec, tmp_path / "local", make_engine("local")))


def test_launcher_runs_the_job_from_the_command_line(triangle_5: Run, tmp_path: Path) -> None:
    """`python jobs/level_job.py` (what a Hadoop user types) turns level-0 lines into level 1."""
    search_file = tmp_path / "search.json"
    search_file.write_text(json.dumps({"board": triangle_5.board.definition(),
                                       "group": triangle_5.spec.signing}))
    level_0 = tmp_path / "level-0.txt"
    level_0.write_text("".join(f"{position}\t{count}\n"
                               for position, count in level_paths(triangle_5, 0).items()))
    result = subprocess.run([sys.executable, str(ROOT / "jobs" / "level_job.py"), "-r", "inline",
                             "--no-conf", "--search", str(search_file), "--carry", "paths",
                             str(level_0)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = [line.split("\t") for line in result.stdout.splitlines()]
    assert {int(key): int(count) for key, count in lines} == level_paths(triangle_5, 1)


@needs_pyspark
def test_spark_runner_computes_the_widest_level_like_local_engine(triangle_5: Run,
                                                                   tmp_path: Path) -> None:
    """One spark-submit per level costs 10-20 s here, so the quick test runs the widest level only
    (with its path counts); the full search on Spark is the slow test below."""
    widest = max(range(len(triangle_5.levels) - 1), key=lambda k: triangle_5.levels[k]["states"])
    copy = search(triangle_5.spec, tmp_path / "copy", make_engine("local"))
    writer = copy.level_writer(len(copy.levels))  # any writer serves: its parts are only read back
    with make_engine("mrjob", runner="spark", master="local[2]") as engine:
        engine.next_level(triangle_5, widest, writer)
    (children, paths), = written(writer)
    assert np.all(children[1:] > children[:-1]), "parts must be sorted and distinct"
    assert np.array_equal(children, np.sort(triangle_5.read_level(widest + 1)))
    assert paths_by_position(children, paths) == level_paths(triangle_5, widest + 1)


@pytest.mark.slow
@needs_pyspark
def test_spark_runner_full_search_matches_local_engine(triangle_5: Run, tmp_path: Path) -> None:
    """Levels 1-4 each a job on mrjob's spark runner, the rest resumed by the local engine: every
    level equal (each level is a spark-submit of 15-30 s: the whole run took 4-5 min)."""
    board = load_board("triangle-5")
    spec = SearchSpec(board, board.empty)
    search(spec, tmp_path / "run", make_engine("mrjob", runner="spark", master="local[2]"), until=4)
    run = search(spec, tmp_path / "run", LocalEngine(), resume=True)
    assert_same_levels(run, triangle_5)


@pytest.mark.slow
def test_triangle_6_on_inline_runner_matches_local_engine(tmp_path: Path) -> None:
    board = load_board("triangle-6")
    run = search(SearchSpec(board, board.empty, count_paths=True), tmp_path / "mrjob",
                 make_engine("mrjob", runner="inline"))
    assert_same_levels(run, local_counted("triangle-6", tmp_path / "local"))


@pytest.mark.parametrize(("runner", "says"), [
    ("hadoop", "needs the `hadoop` command"),
    ("yarn", "unknown mrjob runner 'yarn'"),
])
def test_unavailable_runner_fails_at_once_in_one_line(runner: str, says: str,
                                                      tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = pegsearch_process("run", "triangle-5", "--engine", "mrjob", "--runner", runner,
                               "--out", str(out))
    assert result.returncode == 2
    assert says in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert not out.exists(), "no run directory before the runner is known to work"


def test_failed_level_leaves_a_resumable_run(triangle_5: Run, tmp_path: Path) -> None:
    broken = tmp_path / "broken.conf"
    broken.write_text(json.dumps({"runners": {"local": {"setup": ["exit 1"]}}}))
    out = tmp_path / "run"
    failed = pegsearch_process("run", "triangle-5", "--engine", "mrjob", "--runner", "local",
                               "--mrjob-conf", str(broken), "--out", str(out))
    assert failed.returncode == 2
    assert "level 1 failed on the mrjob local runner" in failed.stderr.splitlines()[-1]
    assert "Traceback" not in failed.stderr
    interrupted = Run.open(out)
    assert (interrupted.status, len(interrupted.levels)) == ("interrupted", 1)

    resumed = pegsearch_process("run", "triangle-5", "--engine", "mrjob", "--runner", "inline",
                                "--out", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert_same_levels(Run.open(out), triangle_5)

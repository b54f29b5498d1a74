"""The contract every engine keeps (the duties engines.Engine lists), one test a duty, each run on
every engine and runner in ENGINES: a new engine is a module and one line there.

- its levels are the local engine's: every level's positions, count and digest, path counts
  position for position, each part sorted and distinct and none sharing a position, on boards
  with published figures (Scherphuis's raw triangle-5, OEIS A112737 for english-33, Durango
  Bill's solutions of triangle-5), and the manifest recording the engine and its settings;
- it resumes a run another engine (the local one) made part of, to the same levels;
- a run of it killed (SIGKILL, its process group: a JVM too) mid-search resumes on it;
- a bad value of each setting it takes is refused in one line before a run is made.

Cases on mrjob's local runner and Spark start processes and JVMs for every level (slow); a slow
runner makes the first `levels` levels of a search and the local engine the rest. What is not
here: real clusters (a killed Spark standalone worker: test_spark.py; mrjob's hadoop runner and
Spark on YARN: test_hadoop.py, each against the local engine digest for digest) and what one
engine alone does (passes, path-count overflows, fewest moves in Spark's blocks: its own file).
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines import Engine, engine_class, make_engine
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.engines.settings import BY_NAME, taken_by
from pegsearch.errors import PegsearchError
from pegsearch.kernel.values import Carry
from pegsearch.store import Run
from tests.helpers import distinct, level_sets, parts_of, values_by_position, wait_for_levels
from tests.helpers.gpu import ON_GPU

CONF = Path(__file__).parents[2] / "cluster" / "mrjob.conf"
SLOW = pytest.mark.slow


@dataclass(frozen=True)
class Case:
    """An engine as a test makes it: its name, its settings, how many levels it makes of a search
    (None: all; a slow runner the first few, the local engine the rest) and the packages it needs."""

    engine: str
    settings: dict = field(default_factory=dict)
    levels: int | None = None
    needs: tuple[str, ...] = ()


# Every engine and runner that can run here, one line each. The gpu engine's kernels run in
# numba's simulator where no GPU is (tests.helpers.gpu), every level on the "GPU" (bitmap).
ENGINES = [
    pytest.param(Case("local"), id="local"),
    pytest.param(Case("gpu", {"reduce": "bitmap"}, needs=("numba.cuda",)),
                 id="gpu" if ON_GPU else "gpu-simulated"),
    pytest.param(Case("mrjob", {"runner": "inline"}, needs=("mrjob",)), id="mrjob-inline"),
    pytest.param(Case("mrjob", {"runner": "local", "mrjob_conf": CONF}, levels=2, needs=("mrjob",)),
                 id="mrjob-local", marks=SLOW),
    pytest.param(Case("spark", {"master": "local[2]", "driver_below": 0}, needs=("pyspark",)),
                 id="spark-local", marks=SLOW),
]

# A value each setting refuses (a setting declared without one fails the refusal test, by name).
BAD = {"memory": "lots", "gpu_memory": "1K", "reduce": "sometimes", "master": "spark://127.0.0.1:1",
       "driver_below": -1, "runner": "yarn", "mrjob_conf": "/no/such/mrjob.conf", "batch_size": 0,
       "queue": "search"}  # a queue where no YARN job is sent (inline, local[2]): refused


def engine_of(case: Case, **settings: object) -> Engine:
    """The case's engine (its settings, then `settings` over them); a skip where a package it
    needs is not installed, as the suite is also run with some extras only."""
    missing = [name for name in case.needs if importlib.util.find_spec(name.split(".")[0]) is None]
    if missing:
        pytest.skip(f"the {case.engine} engine needs {missing[0]}")
    try:
        engine_class(case.engine)
    except PegsearchError as unavailable:  # the gpu engine without numba-cuda
        pytest.skip(str(unavailable))
    return make_engine(case.engine, **{**case.settings, **settings})


def searched(case: Case, spec: SearchSpec, out: Path, resume: bool = False,
             until: int | None = None) -> Run:
    """The search (or the rest of it) to level `until` (None: its end): the case's engine makes its
    levels, or a slow runner's first `levels` of them and the local engine the rest."""
    made = len(Run.open(out, check_parts=False).levels) - 1 if resume else 0
    own = None if case.levels is None else made + case.levels
    stop = until if own is None or (until is not None and until <= own) else own
    run = search(spec, out, engine_of(case), resume=resume, until=stop)
    if stop != until and run.status == "paused":
        run = search(spec, out, LocalEngine(), resume=True, until=until)
    return run


def assert_levels_equal(run: Run, reference: Run) -> None:
    """The same levels: each one's count, digest and positions, values for values (path counts,
    fewest moves), and every part sorted and distinct, no two parts sharing a position."""
    assert run.status == reference.status  # complete, or paused at the same `until`
    assert [r["states"] for r in run.levels] == [r["states"] for r in reference.levels]
    assert [r["digest"] for r in run.levels] == [r["digest"] for r in reference.levels]
    for level, (ours, theirs) in enumerate(zip(level_sets(run), level_sets(reference), strict=True)):
        assert np.array_equal(ours, theirs), f"level {level}"
        parts = parts_of(run, level)
        assert all(np.all(part[1:] > part[:-1]) for part in parts), f"level {level}: a part unsorted"
        assert len(distinct(np.concatenate(parts))) == len(ours), f"level {level}: parts overlap"
        if run.carry is not Carry.NOTHING:
            assert values_by_position(run, level) == values_by_position(reference, level), level


# The searches every engine makes, each with published figures: name, board, start, symmetry,
# what is counted, the last level (None: to the end).
SEARCHES = {
    "triangle-5-raw": ("triangle-5", (1,), "none", False, None),
    "english-33-to-6": ("english-33", None, "board", False, 6),
    "triangle-5-paths": ("triangle-5", (4,), "board", True, None),
}


def spec_of(name: str) -> tuple[SearchSpec, int | None]:
    board, start, symmetry, count_paths, until = SEARCHES[name]
    loaded = load_board(board)
    return SearchSpec.asked(loaded, start or loaded.empty, symmetry, count_paths=count_paths), until


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """Each search of SEARCHES made by the local engine: what every engine must reproduce."""
    folder = tmp_path_factory.mktemp("local")
    runs = {}
    for name in SEARCHES:
        spec, until = spec_of(name)
        runs[name] = search(spec, folder / name, LocalEngine(), until=until)
    return runs


def published_levels(name: str, published: dict) -> list[int] | None:
    """A search's published counts a level, where there are any."""
    if name == "triangle-5-raw":
        return published["triangle5_raw_per_level"]["start_hole_1_corner"]
    if name == "english-33-to-6":
        return published["english_centre_reduced_per_level"]["levels"][:7]
    return None


@pytest.mark.parametrize("case", ENGINES)
@pytest.mark.parametrize("name", list(SEARCHES))
def test_levels_equal_the_local_engines_and_the_published_figures(
        case: Case, name: str, local_runs: dict[str, Run], published: dict, tmp_path: Path) -> None:
    """Each search of SEARCHES: level for level the local engine's run, count for count the
    published figures where there are any, Durango Bill's solutions in the last level's paths."""
    spec, until = spec_of(name)
    run = searched(case, spec, tmp_path / "run", until=until)
    assert_levels_equal(run, local_runs[name])
    if case.levels is None:  # the run's manifest records the engine that made it, its settings too
        options = run.manifest["options"]
        assert run.manifest["engine"] == case.engine
        assert {key: str(options[key]) for key in case.settings} == \
            {key: str(value) for key, value in case.settings.items()}
    figures = published_levels(name, published)
    if figures:
        assert [r["states"] for r in run.levels] == figures
    if spec.count_paths:  # Durango Bill's solutions from hole 4
        assert int(run.levels[-1]["paths"]) == published["triangle5_solutions"]["by_start_hole"]["4"]


@pytest.mark.parametrize("case", ENGINES)
def test_a_run_another_engine_began_is_resumed_to_the_same_levels(case: Case, tmp_path: Path) -> None:
    """The local engine makes levels 1-4 of triangle-5; this engine goes on from its parts."""
    board = load_board("triangle-5")
    spec = SearchSpec(board, board.empty)
    search(spec, tmp_path / "run", LocalEngine(), until=4)
    resumed = searched(case, spec, tmp_path / "run", resume=True)
    assert resumed.levels[5]["engine"] == case.engine
    assert_levels_equal(resumed, search(spec, tmp_path / "whole", LocalEngine()))


def flags(case: Case) -> list[str]:
    """The case's settings as the command line gives them."""
    return ["--engine", case.engine, *(word for key, value in case.settings.items()
                                       for word in (BY_NAME[key].flag, str(value)))]


@pytest.mark.parametrize("case", ENGINES)
def test_a_run_killed_mid_search_resumes_on_the_same_engine(case: Case, published: dict,
                                                           tmp_path: Path) -> None:
    """english-33 from the centre by `pegsearch run` in a process group of its own, killed
    (SIGKILL: no handler runs, a level's parts may be left half written) once level 2 is committed;
    resumed by the same engine to level 8, the levels are A112737's and the local engine's."""
    engine_of(case)  # skips where it cannot run, before a process is started
    out = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", "english-33", *flags(case),
                                "--out", str(out)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_levels(out, 3, timeout=300)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    board = load_board("english-33")
    spec = SearchSpec(board, board.empty)
    stopped = Run.open(out, check_parts=False)
    assert stopped.status == "interrupted" and 3 <= len(stopped.levels) < 9, "not killed mid-search"
    resumed = searched(case, spec, out, resume=True, until=8)
    assert [r["states"] for r in resumed.levels] == \
        published["english_centre_reduced_per_level"]["levels"][:9]
    assert_levels_equal(resumed, search(spec, tmp_path / "local", LocalEngine(), until=8))


def bad_settings() -> list:
    """(case, setting) for every setting each engine takes, on its first case in ENGINES."""
    first = {}
    for param in ENGINES:
        first.setdefault(param.values[0].engine, param)
    return [pytest.param(param.values[0], setting, id=f"{param.id}-{setting}", marks=param.marks)
            for param in first.values() for setting in taken_by(param.values[0].engine)]


@pytest.mark.parametrize(("case", "setting"), bad_settings())
def test_a_bad_setting_is_refused_in_one_line_before_a_run_is_made(case: Case, setting: str,
                                                                  tmp_path: Path) -> None:
    assert setting in BAD, f"give BAD a value that {setting} refuses"
    board = load_board("triangle-5")
    with pytest.raises(PegsearchError) as refused:
        search(SearchSpec(board, board.empty), tmp_path / "run",
               engine_of(case, **{setting: BAD[setting]}))
    said = str(refused.value)
    assert "\n" not in said, said
    assert setting.replace("_", " ") in re.sub(r"[-_.]", " ", said), said  # it names the setting
    assert not (tmp_path / "run").exists()

"""Checkpoints inside a level: a level made in passes commits each pass, so a search killed inside
it (kill -9: no cleanup at all) resumes at its next pass and ends equal, digest for digest, to a
search never interrupted; `verify`, `runs` and `counts` see the passes committed so far."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pegsearch.store import MANIFEST
from tests.helpers import pegsearch

# English from the centre at a 1 MiB budget: levels 12 to 19 take four to seven passes each.
BOARD, START, SMALL = "english-33", "17", 1 << 20
SEARCH = ("import sys\n"
          "from pegsearch.board.files import load_board\n"
          "from pegsearch.board.spec import SearchSpec\n"
          "from pegsearch.engines.driver import search\n"
          "from pegsearch.engines.local import LocalEngine\n"
          "search(SearchSpec(load_board(sys.argv[1]), (int(sys.argv[2]),)), sys.argv[3],\n"
          "       LocalEngine(memory=int(sys.argv[4]), reduce=sys.argv[5]))\n")


def manifest(run: Path) -> dict:
    return json.loads((run / MANIFEST).read_text())


def start_small(run: Path, reduce: str = "auto") -> subprocess.Popen:
    """The search in a process of its own at the small budget (below the command line's least, so
    in Python): its levels are made in many passes."""
    return subprocess.Popen([sys.executable, "-c", SEARCH, BOARD, START, str(run), str(SMALL), reduce])


def kill_inside_a_level(run: Path, passes_done: int, reduce: str = "auto") -> dict:
    """Start the small search and kill -9 it once a level from 14 on has `passes_done` passes
    committed; returns that checkpoint, as the manifest left behind holds it."""
    search = start_small(run, reduce)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and search.poll() is None:
            try:
                checkpoint = manifest(run).get("in_progress") or {}
            except (OSError, ValueError):
                checkpoint = {}
            if checkpoint.get("level", 0) >= 14 and checkpoint["passes_done"] >= passes_done:
                search.send_signal(signal.SIGKILL)
                search.wait()
                return manifest(run)["in_progress"]
            time.sleep(0.01)
        raise AssertionError("the search ended (or stalled) before a level had passes committed")
    finally:
        search.kill()
        search.wait()


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The search never interrupted, at the command line's default budget."""
    out = tmp_path_factory.mktemp("whole") / "run"
    assert pegsearch("run", BOARD, "--start", START, "--out", str(out)).returncode == 0
    return out


def test_a_level_killed_inside_resumes_at_its_next_pass(whole: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    checkpoint = kill_inside_a_level(run, 2)
    stored = manifest(run)
    assert stored["status"] == "running" and len(stored["levels"]) == checkpoint["level"]
    assert checkpoint["passes"] >= 4 and checkpoint["done"] > 0 and checkpoint["states"] > 0
    kept = {entry["name"] for entry in checkpoint["files"]}
    folder = run / f"level-{checkpoint['level']:03d}"
    assert kept <= {path.name for path in folder.iterdir()}

    # The manifest says running, but its writer's lock is free: every reader says interrupted.
    listed = pegsearch("runs", str(tmp_path))
    assert f"interrupted (level {checkpoint['level']}: pass {checkpoint['passes_done']} of" \
        in listed.stdout
    counted = json.loads(pegsearch("counts", str(run), "--json").stdout)
    assert counted["in_progress"]["passes_done"] == checkpoint["passes_done"]
    assert counted["status"] == "interrupted"
    checked = pegsearch("verify", str(run))
    assert checked.returncode == 0 and "positions so far, its parts checked too" in checked.stdout
    assert "the run is interrupted: resume it to finish" in checked.stdout

    # Resumed at the command line's budget: the level's remaining partitions in one more pass.
    began = time.monotonic()
    resumed = pegsearch("run", BOARD, "--start", START, "--out", str(run), "--resume")
    wall = time.monotonic() - began
    assert resumed.returncode == 0, resumed.stderr
    assert (f"continuing level {checkpoint['level']} at pass {checkpoint['passes_done'] + 1} of"
            f" {checkpoint['passes']}") in resumed.stderr
    record = manifest(run)["levels"][checkpoint["level"]]
    assert record["resumed"].startswith(f"at pass {checkpoint['passes_done'] + 1} of")
    # The level's seconds add up both processes' time; what came before the resume is said apart.
    assert record["seconds_before"] == checkpoint["seconds"]
    assert 0 < record["seconds"] - record["seconds_before"] < wall
    assert kept <= {entry["name"] for entry in record["files"]}  # the committed passes, not redone
    assert "in_progress" not in manifest(run)
    compared = pegsearch("verify", str(run), "--against", str(whole))
    assert compared.returncode == 0, compared.stdout


def test_a_resume_that_would_cut_the_level_otherwise_starts_it_again(whole: Path,
                                                                      tmp_path: Path) -> None:
    """Passes of a bitmap level cannot be added to by tables: the checkpoint is dropped (its parts
    too) and the level made whole, still equal to the search never interrupted."""
    run = tmp_path / "run"
    checkpoint = kill_inside_a_level(run, 1, reduce="bitmap")
    resumed = pegsearch("run", BOARD, "--start", START, "--out", str(run), "--resume", "--reduce",
                        "tables")
    assert resumed.returncode == 0, resumed.stderr
    record = manifest(run)["levels"][checkpoint["level"]]
    assert record["resumed"] == "from its start: its committed passes were cut otherwise"
    names = {path.name for path in (run / f"level-{checkpoint['level']:03d}").iterdir()}
    assert names == {entry["name"] for entry in record["files"]}
    assert not names & {entry["name"] for entry in checkpoint["files"]}
    assert pegsearch("verify", str(run), "--against", str(whole)).returncode == 0


def test_a_damaged_committed_pass_is_found_and_made_again(whole: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    checkpoint = kill_inside_a_level(run, 2)
    folder = run / f"level-{checkpoint['level']:03d}"
    first, second = (folder / entry["name"] for entry in checkpoint["files"][:2])
    shutil.copyfile(second, first)  # a part swapped for another
    checked = pegsearch("verify", str(run))
    assert checked.returncode == 1
    assert f"level {checkpoint['level']} (in progress, {checkpoint['passes_done']} of" in checked.stdout
    resumed = pegsearch("run", BOARD, "--start", START, "--out", str(run), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert manifest(run)["levels"][checkpoint["level"]]["resumed"] == (
        "from its start: a part of its committed passes was damaged")
    assert pegsearch("verify", str(run), "--against", str(whole)).returncode == 0


@pytest.mark.slow
def test_a_spark_driver_killed_inside_a_level_resumes_at_its_next_job(tmp_path: Path) -> None:
    """Spark makes a bitmap level that outgrows a task's memory in passes, a job each, each
    committed: the driver (and its JVM) killed with SIGKILL inside such a level resumes at the next
    job, and the run equals the local engine's digest for digest."""
    pytest.importorskip("pyspark")
    conf = tmp_path / "conf"
    conf.mkdir()
    # Triangle-8's level 8 as a bitmap of 0.9 MB: two jobs at 1 MiB a task (level 9, four more
    # jobs, is left out: what it would add is another level made so).
    (conf / "spark-defaults.conf").write_text("spark.pegsearch.task.memory 1m\n")
    board, until = "triangle-8", "8"
    local = tmp_path / "local"
    assert pegsearch("run", board, "--out", str(local), "--until", until).returncode == 0
    run = tmp_path / "spark"
    command = [sys.executable, "-m", "pegsearch", "run", board, "--out", str(run), "--until", until,
               "--engine", "spark", "--master", "local[2]", "--driver-below", "0", "--reduce",
               "bitmap"]
    environment = {**os.environ, "SPARK_CONF_DIR": str(conf)}
    driver = subprocess.Popen(command, env=environment, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint: dict = {}
    try:
        deadline = time.monotonic() + 600
        while not checkpoint.get("passes_done") and driver.poll() is None:
            assert time.monotonic() < deadline, "no level was made in passes"
            with contextlib.suppress(OSError, ValueError):
                checkpoint = manifest(run).get("in_progress") or {}
            time.sleep(0.01)
        os.killpg(driver.pid, signal.SIGKILL)  # the driver and its JVM, as a lost machine
    finally:
        driver.wait()
    assert checkpoint, "the search ended before a level had a pass committed"
    checkpoint = manifest(run)["in_progress"]
    resumed = subprocess.run([*command, "--resume"], env=environment, capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    record = manifest(run)["levels"][checkpoint["level"]]
    assert record["resumed"].startswith(f"at pass {checkpoint['passes_done'] + 1} of")
    assert "(a job each)" in record["shuffle"]
    assert {entry["name"] for entry in checkpoint["files"]} <= {entry["name"] for entry in record["files"]}
    compared = pegsearch("verify", str(run), "--against", str(local))
    assert compared.returncode == 0, compared.stdout


@pytest.mark.parametrize("level", [3, 6])
def test_a_signal_just_after_a_commit_keeps_the_parts_it_listed(level: int, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A signal landing after a level's manifest is written but before its writer is told (the
    moment a cancelled search was once called damaged): the parts the manifest lists stay, the run
    verifies, and --resume finishes it equal to an unbroken run."""
    from pegsearch.board.files import load_board
    from pegsearch.board.spec import SearchSpec
    from pegsearch.engines.driver import search
    from pegsearch.engines.local import LocalEngine
    from pegsearch.store import LevelWriter, Run

    told = LevelWriter.committed

    def interrupted_after(writer: LevelWriter) -> None:
        if writer.level == level:
            raise KeyboardInterrupt
        told(writer)

    monkeypatch.setattr(LevelWriter, "committed", interrupted_after)
    board = load_board("triangle-5")
    out = tmp_path / "run"
    with contextlib.suppress(KeyboardInterrupt):
        search(SearchSpec(board, board.empty), out, LocalEngine())
    monkeypatch.setattr(LevelWriter, "committed", told)
    assert len(Run.open(out).levels) == level + 1, "the level's commit was written"
    checked = pegsearch("verify", str(out))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert pegsearch("run", "triangle-5", "--resume", "--out", str(out)).returncode == 0
    assert pegsearch("run", "triangle-5", "--out", str(tmp_path / "whole")).returncode == 0
    same = pegsearch("verify", str(out), "--against", str(tmp_path / "whole"))
    assert same.returncode == 0, same.stdout

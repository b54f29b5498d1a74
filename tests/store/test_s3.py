"""Runs on S3: searches, answers, resume after kill -9, damaged parts and locks against a real
S3-compatible server (SeaweedFS on 127.0.0.1, see tests/s3_server.py), checked against the same
searches on local disk."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.fs as pafs
import pytest

from pegsearch.store import Location, Run, level_name
from tests.helpers import assert_one_line_error, level_sets, pegsearch


@pytest.fixture(scope="module")
def skippy_local(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Skippy XL on local disk: the second store every S3 run is compared with."""
    out = tmp_path_factory.mktemp("local") / "skippy"
    assert pegsearch("run", "skippy-xl", "--out", str(out)).returncode == 0
    return Run.open(out)


@pytest.fixture(scope="module")
def skippy_s3(s3: str) -> str:
    uri = f"{s3}/skippy"
    result = pegsearch("run", "skippy-xl", "--out", uri, "--json")
    assert result.returncode == 0, result.stderr
    return uri


def store_of(uri: str) -> Location:
    return Location.parse(uri)


def listed_part(uri: str, level: int) -> str:
    """The store path of a committed level's first part, as its manifest names it."""
    run = Run.open(uri)
    return run.level_folder(level).path(run.levels[level]["files"][0]["name"])


def test_skippy_on_s3_equals_skippy_on_local_disk(skippy_s3: str, skippy_local: Run) -> None:
    run = Run.open(skippy_s3)
    assert run.status == "complete"
    assert sum(r["states"] for r in run.levels) == 7_937_410
    for level, (a, b) in enumerate(zip(level_sets(run), level_sets(skippy_local), strict=True)):
        assert np.array_equal(a, b), f"level {level}"


def test_counts_solve_and_verify_read_a_run_on_s3(skippy_s3: str, skippy_local: Run) -> None:
    counts = pegsearch("counts", skippy_s3, "--json")
    assert counts.returncode == 0, counts.stderr
    local_counts = pegsearch("counts", skippy_local.uri, "--json")
    assert json.loads(counts.stdout)["levels"] == json.loads(local_counts.stdout)["levels"]
    solved = pegsearch("solve", skippy_s3)
    assert solved.returncode == 0, solved.stderr
    assert "a line of play reaching the fewest pegs (2), in 25 jumps" in solved.stdout
    checked = pegsearch("verify", skippy_s3)
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.startswith(f"ok: {skippy_s3}: 26 levels, 7,937,410 states")


def wait_for_levels(uri: str, count: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    store = store_of(uri)
    while time.monotonic() < deadline:
        try:
            if len(json.loads(store.read("manifest.json"))["levels"]) >= count:
                return
        except (FileNotFoundError, ValueError):
            pass
        time.sleep(0.02)
    raise AssertionError(f"{uri} did not reach {count} levels in {timeout} s")


@pytest.mark.parametrize("levels", [3, 14])
def test_a_run_killed_on_s3_resumes_to_identical_levels(levels: int, s3: str,
                                                        skippy_local: Run) -> None:
    uri = f"{s3}/killed-{levels}"
    process = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", "skippy-xl",
                                "--out", uri], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_levels(uri, levels)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    killed = Run.open(uri)
    assert killed.status == "interrupted" and len(killed.levels) < 26  # its lease's holder is gone
    resumed = pegsearch("run", "skippy-xl", "--out", uri, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    run = Run.open(uri)
    for level, (a, b) in enumerate(zip(level_sets(run), level_sets(skippy_local), strict=True)):
        assert np.array_equal(a, b), f"level {level}"
    # Only what the manifest lists is left: the killed attempt's parts were removed.
    listed = {f"{level_name(r['level'])}/{f['name']}" for r in run.levels for f in r["files"]}
    assert set(store_of(uri).files()) == listed | {"manifest.json"}
    assert pegsearch("verify", uri).returncode == 0


def test_a_swapped_or_truncated_part_on_s3_is_caught(s3: str) -> None:
    ours, theirs = f"{s3}/swap-a", f"{s3}/swap-b"
    assert pegsearch("run", "triangle-6", "--out", ours).returncode == 0
    assert pegsearch("run", "triangle-6", "--start", "4", "--out", theirs).returncode == 0
    store = store_of(s3)
    target = listed_part(ours, 6)
    store.fs.copy_file(listed_part(theirs, 6), target)
    assert_one_line_error(pegsearch("solve", ours),
                          "level 6 of s3://runs/swap-a: part part-00000-")
    verified = pegsearch("verify", ours)
    assert verified.returncode == 1
    assert "level 6 part-" in verified.stdout and "checksum does not match" in verified.stdout

    # A truncated part under a resumed run: refused, and the run is left as it was.
    truncated = listed_part(theirs, 9)
    data = store.fs.open_input_stream(truncated).read()
    with store.fs.open_output_stream(truncated) as stream:
        stream.write(data[: len(data) // 2])
    manifest = json.loads(store_of(theirs).read("manifest.json"))
    manifest["levels"] = manifest["levels"][:10]
    manifest["status"] = "interrupted"
    store_of(theirs).write("manifest.json", json.dumps(manifest).encode())
    result = pegsearch("run", "triangle-6", "--start", "4", "--out", theirs, "--resume")
    assert_one_line_error(result, "level 9 of s3://runs/swap-b: part part-00000-")
    assert "truncated or replaced" in result.stderr
    stored = Run.open(theirs, check_parts=False)
    assert len(stored.levels) == 10 and stored.status == "interrupted"


def test_a_level_whose_objects_were_all_deleted_is_missing_in_one_line(s3: str) -> None:
    """What `aws s3 rm --recursive` leaves: no object under the level's prefix, while the store may
    still answer for the folder. Every reader says which level is gone; verify lists it."""
    uri = f"{s3}/vanished"
    assert pegsearch("run", "triangle-6", "--out", uri).returncode == 0
    store = store_of(uri)
    doomed = store.files(level_name(4))  # names relative to the run's folder
    assert doomed
    for name in doomed:
        store.remove(name)
    verified = pegsearch("verify", uri)
    assert verified.returncode == 1 and "Traceback" not in verified.stderr
    assert verified.stdout.splitlines() == [f"{uri}: level 4: folder {uri}/{level_name(4)} is missing"]
    assert_one_line_error(pegsearch("counts", uri), f"level 4 of {uri}: part part-00000-")


def test_mrjob_engine_searches_a_run_on_s3(s3: str, tmp_path: Path) -> None:
    uri = f"{s3}/mrjob"
    result = pegsearch("run", "triangle-5", "--engine", "mrjob", "--count-paths", "--out", uri)
    assert result.returncode == 0, result.stderr
    local = tmp_path / "local"
    assert pegsearch("run", "triangle-5", "--count-paths", "--out", str(local)).returncode == 0
    run, reference = Run.open(uri), Run.open(local)
    for a, b in zip(level_sets(run), level_sets(reference), strict=True):
        assert np.array_equal(a, b)
    assert [r["paths"] for r in run.levels] == [r["paths"] for r in reference.levels]


def test_a_second_writer_on_s3_is_refused(s3: str) -> None:
    uri = f"{s3}/two-writers"
    # Raw, so the first run still has seconds to go (the second's start-up) on a fast machine.
    first = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", "skippy-xl", "--raw",
                              "--out", uri], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    wait_for_levels(uri, 2)
    second = pegsearch("run", "skippy-xl", "--raw", "--out", uri, "--resume")
    assert first.wait(timeout=300) == 0, first.stderr.read()
    assert_one_line_error(second, "is being written by pegsearch process")
    assert Run.open(uri).status == "complete" and len(Run.open(uri).levels) == 26


@pytest.mark.parametrize(("variables", "fragment"), [
    ({"AWS_ENDPOINT_URL": "http://127.0.0.1:9"}, "cannot reach s3://runs/nowhere"),
    ({}, "bucket 'no-such-bucket' does not exist"),
])
def test_an_unreachable_store_is_one_line_before_any_work(variables: dict, fragment: str,
                                                          s3: str) -> None:
    uri = f"{s3}/nowhere" if variables else "s3://no-such-bucket/run"
    env = {**os.environ, **variables}
    result = subprocess.run([sys.executable, "-m", "pegsearch", "run", "triangle-5", "--out",
                             uri], capture_output=True, text=True, env=env, timeout=120)
    assert_one_line_error(result, fragment)
    assert not store_of(f"{s3}/nowhere").exists()


@pytest.mark.parametrize("uri", ["s3://", "s3:///runs/x", "gs://", "s3://runs//x"])
def test_a_uri_without_a_bucket_and_path_is_one_line(uri: str) -> None:
    assert_one_line_error(pegsearch("counts", uri), f"{uri}: not a bucket and path")


def test_unknown_scheme_and_s3_layout(tmp_path: Path) -> None:
    assert_one_line_error(pegsearch("counts", "ftp://host/run"), "unknown storage scheme 'ftp://'")
    local = Location.parse(f"file://{tmp_path}/run")
    assert isinstance(local.fs, pafs.LocalFileSystem) and local.local == tmp_path / "run"


@pytest.mark.parametrize("patience", ["soon", "-5", "inf"])
def test_a_patience_that_is_no_number_of_seconds_is_one_line(s3: str, patience: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PEGSEARCH_STORE_PATIENCE", patience)
    uri = f"{s3}/patience-{patience}"
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", uri),
                          f"PEGSEARCH_STORE_PATIENCE={patience}: not a number of seconds")
    monkeypatch.delenv("PEGSEARCH_STORE_PATIENCE")
    assert not store_of(uri).exists()  # refused before the run was made

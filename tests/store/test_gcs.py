"""Runs on Google Cloud Storage's JSON API: a search, a resume, damage found, folders listed and
removed, against a GCS emulator (fake-gcs-server on 127.0.0.1, see tests/helpers/gcs_server.py)
reached through STORAGE_EMULATOR_HOST, and checked against the same searches on local disk. What
this does not prove: Google's own servers, credentials, or their limits (see docs/storage.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pegsearch.store import Location, Run, level_name
from tests.helpers import assert_one_line_error, pegsearch

BOARD = "triangle-6"


@pytest.fixture(scope="module")
def on_disk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The search on local disk: the second store every GCS run is compared with."""
    out = tmp_path_factory.mktemp("local") / "run"
    assert pegsearch("run", BOARD, "--out", str(out)).returncode == 0
    return out


@pytest.fixture(scope="module")
def on_gcs(gcs: str) -> str:
    uri = f"{gcs}/whole"
    result = pegsearch("run", BOARD, "--out", uri)
    assert result.returncode == 0, result.stderr
    return uri


def listed_part(uri: str, level: int) -> str:
    """The store path of a committed level's first part, as its manifest names it."""
    run = Run.open(uri)
    return run.level_folder(level).path(run.levels[level]["files"][0]["name"])


def test_a_run_on_gcs_equals_the_run_on_local_disk(on_gcs: str, on_disk: Path) -> None:
    compared = pegsearch("verify", on_gcs, "--against", str(on_disk))
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert compared.stdout.startswith(f"ok: {on_gcs}: 20 levels, 146,435 states")
    counts = json.loads(pegsearch("counts", on_gcs, "--json").stdout)
    assert counts["levels"] == json.loads(pegsearch("counts", str(on_disk), "--json").stdout)["levels"]
    solved = pegsearch("solve", on_gcs)
    assert solved.returncode == 0, solved.stderr
    assert "a solution in 19 jumps" in solved.stdout


def test_runs_lists_the_runs_in_a_bucket(on_gcs: str, gcs: str) -> None:
    """pyarrow lists only GCS's folder marker objects as folders, and a run writes none."""
    listed = pegsearch("runs", gcs, "--json")
    assert listed.returncode == 0, listed.stderr
    assert on_gcs in {run["location"] for run in json.loads(listed.stdout)["runs"]}
    levels = [name for name in Location.parse(on_gcs).folders() if name.startswith("level-")]
    assert levels == [level_name(level) for level in range(20)]


def test_a_run_paused_by_until_resumes_on_gcs(gcs: str, on_disk: Path) -> None:
    uri = f"{gcs}/paused"
    paused = pegsearch("run", BOARD, "--out", uri, "--until", "8")
    assert paused.returncode == 0, paused.stderr
    assert len(Run.open(uri).levels) == 9 and Run.open(uri).status != "complete"
    resumed = pegsearch("run", BOARD, "--out", uri, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    run = Run.open(uri)
    assert run.status == "complete"
    # Only what the manifest lists is there.
    listed = {f"{level_name(r['level'])}/{f['name']}" for r in run.levels for f in r["files"]}
    assert set(Location.parse(uri).files()) == listed | {"manifest.json"}
    compared = pegsearch("verify", uri, "--against", str(on_disk))
    assert compared.returncode == 0, compared.stdout + compared.stderr


def test_a_damaged_part_and_a_stray_level_on_gcs_are_found(gcs: str) -> None:
    uri = f"{gcs}/damaged"
    assert pegsearch("run", BOARD, "--out", uri).returncode == 0
    store = Location.parse(uri)
    target = listed_part(uri, 6)
    data = store.fs.open_input_stream(target).read()
    with store.fs.open_output_stream(target) as stream:
        stream.write(data[: len(data) // 2])
    store.write(f"{level_name(30)}/part-00000-stray.parquet", b"never committed")
    verified = pegsearch("verify", uri)
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert "level 6 part-" in verified.stdout
    assert f"{level_name(30)}/ is not listed in the manifest" in verified.stdout
    assert_one_line_error(pegsearch("solve", uri), f"level 6 of {uri}: part part-00000-")


def test_a_folder_written_into_is_removed_whole(gcs: str) -> None:
    """A folder on GCS that files were written into has no marker object: removing it is still
    removing its files, not a FileNotFoundError."""
    store = Location.parse(f"{gcs}/removed")
    store.write("a/one", b"1")
    store.write("a/b/two", b"2")
    store.write("c/three", b"3")
    store.remove_tree("a")
    assert store.files() == {"c/three": 1}
    assert store.folders() == ["c"]


def test_a_bucket_that_does_not_exist_is_one_line_before_any_work(gcs: str) -> None:
    assert_one_line_error(pegsearch("run", BOARD, "--out", "gs://no-such-bucket/run"),
                          "gs://no-such-bucket/run: bucket 'no-such-bucket' does not exist")

"""The store under hostile conditions on local disk: damaged manifests, swapped parts under a
resume, unusable output folders, a full disk and two writers on one run. Each ends in one line and
a non-zero exit, and never leaves a finished-looking run or changes one."""

from __future__ import annotations

import fcntl
import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pegsearch.store import MANIFEST, Run
from tests.helpers import assert_one_line_error, part_file, pegsearch, wait_for_levels


def make_run(out: Path, *options: str) -> Path:
    result = pegsearch("run", "triangle-6", "--out", str(out), *options)
    assert result.returncode == 0, result.stderr
    return out


def cut_back(out: Path, levels: int) -> None:
    """Make a complete run look interrupted after `levels` levels, as a crash would leave it."""
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["levels"] = manifest["levels"][:levels]
    manifest["status"] = "interrupted"
    (out / MANIFEST).write_text(json.dumps(manifest))


@pytest.mark.parametrize(("manifest", "fragment"), [
    ([1, 2], "damaged manifest (not a JSON object)"),
    ({"format": 1}, "damaged manifest ('board' is missing"),
    ("not json", "damaged manifest (not JSON"),
    ({"format": 7}, "run format 7 is not 1"),
    ({}, "damaged manifest (no format number)"),
    (b"\xff\xfe\x00\x9c garbage", "damaged manifest (not UTF-8 text)"),
])
@pytest.mark.parametrize("command", ["counts", "solve", "verify"])
def test_a_manifest_that_is_not_one_is_one_line(manifest: object, fragment: str, command: str,
                                                tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    if isinstance(manifest, bytes):
        (out / MANIFEST).write_bytes(manifest)
    else:
        (out / MANIFEST).write_text(manifest if isinstance(manifest, str) else json.dumps(manifest))
    assert_one_line_error(pegsearch(command, str(out)), fragment)


@pytest.mark.parametrize(("change", "fragment"), [
    (lambda m: m["levels"][3]["files"][0].update(name="../../../etc/passwd"), "level 3 lists"),
    (lambda m: m["levels"][2].update(states="many"), "level 2 lacks whole numbers"),
    (lambda m: m["levels"].pop(4), "level entry 4 is not a record of level 4"),
    (lambda m: m.update(status="finished"), "status 'finished' is not one of"),
])
def test_a_manifest_with_wrong_entries_is_refused_before_reading(change, fragment: str,
                                                                 tmp_path: Path) -> None:
    out = make_run(tmp_path / "run")
    manifest = json.loads((out / MANIFEST).read_text())
    change(manifest)
    (out / MANIFEST).write_text(json.dumps(manifest))
    for command in ("counts", "solve", "verify"):
        assert_one_line_error(pegsearch(command, str(out)), fragment)
    assert_one_line_error(pegsearch("run", "triangle-6", "--out", str(out), "--resume"), fragment)


@pytest.mark.parametrize("damage", ["swap", "truncate", "remove"])
def test_resume_refuses_a_level_that_does_not_match_its_manifest(damage: str,
                                                                 tmp_path: Path) -> None:
    """The level a resume builds on is read through the manifest's checks: a part replaced by the
    same level of another run, truncated or missing stops the resume, which changes nothing."""
    out = make_run(tmp_path / "run")
    other = make_run(tmp_path / "other", "--start", "4")
    complete = (out / MANIFEST).read_text()
    cut_back(out, 9)
    part = part_file(out, 8)
    if damage == "swap":
        part.write_bytes(part_file(other, 8).read_bytes())
    elif damage == "truncate":
        part.write_bytes(part.read_bytes()[:-10])
    else:
        part.unlink()
    before = (out / MANIFEST).read_text()
    result = pegsearch("run", "triangle-6", "--out", str(out), "--resume")
    assert_one_line_error(result, f"level 8 of {out}: part {part.name}")
    after = json.loads((out / MANIFEST).read_text())
    assert len(after["levels"]) == 9 and after["status"] == "interrupted"
    assert after["levels"] == json.loads(before)["levels"]
    # The answers walking the levels refuse it too, rather than answer from a foreign level.
    (out / MANIFEST).write_text(complete)
    assert_one_line_error(pegsearch("counts", str(out), "--winnable"), "the run is damaged")


def test_every_reader_refuses_a_run_missing_any_listed_part(tmp_path: Path) -> None:
    """A deleted level is seen by every command, not only by one that reads that level: `counts`
    reads only the manifest, and `--resume` builds on the last level alone."""
    out = make_run(tmp_path / "run")
    part = part_file(out, 6)
    part.unlink()
    for command in (["counts", str(out)], ["counts", str(out), "--json"], ["solve", str(out)]):
        assert_one_line_error(pegsearch(*command), f"level 6 of {out}: part {part.name} is missing")
    cut_back(out, 12)
    before = (out / MANIFEST).read_text()
    assert_one_line_error(pegsearch("run", "triangle-6", "--out", str(out), "--resume"),
                          f"level 6 of {out}: part {part.name} is missing")
    assert (out / MANIFEST).read_text() == before


def test_a_refused_command_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    """No lock file is added to a folder that holds no run, and another run's lock is not rewritten."""
    mine = tmp_path / "papers"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", str(mine), "--resume"),
                          "holds no run to resume")
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    missing = tmp_path / "nothing-here"
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", str(missing), "--resume"),
                          "holds no run to resume")
    assert not missing.exists()
    out = make_run(tmp_path / "run")
    lock = (out / ".lock").read_text()
    listing = sorted(p.name for p in out.iterdir())
    assert_one_line_error(pegsearch("run", "triangle-6", "--out", str(out)), "already holds this run")
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", str(out)), "already holds a different run")
    assert (out / ".lock").read_text() == lock and sorted(p.name for p in out.iterdir()) == listing


def test_solve_refuses_a_swapped_level(tmp_path: Path) -> None:
    out = make_run(tmp_path / "run")
    other = make_run(tmp_path / "other", "--start", "4")
    part_file(out, 5).write_bytes(part_file(other, 5).read_bytes())
    assert_one_line_error(pegsearch("solve", str(out)), f"level 5 of {out}: part part-00000-")


def test_unusable_out_folders_are_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", str(blocker / "run")),
                          "Not a directory; choose another --out")
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", str(tmp_path / ("x" * 300))),
                          "File name too long")
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", str(blocker)),
                          "is a file, not a folder for a run")


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 300 kB filesystem (tmpfs), where a search runs out of space part way."""
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(folder)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("mounting a small tmpfs needs root")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_keeps_the_levels_made_and_resumes_elsewhere(small_disk: Path,
                                                                 tmp_path: Path) -> None:
    """A level the disk cannot hold is refused before it starts, saying what it needs; the
    levels made are kept, and the run continues where there is room."""
    out = small_disk / "run"
    result = pegsearch("run", "english-33", "--out", str(out))
    assert_one_line_error(result, "of disk")
    assert re.search(r"level \d+ needs about [\d.]+ \w+ of disk .* has [\d.]+ \w+ free: make room"
                     r" there, then continue the run with --resume", result.stderr), result.stderr
    run = Run.open(out)
    assert run.status == "interrupted" and 0 < len(run.levels) < 31, result.stderr
    made = len(run.levels)
    assert pegsearch("verify", str(out)).returncode == 0
    # Moved to a roomier disk, the run continues from where the disk filled up.
    roomy = tmp_path / "roomy"
    shutil.copytree(out, roomy)
    resumed = pegsearch("run", "english-33", "--out", str(roomy), "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    levels = json.loads(resumed.stdout)["levels"]
    assert len(levels) == 32 and sum(level["states"] for level in levels) == 23_475_688
    assert made < len(levels)


def test_a_second_writer_is_refused_and_the_first_finishes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # Raw, so the first run still has seconds to go (the second's start-up) on a fast machine.
    first = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", "skippy-xl", "--raw",
                              "--out", str(out), "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    wait_for_levels(out, 3)
    second = pegsearch("run", "skippy-xl", "--raw", "--out", str(out), "--resume")
    assert_one_line_error(second, "is being written by pegsearch process")
    stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    assert len(json.loads(stdout)["levels"]) == 26
    run = Run.open(out)
    assert run.status == "complete" and len(run.levels) == 26
    assert pegsearch("verify", str(out)).returncode == 0


def test_two_runs_started_together_one_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "pegsearch", "run", "triangle-6", "--out", str(out)]
    both = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in both]
    assert sorted(code for code, _ in results) == [0, 2]
    refused = next(err for code, err in results if code == 2)
    assert len(refused.strip().splitlines()) == 1 and "Traceback" not in refused
    assert "is being written by" in refused or "already holds this run" in refused
    assert Run.open(out).status == "complete"
    assert pegsearch("verify", str(out)).returncode == 0


def test_a_run_being_started_is_named_as_such_not_as_a_foreign_folder(tmp_path: Path) -> None:
    """The instant after another writer took its lock and began writing (its lock and a manifest's
    temporary file are all the folder holds), a second start names that writer; a foreign folder
    holding the same files but no lock is still refused as one, and both are left as they were."""
    started, foreign = tmp_path / "started", tmp_path / "foreign"
    for folder in (started, foreign):
        folder.mkdir()
        (folder / "manifest.json.0123456789ab.tmp").write_text("{}")
    with open(started / ".lock", "w") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        lock.write("pegsearch process 4242 on elsewhere\n")
        lock.flush()
        refused = pegsearch("run", "triangle-5", "--out", str(started))
        assert_one_line_error(refused, "is being written by pegsearch process 4242 on elsewhere")
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", str(foreign)),
                          "is not an empty folder or a pegsearch run")
    assert sorted(p.name for p in started.iterdir()) == [".lock", "manifest.json.0123456789ab.tmp"]
    assert [p.name for p in foreign.iterdir()] == ["manifest.json.0123456789ab.tmp"]


@pytest.fixture(scope="module")
def english_counts(tmp_path_factory: pytest.TempPathFactory) -> list[int]:
    out = tmp_path_factory.mktemp("whole") / "run"
    result = pegsearch("run", "english-33", "--out", str(out), "--json")
    return [level["states"] for level in json.loads(result.stdout)["levels"]]


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(3))
def test_sigkill_at_random_moments_then_resume_gives_the_verified_counts(
        trial: int, seed: int, english_counts: list[int], tmp_path: Path) -> None:
    """SIGKILL at a random level and a random moment inside it (kernel, table drain, a part being
    written, the manifest being replaced): `--resume` finishes to the uninterrupted counts and the
    run verifies, with nothing left that the manifest does not list. A new moment each run
    (`--seed` replays one)."""
    chance = random.Random(f"{trial}-{seed}")
    out = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", "english-33",
                                "--out", str(out)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    wait_for_levels(out, chance.randint(1, 24))
    time.sleep(chance.uniform(0, 0.5))
    process.kill()
    process.wait()
    resumed = pegsearch("run", "english-33", "--out", str(out), "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert [level["states"] for level in json.loads(resumed.stdout)["levels"]] == english_counts
    assert pegsearch("verify", str(out)).returncode == 0
    run = Run.open(out)
    listed = {f"level-{r['level']:03d}/{f['name']}" for r in run.levels for f in r["files"]}
    assert set(run.location.files()) == listed | {MANIFEST, ".lock"}

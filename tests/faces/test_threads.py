"""`pegsearch run --threads N`: the local engine's threads, recorded in the manifest; bad values
refused in one line before a run is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegsearch.store import Run
from tests.helpers import assert_one_line_error, pegsearch_process


def test_the_threads_asked_for_make_the_run(tmp_path: Path) -> None:
    one, three = tmp_path / "one", tmp_path / "three"
    assert pegsearch_process("run", "triangle-5", "--threads", "1", "--out", str(one)).returncode == 0
    assert pegsearch_process("run", "triangle-5", "--threads", "3", "--out", str(three)).returncode == 0
    assert Run.open(one).manifest["options"]["workers"] == 1
    assert Run.open(three).manifest["options"]["workers"] == 3
    assert [r["digest"] for r in Run.open(one).levels] == [r["digest"] for r in Run.open(three).levels]


def test_many_threads_read_and_expand_a_level_as_one_does(tmp_path: Path) -> None:
    """17 threads: three readers share each level's parts, and the bitmap levels are made with
    a plane a thread or one shared bitmap, the chunks taken by whichever thread is free."""
    one, many = tmp_path / "one", tmp_path / "many"
    assert pegsearch_process("run", "skippy-xl", "--threads", "1", "--out", str(one)).returncode == 0
    assert pegsearch_process("run", "skippy-xl", "--threads", "17", "--out", str(many)).returncode == 0
    levels = Run.open(many).levels
    assert any("planes" in r or r.get("shared") for r in levels)  # made in one step
    assert max(len(r["files"]) for r in levels) >= 17  # parts enough for three readers
    assert [r["digest"] for r in Run.open(one).levels] == [r["digest"] for r in levels]


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_bad_thread_counts_are_refused(tmp_path: Path, value: str) -> None:
    assert_one_line_error(pegsearch_process("run", "triangle-5", f"--threads={value}", "--out",
                                            str(tmp_path / "run")), "--threads")
    assert not (tmp_path / "run").exists()

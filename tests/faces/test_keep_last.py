"""`pegsearch run --keep last`: a run that keeps only its last level's parts, through the real CLI.

Its counts and digests must equal a keep-all run's level for level, the disk must hold only the
last level's parts, `verify` must check what is kept and name what was dropped, `--resume` must
continue from the last level, and the answers that walk every level back must refuse in one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pegsearch.store import Run
from tests.helpers import assert_one_line_error, pegsearch

BOARD = "triangle-6"


def levels_on_disk(run: Path) -> list[str]:
    return sorted(path.name for path in run.glob("level-*"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A keep-all run, and a keep-last one made in two stages (paused by --until, then resumed
    with no --keep: a resumed run keeps its choice)."""
    folder = tmp_path_factory.mktemp("keep")
    whole, last = folder / "all", folder / "last"
    assert pegsearch("run", BOARD, "--out", str(whole)).returncode == 0
    staged = pegsearch("run", BOARD, "--out", str(last), "--keep", "last", "--until", "6")
    assert staged.returncode == 0, staged.stderr
    assert levels_on_disk(last) == ["level-006"]
    resumed = pegsearch("run", BOARD, "--out", str(last), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    return whole, last


def test_counts_and_digests_equal_a_keep_all_run(runs: tuple[Path, Path]) -> None:
    whole, last = runs
    mine, theirs = Run.open(last), Run.open(whole)
    assert mine.keep == "last" and mine.status == "complete"
    assert [(r["states"], r["digest"], r["bytes"]) for r in mine.levels] == \
        [(r["states"], r["digest"], r["bytes"]) for r in theirs.levels]
    counts = json.loads(pegsearch("counts", str(last), "--json").stdout)
    assert [level["states"] for level in counts["levels"]] == [r["states"] for r in theirs.levels]
    assert pegsearch("verify", str(last), "--against", str(whole)).returncode == 0


def test_only_the_last_level_is_on_disk(runs: tuple[Path, Path]) -> None:
    _, last = runs
    run = Run.open(last)
    final = len(run.levels) - 1
    assert run.dropped() == list(range(final))
    assert levels_on_disk(last) == [f"level-{final:03d}"]
    assert all(r["files"] == [] for r in run.levels[:final])


def test_verify_checks_what_is_kept_and_names_what_was_dropped(runs: tuple[Path, Path]) -> None:
    _, last = runs
    checked = pegsearch("verify", str(last))
    assert checked.returncode == 0, checked.stdout
    final = len(Run.open(last).levels) - 1
    assert f"dropped: levels 0 to {final - 1}" in checked.stdout
    # A part left behind in a dropped level's folder is found, as any unlisted part is.
    stray = last / "level-003"
    stray.mkdir()
    (stray / "part-00000-x.parquet").write_bytes(b"left over")
    try:
        found = pegsearch("verify", str(last))
        assert found.returncode == 1 and "level-003/ is not listed" in found.stdout
    finally:
        (stray / "part-00000-x.parquet").unlink()
        stray.rmdir()


@pytest.mark.parametrize("command", [("solve",), ("hint", "1,2,3"), ("winnable",),
                                     ("counts", "--winnable"), ("positions", "2")])
def test_answers_needing_every_level_refuse_in_one_line(runs: tuple[Path, Path],
                                                        command: tuple[str, ...]) -> None:
    _, last = runs
    refused = pegsearch(command[0], str(last), *command[1:])
    assert_one_line_error(refused, "--keep all")


def test_another_keep_word_is_refused(tmp_path: Path) -> None:
    refused = pegsearch("run", BOARD, "--out", str(tmp_path / "x"), "--keep", "most")
    assert_one_line_error(refused, "--keep")
    assert not (tmp_path / "x").exists()

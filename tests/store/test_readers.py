"""Levels other tools read: the DuckDB, Polars and pyarrow examples of docs/formats.md, run as
written with the real libraries; the parts' self-description; and the listed parts only, never an
unfinished attempt's file."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pegsearch.board.files import load_board
from pegsearch.store import Run
from tests.helpers import pegsearch, values_by_position

FORMATS = Path(__file__).parents[2] / "docs" / "formats.md"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    out = tmp_path_factory.mktemp("readers") / "triangle-5"
    assert pegsearch("run", "triangle-5", "--fewest-moves", "--out", str(out)).returncode == 0
    return Run.open(out)


def formats_examples() -> list[str]:
    """The Python blocks of docs/formats.md's section on levels other tools can read."""
    text = FORMATS.read_text()
    section = text[text.index("## Levels other tools can read"):]
    section = section[:section.index("\n## ", 4)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_formats_examples_read_exactly_the_listed_levels(run: Run, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # An interrupted attempt's file in a committed level, which a glob would take.
    shutil.copy(run.part_paths(5)[0], Path(run.part_paths(3)[0]).parent / "part-00007-0dd.parquet")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    examples = formats_examples()
    assert len(examples) == 3
    scope: dict = {}
    for example in examples:
        exec(example.replace('RUN = "runs/triangle-5"', f"RUN = {str(run.uri)!r}"), scope)
    states = [record["states"] for record in run.levels]
    assert scope["table"].num_rows == sum(states)
    assert scope["per_level"] == list(enumerate(states))
    assert scope["fewest"] == run.levels[13]["moves"] == 10
    expected: dict[int, int] = {}
    for level in range(len(run.levels)):
        for moves, _ in values_by_position(run, level).values():
            expected[moves] = expected.get(moves, 0) + 1
    assert dict(scope["by_moves"].iter_rows()) == expected


def test_a_part_describes_itself(run: Run) -> None:
    metadata = pq.read_schema(run.part_paths(13)[0]).metadata
    said = {key.decode(): value.decode() for key, value in metadata.items() if key.startswith(b"pegsearch.")}
    board = load_board("triangle-5")
    assert said["pegsearch.board"] == "triangle-5" and said["pegsearch.board_digest"] == board.digest
    assert (said["pegsearch.level"], said["pegsearch.pegs"], said["pegsearch.start"]) == ("13", "1", "1")
    assert said["pegsearch.symmetry"] == "board" and said["pegsearch.values"] == "moves,last_holes"
    assert said["pegsearch.format"] == "1" and "bit i-1" in said["pegsearch.position"]


def test_files_and_positions_commands(run: Run) -> None:
    listed = pegsearch("files", str(run.uri), "13")
    assert listed.returncode == 0 and listed.stdout.split() == run.part_paths(13)
    every = pegsearch("files", str(run.uri)).stdout.split()
    assert len(every) == sum(len(record["files"]) for record in run.levels)
    shown = pegsearch("positions", str(run.uri), "13", "--limit", "2")
    assert shown.returncode == 0
    assert "level 13: 3 positions with 1 peg, one per symmetry class" in shown.stdout
    assert "the first 2 as stored" in shown.stdout and "10 moves at fewest" in shown.stdout
    assert shown.stdout.count("\n. . . . .") + shown.stdout.count("\no . . . .") == 2
    missing = pegsearch("positions", str(run.uri), "14")
    assert missing.returncode == 2 and "has levels 0 to 13, not 14" in missing.stderr


def test_runs_lists_every_run_under_a_root(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert pegsearch("run", "triangle-5", "--out", str(root / "a")).returncode == 0
    assert pegsearch("survey", "triangle-4", "--out", str(root / "survey")).returncode == 0
    (root / "junk").mkdir()
    (root / "broken").mkdir()
    (root / "broken" / "manifest.json").write_text("{}")
    listed = pegsearch("runs", str(root))
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert lines[0].split()[:3] == ["run", "board", "start"]
    boards = [line.split()[1] for line in lines[1:]]
    assert boards.count("triangle-4") == 1 and boards.count("triangle-5") == 1  # a survey is one entry
    [surveyed] = [line for line in lines if line.startswith(str(root / "survey"))]
    assert "survey of 1,2,5" in surveyed and "complete" in surveyed
    assert any(line.startswith(str(root / "broken")) and "damaged" in line for line in lines)
    assert pegsearch("runs", str(tmp_path / "empty-root")).returncode == 2

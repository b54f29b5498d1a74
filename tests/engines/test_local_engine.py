"""The local engine's partitioned reduce: many partitions, chunks and passes give the same levels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.errors import UsageError
from tests.helpers import level_sets, parts_of, pegsearch


@pytest.mark.parametrize("count_paths", [False, True])
def test_many_passes_match_one_pass(count_paths: bool, tmp_path: Path) -> None:
    spec = SearchSpec(load_board("triangle-6"), (4,), count_paths=count_paths)
    whole = search(spec, tmp_path / "whole", LocalEngine())
    engine = LocalEngine(memory=40_000, chunk=500)  # tables of about 10 kB: several passes a level
    passes = search(spec, tmp_path / "passes", engine)
    assert max(len(r["files"]) for r in passes.levels) >= 4  # a part per pass at least
    assert engine.passes >= len(passes.levels) + 4
    for a, b in zip(level_sets(whole), level_sets(passes), strict=True):
        assert np.array_equal(a, b)
    assert [r.get("paths") for r in whole.levels] == [r.get("paths") for r in passes.levels]


def test_parts_are_sorted_and_disjoint(tmp_path: Path) -> None:
    run = search(SearchSpec(load_board("triangle-6"), (1,)), tmp_path / "r",
                 LocalEngine(memory=40_000, chunk=500))
    for level in range(len(run.levels)):
        seen = parts_of(run, level)
        assert len(seen) == len(run.levels[level]["files"])
        for part in seen:
            assert np.all(part[1:] > part[:-1])
        merged = np.concatenate(seen)
        assert len(np.unique(merged)) == len(merged) == run.levels[level]["states"]


@pytest.mark.parametrize("text", ["2X", "lots", "1K"])
def test_bad_memory_sizes_are_refused(text: str) -> None:
    with pytest.raises(UsageError, match=f"--memory {text}"):
        LocalEngine(memory=text)


def test_memory_flag_through_the_cli(tmp_path: Path) -> None:
    result = pegsearch("run", "triangle-5", "--memory", "128M", "--json", "--out", str(tmp_path / "r"))
    assert result.returncode == 0, result.stderr
    bad = pegsearch("run", "triangle-5", "--memory", "huge", "--out", str(tmp_path / "s"))
    assert bad.returncode == 2 and "--memory huge" in bad.stderr


def test_progress_inside_a_level_counts_every_parent_of_every_pass(tmp_path: Path) -> None:
    """Events while a level is made: parents done rise to the total, which is the parent level's
    size times the passes made, before the level's record arrives."""
    events: list[dict] = []
    engine = LocalEngine(memory=40_000, chunk=500)  # small tables and chunks: many passes, events
    run = search(SearchSpec(load_board("triangle-6"), (1,)), tmp_path / "r", engine,
                 progress=events.append)
    for record in run.levels[1:]:
        level = record["level"]
        ticks = [e for e in events if e["level"] == level and "done" in e]
        parents = run.levels[level - 1]["states"]
        assert ticks, f"level {level}: no progress"
        assert all(e["pegs"] == record["pegs"] for e in ticks)
        assert [e["done"] for e in ticks] == sorted(e["done"] for e in ticks)
        assert all(0 < e["done"] <= e["total"] for e in ticks)
        assert ticks[-1]["done"] == ticks[-1]["total"] and ticks[-1]["total"] % parents == 0
        assert events.index(ticks[-1]) < events.index(record)
    assert sum(e["done"] == e["total"] for e in events if "done" in e) >= engine.passes

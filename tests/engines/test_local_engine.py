"""The local engine's reduces (hash tables and rank bitmaps): many partitions, chunks and passes,
and either reduce, give the same levels."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from pegsearch.board.files import load_board, parse_board, shipped_boards
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine, prefetched
from pegsearch.errors import UsageError
from tests.helpers import distinct, level_sets, parts_of, pegsearch


@pytest.mark.parametrize(("count_paths", "reduce"), [(False, "tables"), (True, "tables"),
                                                     (False, "bitmap")])
def test_many_passes_match_one_pass(count_paths: bool, reduce: str, tmp_path: Path) -> None:
    spec = SearchSpec(load_board("triangle-6"), (4,), count_paths=count_paths)
    whole = search(spec, tmp_path / "whole", LocalEngine())
    # tables of about 10 kB, or bitmap slices of 1-2 kB (its largest level spans 11 kB in its class):
    # several passes a level
    engine = LocalEngine(memory=40_000 if reduce == "tables" else 4_000, chunk=500, reduce=reduce)
    passes = search(spec, tmp_path / "passes", engine)
    assert max(len(r["files"]) for r in passes.levels) >= 4  # a part per pass at least
    assert engine.passes >= len(passes.levels) + 4
    for a, b in zip(level_sets(whole), level_sets(passes), strict=True):
        assert np.array_equal(a, b)
    assert [r.get("paths") for r in whole.levels] == [r.get("paths") for r in passes.levels]
    if reduce == "bitmap":  # levels (or a level's last pass) that fit once: one shared bitmap
        assert any(r.get("shared") for r in passes.levels)
        assert any(r.get("shared") and r["passes"] > 1 for r in passes.levels)


@pytest.mark.parametrize("reduce", ["tables", "bitmap"])
def test_parts_are_sorted_and_disjoint(reduce: str, tmp_path: Path) -> None:
    run = search(SearchSpec(load_board("triangle-6"), (1,)), tmp_path / "r",
                 LocalEngine(memory=40_000, chunk=500, reduce=reduce))
    for level in range(len(run.levels)):
        seen = parts_of(run, level)
        assert len(seen) == len(run.levels[level]["files"])
        for part in seen:
            assert np.all(part[1:] > part[:-1])
        merged = np.concatenate(seen)
        assert len(distinct(merged)) == len(merged) == run.levels[level]["states"]


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
    """Events while a level is made: first what it expects (positions, disk, the disk free), then
    parents done rise to the total, which is the parent level's size times the passes made, before
    the level's record arrives."""
    events: list[dict] = []
    engine = LocalEngine(memory=40_000, chunk=500)  # small tables and chunks: many passes, events
    run = search(SearchSpec(load_board("triangle-6"), (1,)), tmp_path / "r", engine,
                 progress=events.append)
    for record in run.levels[1:]:
        level = record["level"]
        ticks = [e for e in events if e["level"] == level and "done" in e]
        parents = run.levels[level - 1]["states"]
        assert ticks, f"level {level}: no progress"
        plan, ticks = ticks[0], ticks[1:]
        assert plan["done"] == 0 and plan["expected"] > 0 and 0 < plan["disk"] < plan["free"]
        assert all(e["pegs"] == record["pegs"] for e in ticks)
        assert [e["done"] for e in ticks] == sorted(e["done"] for e in ticks)
        assert all(0 < e["done"] <= e["total"] for e in ticks)
        assert ticks[-1]["done"] == ticks[-1]["total"] and ticks[-1]["total"] % parents == 0
        assert events.index(ticks[-1]) < events.index(record)
    assert sum(e["done"] == e["total"] for e in events if "done" in e) >= engine.passes


# Levels of the big shipped boards compared up to here (both reduces run them whole elsewhere).
UNTIL = {"english-33": 10, "european-37": 8, "hexagon-37": 7, "triangle-8": 9, "triangle-9": 8,
         "wiegleb-45": 7, "diamond-41": 7, "triangle-10": 7}
SQUARE_16 = 'name = "square-16"\ngrid = "square"\nlayout = """\no o o o\no . o o\no o o o\no o o o\n"""\n'


@pytest.mark.parametrize("board", [*(pytest.param(name, marks=pytest.mark.slow) if name in UNTIL else name
                                     for name in shipped_boards()), "drawn:square-16"])
def test_bitmap_and_table_reduces_make_the_same_levels(board: str, tmp_path: Path) -> None:
    """Every shipped board (and one drawn here, of exactly 16 holes: the unranking's split), reduced
    by its symmetries and raw: the bitmap reduce's parts hold exactly the table reduce's positions,
    sorted and disjoint, and the manifest says which reduce made each level."""
    loaded = parse_board(SQUARE_16, "test") if board.startswith("drawn:") else load_board(board)
    for symmetry in ("board", "none"):
        spec = SearchSpec(loaded, loaded.empty, symmetry)
        until = UNTIL.get(board)
        made = {reduce: search(spec, tmp_path / f"{symmetry}-{reduce}", LocalEngine(reduce=reduce),
                               until=until) for reduce in ("bitmap", "tables")}
        assert [r["states"] for r in made["bitmap"].levels] == [r["states"] for r in made["tables"].levels]
        for a, b in zip(level_sets(made["bitmap"]), level_sets(made["tables"]), strict=True):
            assert np.array_equal(a, b)
        for level in range(1, len(made["bitmap"].levels)):
            assert made["bitmap"].levels[level]["reduce"].startswith("bitmap")
            assert made["tables"].levels[level]["reduce"].startswith("tables")
            pieces = parts_of(made["bitmap"], level)
            assert all(np.all(piece[1:] > piece[:-1]) for piece in pieces)
            # a bitmap drains in rank order: parts cover ascending ranges
            ends = [(piece[0], piece[-1]) for piece in pieces if len(piece)]
            assert all(a[1] < b[0] for a, b in pairwise(ends))


def test_auto_chooses_by_density_and_path_counts_keep_tables(tmp_path: Path) -> None:
    """skippy-xl raw: the dense middle levels go to the bitmap, the small first ones to tables; a
    counting run keeps tables throughout (a bitmap holds no values)."""
    spec = SearchSpec(load_board("skippy-xl"), (1,), "none")
    auto = search(spec, tmp_path / "auto", LocalEngine())
    chosen = [record["reduce"].split()[0] for record in auto.levels[1:]]
    assert chosen[:4] == ["tables"] * 4 and chosen[12] == "bitmap"
    counted = search(SearchSpec(load_board("triangle-6"), (1,), count_paths=True), tmp_path / "paths",
                     LocalEngine(reduce="bitmap"))
    assert all(record["reduce"] == "tables (path counts need a value a position)"
               for record in counted.levels[1:])
    bad = pegsearch("run", "triangle-5", "--reduce", "abacus", "--out", str(tmp_path / "never"))
    assert bad.returncode == 2 and "--reduce" in bad.stderr and not (tmp_path / "never").exists()


def test_reading_ahead_keeps_order_errors_and_stops_with_its_caller() -> None:
    assert list(prefetched(iter(range(50)))) == list(range(50))
    # several readers: every item once, each source's in its order
    together = list(prefetched(iter(range(0, 300, 3)), iter(range(1, 300, 3)), iter(range(2, 300, 3))))
    assert sorted(together) == list(range(300))
    assert all([i for i in together if i % 3 == r] == list(range(r, 300, 3)) for r in range(3))

    def damaged() -> Iterator[int]:
        yield 1
        raise UsageError("level 3: part x: checksum does not match the manifest")

    with pytest.raises(UsageError, match="checksum"):
        list(prefetched(damaged()))
    with pytest.raises(UsageError, match="checksum"):
        list(prefetched(itertools.count(), damaged()))  # the endless one's reader stops too
    endless = prefetched(itertools.count(), itertools.count())
    assert next(endless) == 0
    endless.close()  # the caller stops: the reader threads end with it
    assert not any(t.name == "pegsearch-read-ahead" for t in threading.enumerate())

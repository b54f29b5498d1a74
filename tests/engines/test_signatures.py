"""Signatures kept in the start's class: the same counts as the least image under the whole group,
on every shipped triangle and hexagon; the class split's bitmaps where the whole group's would span
every class; and runs made before (signatures under the whole group, unsaid in their manifest)
still read, resume as they were, and compare with new runs by counts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.board.symmetry import hole_classes
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.kernel.tables import BoardTables
from pegsearch.store import MANIFEST, Run
from tests.helpers import distinct, pegsearch

# The larger boards are compared up to here (their levels grow past a test's minutes after).
UNTIL = {"skippy-xl": 14, "triangle-8": 9, "triangle-9": 8, "hexagon-37": 7}
BOARDS = ["triangle-4", "triangle-5", "triangle-6", "skippy-xl", "triangle-8", "triangle-9",
          "hexagon-19", "hexagon-37"]


@pytest.mark.parametrize("board", [pytest.param(name, marks=pytest.mark.slow) if name in UNTIL
                                   else name for name in BOARDS])
def test_class_signatures_count_the_orbits_of_the_whole_group(board: str, tmp_path: Path) -> None:
    """From one hole of every class of holes (the larger boards: the first whose class some
    symmetry moves): the levels signed in the start's class hold, once carried to their least image
    under the whole group, exactly the levels signed under it; so the counts, per level, are the
    published convention's."""
    loaded = load_board(board)
    whole = BoardTables.for_board(loaded)
    starts = [holes[0] for holes in hole_classes(loaded)]
    if board in UNTIL:
        starts = [next(hole for hole in starts
                       if len(SearchSpec(loaded, (hole,)).signing) < len(loaded.symmetries))]
    moved = 0
    for hole in starts:
        made = {signatures: search(SearchSpec(loaded, (hole,), signatures=signatures),
                                   tmp_path / f"{hole}-{signatures}", LocalEngine(),
                                   until=UNTIL.get(board))
                for signatures in ("class", "group")}
        kept, before = made["class"], made["group"]
        assert kept.manifest["signatures"] == "class"
        assert kept.manifest["symmetries"] == len(loaded.symmetries)
        moved += len(kept.spec.signing) < len(loaded.symmetries)
        assert [r["states"] for r in kept.levels] == [r["states"] for r in before.levels]
        for level in range(len(kept.levels)):
            carried = distinct(whole.signatures(kept.read_level(level)))
            assert np.array_equal(carried, np.sort(before.read_level(level)))
    assert moved, f"no start of {board} has symmetries that move its class: nothing was compared"


def test_a_corner_start_gets_the_class_split_bitmap(tmp_path: Path) -> None:
    """Triangle-6 from its apex: the rotations move the apex's class, so signatures under the whole
    group leave it and a bitmap must span all four classes; kept in the class, it spans one."""
    spec = SearchSpec(load_board("triangle-6"), (1,))
    kept = search(spec, tmp_path / "class", LocalEngine(reduce="bitmap"))
    before = search(SearchSpec(spec.board, (1,), signatures="group"), tmp_path / "group",
                    LocalEngine(reduce="bitmap"))
    assert [r["states"] for r in kept.levels] == [r["states"] for r in before.levels]
    assert all(r["reduce"].endswith("4 classes)") for r in kept.levels[1:])
    assert all(r["reduce"].endswith("1 classes)") for r in before.levels[1:])


def test_a_run_made_before_reads_resumes_and_compares_by_counts(tmp_path: Path) -> None:
    """A run whose manifest does not name its signatures was made under the whole group: it is
    read that way, verified, resumed that way (from the command line), and `verify --against` a new
    run of the same search compares state counts, saying why."""
    board = load_board("triangle-6")
    old = tmp_path / "old"
    search(SearchSpec(board, (1,), signatures="group"), old, LocalEngine(), until=4)
    manifest = json.loads((old / MANIFEST).read_text())
    del manifest["signatures"]
    (old / MANIFEST).write_text(json.dumps(manifest))
    assert Run.open(old).spec.signatures == "group"
    resumed = pegsearch("run", "triangle-6", "--start", "1", "--out", str(old), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "signatures" not in json.loads((old / MANIFEST).read_text())
    new = tmp_path / "new"
    assert pegsearch("run", "triangle-6", "--start", "1", "--out", str(new)).returncode == 0
    compared = pegsearch("verify", str(new), "--against", str(old))
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "state count for state count" in compared.stdout and "ok:" in compared.stdout
    same = pegsearch("verify", str(old), "--against", str(old))
    assert "digest for digest" in same.stdout

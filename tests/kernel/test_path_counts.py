"""Exact path counts: 128-bit sums, overflow detection, and Durango Bill's solution counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.errors import PathCountOverflow
from pegsearch.kernel.path_counts import LIMIT, as_int, from_arrow, to_arrow
from pegsearch.kernel.reduce import distinct
from pegsearch.kernel.values import Carry
from tests.helpers import limbs


def test_sums_carry_past_64_bits_and_keep_exact() -> None:
    keys = np.array([9, 2, 9, 2, 9], dtype=np.uint64)
    values = [2**64 - 1, 7, 2**64 + 5, 1, 3 * 2**70]
    out_keys, sums = distinct(keys, limbs(values), Carry.PATHS)
    assert out_keys.tolist() == [2, 9]
    assert [as_int(row) for row in sums] == [8, 2**64 - 1 + 2**64 + 5 + 3 * 2**70]


def test_overflow_never_passes_silently() -> None:
    keys = np.array([1, 1], dtype=np.uint64)
    with pytest.raises(PathCountOverflow):
        distinct(keys, limbs([LIMIT, 1]), Carry.PATHS)
    assert as_int(distinct(keys, limbs([LIMIT - 1, 1]), Carry.PATHS)[1][0]) == LIMIT


def test_arrow_decimal_round_trip() -> None:
    values = [0, 1, 2**64, LIMIT]
    column = to_arrow(limbs(values))
    assert column.type == pa.decimal128(38, 0)
    assert [int(v) for v in column.to_pylist()] == values
    narrow = [0, 1, 2**64, 10**30 - 1]
    assert [as_int(r) for r in from_arrow(pa.array(narrow, pa.decimal128(30, 0)))] == narrow


@pytest.mark.parametrize("symmetry", ["board", "start", "none"])
@pytest.mark.parametrize("hole", [1, 2, 4, 5])
def test_triangle5_solutions_per_start_match_durango_bill(hole: int, symmetry: str,
                                                          published: dict, tmp_path: Path) -> None:
    board = load_board("triangle-5")
    run = search(SearchSpec(board, (hole,), symmetry, count_paths=True), tmp_path / "r", LocalEngine())
    assert run.levels[-1]["pegs"] == 1
    expected = published["triangle5_solutions"]["by_start_hole"][str(hole)]
    assert int(run.levels[-1]["paths"]) == expected
    assert sum(as_int(row) for row in run.read_level_values(len(run.levels) - 1)) == expected


def test_small_chunks_give_the_same_sums(tmp_path: Path) -> None:
    """Merging per-chunk sums must equal summing the whole level at once."""
    board = load_board("triangle-6")
    whole = search(SearchSpec(board, (1,), count_paths=True), tmp_path / "a", LocalEngine())
    chunked = search(SearchSpec(board, (1,), count_paths=True), tmp_path / "b", LocalEngine(chunk=97))
    assert [r["paths"] for r in whole.levels] == [r["paths"] for r in chunked.levels]

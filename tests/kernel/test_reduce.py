"""The reduce's keyspace: signatures to (partition, code) and back, narrow and wide, and the tables
checked against numpy's sort-based answer."""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
import pytest

from pegsearch.answers.verify import recompute
from pegsearch.board.files import load_board, parse_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.engines.spark.blocks import Combiner, decode_block
from pegsearch.kernel.reduce import Keyspace, code_of, distinct, key_of, partition_of
from pegsearch.kernel.tables import BoardTables
from pegsearch.store import NO_VALUES, Carry
from tests.helpers import limbs


@numba.njit
def _round_trip(keys, space):
    partitions = np.empty(keys.shape[0], dtype=np.int64)
    codes = np.empty(keys.shape[0], dtype=np.uint64)
    back = np.empty(keys.shape[0], dtype=np.uint64)
    for k in range(keys.shape[0]):
        partitions[k] = partition_of(keys[k], space)
        codes[k] = code_of(keys[k], space)
        back[k] = key_of(partitions[k], codes[k], space)
    return partitions, codes, back


def random_keys(nbits: int, count: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 2**64 - 1, size=count, dtype=np.uint64, endpoint=True)
    keys &= np.uint64((1 << nbits) - 1)
    keys[keys == 0] = 1
    return np.concatenate([keys, np.array([1, (1 << nbits) - 1], dtype=np.uint64)])


@pytest.mark.parametrize(("nbits", "pbits", "narrow"),
                         [(33, 11, True), (15, 3, True), (36, 5, True), (37, 3, False),
                          (64, 0, False), (64, 14, False), (28, 0, True)])
def test_codes_give_back_their_signatures(nbits: int, pbits: int, narrow: bool) -> None:
    space = Keyspace(nbits, pbits)
    assert space.narrow is narrow
    keys = random_keys(nbits, 20_000)
    partitions, codes, back = _round_trip(keys, space.args)
    assert np.array_equal(back, keys)
    assert codes.min() > 0  # 0 marks an empty slot
    assert codes.max() <= np.iinfo(space.dtype).max
    assert partitions.min() >= 0 and partitions.max() < 1 << pbits
    if 0 < pbits <= 6:  # the mix spreads the keys: every partition gets a fair share
        shares = np.bincount(partitions, minlength=1 << pbits)
        assert shares.min() > 0.5 * (len(keys) >> pbits)
    # Within a partition, the codes tell its keys apart.
    for q in np.unique(partitions)[:5]:
        assert len(np.unique(codes[partitions == q])) == len(np.unique(keys[partitions == q]))


@pytest.mark.parametrize(("nbits", "pbits"), [(33, 6), (40, 2), (64, 0)])
def test_distinct_matches_numpy(nbits: int, pbits: int) -> None:
    space = Keyspace(nbits, pbits)
    keys = random_keys(nbits, 3000, seed=nbits)
    partitions = _round_trip(keys, space.args)[0]
    partition = int(np.bincount(partitions).argmax())
    mine = keys[partitions == partition]
    repeated = np.concatenate([mine, mine[::3], mine[::7]])
    got, sums = distinct(repeated, limbs([1] * len(repeated)), Carry.PATHS, space, partition)
    want, times = np.unique(repeated, return_counts=True)
    assert np.array_equal(got, want)
    assert np.array_equal(sums[:, 0], times.astype(np.uint64)) and not sums[:, 1].any()


def test_distinct_refuses_a_key_of_another_partition() -> None:
    space = Keyspace(33, 4)
    keys = random_keys(33, 200)
    partitions = _round_trip(keys, space.args)[0]
    with pytest.raises(ValueError, match="does not belong to partition"):
        distinct(keys, NO_VALUES, Carry.NOTHING, space, int(partitions[0]))


def test_wide_codes_search_matches_numpy(tmp_path: Path) -> None:
    """European board, 37 holes, from a start with 18 pegs: levels small enough to have few
    partitions, so codes are wide (37 - pbits > 31 bits); checked against a numpy recomputation."""
    board = load_board("european-37")
    start = tuple(range(1, 20))
    run = search(SearchSpec(board, start), tmp_path / "r", LocalEngine())
    assert not Keyspace(board.holes, 5).narrow
    assert len(run.levels) > 12 and max(r["states"] for r in run.levels) > 10_000
    assert recompute(tmp_path / "r", len(run.levels)) == []


LINE_4 = 'name = "line-4"\ngrid = "square"\nlayout = """\no o o .\n"""\n'


def test_a_board_smaller_than_the_partitions_of_many_cores(tmp_path: Path) -> None:
    """Four holes on a machine of 16 cores: the engine would want 64 partitions of 4-bit
    signatures; it keeps 16 and finds every level (checked against numpy)."""
    board = parse_board(LINE_4, "line-4.toml")
    engine = LocalEngine()
    engine.workers = 16
    run = search(SearchSpec(board, board.empty), tmp_path / "r", engine)
    assert [r["states"] for r in run.levels] == [1, 1]  # 2 over 3 into 4, then pegs 1 and 4
    assert recompute(tmp_path / "r", len(run.levels)) == []


def test_the_combiner_keeps_a_partition_for_every_signature_at_most() -> None:
    """A Spark map task's combiner on the same board: as many partitions as the shuffle's, never
    more than the signatures, and every child in the block of its partition."""
    board = parse_board(LINE_4, "line-4.toml")
    tables = BoardTables.for_board(board)
    combiner = Combiner(tables, 2, Carry.NOTHING, 1 << 20)
    assert combiner.space.pbits == board.holes
    combiner.add(np.array([board.start_position(board.empty)], dtype=np.uint64), NO_VALUES)
    [(partition, block)] = combiner.blocks()
    keys = decode_block(block)[0]
    assert len(keys) == 1 and _round_trip(keys, Keyspace(4, 2).args)[0][0] == partition


def test_a_keyspace_with_more_partitions_than_signatures_is_refused() -> None:
    with pytest.raises(ValueError, match="cap its bits"):
        Keyspace(4, 5)

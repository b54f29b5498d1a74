"""Ranks against brute force: a position's rank is its index, in numeric order, among the positions
with as many pegs, and the sequential unranking of a bitmap gives back exactly its positions."""

from __future__ import annotations

import random
from math import comb

import numpy as np
import pytest

from pegsearch.kernel.bitmap import prefer_bitmap, rank_space
from pegsearch.kernel.ranks import RankTables, rank, unrank, unrank_run


def every_position(holes: int) -> dict[int, list[int]]:
    """All positions of `holes` holes by peg count, each list ascending (numbers, not ranks)."""
    by_pegs: dict[int, list[int]] = {}
    for position in range(1 << holes):
        by_pegs.setdefault(bin(position).count("1"), []).append(position)
    return by_pegs


@pytest.mark.parametrize("holes", [1, 5, 8, 9, 16, 17])
def test_rank_and_unrank_are_indexes_in_numeric_order(holes: int) -> None:
    tables = RankTables.for_holes(holes)
    for pegs, positions in every_position(holes).items():
        assert len(positions) == tables.count(pegs) == comb(holes, pegs)
        for index, position in enumerate(positions):
            assert rank(np.uint64(position), tables.byte_ranks) == index
        for index in {0, len(positions) // 3, len(positions) - 1}:
            assert unrank(np.uint64(index), pegs, holes, tables.choose) == positions[index]


@pytest.mark.parametrize("holes", [20, 36, 45, 64])
def test_a_bitmap_of_random_ranks_unranks_to_its_positions_in_order(holes: int) -> None:
    """Random positions of a peg count: ranks follow their numeric order, and the bitmap of their
    ranks (from a base) drains back to exactly them, ascending, across runs of the upper bits."""
    tables = RankTables.for_holes(holes)
    chooser = random.Random(holes)
    pegs = holes // 2 - 1
    positions = sorted({sum(1 << h for h in chooser.sample(range(holes), pegs)) for _ in range(3000)})
    ranks = [int(rank(np.uint64(p), tables.byte_ranks)) for p in positions]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert all(r < comb(holes, pegs) for r in ranks)
    assert [int(unrank(np.uint64(r), pegs, holes, tables.choose)) for r in ranks[:50]] == positions[:50]
    # a dense window of consecutive ranks, as a partition's slice holds them
    base = ranks[len(ranks) // 2] // 64 * 64
    window = [base + offset for offset in range(0, 64 * 300) if chooser.random() < 0.3]
    bits = np.zeros(300, dtype=np.uint64)
    for r in window:
        bits[(r - base) // 64] |= np.uint64(1) << np.uint64((r - base) % 64)
    out = np.empty(len(window), dtype=np.uint64)
    written = unrank_run(bits, np.uint64(base), pegs, holes, tables.choose, tables.low_patterns,
                         tables.low_offsets, tables.low_ranks, out, 0)
    expected = [int(unrank(np.uint64(r), pegs, holes, tables.choose)) for r in window]
    assert written == len(window) and out.tolist() == expected == sorted(expected)
    assert all(int(rank(np.uint64(p), tables.byte_ranks)) == r for p, r in zip(expected, window, strict=True))


def test_the_choice_and_the_rank_partitions() -> None:
    # triangle-8's largest level, 11 % dense: a 1.1 GB bitmap against about 6 GB of tables
    assert prefer_bitmap(expected=10**9, possible=comb(36, 18))
    # 1.1 % dense: 1.1 GB against 0.6 GB; english-33's largest level, 0.3 % dense
    assert not prefer_bitmap(expected=10**8, possible=comb(36, 18))
    assert not prefer_bitmap(expected=3 * 10**6, possible=comb(33, 16))
    space = rank_space(comb(36, 18), least_pbits=3, max_pbits=14)
    assert not space.mixed and space.partitions << space.rbits >= comb(36, 18) and space.rbits == 21
    small = rank_space(20, least_pbits=3, max_pbits=14)
    assert small.rbits >= 6 and small.partitions << small.rbits >= 20

"""Ranks and position classes against brute force: a position's rank is its index, in numeric
order, among the positions of its peg count and class; unranking a bitmap gives back exactly its
positions; the classes are exactly the parities no jump changes, and every reachable position
stays in its start's class."""

from __future__ import annotations

import random
from math import comb

import numpy as np
import pytest

from pegsearch.board.classes import class_of, invariants, kept_by
from pegsearch.board.files import load_board, parse_board
from pegsearch.kernel.bitmap import prefer_bitmap, rank_space
from pegsearch.kernel.ranks import LevelRanks, RankTables, rank_all, unrank_run

SQUARE_3 = 'name = "square-3"\ngrid = "square"\nlayout = """\no o o\no . o\no o o\n"""\n'


def ranks_of(level: LevelRanks, positions: list[int]) -> list[int]:
    keys = np.array(positions, dtype=np.uint64)
    rank_all(keys, len(keys), level.args)
    return keys.tolist()


def unranked(level: LevelRanks, ranks: list[int], base: int) -> list[int]:
    """The positions of `ranks` (all at or above `base`) by draining their bitmap from `base`."""
    words = (max(ranks) - base) // 64 + 1
    bits = np.zeros(words, dtype=np.uint64)
    for r in ranks:
        bits[(r - base) // 64] |= np.uint64(1) << np.uint64((r - base) % 64)
    out = np.empty(len(ranks), dtype=np.uint64)
    assert unrank_run(bits, np.uint64(base), level.unranking(), out) == len(ranks)
    return out.tolist()


@pytest.mark.parametrize(("holes", "basis"), [(5, ()), (9, ()), (16, ()), (17, ()),
                                              (18, (0b101001, 0x3_0100_0006)), (20, (0xF0F0F, 0x8_8401))])
def test_ranks_are_indexes_in_numeric_order_within_a_peg_count_and_class(
        holes: int, basis: tuple[int, ...]) -> None:
    tables = RankTables.for_board(holes, basis)
    every = np.arange(1 << holes, dtype=np.uint64)
    pegs_of = np.array([bin(v).count("1") for v in range(1 << holes)])
    classes = np.array([class_of(int(v), basis) for v in every]) if basis else 0 * pegs_of
    for pegs in sorted({0, 1, holes // 2, holes - 1, holes}):
        for home in range(tables.classes):
            members = every[(pegs_of == pegs) & (classes == home)].tolist()  # ascending
            level = tables.level(pegs, home)
            assert level.count == len(members)
            if not members:
                continue
            assert ranks_of(level, members) == list(range(len(members)))
            assert unranked(level, list(range(len(members))), 0) == members


@pytest.mark.parametrize("holes", [28, 33, 36])
def test_a_bitmap_of_random_ranks_unranks_to_its_positions_in_order(holes: int) -> None:
    """Random positions of a peg count on large boards: ranks follow their numeric order, and a
    dense window of a bitmap drains back to exactly its positions, across runs of upper bits."""
    tables = RankTables.for_board(holes)
    chooser = random.Random(holes)
    pegs = holes // 2 - 1
    level = tables.level(pegs)
    assert level.count == comb(holes, pegs)
    positions = sorted({sum(1 << h for h in chooser.sample(range(holes), pegs)) for _ in range(3000)})
    ranks = ranks_of(level, positions)
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks) and ranks[-1] < level.count
    assert unranked(level, ranks, 0) == positions
    base = ranks[len(ranks) // 2] // 64 * 64
    window = [base + offset for offset in range(64 * 300) if chooser.random() < 0.3]
    back = unranked(level, window, base)
    assert back == sorted(back) and ranks_of(level, back) == window


def counted_rank(position: int, holes: int, basis: tuple[int, ...], pegs: int, home: int
                 ) -> tuple[int, int]:
    """A position's rank by counting, hole by hole from the top, the positions of the level below
    it (a census of the holes under each by pegs and class, in plain Python); and the level's size.
    Shares nothing with the kernel's chunks and slabs."""
    classes = 1 << len(basis)
    census = [[[0] * classes for _ in range(holes + 1)]]
    census[0][0][0] = 1
    for hole in range(holes):
        flip = class_of(1 << hole, basis)
        row = [[0] * classes for _ in range(holes + 1)]
        for k in range(hole + 1):
            for c in range(classes):
                row[k][c] += census[hole][k][c]
                row[k + 1][c ^ flip] += census[hole][k][c]
        census.append(row)
    rank, left, cls = 0, pegs, home
    for hole in reversed(range(holes)):
        if position >> hole & 1:
            rank += census[hole][left][cls]
            left, cls = left - 1, cls ^ class_of(1 << hole, basis)
    return rank, census[holes][pegs][home]


@pytest.mark.parametrize("holes", [38, 41, 45, 52, 61, 64])
def test_boards_past_37_holes_rank_by_counting_and_unrank_back(holes: int) -> None:
    """Boards with middle chunks: ranks of random positions of a level and class equal an
    independent count, and windows of the bitmap around them drain back to exactly their positions
    (across runs, slabs and chunks)."""
    chooser = random.Random(holes)
    basis = tuple(chooser.getrandbits(holes) for _ in range(2))
    pegs = holes // 2 - 3
    home = class_of(sum(1 << h for h in range(pegs)), basis)
    level = RankTables.for_board(holes, basis).level(pegs, home)
    positions: set[int] = set()
    while len(positions) < 400:
        position = sum(1 << h for h in chooser.sample(range(holes), pegs))
        if class_of(position, basis) == home:
            positions.add(position)
    ordered = sorted(positions)
    ranks = ranks_of(level, ordered)
    counted = [counted_rank(p, holes, basis, pegs, home) for p in ordered[::20]]
    assert level.count == counted[0][1]
    assert ranks[::20] == [rank for rank, _ in counted]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    for rank in ranks[::40]:
        window = [rank + offset for offset in range(64 * 200) if chooser.random() < 0.3
                  and rank + offset < level.count]
        back = unranked(level, window, window[0] // 64 * 64)
        assert ranks_of(level, back) == window and back == sorted(back)
        assert all(bin(p).count("1") == pegs and class_of(p, basis) == home for p in back[::50])


@pytest.mark.parametrize("board", ["triangle-5", "english-33", "european-37", "hexagon-19", "drawn"])
def test_classes_are_the_parities_no_jump_changes(board: str) -> None:
    """Brute force over every set of holes (small boards) or a check of the basis (large ones):
    a set is invariant exactly when every jump line meets it evenly, and the basis spans them."""
    loaded = parse_board(SQUARE_3, "test") if board == "drawn" else load_board(board)
    basis = invariants(loaded)
    lines = [(1 << (j.start - 1)) | (1 << (j.over - 1)) | (1 << (j.to - 1)) for j in loaded.jumps]
    assert all((mask & line).bit_count() % 2 == 0 for mask in basis for line in lines)
    assert len({class_of(1 << hole, basis) for hole in range(loaded.holes)}) > 0
    if loaded.holes <= 15:
        kept = [s for s in range(1, 1 << loaded.holes) if all((s & line).bit_count() % 2 == 0
                                                                for line in lines)]
        assert len(kept) == (1 << len(basis)) - 1  # every invariant set is a sum of the basis
    expected = {"triangle-5": 2, "english-33": 4, "european-37": 4, "hexagon-19": 2}
    assert len(basis) == expected.get(board, len(basis))


@pytest.mark.parametrize("board", ["triangle-5", "drawn"])
def test_every_reachable_position_stays_in_its_start_class(board: str) -> None:
    loaded = parse_board(SQUARE_3, "test") if board == "drawn" else load_board(board)
    basis = invariants(loaded)
    for start in range(1, loaded.holes + 1):
        position = loaded.start_position((start,))
        home, seen, frontier = class_of(position, basis), {position}, [position]
        while frontier:
            here = frontier.pop()
            assert class_of(here, basis) == home
            for jump in loaded.jumps:
                flip = (1 << (jump.start - 1)) | (1 << (jump.over - 1)) | (1 << (jump.to - 1))
                need = (1 << (jump.start - 1)) | (1 << (jump.over - 1))
                if here & flip == need and here ^ flip not in seen:
                    seen.add(here ^ flip)
                    frontier.append(here ^ flip)
        assert kept_by(loaded.stabilizer(position), position, basis)


def test_the_choice_and_the_rank_partitions() -> None:
    # triangle-8's largest level, 11 % dense: a 1.1 GB bitmap against about 6 GB of tables
    assert prefer_bitmap(expected=10**9, possible=comb(36, 18))
    # 1.1 % dense: 1.1 GB against 0.6 GB; english-33's largest level among all its positions
    assert not prefer_bitmap(expected=10**8, possible=comb(36, 18))
    assert not prefer_bitmap(expected=3 * 10**6, possible=comb(33, 16))
    # ... and among its class's, a sixteenth of them: 8 % dense
    assert prefer_bitmap(expected=3 * 10**6, possible=comb(33, 16) // 16)
    space = rank_space(comb(36, 18), least_pbits=3, max_pbits=14)
    assert not space.mixed and space.partitions << space.rbits >= comb(36, 18) and space.rbits == 21
    small = rank_space(20, least_pbits=3, max_pbits=14)
    assert small.rbits >= 6 and small.partitions << small.rbits >= 20

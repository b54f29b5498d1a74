"""The map kernel against brute force: every legal jump of every position, signed by the least
image under the run's group (the whole group, a subgroup as class-kept signatures use, or none),
on boards of under and over 64 jumps; and a bitmap level made in one step, each core setting bits
in its own plane or every core in one shared bitmap, holds exactly the level the routed map and the
reduce make (whole, or a range of its ranks); the jumps played backwards make exactly the
positions one jump before a set; sorted membership against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from pegsearch.board.classes import class_of, invariants, kept_by
from pegsearch.board.files import load_board
from pegsearch.kernel.backward import predecessors
from pegsearch.kernel.bitmap import BitmapTables, rank_space
from pegsearch.kernel.expand import Scratch, expand, expand_into_bits, expand_routed
from pegsearch.kernel.members import contains
from pegsearch.kernel.ranks import rank_tables
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.threads import WORKERS
from pegsearch.kernel.values import NO_VALUES, Carry


def least_image(position: int, group: tuple[tuple[int, ...], ...], holes: int) -> int:
    return min(sum(1 << perm[i] for i in range(holes) if position >> i & 1) for perm in group)


def random_positions(holes: int, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(1, 1 << holes, size=count, dtype=np.uint64)


@pytest.mark.parametrize(("name", "group"), [("triangle-6", "whole"), ("english-33", "whole"),
                                             ("english-33", "half"), ("hexagon-19", "whole"),
                                             ("wiegleb-45", "whole"), ("diamond-41", "none")])
def test_children_are_every_legal_jump_signed_by_its_least_image(name: str, group: str) -> None:
    board = load_board(name)
    chosen = {"whole": board.symmetries, "half": board.symmetries[::2],
              "none": board.symmetries[:1]}[group]
    tables = BoardTables.for_board(board, chosen)
    positions = random_positions(board.holes, 300, 11)
    children, fanout = expand(tables, positions)
    expected, counts = [], []
    for p in positions.tolist():
        made = [least_image(p ^ (1 << j.start - 1 | 1 << j.over - 1 | 1 << j.to - 1), chosen,
                            board.holes)
                for j in board.jumps
                if p >> (j.start - 1) & 1 and p >> (j.over - 1) & 1 and not p >> (j.to - 1) & 1]
        expected += made
        counts.append(len(made))
    assert len(board.jumps) > 64 or name in ("triangle-6", "hexagon-19")
    assert fanout.tolist() == counts
    assert children.tolist() == expected


@pytest.mark.parametrize(("name", "pegs"), [("english-33", 16), ("wiegleb-45", 8)])
def test_one_step_bitmap_holds_the_routed_level(name: str, pegs: int) -> None:
    """Parents: random positions of one peg count in the start's class, so their children all
    lie in one level's bitmap, in chunks that the cores take as they are free; the planes merged,
    and one bitmap every core set at once, equal the bits the routed children set."""
    board = load_board(name)
    tables = BoardTables.for_board(board)
    basis = invariants(board)
    start = board.start_position(board.empty)
    home = class_of(start, basis)
    assert kept_by(board.symmetries, start, basis)
    rng = np.random.default_rng(5)
    parents = []
    while len(parents) < 20_000:
        holes = rng.choice(board.holes, size=pegs, replace=False)
        position = int(sum(1 << int(h) for h in holes))
        if class_of(position, basis) == home:
            parents.append(position)
    signed = np.unique(tables.signatures(np.array(parents, dtype=np.uint64)))
    chunks = np.array_split(signed, 7)
    ranks = rank_tables(board.holes, basis).level(pegs - 1, home)
    space = rank_space(ranks.count, 2, 10)
    width = -(-ranks.count >> space.rbits)
    routed = BitmapTables(space, 0, width, ranks)
    routed.add(*expand_routed(tables, signed, NO_VALUES, Carry.NOTHING, space, 0, width, Scratch(),
                              ranks))
    # memory handed out dirty, as a reused block is: the planes must be zeroed before use
    one_step = BitmapTables(space, 0, width, ranks, WORKERS,
                            lambda words: np.ones(words, dtype=np.uint64))
    expand_into_bits(tables, chunks, one_step)
    one_step.merge()
    assert routed.filled.sum() > 1_000
    assert np.array_equal(one_step.bits, routed.bits)
    assert np.array_equal(one_step.filled, routed.filled)
    drained = one_step.drain(0, width)[0]
    children, _ = expand(tables, signed)
    assert np.array_equal(drained, np.unique(children))
    # a range of the level's partitions, as a pass or a Spark map task holds: its slice, no more
    lo, part = width // 3, width // 3
    for shared in (False, True):
        ranged = BitmapTables(space, lo, part, ranks, 1 if shared else WORKERS, shared=shared)
        expand_into_bits(tables, chunks, ranged)
        ranged.merge()
        assert 0 < ranged.filled.sum() < routed.filled.sum()
        assert np.array_equal(ranged.bits, routed.words(lo, lo + part))
    # one bitmap set by every core at once (atomically), as a wide pass is made
    shared = BitmapTables(space, 0, width, ranks, shared=True)
    expand_into_bits(tables, chunks, shared)
    shared.merge()
    assert np.array_equal(shared.bits, routed.bits)
    assert np.array_equal(shared.filled, routed.filled)


@pytest.mark.parametrize(("name", "group"), [("english-33", "whole"), ("hexagon-19", "whole"),
                                             ("triangle-6", "none")])
def test_predecessors_are_the_positions_one_jump_before_a_set(name: str, group: str) -> None:
    """Each predecessor of a set has a child in it; each random position with a child in the set
    is a predecessor (signed: its least image); and no predecessor is repeated or out of order."""
    board = load_board(name)
    tables = BoardTables.for_board(board, board.symmetries if group == "whole" else
                                   board.symmetries[:1])
    parents = random_positions(board.holes, 400, 3)
    children, _ = expand(tables, parents)
    wanted = np.unique(children[::3])
    before = predecessors(tables, wanted)
    assert len(before) and np.all(np.diff(before.astype(np.int64)) > 0)
    their_children, fanout = expand(tables, before)
    hits = np.add.reduceat(contains(wanted, their_children), np.cumsum(fanout) - fanout)
    assert np.all(hits > 0)
    probes = tables.signatures(np.concatenate([parents, random_positions(board.holes, 3000, 8)]))
    probe_children, fanout = expand(tables, probes)
    ends = np.cumsum(fanout)
    reach = np.array([np.isin(probe_children[e - f:e], wanted).any()
                      for e, f in zip(ends, fanout, strict=True)])
    assert 0 < reach.sum() < len(reach)
    assert np.array_equal(contains(before, probes), reach)


def test_sorted_membership_matches_numpy_in_any_order() -> None:
    rng = np.random.default_rng(2)
    members = np.unique(rng.integers(1, 1 << 40, size=50_000, dtype=np.uint64))
    values = np.concatenate([members[::7], rng.integers(1, 1 << 40, size=20_000, dtype=np.uint64),
                             np.array([0, members[-1] + 1], dtype=np.uint64)])
    for order in (np.sort(values), values, values[::-1]):
        assert np.array_equal(contains(members, order), np.isin(order, members))
    assert not contains(members[:0], values).any()

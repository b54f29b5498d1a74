"""The endgame set: exactly the positions of up to `few` pegs that can reach the goal, found here
by playing every such position forwards, one jump at a time, in plain Python."""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
import pytest

from pegsearch.board.files import load_board
from pegsearch.kernel.endgame import endgame
from pegsearch.kernel.tables import BoardTables


def winnable_by_play(board_name: str, goal: frozenset[int], few: int) -> set[int]:
    """Every position of 1 to `few` pegs (bit h-1 for hole h) that jumps can bring down to one peg
    on a hole of `goal`."""
    board = load_board(board_name)
    moves = [(1 << (j.start - 1), 1 << (j.over - 1), 1 << (j.to - 1)) for j in board.jumps]

    @cache
    def wins(position: int) -> bool:
        if position.bit_count() == 1:
            return position.bit_length() in goal
        return any(position & a and position & b and not position & c and wins(position ^ a ^ b ^ c)
                   for a, b, c in moves)

    holes = range(board.holes)
    return {sum(1 << hole for hole in pegs) for count in range(1, few + 1)
            for pegs in combinations(holes, count) if wins(sum(1 << hole for hole in pegs))}


@pytest.mark.parametrize("finish", [None, 1, 5])
def test_the_endgame_is_every_winnable_position_of_few_pegs(finish: int | None) -> None:
    board = load_board("triangle-5")
    keeping = tuple(perm for perm in board.symmetries if finish is None or perm[finish - 1] == finish - 1)
    tables = BoardTables.for_board(board, keeping)  # the goal's group: signatures under it
    every = (1 << board.holes) - 1 if finish is None else 1 << (finish - 1)
    found, few = endgame(tables, every, 2_000)
    table = found.table
    assert 3 <= few < board.holes  # several levels, bounded by the keys allowed
    goal = frozenset(range(1, board.holes + 1)) if finish is None else frozenset({finish})
    winnable = winnable_by_play(board.name, goal, few)
    expected = set(tables.signatures(np.array(sorted(winnable), dtype=np.uint64)).tolist())
    assert set(table[table != 0].tolist()) == expected
    assert len(expected) <= 2_000
    losing = [p for p in range(1, 1 << board.holes) if p.bit_count() <= few and p not in winnable]
    assert losing and not found.reached(tables.signatures(np.array(losing, dtype=np.uint64)),
                                        np.arange(1, len(losing) + 1)).any()


def test_an_endgame_too_large_for_its_keys_is_empty() -> None:
    board = load_board("triangle-5")
    found, few = endgame(BoardTables.for_board(board), (1 << board.holes) - 1, 1)
    assert few == 0 and not found.table.any()


def test_an_endgame_told_to_stop_makes_none() -> None:
    """Its maker asks between chunks whether to go on (a process ending does not wait for it)."""
    board = load_board("triangle-5")
    asked = []
    assert endgame(BoardTables.for_board(board), (1 << board.holes) - 1, 2_000,
                   lambda: asked.append(1) and False) is None
    assert asked == [1]

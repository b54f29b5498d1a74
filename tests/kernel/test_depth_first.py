"""The depth-first walk's order of jumps and its arrays, checked against plain Python."""

from __future__ import annotations

import random
from itertools import pairwise

import numpy as np
import pytest

from pegsearch.answers.solver import compiled_goal, goal_holes
from pegsearch.board.files import load_board
from pegsearch.board.geometry import Board, legal_jumps
from pegsearch.kernel.depth_first import APART, RUNNING, Search, new_table
from tests.helpers.order import plain_scores


def _positions(board: Board, count: int, seed: int) -> list[int]:
    """`count` positions reached by random legal jumps from the board's start."""
    chosen, found = random.Random(seed), []
    while len(found) < count:
        position = board.start_position()
        for _ in range(chosen.randint(1, board.holes // 2)):
            moves = legal_jumps(board, position)
            if not moves:
                break
            position = chosen.choice(moves)[1]
        found.append(position)
    return found


@pytest.mark.parametrize("name", ["triangle-9", "english-33", "wiegleb-45"])
def test_jumps_are_tried_by_their_stranded_pegs_and_spread(name: str) -> None:
    """The walk counts a jump's stranded pegs near its holes only (the parent's elsewhere, once)
    and finds the legal jumps 64 at a time; the order must be the plain one: STRANDED for each
    peg the jump leaves alone, plus its spread, ties in the board's order."""
    board = load_board(name)
    listed = 0
    for position in _positions(board, 200, seed=len(name)):
        goal = goal_holes(board, position, None)
        if not goal:
            continue
        search = Search(compiled_goal(board, goal, None, True), new_table(1 << 12),
                        new_table(1 << 12), board.holes)
        if search.begin(position) != RUNNING:
            continue
        tried = [int(search.goal.order[j]) for j in search.stack.jumps[0, :search.stack.count[0]]]
        expected = sorted((score, index) for index, score in plain_scores(board, position).items())
        assert tried == [index for _, index in expected]
        listed += 1
    assert listed > 100


def test_two_searches_write_no_cache_line_in_common() -> None:
    """A hint walks several searches on several cores: no array one writes may share a cache
    line (or its pair) with another's."""
    board = load_board("triangle-9")
    goal = goal_holes(board, board.start_position(), None)
    searches = [Search(compiled_goal(board, goal, None, True), new_table(1 << 12),
                       new_table(1 << 12), board.holes) for _ in range(2)]
    spans = sorted((array.ctypes.data, array.ctypes.data + array.nbytes)
                   for search in searches
                   for array in search.stack)
    for (_, end), (begin, _) in pairwise(spans):
        assert begin - end >= APART
    assert all(begin % APART == 0 for begin, _ in spans)
    assert int(searches[0].stack.top[0]) == -1 and not np.any(searches[1].counts)

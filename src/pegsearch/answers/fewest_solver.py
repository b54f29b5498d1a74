"""Fewest moves by the solver: a line with the fewest moves, proved fewest, without the whole search.

A move is one or more jumps by the same peg. The move-bounded walk (kernel.move_bound) says
whether the goal is reachable within B moves; two searches share its table of states known short:

- from below, B = the lower bound of the start, then one more each time a B is searched to the
  end without a line: every B so searched proves that no solution has B moves or fewer;
- from above, B = one less than the best line found (first the depth-first solver's, whose moves
  are counted), each line found lowering it. It restarts as the solver's second search does
  (answers.solver: after Luby's budgets, each run's jumps shifted by noise), so that it leaves a
  subtree with no shorter line in it for another order.

They take turns, a slice of positions each, until they meet (the best line's moves are one more
than the largest B proved too few: proved fewest) or the time is up (the best line found, and the
bound it could not close, both said). Every line is played again before it is given.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pegsearch.answers.fewest import move_numbers
from pegsearch.answers.solver import (
    LOST_WORD,
    RESTART_UNIT,
    UNDECIDED,
    WON_WORD,
    Answer,
    Solver,
    compiled_goal,
    goal_holes,
    goal_tables,
    luby,
    replayed,
)
from pegsearch.board.geometry import Board, Jump
from pegsearch.interrupts import check
from pegsearch.kernel.compiling import clock
from pegsearch.kernel.depth_first import EXAMINED, LOST, RUNNING, WON, Goal
from pegsearch.kernel.jump_order import restart_spread
from pegsearch.kernel.move_bound import MoveGoal, Moves, begin, needed, new_short_table, walk

# Positions each search examines in its turn (a few milliseconds).
TURN = 1 << 15
# The share of the time the depth-first solver has for the first line (its moves: the first
# bound from above).
FIRST_LINE = 0.25


@dataclass(frozen=True)
class FewestFound:
    """The fewest moves found: `line` the best line (empty when none was found), `moves` its
    moves, `at_least` the fewest moves any solution can have as proved (the best line's moves
    when `proved`), and `outcome` won, lost (no solution at all: `how` says by what) or
    undecided (no line found in time)."""

    outcome: str
    line: tuple[Jump, ...]
    moves: int | None
    at_least: int
    proved: bool
    how: str
    examined: int
    seconds: float


class Bounded:
    """One search of the move-bounded walk at a bound, resumable, on `stack` (begun afresh)."""

    def __init__(self, stack: Moves, goal: tuple[Goal, MoveGoal], position: int, bound: int) -> None:
        self.stack, self.goal, self.bound = stack, goal, bound
        self.began = self.examined
        stack.walk.positions[0] = np.uint64(position)
        self.ended = begin(stack, *goal, np.int64(bound))

    @property
    def examined(self) -> int:
        """The positions its stack has examined, this search's and those before it."""
        return int(self.stack.walk.counts[EXAMINED])

    def go(self, short: tuple[np.ndarray, ...]) -> int:
        if self.ended == RUNNING:
            self.ended = walk(self.stack, *self.goal, *short, np.int64(self.bound), np.int64(TURN))
        return self.ended


def fewest_moves(board: Board, position: int, finish: int | None, seconds: float,
                 solver: Solver) -> FewestFound:
    """A line from `position` to one peg (on `finish` when given) with the fewest moves, within
    `seconds`: proved fewest, or the best found and the bound not closed. `solver` finds the
    first line; its memory bounds the table of states known short too."""
    began = clock()
    deadline = began + seconds
    holes = goal_holes(board, position, finish)
    first = solver.answer(board, position, finish, FIRST_LINE * seconds)
    if first.outcome == LOST_WORD:
        return FewestFound(LOST_WORD, (), None, 0, True, first.how, first.examined, _since(began))
    tables = goal_tables(board, finish)
    goal = compiled_goal(board, holes, finish, True)
    moves_goal = MoveGoal.compiled(board, tables, goal)
    # Half the slots of a goal of the solver: a slot here is a signature, a hole and a move count,
    # 10 bytes against 8, so the table stays within the goal's memory.
    short = new_short_table(solver.slots // 2)
    best = first.line if first.won else ()
    most = _moves(best) - 1 if best else position.bit_count()
    least = max(1, int(needed(np.uint64(position), np.uint64(0), moves_goal, goal.mask)))
    below = Bounded(Moves.empty(goal, board.holes), (goal, moves_goal), position, least)
    above = Bounded(Moves.empty(goal, board.holes), (goal, moves_goal), position, most)
    examined = first.examined
    runs, noise = 1, np.random.default_rng(position)  # the first run: in the first order
    while least <= most and clock() < deadline:
        check()
        for search in (below, above):
            counted = search.examined
            ended = search.go(short)
            examined += search.examined - counted
            if ended == WON:
                line = tuple(board.jumps[j] for j in search.stack.walk.line(goal.order))
                best = replayed(board, Answer(WON_WORD, position, finish, line)).line
                most = _moves(best) - 1
            elif ended == LOST:
                least = max(least, search.bound + 1)
        if below.ended != RUNNING or below.bound != least:
            below = Bounded(below.stack, below.goal, position, least)
        if above.ended != RUNNING or above.bound != most or \
                above.examined - above.began >= luby(runs) * RESTART_UNIT:
            runs += 1
            noisy = goal._replace(spread=restart_spread(goal.spread, noise, runs % 2 == 1))
            above = Bounded(above.stack, (noisy, moves_goal), position, most)
    proved = least > most
    if not best:
        outcome, how = (LOST_WORD, "search") if proved else (UNDECIDED, "time")
        return FewestFound(outcome, (), None, least, proved, how, examined, _since(began))
    return FewestFound(WON_WORD, best, _moves(best), least, proved, "search" if proved else "time",
                       examined, _since(began))


def _moves(line: tuple[Jump, ...]) -> int:
    return move_numbers(line)[-1] if line else 0


def _since(began: float) -> float:
    return clock() - began

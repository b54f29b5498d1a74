"""Pagoda functions: weights on the holes that no jump can increase, found by linear programming.

A jump from a over b into c takes the pegs of a and b and puts one on c, so a weighting w with
w(c) <= w(a) + w(b) on every jump line never grows: a position weighing less than a goal cannot
reach it. Conway's and Bell's pagoda functions are found by hand; here they are the solutions of a
linear program (SciPy's HiGHS): non-negative weights, at least 1 on every goal hole, every jump
line's inequality, and an objective that pushes the weight off one region of the board at a time,
so each function rules out the positions whose pegs have gathered in another region than the goal.

What the program returns is only a proposal: its weights are made whole numbers and every
inequality is checked again in integers before a function is used, so a proof by pagoda never rests
on floating point.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from pegsearch.board.geometry import Board

# The largest weight the program may give a hole (the goal holes get at least 1).
CEILING = 4
# The largest denominator a proposed weight is read with before it is made whole.
DENOMINATOR = 1 << 10
# The functions fitted to a question's play (`pagodas_of_play`): the levels of play from its
# position looked at, the positions of a level given to the program at most (a sample: levels grow
# about fourfold a jump), and the functions kept.
PLAY_LEVELS = 9
PLAY_SAMPLE = 300
PLAY_MOST = 16


@dataclass(frozen=True)
class Pagoda:
    """Whole weights on the holes (`weights[h - 1]` is hole h's) that no jump increases, and the
    least weight of a goal hole: a position weighing less can never end with one peg there."""

    weights: tuple[int, ...]
    threshold: int

    def weight(self, position: int) -> int:
        return sum(w for hole, w in enumerate(self.weights) if position >> hole & 1)

    def rules_out(self, position: int) -> bool:
        return self.weight(position) < self.threshold


@cache
def pagodas(board: Board, goal: tuple[int, ...], most: int = 12) -> tuple[Pagoda, ...]:
    """Up to `most` distinct pagoda functions for ending with one peg on a hole of `goal`: the
    one of least total weight first, then one for each region the weight is pushed off."""
    from scipy.optimize import linprog

    holes = board.holes
    lines = np.zeros((len(board.jumps), holes))
    for row, jump in enumerate(board.jumps):  # w(to) - w(start) - w(over) <= 0
        lines[row, jump.to - 1] += 1
        lines[row, jump.start - 1] -= 1
        lines[row, jump.over - 1] -= 1
    bounds = [(1 if hole in goal else 0, CEILING) for hole in range(1, holes + 1)]
    found: list[Pagoda] = []
    for region in [(), *_regions(board)]:
        cost = np.ones(holes)
        cost[[hole - 1 for hole in region]] += holes
        solved = linprog(cost, A_ub=lines, b_ub=np.zeros(len(board.jumps)), bounds=bounds,
                         method="highs")
        if solved.status != 0:
            continue
        pagoda = _whole(board, solved.x, goal)
        if pagoda is not None and pagoda not in found:
            found.append(pagoda)
            if len(found) == most:
                break
    return tuple(found)


def pagoda_against(board: Board, position: int, goal: tuple[int, ...]) -> Pagoda | None:
    """A pagoda function under which `position` weighs less than every hole of `goal` (so it
    cannot end with one peg on any), if one exists with weights in [-1, 1]: the linear program
    that maximizes how much less, and its answer made whole and checked in integers."""
    from scipy.optimize import linprog

    holes = board.holes
    lines = np.zeros((len(board.jumps), holes + 1))  # the last column is the margin, t
    for row, jump in enumerate(board.jumps):
        lines[row, jump.to - 1] += 1
        lines[row, jump.start - 1] -= 1
        lines[row, jump.over - 1] -= 1
    pegs = np.array([position >> hole & 1 for hole in range(holes)], dtype=float)
    margins = np.zeros((len(goal), holes + 1))  # t + w(position) - w(f) <= 0
    for row, hole in enumerate(goal):
        margins[row, :holes] = pegs
        margins[row, hole - 1] -= 1
        margins[row, holes] = 1
    cost = np.zeros(holes + 1)
    cost[holes] = -1  # maximize t
    solved = linprog(cost, A_ub=np.vstack([lines, margins]),
                     b_ub=np.zeros(len(board.jumps) + len(goal)),
                     bounds=[(-1, 1)] * holes + [(None, 1)], method="highs")
    if solved.status != 0 or solved.x[holes] <= 1e-9:
        return None
    pagoda = _whole(board, solved.x[:holes], goal, lowest=-DENOMINATOR)
    return pagoda if pagoda is not None and pagoda.rules_out(position) else None


def pagodas_of_play(board: Board, position: int, goal: tuple[int, ...]) -> tuple[Pagoda, ...]:
    """Pagoda functions fitted to one question's play: the positions each level of play from
    `position` reaches (a sample of PLAY_SAMPLE, drawn from the position, so an answer repeats) that
    none found so far rules out are each given to `pagoda_against`, and the next level grows from
    those still allowed; the PLAY_MOST functions that ruled out most, first. Their weights may be
    negative, which `pagodas`' may not: on the 41-hole diamond, whose every edge hole is a corner,
    three of these, weighing the pegs on the edge below zero, rule out over half of each level of
    play from the top corner to the bottom one, where the twelve of `pagodas` rule out none, and a
    position 7 to 14 jumps in was proved lost in 30-100 times fewer positions with them."""
    jumps = [(1 << (j.start - 1)) | (1 << (j.over - 1)) | (1 << (j.to - 1)) for j in board.jumps]
    need = [(1 << (j.start - 1)) | (1 << (j.over - 1)) for j in board.jumps]
    draw = random.Random(position)
    found: Counter[Pagoda] = Counter()
    level = [position]
    for _ in range(PLAY_LEVELS):
        children = sorted({p ^ flip for p in level for flip, full in zip(jumps, need, strict=True)
                           if p & flip == full})
        level = []
        for child in draw.sample(children, min(PLAY_SAMPLE, len(children))):
            pagoda = next((known for known in found if known.rules_out(child)), None) \
                or pagoda_against(board, child, goal)
            if pagoda is None:
                level.append(child)
            else:
                found[pagoda] += 1
        if not level:
            break
    return tuple(pagoda for pagoda, _ in found.most_common(PLAY_MOST))


def _regions(board: Board) -> list[tuple[int, ...]]:
    """Each hole with its neighbours (the holes one step away on a jump line), farthest from the
    board's middle first: the corners and edges, where pegs get stranded."""
    near: dict[int, set[int]] = {hole: {hole} for hole in range(1, board.holes + 1)}
    for jump in board.jumps:
        near[jump.start].add(jump.over)
        near[jump.over].add(jump.start)
    points = board.lattice
    middle = tuple(sum(p[i] for p in points) / len(points) for i in (0, 1))
    far = sorted(near, key=lambda hole: -math.dist(points[hole - 1], middle))
    return [tuple(sorted(near[hole])) for hole in far]


def _whole(board: Board, weights: np.ndarray, goal: tuple[int, ...], lowest: int = 0) -> Pagoda | None:
    """The program's weights as whole numbers (none below `lowest`), or None when they fail the
    check in integers."""
    fractions = [Fraction(float(w)).limit_denominator(DENOMINATOR) for w in weights]
    scale = math.lcm(*(f.denominator for f in fractions))
    whole = tuple(int(f * scale) for f in fractions)
    if any(w < lowest * scale for w in whole) or \
            any(whole[j.to - 1] > whole[j.start - 1] + whole[j.over - 1] for j in board.jumps):
        return None
    threshold = min(whole[hole - 1] for hole in goal)
    if threshold <= 0 and lowest == 0:
        return None
    divisor = math.gcd(*whole) or 1
    return Pagoda(tuple(w // divisor for w in whole), threshold // divisor)

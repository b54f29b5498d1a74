"""Fewest moves: a line of play with the fewest moves, walked back from a fewest-moves run.

A fewest-moves run stores, per position, the fewest moves m reaching it and the holes its last
moved peg may then stand on (kernel.moves). A line is found backwards, in real positions: from the
goal, take any jump back whose parent, looked up in the level before, reaches the goal's moves:
its own moves if the jump continues the parent's last move (the jumping peg stands on one of the
parent's last holes), one more otherwise. A continued move pins the parent's last hole to the
jumping peg's; a new move leaves it free. Every step back keeps exactly the moves the stored
values promise, so the walk needs no search, except to end on the real start when a finishing hole
is asked of a run reduced by symmetries that move it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pegsearch.board.geometry import Jump
from pegsearch.board.symmetry import Permutation, image_of_hole, image_of_jump, image_of_position
from pegsearch.errors import InputError
from pegsearch.store import Run


def move_numbers(jumps: tuple[Jump, ...] | list[Jump]) -> list[int]:
    """Each jump's move, counted from 1: a jump by the peg that made the jump before it continues
    that move."""
    numbers: list[int] = []
    for index, jump in enumerate(jumps):
        continued = index > 0 and jumps[index - 1].to == jump.start
        numbers.append(numbers[-1] if continued else (numbers[-1] if numbers else 0) + 1)
    return numbers


class _Values:
    """A run's levels, loaded when first asked: sorted signatures with their fewest-moves values."""

    def __init__(self, run: Run, progress: Callable[[int, int], None] | None = None) -> None:
        self.run = run
        self.progress = progress
        self.tables = run.tables()
        self.group = run.spec.signing
        self.loaded: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def level(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """A level's signatures, sorted, and their values (``[last holes, moves]`` rows)."""
        if level not in self.loaded:
            keys, values = self.run.read_level_with_values(level)
            order = np.argsort(keys)
            self.loaded[level] = keys[order], values[order]
            if self.progress:
                self.progress(len(self.loaded), len(self.run.levels))
        return self.loaded[level]

    def of(self, level: int, position: int) -> tuple[int, int] | None:
        """The fewest moves reaching a real position of `level`, and its last holes in the real
        position's own frame (every symmetry making its signature unites its holes); None when the
        level does not hold it."""
        keys, values = self.level(level)
        signature = int(self.tables.signatures(np.array([position], dtype=np.uint64))[0])
        index = int(np.searchsorted(keys, np.uint64(signature)))
        if index == len(keys) or int(keys[index]) != signature:
            return None
        last, moves = (int(word) for word in values[index])
        real = 0
        for perm in self.group:
            if image_of_position(perm, position) == signature:
                real |= _preimage(perm, last)
        return moves, real


def _preimage(perm: Permutation, holes: int) -> int:
    """The holes a symmetry carries into `holes` (bit masks)."""
    return sum(1 << i for i in range(len(perm)) if holes >> perm[i] & 1)


def _inverse(perm: Permutation) -> Permutation:
    inverse = [0] * len(perm)
    for hole, image in enumerate(perm):
        inverse[image] = hole
    return tuple(inverse)


def fewest_line(run: Run, finish: int | None = None,
                progress: Callable[[int, int], None] | None = None
                ) -> tuple[tuple[Jump, ...], tuple[int, ...], int] | None:
    """A line with the fewest moves from the real start to the run's last level (to one peg on
    `finish` when given): its jumps, the real position after each, and its moves; None when the
    run never leaves one peg on `finish`.

    Refused in one line when the run carries no fewest moves.
    """
    if not run.fewest_moves:
        raise InputError("{uri} carries no fewest moves: search it with {fewest_moves}",
                         uri=run.uri)
    board, last = run.board, len(run.levels) - 1
    values = _Values(run, progress)
    group = run.spec.signing
    if finish is None:
        keys, stored = values.level(last)
        goal = int(keys[int(np.argmin(stored[:, 1]))])
    else:
        goal = 1 << (board.hole_of(finish, "finish") - 1)
        if run.levels[last]["pegs"] != 1:
            return None
        # A line found ends on `finish` only if the symmetry carrying its first position onto the
        # real start keeps `finish` where it is.
        group = tuple(perm for perm in group if image_of_hole(perm, finish) == finish)
    found = values.of(last, goal)
    if found is None:
        return None
    start = board.start_position(run.start)
    origins = {image_of_position(perm, start): perm for perm in reversed(group)}
    walked = _walk_back(values, last, goal, found[0], origins)
    if walked is None:
        raise InputError("the fewest moves to one peg on hole {finish} are not known from this"
                         " run: its symmetry reduction merges that hole with others; search with"
                         " {symmetry} start", finish=finish)
    origin, steps = walked
    home = _inverse(origins[origin])
    return (tuple(image_of_jump(home, jump) for jump, _ in steps),
            tuple(image_of_position(home, position) for _, position in steps), found[0])


def _walk_back(values: _Values, level: int, goal: int, moves: int,
               origins: dict[int, Permutation]) -> tuple[int, list[tuple[Jump, int]]] | None:
    """From `goal` (a real position of `level`, reached in `moves` at fewest) back to one of
    `origins`: the first position, and each jump with the real position after it."""
    board = values.run.board
    every = (1 << board.holes) - 1
    dead: set[tuple[int, int, int]] = set()

    def walk(level: int, position: int, moves: int,
             allowed: int) -> tuple[int, list[tuple[Jump, int]]] | None:
        if level == 0:
            return (position, []) if position in origins else None
        for jump in board.jumps:
            start, over, to = (1 << (hole - 1) for hole in (jump.start, jump.over, jump.to))
            if not position & to & allowed or position & (start | over):
                continue
            parent = position ^ (start | over | to)
            found = values.of(level - 1, parent)
            if found is None:
                continue
            parent_moves, last = found
            continued = bool(last & start)
            if parent_moves + (not continued) != moves:
                continue
            pinned = start if continued else every
            if (level - 1, parent, pinned) in dead:
                continue
            back = walk(level - 1, parent, parent_moves, pinned)
            if back is not None:
                return back[0], [*back[1], (jump, position)]
            dead.add((level - 1, parent, pinned))
        return None

    return walk(level, goal, moves, every)

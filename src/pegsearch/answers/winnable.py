"""Winnable positions: which stored positions can still be played down to one peg (on a hole).

The backward walk works on the run directory alone, so it serves a run made by any engine: a
level's winnable positions are those it holds one jump before a winnable position of the next
level: its predecessors, made with the shared kernel's jumps played backwards, or, where most of
a level is winnable, its positions whose children are (`winnable_parents`). An engine that
offers a `winnable_parents` step (Spark) runs that semi-join where its run lives, forwards;
otherwise it runs here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from pegsearch.answers.verdict import require_complete
from pegsearch.board.symmetry import orbit
from pegsearch.engines import engine_class, make_engine
from pegsearch.errors import UsageError
from pegsearch.kernel import moves, path_counts
from pegsearch.kernel.backward import (
    finishes_reaching,
    moves_reaching,
    parents_reaching,
    predecessors,
    solutions_reaching,
)
from pegsearch.kernel.members import Members, contains, sorted_distinct
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.values import NO_VALUES, Carry, finish_rows
from pegsearch.store import Run
from pegsearch.store.parts import iter_parts
from pegsearch.store.sets import EVERY_HOLE, SetWriter, set_folder, stored_sets

CHUNK = 1 << 20
# Winnable positions walked back at once: their predecessors take about 100 bytes each.
SLICE = 1 << 22
# The backward step where a level's winnable positions are at most this share of it (1 / 4).
BACKWARDS_SHARE = 4


def targets(run: Run, finish: int | None = None) -> np.ndarray:
    """The last level's signatures that finish the game: one peg (on `finish`'s symmetry class:
    a stored one-peg position stands on a hole of finish's orbit under the symmetries signatures
    are taken under; anywhere for None or EVERY_HOLE).

    Empty when the run never reaches one peg or no final position is in `finish`'s class.
    """
    last = len(run.levels) - 1
    if run.levels[last]["pegs"] != 1:
        return np.empty(0, dtype=np.uint64)
    final = np.sort(run.read_level(last))
    if finish is None or finish == EVERY_HOLE:
        return final
    wanted = np.array([1 << (hole - 1) for hole in orbit(run.spec.signing, finish)], dtype=np.uint64)
    return final[contains(wanted, final)]


WinnableStep = Callable[[Run, int, np.ndarray], np.ndarray]
CountedStep = Callable[[int, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def winnable_sets(run: Run, goal: np.ndarray,
                  step: WinnableStep | None = None) -> Iterator[tuple[int, np.ndarray]]:
    """Walk the levels backwards: yield (level, its positions from which `goal` can be reached).

    `goal` is a sorted subset of the last level. Each step is a semi-join of a level with the next
    level's winnable set: `step` (an engine's, run where the engine runs) or, by default, here with
    the shared kernel (`winnable_parents`).
    """
    step = step or winnable_parents
    walk = _walk(run, goal, NO_VALUES, lambda level, kept, _: (step(run, level, kept), NO_VALUES))
    for level, winnable, _ in walk:
        yield level, winnable


def one_line_back(run: Run, goal: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """As `winnable_sets`, one position a level: a position of `goal`, then at each level one the
    level holds one jump before the position kept after it (found among its predecessors).

    Every stored position has a parent in the level before (that level's children made it), so
    one position a level is a whole line back to the start, found by reading each level until
    the first part that holds a parent: what a line to the fewest pegs needs, without a
    level's winnable set.
    """
    tables = run.tables()
    last = len(run.levels) - 1
    kept = goal[:1]
    yield last, kept
    for level in range(last - 1, -1, -1):
        held = (found for found in _held_among(run, level, predecessors(tables, kept), CHUNK)
                if len(found))
        # none only in a damaged run: the replay then finds no line
        kept = next(held, np.empty(0, dtype=np.uint64))[:1]
        yield level, kept


def counted_sets(run: Run, goal: np.ndarray,
                 carry: Carry) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """As `winnable_sets`, with each winnable position's values, walked in this process: its
    solutions (`Carry.PATHS`: the jump sequences that play it down to a position of `goal`, exact
    to 10^38 - 1) or its fewest moves left (`Carry.MOVES`, with the pegs that may begin them).

    Either is the same for each image of a position when `goal` is closed under the symmetries
    the run's signatures are taken under (every one-peg finish, or a finishing hole's whole
    class), so one signature carries it for its class.
    """
    step = reaching(carry)
    return _walk(run, goal, finished(carry, goal),
                 lambda level, kept, values: counted_parents(run, level, kept, values, step))


Reaching = Callable[[BoardTables, np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def reaching(carry: Carry) -> Reaching:
    """The kernel step that makes a level's values from the next level's (kernel.expand)."""
    return {Carry.PATHS: solutions_reaching, Carry.MOVES: moves_reaching,
            Carry.FINISHES: finishes_reaching}[carry]


def finished(carry: Carry, finishes: np.ndarray) -> np.ndarray:
    """The values of the one-peg positions `finishes`: one solution each (the empty one), no move
    left, or the hole the peg stands on."""
    if carry is Carry.FINISHES:
        return finish_rows(finishes)
    return path_counts.ones(len(finishes)) if carry is Carry.PATHS else moves.starting(len(finishes))


def _walk(run: Run, goal: np.ndarray, values: np.ndarray,
          step: CountedStep) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """The backward walk: the last level's `goal` (with `values`), then each level's positions
    `step` keeps from the next level's, down to level 0."""
    last = len(run.levels) - 1
    order = np.argsort(goal)
    winnable, values = goal[order], values[order] if len(values) else values
    yield last, winnable, values
    for level in range(last - 1, -1, -1):
        if len(winnable):
            winnable, values = step(level, winnable, values)
        yield level, winnable, values


def winnable_parents(run: Run, level: int, winnable: np.ndarray, chunk: int = CHUNK,
                     backwards: bool | None = None) -> np.ndarray:
    """The positions of `level` with a child in `winnable`, sorted; computed in this process.

    Two ways, the cheaper chosen unless `backwards` says which. Where the winnable positions are
    a small share of their level (English: a twentieth), backwards: the positions one jump before
    a winnable one (`predecessors`, about ten a winnable position), then those the level holds,
    found by walking both sorted; a tenth of the children a forward semi-join makes, and no lookup
    that misses a cache. Where they are most of it (Skippy XL walked back from its fewest pegs),
    forwards: each parent's children looked up in a table of the winnable set, the first found
    ending the parent's search, usually at its first child. Memory holds one chunk of the level,
    and a table of `winnable` or a slice of it with its predecessors (SLICE at once: a larger set
    takes a pass over the level a slice).
    """
    tables = run.tables()
    if backwards is None:
        backwards = len(winnable) * BACKWARDS_SHARE <= run.levels[level + 1]["states"]
    if not backwards:
        members = Members(winnable)
        kept = [parents_reaching(tables, parents, members)
                for parents, _ in run.iter_level(level, chunk)]
    else:
        kept = []
        for start in range(0, len(winnable), SLICE):
            kept += _held_among(run, level, predecessors(tables, winnable[start:start + SLICE]), chunk)
    return sorted_distinct(np.concatenate(kept)) if kept else np.empty(0, dtype=np.uint64)


def _held_among(run: Run, level: int, wanted: np.ndarray, chunk: int) -> Iterator[np.ndarray]:
    """The positions of `level` that are in `wanted` (sorted), a chunk of the level at a time."""
    for parents, _ in run.iter_level(level, chunk):
        yield parents[contains(wanted, parents)]


def counted_parents(run: Run, level: int, winnable: np.ndarray, values: np.ndarray,
                    step: Reaching, chunk: int = CHUNK) -> tuple[np.ndarray, np.ndarray]:
    """The positions of `level` with a child in `winnable` (sorted), each with the value
    `step` makes of its children's `values` (kernel.expand: solutions or moves left).

    The parents that reach the set at all are found first, by a table of it (one probe a child,
    on every core); `step`, whose binary search a child was most of a walk's time, then runs on
    those alone (English's walks took 15-17 CPU-s each, now 9-10: bench/backward_walk.py)."""
    tables, members = run.tables(), Members(winnable)
    kept = [step(tables, parents_reaching(tables, parents, members), winnable, values)
            for parents, _ in run.iter_level(level, chunk)]
    if not kept:
        return np.empty(0, dtype=np.uint64), np.empty((0, 2), dtype=np.uint64)
    parents = np.concatenate([found for found, _ in kept])
    order = np.argsort(parents)
    return parents[order], np.concatenate([made for _, made in kept])[order]


def winnable_counts(run: Run, finish: int | None = None,
                    step: WinnableStep | None = None) -> list[int]:
    """Per level, how many stored positions can still be played down to one peg (on `finish`)."""
    counts = [0] * len(run.levels)
    for level, winnable in winnable_sets(run, targets(run, finish), step):
        counts[level] = len(winnable)
    return counts


def kept_sets(run: Run, finish: int | None = None, engine: str | None = None,
              master: str | None = None) -> dict:
    """The manifest's record of the run's winnable sets for `finish`: read when kept, else walked
    back (on `engine`, see `walker`) and kept with the run, each level's set as it is found. Walked
    in this process, a `--count-paths` run's sets keep each position's solutions too, and a
    `--fewest-moves` run's its fewest moves left (an engine's own backward step keeps positions
    only)."""
    stored = stored_sets(run, finish)
    if stored is not None:
        return stored
    require_complete(run, "winnable positions")
    every = finish == EVERY_HOLE  # the finishing holes are carried, in this process
    with walker(run, None if every else engine, master) as step:
        carry = Carry.FINISHES if every else run.carry if step is None else Carry.NOTHING
        writer = SetWriter(run, finish, carry)
        try:
            meanwhile = writer.kept_meanwhile()
            if meanwhile is None:
                goal = targets(run, finish)
                walk = (counted_sets(run, goal, carry) if carry else
                        ((level, kept, NO_VALUES) for level, kept in winnable_sets(run, goal, step)))
                for level, winnable, values in walk:
                    writer.write(level, winnable, values)
                return writer.commit(engine or "local")
        except BaseException:
            writer.discard()
            raise
        writer.discard()  # another process kept them while this one opened the run
        return meanwhile


def read_sets(run: Run, finish: int | None = None) -> Iterator[tuple[int, np.ndarray]]:
    """The kept winnable sets for `finish`, last level first (as `winnable_sets` yields them)."""
    record = kept_sets(run, finish)
    for level in reversed(record["levels"]):
        folder = set_folder(run, finish, level["level"])
        pieces = [keys for keys, _ in iter_parts(folder, level["files"], 1 << 62, Carry.NOTHING,
                                                 f"the winnable set of {run.where(level['level'])}")]
        yield level["level"], np.concatenate(pieces) if pieces else np.empty(0, dtype=np.uint64)


@contextmanager
def walker(run: Run, engine: str | None, master: str | None) -> Iterator[WinnableStep | None]:
    """The step that walks the levels back: this process's unless `engine` names one with a
    backward step of its own (Spark: a cluster run walked back on its cluster, on the run's master
    unless `master` names another)."""
    chosen = engine_class(engine) if engine else None
    if not hasattr(chosen, "winnable_parents"):
        if master:
            raise UsageError(f"a master applies to an engine that walks levels back (spark), not"
                             f" to {'this process' if engine is None else f'the {engine} engine'}")
        yield None
        return
    recorded = run.manifest["options"].get("master") if engine == run.manifest["engine"] else None
    with make_engine(engine, master=master or recorded) as chosen_engine:
        yield chosen_engine.winnable_parents

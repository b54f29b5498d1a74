"""How a level drops repeats, as every engine decides it: a bitmap over the level's ranks where the
level is dense enough (kernel.bitmap), else hash tables; `--reduce` may force either.

Shared by the engines (local, gpu, spark, and any new one), so runs made by different engines cut
their levels alike and a checkpoint one leaves is one another can add to (LevelWriter.resume_at).
"""

from __future__ import annotations

from dataclasses import dataclass

from pegsearch.board.classes import class_of, invariants, kept_by
from pegsearch.engines.estimates import expected_states
from pegsearch.engines.settings import REDUCES
from pegsearch.errors import InputError
from pegsearch.kernel.bitmap import prefer_bitmap
from pegsearch.kernel.ranks import LevelRanks, level_ranks, possible
from pegsearch.store import Run


def level_classes(run: Run) -> tuple[tuple[int, ...], int]:
    """The invariants' basis that splits the run's levels by class (empty when its signatures can
    leave the start's class), and the start's class."""
    start = run.board.start_position(run.start)
    basis = invariants(run.board)
    if not kept_by(run.spec.signing, start, basis):
        return (), 0
    return basis, class_of(start, basis)


@dataclass(frozen=True)
class ReduceChoice:
    """How a level drops repeats, as every engine decides it: the level's ranks for a bitmap
    (None: hash tables), and a note for the manifest saying which and why."""

    ranks: LevelRanks | None
    note: str


def check_reduce(reduce: str) -> str:
    """A `--reduce` choice, refused in one line unless it is one of REDUCES."""
    if reduce not in REDUCES:
        raise InputError("{reduce} {given}: use one of {choices}", given=reduce,
                         choices=", ".join(REDUCES))
    return reduce


def choose_reduce(run: Run, level: int, reduce: str) -> ReduceChoice:
    """How level `level + 1` drops repeats: "auto" takes a bitmap where the level is dense enough
    (see kernel.bitmap), "bitmap" and "tables" force one; a level whose positions carry values
    always uses tables."""
    expected = expected_states(run, level)
    holes, pegs = run.board.holes, run.pegs_at(level + 1)
    basis, home = level_classes(run)
    can_hold = possible(holes, pegs, 1 << len(basis))
    share = f"expected about {expected / max(1, can_hold):.2%} of the {can_hold:,} positions it can hold"
    if run.carry:
        why = f"{'path counts' if run.count_paths else 'fewest moves'} need a value a position"
    elif reduce == "tables" or (reduce == "auto" and not prefer_bitmap(expected, can_hold)):
        why = share if reduce == "auto" else "--reduce tables"
    else:
        forced = "" if reduce == "auto" else f"--reduce {reduce}, "
        return ReduceChoice(level_ranks(holes, basis, pegs, home),
                            f"bitmap ({forced}{share}, {1 << len(basis)} classes)")
    return ReduceChoice(None, f"tables ({why})")

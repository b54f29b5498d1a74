"""The verdict of a finished search: can one peg be reached, else how few pegs, and in how many ways.

It is read from the run's last level alone, the one answer every face shows first.
"""

from __future__ import annotations

from dataclasses import dataclass

from pegsearch.errors import Conflict
from pegsearch.store import Run
from pegsearch.words import plural


@dataclass(frozen=True)
class Verdict:
    """What a finished search says: can one peg be reached, else how few pegs and in how many ways."""

    solvable: bool
    fewest_pegs: int
    positions: int
    level: int
    moves: int | None = None  # the fewest moves to the fewest pegs (a fewest-moves run)

    def sentence(self) -> str:
        if self.solvable and self.level == 0:
            return "one peg is reachable: the start already has one peg, no jump to make"
        if self.solvable:
            found = (f"one peg is reachable: {plural(self.positions, 'one-peg position')} after"
                     f" {plural(self.level, 'jump')}")
        else:
            found = (f"one peg is not reachable: the fewest pegs reachable is {self.fewest_pegs},"
                     f" in {plural(self.positions, 'position')} after {plural(self.level, 'jump')}")
        if self.moves is None:
            return found
        return f"{found}; {'one peg' if self.solvable else 'those'} in {self.moves} moves at fewest"


def verdict(run: Run) -> Verdict:
    """The verdict of a run from its last non-empty level."""
    last = run.levels[-1]
    return Verdict(last["pegs"] == 1, last["pegs"], last["states"], last["level"], last.get("moves"))


def require_complete(run: Run, asking: str, every_level: bool = True) -> Run:
    """Refuse answers that need the whole search from a run that has not finished, or (with
    `every_level`: answers that walk the levels back) from one that kept only its last level."""
    if run.status != "complete":
        raise Conflict(f"{run.uri} is an incomplete run ({run.status}): finish it by resuming it"
                       f" before asking for {asking}")
    if every_level:
        run.require_every_level(asking)
    return run

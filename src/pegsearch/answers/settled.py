"""Pairs the solver leaves undecided, settled by the whole search from their start.

The depth-first solver decides nearly every (start, finish) pair of a 40-odd-hole board within a
minute, but a few resist any bound it is given: it neither finds a line nor proves a loss (on
diamond-41 three pairs up to symmetry stayed undecided at 10-30 minutes each). The breadth-first
search from that start, a run reduced only by the symmetries fixing the start (as `survey` makes
on smaller boards), reaches every position the start can reach, so its last level names every
hole one peg can stand on: a hole there is won, with a line read back from the run's levels; a
hole absent is lost, and the run itself is the proof, which `pegsearch verify` rereads without
the solver. One run answers every finish of its start at once: on 2 cores, diamond-41's top
corner took 8.5 minutes (7.0 G positions), its hole 2 23.5 minutes (23.1 G).
"""

from __future__ import annotations

from collections.abc import Callable

from pegsearch.answers.finishes import finishes
from pegsearch.answers.solve import solve
from pegsearch.answers.solver import LOST_WORD, WON_WORD, Answer
from pegsearch.store import Run

# An answer's `how` when the whole search from its start decided it.
WHOLE = "whole search"


def settled(found: dict[tuple[int, int], Answer], whole: Callable[[int], Run]
            ) -> tuple[dict[tuple[int, int], Answer], dict[int, str]]:
    """`found` with every undecided (start, finish) pair decided by `whole(start)`, the complete
    run of that start (one run a start, however many of its pairs are open); and each such start's
    run, where anyone can reread the proof."""
    settled_pairs = dict(found)
    runs: dict[int, str] = {}
    for start in sorted({start for (start, _), answer in found.items() if not answer.decided}):
        run = whole(start)
        runs[start] = run.uri
        reached = {hole for c in finishes(run) for hole in c.holes}
        examined = sum(level["states"] for level in run.levels)
        for (asked, finish), answer in found.items():
            if asked != start or answer.decided:
                continue
            if finish in reached:
                line = solve(run, finish)
                if not line.solved or line.last != 1 << (finish - 1):
                    raise RuntimeError(f"{run.uri} reaches one peg on {finish} but its line does not")
                settled_pairs[asked, finish] = Answer(WON_WORD, answer.position, finish, line.jumps,
                                                      WHOLE, examined)
            else:
                settled_pairs[asked, finish] = Answer(LOST_WORD, answer.position, finish, how=WHOLE,
                                                      examined=examined)
    return settled_pairs, runs

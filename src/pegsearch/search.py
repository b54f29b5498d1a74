"""The driver: chains one MapReduce job per level until a level is empty or one peg is left.

The driver owns everything engines share: writing level 0, staging and committing each level,
the stop rule, resuming from the last committed level, and reporting progress. An engine only turns
level k into level k + 1.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pegsearch.board import check_start
from pegsearch.engines import Engine
from pegsearch.interrupts import check
from pegsearch.paths import ones
from pegsearch.store import Identity, Run, discard, staged_rows, write_parts

Progress = Callable[[dict], None]


@dataclass(frozen=True)
class Verdict:
    """What a finished search says: can one peg be reached, else how few pegs and in how many ways."""

    solvable: bool
    fewest_pegs: int
    positions: int
    level: int

    def sentence(self) -> str:
        if self.solvable and self.level == 0:
            return "one peg is reachable: the start already has one peg, no jump to make"
        if self.solvable:
            return (f"one peg is reachable: {self.positions:,} one-peg position"
                    f"{'s' if self.positions != 1 else ''} after {self.level} jumps")
        return (f"one peg is not reachable: the fewest pegs reachable is {self.fewest_pegs},"
                f" in {self.positions:,} position{'s' if self.positions != 1 else ''}"
                f" after {self.level} jumps")


def verdict(run: Run) -> Verdict:
    """The verdict of a run from its last non-empty level."""
    last = run.levels[-1]
    return Verdict(last["pegs"] == 1, last["pegs"], last["states"], last["level"])


def search(identity: Identity, out: Path, engine: Engine, resume: bool = False,
           progress: Progress | None = None) -> Run:
    """Run (or resume) a search into `out` with `engine`; returns the finished run.

    The start is checked and the engine entered (a Spark session started, its master reached)
    before the run directory is made, so a search that cannot start leaves nothing behind.
    """
    check_start(identity.board, identity.start)
    with engine:
        run = Run.create_or_resume(out, identity, engine.name, engine.options(), resume)
        try:
            if not run.levels:
                _write_start(run)
            for record in run.levels:
                if progress:
                    progress(record)
            while run.levels[-1]["pegs"] > 1:
                check()  # a signal whose KeyboardInterrupt an engine swallowed stops the search here
                level = len(run.levels) - 1
                staging = run.staging(level + 1)
                began = time.perf_counter()
                engine.next_level(run, level, staging)
                if staged_rows(staging) == 0:
                    discard(staging)
                    break
                record = run.commit_level(level + 1, staging, time.perf_counter() - began)
                if progress:
                    progress(record)
        except BaseException:
            run.finish("interrupted")
            raise
        run.finish("complete")
    return run


def _write_start(run: Run) -> None:
    """Level 0: the signature of the start position, written the same way for every engine."""
    codec = run.codec()
    start = np.array([run.board.start_position(run.start)], dtype=np.uint64)
    staging = run.staging(0)
    write_parts(staging, codec.signatures(start), ones(1) if run.count_paths else None)
    run.commit_level(0, staging, 0.0)

"""The driver: chains one MapReduce job per level until a level is empty or one peg is left.

The driver owns everything engines share: writing level 0, committing each level through the
manifest, the stop rule, resuming from the last committed level, and reporting progress. An engine
only turns level k into level k + 1, writing its parts through the level's writer.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from pegsearch.board.spec import KEEPS, SearchSpec, check_start
from pegsearch.engines import Engine
from pegsearch.engines.estimates import DISK_MARGIN, expected_bytes, expected_states
from pegsearch.errors import UsageError
from pegsearch.interrupts import check
from pegsearch.kernel import compiling
from pegsearch.store import LevelWriter, Location, Run
from pegsearch.words import readable

# Receives each level's record as it is committed ({"level", "pegs", "states", ...}; the levels a
# resumed run already holds come first, with "stored": True) and, while a level is made, events
# {"level", "pegs", "done", "total"}: parents expanded so far, out of how many (the parent level's
# size, times the passes made so far when the level needs several). The first such event of a level,
# before any work, also says what it expects: {"expected": positions, "disk": bytes of parts, "free":
# bytes free where they go, None on an object store}. A level continued from the passes a stopped
# process committed says so first: {"level", "pegs", "continuing": the pass it goes on at, "passes"}.
Progress = Callable[[dict], None]


def search(spec: SearchSpec, out: str | Path | Location, engine: Engine, resume: bool = False,
           progress: Progress | None = None, until: int | None = None,
           keep: str | None = None) -> Run:
    """Run (or resume) a search into `out` (a path or URI) with `engine`; returns the run.

    With `until`, the search stops on purpose once level `until` is committed: the run is then
    "paused", and a later resume (with a later `until`, or none) continues it. A search too large
    for one session or one machine's disk is searched that way, in stages.

    `keep` is what the run keeps of its levels (store.run.KEEPS): "last" removes each level's
    parts once the next is committed, so a search needs disk for two levels, not all of them;
    None keeps a resumed run's choice ("all" for a new run).

    The start is checked, the store reached and the engine entered (a Spark session started, its
    master reached) before the run is made, so a search that cannot start leaves nothing behind.
    """
    if until is not None and until < 0:
        raise UsageError(f"--until {until}: give the last level to make, 0 or more")
    if keep is not None and keep not in KEEPS:
        raise UsageError(f"--keep {keep}: use one of {', '.join(KEEPS)}")
    check_start(spec.board, spec.start)
    location = out if isinstance(out, Location) else Location.parse(out)
    engine.check_location(location)
    location.check()
    with engine:
        run = Run.create_or_resume(location, spec, engine.name, engine.options(), resume, keep)
        try:
            if not run.levels:
                _write_start(run)
            for record in run.levels:
                if progress:
                    progress({**record, "stored": resume})
            ended = False
            while not ended and run.levels[-1]["pegs"] > 1:
                if until is not None and len(run.levels) > until:
                    run.finish("paused")
                    return run
                check()  # a signal whose KeyboardInterrupt an engine swallowed stops the search here
                ended = not _next_level(run, engine, progress)
            check()  # and one after the last level: a stop asked before the end is never lost
        except BaseException:
            run.finish("interrupted")
            raise
        run.finish("complete")
    return run


@contextmanager
def _discarded_on_failure(writer: LevelWriter) -> Iterator[None]:
    """An attempt at a level that fails (an error, Ctrl-C, a cancel's SIGTERM) leaves no parts
    behind, so the run it leaves is one `verify` passes; it also frees what a full disk needs to
    record how the run ended. A kill -9 cannot: then `--resume` removes them, as the manifest does
    not list them."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            writer.discard()
        raise


def _next_level(run: Run, engine: Engine, progress: Progress | None) -> bool:
    """Make and commit the level after the last one; False when it is empty (the search ends)."""
    level = len(run.levels) - 1
    pegs = run.pegs_at(level + 1)
    disk, free = _check_disk(run, level)
    if progress:
        progress({"level": level + 1, "pegs": pegs, "done": 0, "total": run.levels[level]["states"],
                  "expected": expected_states(run, level), "disk": disk, "free": free})
    writer = run.level_writer(level + 1)
    if progress and writer.checkpoint is not None:
        progress({"level": level + 1, "pegs": pegs, "continuing": writer.checkpoint["passes_done"] + 1,
                  "passes": writer.checkpoint["passes"]})

    def report(done: int, total: int) -> None:
        if progress:
            progress({"level": level + 1, "pegs": pegs, "done": done, "total": total})

    began, cpu, compiled = time.perf_counter(), time.process_time(), compiling.seconds()
    writer.notes["engine"] = engine.name  # a resumed run may change engines: each level says which
    with _discarded_on_failure(writer):
        engine.next_level(run, level, writer, report)
        if writer.rows == 0:
            writer.discard()
            return False
        # This process's CPU seconds (the local engine's whole cost; a cluster engine's driver's
        # share): `estimate` prices levels by them, as wall seconds stretch on a shared machine.
        writer.notes["cpu_seconds"] = round(time.process_time() - cpu, 3)
        waited, spent = (now - then for now, then in zip(compiling.seconds(), compiled, strict=True))
        if waited >= 0.001:  # kernels compiled, not loaded: not the level's work
            writer.notes["compile_seconds"] = round(waited, 3)
            writer.notes["compile_cpu_seconds"] = round(spent, 3)
        record = run.commit_level(writer, time.perf_counter() - began)
    if progress:
        progress(record)
    return True


def _check_disk(run: Run, level: int) -> tuple[int, int | None]:
    """The bytes level `level + 1` is expected to store and the bytes free where it goes; a level
    that cannot fit is refused before it starts (the run stays resumable once room is made)."""
    disk, free = expected_bytes(run, level), run.location.free_bytes()
    if free is not None and disk > free:
        raise UsageError(f"level {level + 1} needs about {readable(disk)} of disk (about"
                         f" {expected_states(run, level):,} positions, {DISK_MARGIN - 1:.0%} spare)"
                         f" and {run.location.local} has {readable(free)} free: make room there,"
                         " then continue the run with --resume")
    return disk, free


def _write_start(run: Run) -> None:
    """Level 0: the signature of the start position, written the same way for every engine."""
    tables = run.tables()
    start = np.array([run.board.start_position(run.start)], dtype=np.uint64)
    writer = run.level_writer(0)
    writer.notes["engine"] = run.manifest["engine"]  # the engine whose run wrote it, as every level
    with _discarded_on_failure(writer):  # a cancel at once left level-000/ unlisted
        writer.whole()
        writer.write(0, tables.signatures(start), run.carry.starting(1))
        run.commit_level(writer, 0.0)

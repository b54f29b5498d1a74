"""Time the mrjob engine's in-mapper batching: one kernel call per position against the default batch.

    python bench/mrjob_batching_benchmark.py [--boards triangle-5 triangle-6] [--runners inline local]

Every board is searched on every runner twice, in this process through the engine itself, with
`batch_size=1` (the mapper calls the kernel once per position) and with the default batch size
(`pegsearch.engines.mrjob.level_job.BATCH_SIZE`). The table gives wall and CPU seconds (this process
and the task
subprocesses it waited for) and the speed-up. The load average is printed with each run because the
figures mean little without it on a shared machine. Both runs of a pair must find the same number of
positions at every level, or the script fails: a speed-up that changed the answer is no speed-up.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines import make_engine
from pegsearch.engines.driver import search
from pegsearch.engines.mrjob.level_job import BATCH_SIZE
from pegsearch.store import Run

CONF = Path(__file__).resolve().parents[1] / "cluster" / "mrjob.conf"


def cpu_seconds() -> float:
    """CPU time of this process (numba threads included) and of its finished subprocesses."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_search(board: str, runner: str, batch_size: int, out: Path) -> tuple[Run, float, float]:
    """One full search; returns the run, wall seconds and CPU seconds."""
    loaded = load_board(board)
    engine = make_engine("mrjob", runner=runner, mrjob_conf=CONF, batch_size=batch_size)
    wall, cpu = time.perf_counter(), cpu_seconds()
    run = search(SearchSpec(loaded, loaded.empty), out, engine)
    return run, time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", nargs="+", default=["triangle-5", "triangle-6"])
    parser.add_argument("--runners", nargs="+", default=["inline", "local"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pegsearch-batching-") as folder:
        print(table(args.boards, args.runners, Path(folder)))
    return 0


def table(boards: list[str], runners: list[str], folder: Path) -> str:
    """Search every board on every runner with both batch sizes; the figures as a Markdown table."""
    # Untimed: loads numba's compiled kernels into this process, which the inline runner reuses.
    timed_search("triangle-5", "inline", BATCH_SIZE, folder / "warm-up")
    print(f"machine: {os.cpu_count()} cores; load average (1, 5, 15 min) at start:"
          f" {', '.join(f'{x:.1f}' for x in os.getloadavg())}", file=sys.stderr)
    rows = []
    for board in boards:
        for runner in runners:
            results = {}
            for batch_size in (1, BATCH_SIZE):
                load = os.getloadavg()[0]
                run, wall, cpu = timed_search(board, runner, batch_size,
                                              folder / f"{board}-{runner}-{batch_size}")
                print(f"{board} {runner} batch {batch_size}: {wall:.1f} s wall, {cpu:.1f} s CPU"
                      f" (load {load:.1f})", file=sys.stderr)
                results[batch_size] = (run, wall, cpu, load)
            states = {size: [r["states"] for r in run.levels] for size, (run, *_) in results.items()}
            if states[1] != states[BATCH_SIZE]:
                raise SystemExit(f"{board} {runner}: batch sizes 1 and {BATCH_SIZE} disagree")
            (_, wall_1, cpu_1, load_1), (_, wall_n, cpu_n, load_n) = results[1], results[BATCH_SIZE]
            rows.append(f"| {board} ({sum(states[1]):,} positions) | {runner} | {wall_1:.1f} s |"
                        f" {wall_n:.1f} s | {wall_1 / wall_n:.1f}x | {cpu_1:.1f} s | {cpu_n:.1f} s |"
                        f" {cpu_1 / cpu_n:.1f}x | {load_1:.1f} / {load_n:.1f} |")
    head = (f"| board | runner | wall, batch 1 | wall, batch {BATCH_SIZE} | speed-up | CPU, batch 1 |"
            f" CPU, batch {BATCH_SIZE} | speed-up | load (1 min) |")
    return "\n".join([head, "|---|---|---|---|---|---|---|---|---|", *rows])


if __name__ == "__main__":
    sys.exit(main())

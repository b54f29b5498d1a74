"""The benchmarks: whole searches timed in child processes, so CPU time and peak memory are exact.

Each search runs as `pegsearch run` in a fresh process and is reaped with `os.wait4`, whose resource
usage gives the CPU seconds and peak resident memory of that process and of the children it waited
for (mrjob's task processes); see TIMER. The Spark engine's JVM and Python workers are not waited for, and a
cluster's executors run elsewhere, so for Spark only the wall time is a whole figure; its CPU and
memory columns are left empty. Each figure is the median of the repeats.

`compare` times pegsearch against another program (any command line) side by side, alternating
the two, because on a shared machine only a ratio measured in one run means anything.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from pegsearch.errors import UsageError
from pegsearch.sizes import physical_memory


@dataclass(frozen=True)
class Measurement:
    """One board on one engine: medians over `repeats` runs."""

    board: str
    engine: str
    repeats: int
    wall_seconds: float
    cpu_seconds: float
    states: int
    peak_mb: float

    @property
    def whole(self) -> bool:
        """Whether CPU and memory cover all the work (not so for Spark: see the module notes)."""
        return self.engine != "spark"

    @property
    def states_per_cpu_second(self) -> float:
        return self.states / self.cpu_seconds if self.cpu_seconds else 0.0

    def as_json(self) -> dict:
        if not self.whole:
            return {**asdict(self), "cpu_seconds": None, "peak_mb": None,
                    "states_per_cpu_second": None}
        return {**asdict(self), "states_per_cpu_second": round(self.states_per_cpu_second)}


@dataclass(frozen=True)
class Sample:
    """One command, timed: wall and CPU seconds (user + system), peak resident MB."""

    wall_seconds: float
    cpu_seconds: float
    peak_mb: float


# Runs the timed command and records its figures. Linux counts a spawning process's memory in the
# child's peak until the child execs, so the command is spawned from this small interpreter rather
# than from pegsearch (whose imports alone are 130 MB): peaks below about 10 MB read as that.
TIMER = """import json, os, sys, time
began = time.perf_counter()
child = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(child, 0)
with open(sys.argv[1], "w") as figures:
    json.dump([time.perf_counter() - began, usage.ru_utime + usage.ru_stime,
               usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)], figures)
"""


def time_command(command: list[str], what: str) -> tuple[Sample, str]:
    """Run `command` to its end in a child process: its figures and what it printed on stdout.

    A command that fails is a user error naming `what`, with the last line it printed on stderr.
    """
    program = shutil.which(command[0])
    if program is None:
        raise UsageError(f"bench: {what} could not start: no program {command[0]!r} found")
    with tempfile.TemporaryDirectory(prefix="pegsearch-bench-") as folder:
        out, err, figures = (Path(folder) / name for name in ("stdout", "stderr", "figures"))
        with open(out, "w") as stdout, open(err, "w") as stderr:
            subprocess.run([sys.executable, "-S", "-c", TIMER, str(figures),
                            os.path.abspath(program), *command[1:]], stdout=stdout, stderr=stderr,
                           check=False)
        if not figures.exists():
            raise UsageError(f"bench: {what} could not start: {err.read_text().strip()[-200:]}")
        wall, cpu, peak, code = json.loads(figures.read_text())
        if code:
            last = (err.read_text().strip().splitlines() or ["no message"])[-1]
            raise UsageError(f"bench: {what} failed (exit {code}): {last}")
        printed = out.read_text()
    return Sample(wall, cpu, peak), printed


def run_once(board: str, engine: str, extra: list[str]) -> tuple[Sample, int]:
    """One search in a child process: its figures and the reduced states it found."""
    with tempfile.TemporaryDirectory(prefix="pegsearch-bench-run-") as folder:
        command = [sys.executable, "-m", "pegsearch", "run", board, "--engine", engine,
                   "--out", str(Path(folder) / "run"), "--json", *extra]
        sample, printed = time_command(command, f"{board} on the {engine} engine")
    return sample, sum(level["states"] for level in json.loads(printed)["levels"])


def measure(board: str, engine: str, repeats: int, extra: list[str]) -> Measurement:
    runs = [run_once(board, engine, extra) for _ in range(repeats)]
    return Measurement(board, engine, repeats,
                       wall_seconds=round(statistics.median(s.wall_seconds for s, _ in runs), 2),
                       cpu_seconds=round(statistics.median(s.cpu_seconds for s, _ in runs), 2),
                       states=runs[0][1],
                       peak_mb=round(statistics.median(s.peak_mb for s, _ in runs), 1))


@dataclass(frozen=True)
class Pair:
    """pegsearch and the peer program, run one right after the other."""

    ours: Sample
    peer: Sample

    def ratio(self, figure: str) -> float:
        """pegsearch's figure over the peer's (below 1: pegsearch used less)."""
        return getattr(self.ours, figure) / max(getattr(self.peer, figure), 1e-9)


FIGURES = ("wall_seconds", "cpu_seconds", "peak_mb")


def compare(board: str, peer: list[str], repeats: int,
            extra: list[str]) -> tuple[list[Pair], int]:
    """Alternate a local-engine search of `board` with the `peer` command, `repeats` pairs; also
    the states pegsearch found (reduced, all levels), to set beside what the peer printed.

    Each pair runs back to back, in alternating order (pegsearch first, then the peer first), so a
    shared machine's drifting load falls on both sides alike; compare the ratios, not the seconds.
    """
    pairs = []
    for index in range(repeats):
        if index % 2 == 0:
            ours, states = run_once(board, "local", extra)
            theirs = time_command(peer, "the peer command")[0]
        else:
            theirs = time_command(peer, "the peer command")[0]
            ours, states = run_once(board, "local", extra)
        pairs.append(Pair(ours, theirs))
    return pairs, states


def medians(pairs: list[Pair]) -> dict:
    """Medians of each side's figures and of the pair-by-pair ratios."""
    return {"pegsearch": {f: statistics.median(getattr(p.ours, f) for p in pairs) for f in FIGURES},
            "peer": {f: statistics.median(getattr(p.peer, f) for p in pairs) for f in FIGURES},
            "ratio": {f: statistics.median(p.ratio(f) for p in pairs) for f in FIGURES}}


def machine() -> str:
    """The machine the figures come from, for docs/performance.md: the CPU, cores, memory, and the model
    the kernels are compiled for here (kernel.target), since that alone can change a figure
    twofold on one CPU."""
    from pegsearch.kernel.target import choose

    choice = choose()
    memory = physical_memory() / 2**30
    return (f"{choice.cpu}, {os.cpu_count()} cores, {memory:.0f} GiB, Python {platform.python_version()},"
            f" {platform.system()} {platform.release()}; kernels compiled for {choice.target}"
            f" ({choice.how}; host model {choice.host})")

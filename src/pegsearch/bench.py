"""The benchmark: whole searches timed in child processes, so CPU time and peak memory are exact.

Each search runs as `pegsearch run` in a fresh process and is reaped with `os.wait4`, whose resource
usage gives the CPU seconds and peak resident memory of that process and of the children it waited
for (mrjob's task processes). The Spark engine's JVM and Python workers are not waited for, and a
cluster's executors run elsewhere, so for Spark only the wall time is a whole figure; its CPU and
memory columns are left empty. Each figure is the median of the repeats.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from pegsearch.errors import UsageError


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


def run_once(board: str, engine: str, extra: list[str]) -> tuple[float, float, int, float]:
    """One search in a child process: wall s, CPU s (user + system), reduced states, peak MB."""
    with tempfile.TemporaryDirectory(prefix="pegsearch-bench-") as folder:
        out, err = Path(folder) / "stdout", Path(folder) / "stderr"
        command = [sys.executable, "-m", "pegsearch.cli", "run", board, "--engine", engine,
                   "--out", str(Path(folder) / "run"), "--json", *extra]
        began = time.perf_counter()
        with open(out, "w") as stdout, open(err, "w") as stderr:
            child = subprocess.Popen(command, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - began
        if os.waitstatus_to_exitcode(status):
            last = (err.read_text().strip().splitlines() or ["no message"])[-1]
            raise UsageError(f"bench: {board} on the {engine} engine failed: {last}")
        levels = json.loads(out.read_text())["levels"]
    return (wall, usage.ru_utime + usage.ru_stime, sum(level["states"] for level in levels),
            usage.ru_maxrss / 1024)


def measure(board: str, engine: str, repeats: int, extra: list[str]) -> Measurement:
    runs = [run_once(board, engine, extra) for _ in range(repeats)]
    return Measurement(board, engine, repeats,
                       wall_seconds=round(statistics.median(r[0] for r in runs), 2),
                       cpu_seconds=round(statistics.median(r[1] for r in runs), 2),
                       states=runs[0][2],
                       peak_mb=round(statistics.median(r[3] for r in runs), 1))


def machine() -> str:
    """The machine the figures come from, for the README."""
    model = platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]
        model = names[0] if names else model
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{model}, {os.cpu_count()} cores, {memory:.0f} GiB, Python {platform.python_version()},"
            f" {platform.system()} {platform.release()}")

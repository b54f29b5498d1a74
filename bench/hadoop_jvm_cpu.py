"""The CPU a level job costs the single-machine Hadoop cluster, beside the client's.

    python bench/hadoop_jvm_cpu.py [--trials N]

Starts cluster/hadoop/up in a temporary folder (always stopped), then runs triangle-5's first three
levels on mrjob's hadoop runner N times (default 2), each into HDFS. Per run: wall seconds, the
CPU seconds of the cluster's JVMs (the cluster's own process with the containers it has reaped:
application masters, map and reduce tasks), and the client's (pegsearch, mrjob, `hadoop jar`). The
container JVMs' options are cluster/hadoop/up's SHORT_LIVED: run it before and after changing them.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.hadoop_cluster import hadoop_cluster


def java_cpu() -> float:
    """CPU seconds of every running JVM and of the children each has reaped."""
    ticks, total = os.sysconf("SC_CLK_TCK"), 0
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or b"java" not in (entry / "cmdline").read_bytes().split(b"\0")[0]:
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(fields[k]) for k in (11, 12, 13, 14))  # utime stime cutime cstime
        except OSError:
            continue
    return total / ticks


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hadoop-jvm-cpu-") as folder, \
            hadoop_cluster(Path(folder) / "cluster") as env:
        for trial in range(args.trials):
            cluster, client, began = java_cpu(), children_cpu(), time.monotonic()
            done = subprocess.run(
                [sys.executable, "-m", "pegsearch", "run", "triangle-5", "--engine", "mrjob",
                 "--runner", "hadoop", "--until", "3", "--out", f"{env['PEGSEARCH_HDFS']}/runs/{trial}"],
                env=env, capture_output=True, text=True)
            if done.returncode:
                sys.exit(done.stderr[-2000:])
            print(f"run {trial + 1}: {time.monotonic() - began:.1f} s wall, cluster"
                  f" {java_cpu() - cluster:.1f} s CPU, client {children_cpu() - client:.1f} s CPU",
                  flush=True)


if __name__ == "__main__":
    main()

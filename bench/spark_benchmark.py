"""Time one board on the local engine, on Spark local[2] and on a 2-worker standalone cluster.

    python bench/spark_benchmark.py [BOARD] [--workers N] [--keep DIR]

All four searches run in this one invocation, one after the other, through the real commands
(`pegsearch run`, `spark-submit jobs/spark_search.py`), so their wall times are comparable: the
local engine, local[2] as a user gets it (small levels made in the driver), local[2] with every
level a Spark job (`--driver-below 0`), and the cluster. The cluster is started with
cluster/spark-cluster.sh on free ports and always stopped. Per level, the table shows each run's
seconds (from the run manifests); a Spark job's fixed cost is the median time of the small levels
after the first in the every-level-a-job run, where there is almost no data to move.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "cluster"
BIN = Path(sys.executable).parent
SMALL_LEVEL = 10_000  # states: below this a level's time is Spark's per-job overhead


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("board", nargs="?", default="skippy-xl")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="keep the runs in this folder")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="pegsearch-benchmark-"))
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYSPARK_PYTHON": sys.executable, "SPARK_CONF_DIR": str(CLUSTER / "spark-conf")}
    pegsearch = [sys.executable, "-m", "pegsearch", "run", args.board]
    load_before = os.getloadavg()

    walls = {"local": timed([*pegsearch, "--out", str(folder / "local")], env),
             "spark local[2]": timed([*pegsearch, "--engine", "spark", "--master", "local[2]",
                                      "--out", str(folder / "local2")], env),
             "local[2] all jobs": timed([*pegsearch, "--engine", "spark", "--master", "local[2]",
                                         "--driver-below", "0", "--out", str(folder / "jobs")],
                                        env)}
    master, webui = free_ports(2)
    cluster_env = {**env, "PEGSEARCH_SPARK_DIR": str(folder / "cluster-state"),
                   "SPARK_MASTER_PORT": str(master), "SPARK_MASTER_WEBUI_PORT": str(webui)}
    script = ["bash", str(CLUSTER / "spark-cluster.sh")]
    try:
        url = subprocess.run([*script, "start", str(args.workers)], env=cluster_env, check=True,
                             capture_output=True, text=True).stdout.strip()
        walls[f"spark {args.workers} workers"] = timed(
            [str(BIN / "spark-submit"), "--master", url, str(ROOT / "jobs" / "spark_search.py"),
             args.board, "--out", str(folder / "cluster")], cluster_env)
    finally:
        subprocess.run([*script, "stop"], env=cluster_env, check=False)

    manifests = [json.loads((folder / name / "manifest.json").read_text())["levels"]
                 for name in ("local", "local2", "jobs", "cluster")]
    report(args.board, walls, manifests)
    # Spark's figures swing with other work on the machine: say how busy it was.
    print(f"load average (1, 5, 15 min) before {', '.join(f'{x:.1f}' for x in load_before)},"
          f" after {', '.join(f'{x:.1f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    print(f"runs kept in {folder}" if args.keep else f"runs in {folder} (remove when done)")
    return 0


def timed(command: list[str], env: dict) -> float:
    """Wall seconds of a command that must succeed; its output is kept quiet unless it fails."""
    began = time.perf_counter()
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr}")
    return seconds


def report(board: str, walls: dict[str, float], manifests: list[list[dict]]) -> None:
    counts = [[level["states"] for level in levels] for levels in manifests]
    if any(c != counts[0] for c in counts):
        sys.exit("the engines disagree on the level counts: " + json.dumps(counts))
    names = list(walls)
    print(f"{board}: {sum(counts[0]):,} states in {len(counts[0])} levels; identical counts on"
          " every engine")
    print(f"{'level':>5} {'states':>11} " + " ".join(f"{n:>18}" for n in names))
    for row in zip(*manifests, strict=True):
        print(f"{row[0]['level']:5d} {row[0]['states']:11,d} "
              + " ".join(f"{r['seconds']:17.2f}s" for r in row))
    print(f"{'wall':>17} " + " ".join(f"{walls[n]:17.1f}s" for n in names))
    for name, levels in zip(names, manifests, strict=True):
        in_levels = sum(level["seconds"] for level in levels)
        small = [lv["seconds"] for lv in levels[2:] if lv["states"] < SMALL_LEVEL]
        print(f"{name}: {walls[name] - in_levels:.1f} s outside levels (process and session"
              f" start-up), first level {levels[1]['seconds']:.2f} s (Spark: executors start, probe),"
              f" median level under {SMALL_LEVEL:,} states {statistics.median(small):.2f} s")


def free_ports(count: int) -> list[int]:
    """`count` distinct free ports: the probes all held until every port is read (this script
    stands alone, so not tests/helpers/serving.py's)."""
    with contextlib.ExitStack() as held:
        return [held.enter_context(socket.create_server(("127.0.0.1", 0))).getsockname()[1]
                for _ in range(count)]


if __name__ == "__main__":
    sys.exit(main())

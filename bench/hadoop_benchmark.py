"""Time one board on the local engine, on mrjob's hadoop runner (YARN) and on Spark on YARN.

    python bench/hadoop_benchmark.py [BOARD] [--until LEVEL] [--keep DIR]

The three searches run in this one invocation, one after the other, through `pegsearch run`, on
Apache Hadoop's single-machine cluster (cluster/hadoop/up, started in the run folder and always
stopped), so their times are comparable: the local engine; `--engine mrjob --runner hadoop`, each
level a streaming job on YARN; and `--engine spark --master yarn --driver-below 0`, each level a
Spark job with executors in YARN containers. Every run is checked against the local engine's with
`pegsearch verify --against`. Per level, the table shows each run's seconds (from the manifests);
a job's fixed cost is the median time of the levels of fewer than SMALL_LEVEL parents, where there
is almost nothing to move.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HADOOP = Path(__file__).resolve().parents[1] / "cluster" / "hadoop"
SMALL_LEVEL = 10_000
ENGINES = {"local": [],
           "mrjob hadoop (YARN)": ["--engine", "mrjob", "--runner", "hadoop"],
           "spark (YARN)": ["--engine", "spark", "--master", "yarn", "--driver-below", "0"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("board", nargs="?", default="skippy-xl")
    parser.add_argument("--until", type=int, help="stop each run at this level")
    parser.add_argument("--keep", type=Path, help="keep the runs (and the cluster's logs) here")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="pegsearch-hadoop-benchmark-"))
    folder.mkdir(parents=True, exist_ok=True)
    cluster = folder / "cluster"
    started = subprocess.run([str(HADOOP / "up"), str(cluster)], check=True,
                             capture_output=True, text=True)
    env = dict(os.environ)
    for line in started.stdout.splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        env[name] = value.replace('"$PATH"', os.environ["PATH"])
    until = ["--until", str(args.until)] if args.until is not None else []
    walls, runs = {}, {}
    try:
        for name, options in ENGINES.items():
            runs[name] = folder / name.split()[0]
            began = time.monotonic()
            subprocess.run([sys.executable, "-m", "pegsearch", "run", args.board, *options, *until,
                            "--out", str(runs[name])], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            walls[name] = time.monotonic() - began
            if name != "local":
                compared = subprocess.run([sys.executable, "-m", "pegsearch", "verify",
                                           str(runs[name]), "--against", str(runs["local"])],
                                          env=env, capture_output=True, text=True)
                print(f"{name}: {compared.stdout.strip().splitlines()[-1]}")
    finally:
        subprocess.run([str(HADOOP / "down"), str(cluster)], check=False)
    report(args.board, runs, walls)
    return 0


def report(board: str, runs: dict[str, Path], walls: dict[str, float]) -> None:
    levels = {name: json.loads((run / "manifest.json").read_text())["levels"]
              for name, run in runs.items()}
    local = levels["local"]
    print(f"{board}: seconds per level (cpu: {cpu()}, load before/after shown by `uptime`)")
    print("level  parents  " + "  ".join(f"{name:>20}" for name in runs))
    for level in range(1, len(local)):
        cells = "  ".join(f"{levels[name][level]['seconds']:20.2f}" for name in runs)
        print(f"{level:5}  {local[level - 1]['states']:7}  {cells}")
    print("wall   " + " " * 9 + "  ".join(f"{walls[name]:20.1f}" for name in runs))
    for name in runs:
        small = [levels[name][level]["seconds"] for level in range(2, len(local))
                 if local[level - 1]["states"] < SMALL_LEVEL]
        if small:
            print(f"{name}: a job's fixed cost (median of {len(small)} levels of fewer than"
                  f" {SMALL_LEVEL:,} parents) {statistics.median(small):.2f} s")


def cpu() -> str:
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} cores"
    return f"{os.cpu_count()} cores"


if __name__ == "__main__":
    sys.exit(main())

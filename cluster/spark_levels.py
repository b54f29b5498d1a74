"""Per level of a Spark run: its job's shuffle bytes and the executors' peak memory, from Spark's
event log (`pegsearch` names each level's job "pegsearch level K of RUN").

    python cluster/spark_levels.py EVENT-LOG [--json]

EVENT-LOG is a log file (plain, or compressed as Spark 4 writes them: .zstd, .lz4, .snappy is
not read) or a rolling log's folder (`eventlog_v2_APP`, its `events_N_APP*` files in order).

Run the search with an event log and the executors' process-tree metrics, for instance in the
spark-defaults.conf of SPARK_CONF_DIR:

    spark.eventLog.enabled                    true
    spark.eventLog.dir                        file:///tmp/spark-events
    spark.eventLog.logStageExecutorMetrics    true
    spark.executor.processTreeMetrics.enabled true

Shuffle bytes are the map tasks' written bytes summed over the level's job; the peaks are the
largest any executor reported during the job's stages: its JVM heap, and the resident memory of its
Python workers (where the kernel, the bitmaps and the hash tables live).
"""

from __future__ import annotations

import argparse
import io
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

LEVEL = re.compile(r"pegsearch level (\d+) of ")


def events(log: Path) -> Iterator[dict]:
    """The events of a log file or of a rolling log's folder, in order."""
    files = [log] if log.is_file() else sorted(
        log.glob("events_*"), key=lambda path: int(path.name.split("_")[1]))
    for path in files:
        codec = {".zstd": "zstd", ".lz4": "lz4"}.get(path.suffix)
        with pa.input_stream(str(path), compression=codec) as stream:
            for line in io.TextIOWrapper(stream, encoding="utf-8"):
                if line.strip():
                    yield json.loads(line)


def levels(log: Path) -> list[dict]:
    """One row per level made by a Spark job: level, seconds, tasks, shuffle bytes, peak JVM heap and
    peak Python memory of any executor."""
    level_of_job: dict[int, int] = {}
    level_of_stage: dict[int, int] = {}
    rows: dict[int, dict] = defaultdict(lambda: {"tasks": 0, "shuffle_bytes": 0, "records": 0,
                                                 "jvm_heap": 0, "python_rss": 0})
    started: dict[int, int] = {}
    for event in events(log):
        kind = event["Event"]
        if kind == "SparkListenerJobStart":
            described = LEVEL.match((event.get("Properties") or {}).get("spark.job.description", ""))
            if described:
                level = int(described[1])
                level_of_job[event["Job ID"]] = level
                for stage in event["Stage IDs"]:
                    level_of_stage[stage] = level
                started[level] = event["Submission Time"]
        elif kind == "SparkListenerJobEnd" and event["Job ID"] in level_of_job:
            level = level_of_job[event["Job ID"]]
            rows[level]["seconds"] = (event["Completion Time"] - started[level]) / 1000
        elif kind == "SparkListenerTaskEnd" and event["Stage ID"] in level_of_stage:
            row = rows[level_of_stage[event["Stage ID"]]]
            row["tasks"] += 1
            written = (event.get("Task Metrics") or {}).get("Shuffle Write Metrics") or {}
            row["shuffle_bytes"] += written.get("Shuffle Bytes Written", 0)
            row["records"] += written.get("Shuffle Records Written", 0)
        elif kind == "SparkListenerStageExecutorMetrics" and event["Stage ID"] in level_of_stage:
            row = rows[level_of_stage[event["Stage ID"]]]
            metrics = event.get("Executor Metrics") or {}
            row["jvm_heap"] = max(row["jvm_heap"], metrics.get("JVMHeapMemory", 0))
            row["python_rss"] = max(row["python_rss"], metrics.get("ProcessTreePythonRSSMemory", 0))
    return [{"level": level, **rows[level]} for level in sorted(rows)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path, help="a Spark event log file")
    parser.add_argument("--json", action="store_true", help="print JSON rows instead of a table")
    args = parser.parse_args()
    found = levels(args.log)
    if args.json:
        print(json.dumps(found, indent=1))
        return
    print("level  seconds  tasks  shuffle MB  blocks  peak JVM heap MB  peak Python RSS MB")
    for row in found:
        print(f"{row['level']:5} {row.get('seconds', 0):8.1f} {row['tasks']:6} "
              f"{row['shuffle_bytes'] / 2**20:11.1f} {row['records']:7} {row['jvm_heap'] / 2**20:17.0f}"
              f" {row['python_rss'] / 2**20:18.0f}")


if __name__ == "__main__":
    main()

"""`estimate --nodes`'s plan of the Spark engine checked against what the engine did: a real Spark
run on local[2] (every level a job, tasks of 2 MiB so that levels spread over many partitions and
passes), its manifest's partitions, passes and parts, and the shuffle bytes Spark's own event log
counts.
"""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from pegsearch.engines.cluster_costs import shuffle_bytes, spark_plan
from pegsearch.engines.projection import Shape
from pegsearch.store import Run

ROOT = Path(__file__).resolve().parents[2]
TASK = 2 << 20


@pytest.mark.slow
def test_the_plan_is_what_the_spark_engine_makes(tmp_path: Path) -> None:
    """Triangle-8 to level 10: tables levels, then bitmap levels in 6 and 12 passes. Each level's
    reduce partitions (or rank ranges) and passes are the plan's; its map tasks are the parts of
    the level before (the plan counts a part a range, and a range no position reached writes none:
    at most the plan's); its shuffle is within the model's stated range of Spark's count."""
    conf = tmp_path / "conf"
    events = tmp_path / "events"
    conf.mkdir()
    events.mkdir()
    (conf / "spark-defaults.conf").write_text(f"spark.pegsearch.task.memory {TASK >> 20}m\n"
                                              "spark.eventLog.enabled true\n"
                                              f"spark.eventLog.dir file://{events}\n")
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "pegsearch", "run", "triangle-8", "--out", str(out),
                           "--until", "10", "--engine", "spark", "--master", "local[2]",
                           "--driver-below", "0"], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "SPARK_CONF_DIR": str(conf)})
    assert done.returncode == 0, done.stderr
    run = Run.open(out)
    counts = [record["states"] for record in run.levels]
    plans = spark_plan(run, counts, 2, 2, TASK, 0)
    spark_levels = runpy.run_path(str(ROOT / "cluster" / "spark_levels.py"))["levels"]
    logged = {row["level"]: row for row in spark_levels(next(events.iterdir()))}
    assert {plan.made for plan in plans[1:]} == {"tables", "bitmap"}
    assert max(plan.passes for plan in plans) > 1
    for plan, record in zip(plans[1:], run.levels[1:], strict=True):
        note = record["shuffle"]
        cut = re.search(r"(\d+) rank ranges", note) if plan.made == "bitmap" else \
            re.match(r"([\d,]+) reduce partitions", note)
        assert cut and int(cut[1].replace(",", "")) == plan.reduce_tasks, (plan, note)
        assert record.get("passes", 1) == plan.passes, (plan, record)
        parts = len(run.levels[plan.level - 1]["files"])
        made_by_ranges = plan.level > 1 and plans[plan.level - 1].made == "bitmap"
        assert parts <= plan.map_tasks if made_by_ranges else parts == plan.map_tasks, (plan, parts)
        if counts[plan.level] >= 1000:
            ratio = shuffle_bytes(Shape.of(run.spec), plan, counts) / logged[plan.level]["shuffle_bytes"]
            assert 0.5 <= ratio <= 2.0, (plan, ratio)

"""The Spark engine: one Spark job per level, in which the JVM moves blocks, never positions.

A row per child through the JVM (Arrow to rows, a hash aggregate, the shuffle, a sort, the Parquet
writer) costs several times the local engine, so a level is one job of two stages over Python RDDs
of a few large values (`job`): map tasks expand their parent parts with the shared kernel and send
one block per partition, reduce tasks merge their blocks and write their parts into the store. The
driver collects the parts' entries and commits the level through the manifest like every engine,
so a failed or speculative attempt's part is never listed (and is swept). Executors reach the store
through the package's storage layer (a shared folder, S3, GCS, HDFS): no Hadoop connector jars.

A level made from fewer than `driver_below` parents (default DRIVER_BELOW) is made in the driver by
the local engine instead: a Spark job has a fixed cost (scheduling two stages, Python workers, the
shuffle files) larger than such a level takes in one process, and a search has many small levels
at its start and end. The parts it writes obey the same contract (sorted, disjoint, listed only by
the manifest), so the levels are the same whichever made them. `--driver-below 0` sends every level
to the cluster. (cluster/spark.md has the measured costs.)

Each level is read back from the store rather than kept in Spark, so lineage is one level long: a
lost executor costs at most the current level. One SparkSession serves the whole run (`session`),
because starting one takes seconds, and Python workers are reused so the kernel loads once per
executor. Before the first level on a cluster, a probe shows that every executor reaches the
run's store (`probe`).
"""

from __future__ import annotations

from functools import partial

import numpy as np
from pyspark.sql import SparkSession

from pegsearch.engines import LevelProgress, no_progress
from pegsearch.engines.local import LocalEngine, expected_states
from pegsearch.engines.spark.blocks import decode_block
from pegsearch.engines.spark.job import (
    BATCH_ROWS,
    Plan,
    by_partition,
    map_task,
    reduce_task,
    task_error,
    winnable_task,
)
from pegsearch.engines.spark.probe import check_store
from pegsearch.engines.spark.session import log_level, start_session, stop_session
from pegsearch.engines.spark.sizing import Shuffle, shuffle_for, task_memory
from pegsearch.errors import UsageError
from pegsearch.interrupts import cancelling
from pegsearch.store import Carry, LevelWriter, Location, Run

# Levels made from fewer parents than this are made in the driver (see the module notes): about
# 1.3 M children, a fraction of a second on one core.
DRIVER_BELOW = 1 << 17


class SparkEngine:
    """Computes each level as a Spark job on `master` (local[N], spark://, yarn, k8s://).

    With no master, the one given to spark-submit is used, or local[*] when this process starts
    Spark itself.
    """

    name = "spark"
    SETTINGS = ("master", "driver_below")

    def __init__(self, master: str | None = None, driver_below: int | None = None) -> None:
        self.master = master
        self.driver_below = DRIVER_BELOW if driver_below is None else driver_below
        # Not only the command line's int: the service passes what a request holds.
        if not isinstance(self.driver_below, int) or self.driver_below < 0:
            raise UsageError(f"--driver-below {driver_below}: give a whole number of parents,"
                             " 0 or more")
        self._driver = LocalEngine()
        self.spark: SparkSession | None = None
        self._shared: set[str] = set()  # run URIs the executors were shown to reach

    def options(self) -> dict:
        return {"master": self.master, "batch_rows": BATCH_ROWS, "driver_below": self.driver_below}

    def __enter__(self) -> SparkEngine:
        self.spark = start_session(self.master)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.spark is not None:
            stop_session(self.spark, failed=exc[0] is not None)
            self.spark = None

    def check_location(self, location: Location) -> None:
        return None  # executors reach the store themselves; _check_store proves it per run

    def next_level(self, run: Run, level: int, writer: LevelWriter,
                   report: LevelProgress = no_progress) -> None:
        """One Spark job: map tasks (one per parent part) send blocks, reduce tasks (one per
        partition) merge them and write the parts; the driver collects the parts' entries. A small
        level is made in the driver instead (see the module notes)."""
        assert self.spark is not None, "next_level outside `with engine:`"
        parents = run.levels[level]["states"]
        if parents < self.driver_below:
            self._driver.next_level(run, level, writer, report)
            return
        self._check_store(run.location)
        entries = run.levels[level]["files"]
        shuffle = self._shuffle(run, level)
        writer.notes["shuffle"] = shuffle.note()
        plan = Plan(run.uri, level, run.tables(), run.carry, shuffle.bits, writer.metadata)
        # Ctrl-C mid-job cancels the job rather than raise inside py4j, which would print
        # py4j's tracebacks and leave its connection half-read (see interrupts.cancelling).
        with cancelling(self._cancel):
            try:
                made = (self.spark.sparkContext.parallelize(entries, len(entries))
                        .mapPartitions(partial(map_task, plan))
                        .partitionBy(1 << plan.pbits, by_partition)
                        .mapPartitionsWithIndex(partial(reduce_task, plan))
                        .collect())
            except Exception as exc:
                raise task_error(exc, level + 1) from None
        for partition, entry, summary in made:
            writer.add(partition, entry, summary)
        writer.sweep()  # parts of failed or speculative task attempts: never listed
        report(parents, parents)  # a Spark job reports nothing on its way

    def _cancel(self) -> None:
        """Stop the running job for a signal, quietly: its tasks' failures are ours, not news."""
        assert self.spark is not None
        log_level(self.spark, "OFF")
        self.spark.sparkContext.cancelAllJobs()

    def winnable_parents(self, run: Run, level: int, winnable: np.ndarray) -> np.ndarray:
        """One step of the backward walk as a Spark job: each task reads one part of the level,
        expands it with the shared kernel and keeps a parent when a child's signature is in the
        next level's winnable set (broadcast once to each executor); kept parents come back as
        blocks."""
        assert self.spark is not None, "winnable_parents outside `with engine:`"
        self._check_store(run.location)
        entries = run.levels[level]["files"]
        plan = Plan(run.uri, level, run.tables(), Carry.NOTHING, 0)
        shared = self.spark.sparkContext.broadcast(winnable)
        try:
            with cancelling(self._cancel):
                kept = (self.spark.sparkContext.parallelize(entries, len(entries))
                        .mapPartitions(partial(winnable_task, plan, shared)).collect())
        except Exception as exc:
            raise task_error(exc, level) from None
        finally:
            shared.unpersist()
        pieces = [decode_block(block)[0] for block in kept]
        return np.sort(np.concatenate(pieces)) if pieces else np.empty(0, np.uint64)

    def _shuffle(self, run: Run, level: int) -> Shuffle:
        """The reduce partitions of level `level + 1` (see sizing): from its parents, and from what
        a task may hold of the level the local engine's rule expects."""
        assert self.spark is not None
        context = self.spark.sparkContext
        conf = dict(context.getConf().getAll())
        local = context.master.startswith("local")
        cores = context.defaultParallelism
        return shuffle_for(level + 1, run.levels[level]["states"], expected_states(run, level),
                           run.board.holes, cores, task_memory(conf, cores if local else None),
                           run.carry)

    def _check_store(self, location: Location) -> None:
        """Show, once per run, that executors reach the run's store as this driver does."""
        assert self.spark is not None
        if location.uri not in self._shared:
            check_store(self.spark.sparkContext, location)
            self._shared.add(location.uri)



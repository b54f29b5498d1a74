"""The Spark engine: one Spark job per level, in which the JVM moves blocks, never positions.

A row per child through the JVM (Arrow to rows, a hash aggregate, the shuffle, a sort, the Parquet
writer) costs several times the local engine, so a level is one job of two stages over Python RDDs
of a few large values (`job`): map tasks expand their parent parts with the shared kernel and send
one block per partition, reduce tasks merge their blocks and write their parts into the store; a
level dense enough for a bitmap is cut into rank ranges instead, and its blocks are bitmap slices
(`ranges`), so neither side hashes. The
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
lost executor costs at most the current level. One SparkContext serves the whole run (`session`),
because starting one takes seconds, and Python workers are reused so the kernel loads once per
executor. Before the first level on a cluster, a probe shows that every executor reaches the
run's store (`probe`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial

import numpy as np
from py4j.protocol import Py4JError
from pyspark import SparkContext

from pegsearch.engines import LevelProgress, hadoop, no_progress
from pegsearch.engines.estimates import expected_states
from pegsearch.engines.local import LocalEngine
from pegsearch.engines.reduce_choice import check_reduce, choose_reduce
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
from pegsearch.engines.spark.ranges import Ranges, map_ranges, reduce_ranges
from pegsearch.engines.spark.session import log_level, start_session, stop_session
from pegsearch.engines.spark.sizing import Shuffle, shuffle_for, task_memory
from pegsearch.errors import InputError
from pegsearch.interrupts import cancelling
from pegsearch.kernel.ranks import LevelRanks
from pegsearch.store import Carry, LevelWriter, Location, Run
from pegsearch.store.hadoop_conf import settings

# Levels made from fewer parents than this are made in the driver (see the module notes): about
# 1.3 M children, a fraction of a second on one core.
DRIVER_BELOW = 1 << 17


class SparkEngine:
    """Computes each level as a Spark job on `master` (local[N], spark://, yarn, k8s://).

    With no master, the one given to spark-submit is used, or local[*] when this process starts
    Spark itself.
    """

    name = "spark"

    def __init__(self, master: str | None = None, driver_below: int | None = None,
                 reduce: str = "auto", queue: str | None = None) -> None:
        """`reduce` chooses how levels drop repeats, as the local engine's does: a bitmap level
        is cut into rank ranges (see ranges), any other is shuffled in hash partitions. `queue` is
        the YARN queue of the session's application (spark.yarn.queue)."""
        self.master = master
        self.queue = queue
        self.reduce = check_reduce(reduce)
        self.driver_below = DRIVER_BELOW if driver_below is None else driver_below
        # Not only the command line's int: the service passes what a request holds.
        if not isinstance(self.driver_below, int) or self.driver_below < 0:
            raise InputError("{driver_below} {given}: give a whole number of parents, 0 or more",
                             given=driver_below)
        self._driver = LocalEngine(reduce=self.reduce)
        self.context: SparkContext | None = None
        self._shared: set[str] = set()  # run URIs the executors were shown to reach
        self._nodes = hadoop.NodeWatch({})

    def options(self) -> dict:
        return {"master": self.master, "batch_rows": BATCH_ROWS, "driver_below": self.driver_below,
                "reduce": self.reduce, "queue": self.queue}

    def __enter__(self) -> SparkEngine:
        self.context = start_session(self.master, self.queue)
        # On YARN, a node lost while a job runs is said (engines.hadoop.NodeWatch).
        self._nodes = hadoop.NodeWatch(settings() if self.master == "yarn" else {})
        return self

    def __exit__(self, *exc: object) -> None:
        if self.context is not None:
            stop_session(self.context, failed=exc[0] is not None)
            self.context = None

    def check_location(self, location: Location) -> None:
        return None  # executors reach the store themselves; _check_store proves it per run

    def next_level(self, run: Run, level: int, writer: LevelWriter,
                   report: LevelProgress = no_progress) -> None:
        """One Spark job: map tasks (one per parent part) send blocks, reduce tasks (one per
        partition) merge them and write the parts; the driver collects the parts' entries. A small
        level is made in the driver instead (see the module notes)."""
        assert self.context is not None, "next_level outside `with engine:`"
        parents = run.levels[level]["states"]
        choice = None if parents < self.driver_below else choose_reduce(run, level, self.reduce)
        # A level no position can reach (its ranks are none) is empty: no job to run.
        if choice is None or (choice.ranks is not None and not choice.ranks.count):
            self._driver.next_level(run, level, writer, report)
            writer.notes["engine"] = f"{self.name} (driver)"
            return
        self._check_store(run.location)
        entries = run.levels[level]["files"]
        writer.notes["reduce"] = choice.note
        shuffle = self._shuffle(run, level, choice.ranks)
        writer.notes["shuffle"] = shuffle.note()
        plan = Plan(run.uri, level, run.tables(), run.carry, shuffle.bits, writer.metadata,
                    expected_states(run, level), run.levels[level]["states"])
        if choice.ranks is None:
            writer.whole()
            self._job(run, level, entries, partial(map_task, plan), 1 << shuffle.bits,
                      partial(reduce_task, plan), writer)
            report(parents, parents)  # a Spark job reports nothing on its way
            return
        ranges = Ranges.plan(choice.ranks, 1 << shuffle.bits, shuffle.memory)
        writer.notes["shuffle"] += f"; {ranges.note()}"
        # A job a pass, each committed: a driver lost mid-level loses one pass, not the level.
        first, passes = writer.resume_at(ranges.cut), 0
        while first < ranges.partitions:
            last = min(first + ranges.per_pass, ranges.partitions)
            self._job(run, level, entries, partial(map_ranges, plan, ranges, first, last),
                      last - first, partial(reduce_ranges, plan, ranges, first), writer)
            passes += 1
            left = -(-(ranges.partitions - last) // ranges.per_pass)
            report(passes * parents, (passes + left) * parents)
            if last < ranges.partitions:
                writer.commit_pass(last, ranges.passes, ranges.cut)
            first = last
        writer.notes["passes"] = writer.passes_done + 1  # those committed, and the last

    def _job(self, run: Run, level: int, entries: list[dict], mapper: Callable, partitions: int,
             reducer: Callable, writer: LevelWriter) -> None:
        """One Spark job of the level: map tasks (a parent part each) send blocks by partition,
        reduce tasks write the parts, whose entries the writer takes."""
        assert self.context is not None
        # Named in Spark's UI and event log, where a level's shuffle bytes and memory are read.
        self.context.setJobDescription(f"pegsearch level {level + 1} of {run.uri}")
        # Ctrl-C mid-job cancels the job rather than raise inside py4j, which would print
        # py4j's tracebacks and leave its connection half-read (see interrupts.cancelling).
        with cancelling(self._cancel), self._nodes.during(level + 1, writer.notes):
            try:
                made = (self.context.parallelize(entries, len(entries))
                        .mapPartitions(mapper)
                        .partitionBy(partitions, by_partition)
                        .mapPartitionsWithIndex(reducer)
                        .collect())
            except Exception as exc:
                raise task_error(exc, level + 1) from None
        for partition, entry, summary in made:
            writer.add(partition, entry, summary)
        writer.sweep()  # parts of failed or speculative task attempts: never listed

    def _cancel(self) -> None:
        """Stop the running job for a signal, quietly: its tasks' failures are ours, not news."""
        assert self.context is not None
        # The signal may have reached the JVM too, whose shutdown hook stopped the context first
        # (its refusal was printed as a traceback from this thread): nothing is left to cancel.
        with contextlib.suppress(Py4JError):
            log_level(self.context, "OFF")
            self.context.cancelAllJobs()

    def winnable_parents(self, run: Run, level: int, winnable: np.ndarray) -> np.ndarray:
        """One step of the backward walk as a Spark job: each task reads one part of the level,
        expands it with the shared kernel and keeps a parent when a child's signature is in the
        next level's winnable set (broadcast once to each executor); kept parents come back as
        blocks."""
        assert self.context is not None, "winnable_parents outside `with engine:`"
        self._check_store(run.location)
        entries = run.levels[level]["files"]
        plan = Plan(run.uri, level, run.tables(), Carry.NOTHING, 0)
        shared = self.context.broadcast(winnable)
        try:
            with cancelling(self._cancel):
                kept = (self.context.parallelize(entries, len(entries))
                        .mapPartitions(partial(winnable_task, plan, shared)).collect())
        except Exception as exc:
            raise task_error(exc, level) from None
        finally:
            shared.unpersist()
        pieces = [decode_block(block)[0] for block in kept]
        return np.sort(np.concatenate(pieces)) if pieces else np.empty(0, np.uint64)

    def _shuffle(self, run: Run, level: int, ranks: LevelRanks | None) -> Shuffle:
        """The reduce partitions of level `level + 1` (see sizing): from its parents, and from what
        a task may hold of the level the local engine's rule expects (and of its bitmap, over
        `ranks`, for a bitmap level)."""
        context = self.context
        assert context is not None
        conf = dict(context.getConf().getAll())
        local = context.master.startswith("local")
        cores = context.defaultParallelism
        return shuffle_for(level + 1, run.levels[level]["states"], expected_states(run, level),
                           run.board.holes, cores, task_memory(conf, cores if local else None),
                           run.carry, 0 if ranks is None else ranks.count // 8)

    def _check_store(self, location: Location) -> None:
        """Show, once per run, that executors reach the run's store as this driver does."""
        assert self.context is not None
        if location.uri not in self._shared:
            check_store(self.context, location)
            self._shared.add(location.uri)



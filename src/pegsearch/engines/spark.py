"""The Spark engine: one Spark job per level; the JVM moves blocks, never positions.

Per-row Python costs 0.2-0.7 M rows/s here, and a row per child through the JVM (Arrow to rows, a
hash aggregate, the shuffle, a sort, the Parquet writer) cost 4-5 times the local engine. So a
level is one job of two stages over Python RDDs of a few large values:
- map: one task per parent part. It reads the part from the run's store itself (checked against
  the manifest), expands it with the shared kernel routed to the level's partitions, drops repeats
  (or sums path counts) in each partition with the local engine's tables, and emits one block per
  partition (sorted deltas, zstd; see blocks.py);
- the shuffle moves those blocks by partition;
- reduce: one task per partition merges its blocks with the same tables and writes its part file
  straight into the store under a name unique to the attempt, and returns the part's entry.
The driver collects the entries and commits the level through the manifest like every engine, so
a failed or speculative attempt's part is never listed (and is swept). Executors reach the store
through the package's storage layer (a shared folder, S3, GCS, HDFS): no Hadoop connector jars.

A level made from fewer than `driver_below` parents (default DRIVER_BELOW) is made in the driver by
the local engine instead: a Spark job has a fixed cost of 0.26-0.4 s (scheduling two stages,
Python workers, the shuffle files), more than such a level takes in one process, and a search has
many small levels at its start and end. The parts it writes obey the same contract (sorted,
disjoint, listed only by the manifest), so the levels are the same whichever made them.
`--driver-below 0` sends every level to the cluster.

Each level is read back from the store rather than kept in Spark, so lineage is one level long: a
lost executor costs at most the current level. One SparkSession serves the whole run, because
starting one takes seconds, and Python workers are reused so the kernel loads once per executor.

Every way this can fail before real work starts (no Java, no master, no executors, executors that
cannot reach the run's store) is checked up front and reported as one line within a bounded time.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import socket
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from pyspark.broadcast import Broadcast
from pyspark.sql import SparkSession
from pyspark.util import InheritableThread

from pegsearch.analysis import parents_reaching
from pegsearch.blocks import Combiner, decode_block, encode_block, merge_blocks
from pegsearch.codec import Codec
from pegsearch.dedup import Keyspace
from pegsearch.engines import Report, ignore
from pegsearch.engines.local import LocalEngine
from pegsearch.errors import UsageError
from pegsearch.interrupts import cancelling, reclaim
from pegsearch.paths import LIMIT, PathCountOverflow, total
from pegsearch.store import DamagedLevel, LevelWriter, Location, Run, level_name
from pegsearch.store.parts import iter_parts, write_part

# Parents a map task expands at a time: about 1 M parents make about 10 M children, some
# 100-200 MB in the Python worker at the peak.
BATCH_ROWS = 1 << 20
# How a task names a path-count overflow to the driver (the text is all that crosses the JVM).
OVERFLOW = "pegsearch-path-count-overflow-in-"
# Shuffle partitions per level: one per TASK_ROWS parents, at most one per core, unless a partition
# would pass MAX_TASK_ROWS. A small level is then one task, and a big one spreads over every core.
TASK_ROWS = 1 << 15
MAX_TASK_ROWS = 1 << 22
# The masters Spark accepts (SparkContext's and SparkSubmit's patterns), checked before its JVM starts.
MASTER_FORMS = re.compile(r"local(\[([1-9]\d*|\*)(\s*,\s*\d+)?\])?"
                          r"|local-cluster\[\s*[1-9]\d*\s*,\s*[1-9]\d*\s*,\s*[1-9]\d*\s*\]"
                          r"|yarn|spark://.+|k8s://.+")
# Levels made from fewer parents than this are made in the driver (see the module notes): about
# 1.3 M children, a fraction of a second on one core.
DRIVER_BELOW = 1 << 17
CONNECT_SECONDS = 5  # to open a TCP connection to a spark:// master
PROBE_SECONDS = 120  # for the cluster to run its first tasks (executors start, register, run)

# Used when this process starts the JVM itself (not under spark-submit): nothing while the session
# starts (a failed start is a page of Java stack traces, and reaches the user as one line from the
# Python side), errors only once it has started (see _log_level); no banner. Spark's loggers are
# named so that Spark keeps this level rather than announce a shell WARN level.
QUIET_LOG4J2 = """\
rootLogger.level = off
rootLogger.appenderRef.stderr.ref = console
logger.spark.name = org.apache.spark
logger.spark.level = off
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark %p %c{1}: %m%n%ex
"""


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
        self._log_folder: Path | None = None
        self._shared: set[str] = set()  # run URIs the executors were shown to reach

    def options(self) -> dict:
        return {"master": self.master, "batch_rows": BATCH_ROWS, "driver_below": self.driver_below}

    def __enter__(self) -> SparkEngine:
        submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit already started the JVM
        if not submitted:
            _check_java()
        master = self.master or (_submitted_master() if submitted else "local[*]")
        _check_master(master)
        # Executors run the kernel, so they need this interpreter's packages; say otherwise with
        # PYSPARK_PYTHON (or spark.pyspark.python under spark-submit).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        builder = (SparkSession.builder.appName("pegsearch")
                   .config("spark.ui.showConsoleProgress", "false")
                   # Spark already runs one task per core: the kernel must not add threads.
                   .config("spark.executorEnv.NUMBA_NUM_THREADS", "1")
                   # A Python worker imports the kernel and loads it from numba's cache once (about
                   # a second); reused workers pay that once per run instead of once per task.
                   .config("spark.python.worker.reuse", "true"))
        # Executors open the run's store themselves: they get the driver's S3 settings (a cluster
        # with instance roles or its own credentials needs none of them).
        for name, value in os.environ.items():
            if name.startswith("AWS_"):
                builder = builder.config(f"spark.executorEnv.{name}", value)
        if self.master or not submitted:
            builder = builder.master(master)
        if not submitted:  # the JVM starts with this session: give it quiet logs
            options = f"-Dlog4j2.configurationFile={self._quiet_logs()}"
            if master.startswith("local"):
                # The JVM only moves blocks (the kernel runs in Python), so its optimising compiler
                # would cost start-up and never pay back; nor is anyone there to open the web UI.
                options += " -XX:TieredStopAtLevel=1"
                builder = builder.config("spark.ui.enabled", "false")
            builder = builder.config("spark.driver.extraJavaOptions", options)
        try:
            self.spark = builder.getOrCreate()
        except Exception as exc:
            raise UsageError(f"Spark did not start: {_first_line(exc)}") from None
        finally:
            self._remove_log_folder()  # log4j read it as the JVM started
        if not submitted:
            _log_level(self.spark, "ERROR")  # now that the session is up (see QUIET_LOG4J2)
        reclaim()  # the SparkContext put in its own SIGINT handler
        return self

    def __exit__(self, *exc: object) -> None:
        if self.spark is not None:
            if exc[0] is not None:
                # Stopping mid-job (Ctrl-C, an error already reported): the tasks it cuts short
                # would each log a stack trace about a failure that is ours, not news.
                _log_level(self.spark, "OFF")
            self.spark.stop()
            self.spark = None

    def check_location(self, location: Location) -> None:
        return None  # executors reach the store themselves; _check_store proves it per run

    def next_level(self, run: Run, level: int, writer: LevelWriter, report: Report = ignore) -> None:
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
        plan = Plan(run.uri, level, run.codec(), run.count_paths,
                    self._partition_bits(parents, run.board.holes))
        # Ctrl-C mid-job cancels the job rather than raise inside py4j, which would print
        # py4j's tracebacks and leave its connection half-read (see interrupts.cancelling).
        with cancelling(self._cancel):
            try:
                made = (self.spark.sparkContext.parallelize(entries, len(entries))
                        .mapPartitions(partial(_map_task, plan))
                        .partitionBy(1 << plan.pbits, _partition)
                        .mapPartitionsWithIndex(partial(_reduce_task, plan))
                        .collect())
            except Exception as exc:
                raise _task_error(exc, level + 1) from None
        for partition, entry, paths in made:
            writer.add(partition, entry, int(paths))
        writer.sweep()  # parts of failed or speculative task attempts: never listed
        report(parents, parents)  # a Spark job reports nothing on its way

    def _cancel(self) -> None:
        """Stop the running job for a signal, quietly: its tasks' failures are ours, not news."""
        assert self.spark is not None
        _log_level(self.spark, "OFF")
        self.spark.sparkContext.cancelAllJobs()

    def winnable_parents(self, run: Run, level: int, winnable: np.ndarray) -> np.ndarray:
        """One step of the backward walk as a Spark job: each task reads one part of the level,
        expands it with the shared kernel and keeps a parent when a child's signature is in the
        next level's winnable set (broadcast once to each executor); kept parents come back as
        blocks."""
        assert self.spark is not None, "winnable_parents outside `with engine:`"
        self._check_store(run.location)
        entries = run.levels[level]["files"]
        plan = Plan(run.uri, level, run.codec(), False, 0)
        shared = self.spark.sparkContext.broadcast(winnable)
        try:
            with cancelling(self._cancel):
                kept = (self.spark.sparkContext.parallelize(entries, len(entries))
                        .mapPartitions(partial(_winnable_task, plan, shared)).collect())
        except Exception as exc:
            raise _task_error(exc, level) from None
        finally:
            shared.unpersist()
        pieces = [decode_block(block)[0] for block in kept]
        return np.sort(np.concatenate(pieces)) if pieces else np.empty(0, np.uint64)

    def _partition_bits(self, parents: int, holes: int) -> int:
        """Reduce partitions for the level made from `parents` positions, as a power of two: one
        per TASK_ROWS parents, at most one per core, unless a partition would pass MAX_TASK_ROWS.
        A small level is then one task, and a big one spreads over every core. Never more than a
        board of `holes` holes has signatures (see `dedup.partition_bits`)."""
        cores = self.spark.sparkContext.defaultParallelism
        wanted = max(min(cores, -(-parents // TASK_ROWS)), -(-parents // MAX_TASK_ROWS), 1)
        return min((wanted - 1).bit_length(), holes)

    def _check_store(self, location: Location) -> None:
        """Show that executors read and write the run's store exactly where this driver does.

        Without this, executors on machines that cannot reach it (another mount, no credentials)
        would fail deep inside a job, or worse, write their parts somewhere the driver never
        looks. Running the probe also proves the cluster gives us executors at all, within
        PROBE_SECONDS. It runs once per run, before the first level.
        """
        spark_context = self.spark.sparkContext
        local_run = location.local is not None and spark_context.master.startswith("local")
        if location.uri in self._shared or local_run:
            return  # local[N] on local disk: the executors are this machine, which sees what we see
        token = uuid.uuid4().hex
        probe = location / f"spark-probe-{token}"
        probe.make()
        probe.write("driver", token.encode())
        tasks = 2 * spark_context.defaultParallelism  # enough to reach every executor, usually
        visit = partial(_visit_probe, probe.uri, token)
        answers: list[tuple[int, str, bool, bool]] = []
        group = f"pegsearch-probe-{token}"

        def run_probe() -> None:
            spark_context.setJobGroup(group, "pegsearch: can executors reach the run's store?",
                                      interruptOnCancel=True)
            answers.extend(spark_context.parallelize(range(tasks), tasks)
                           .mapPartitionsWithIndex(visit).collect())

        try:
            worker = InheritableThread(target=run_probe, daemon=True)
            worker.start()
            worker.join(PROBE_SECONDS)
            if worker.is_alive():
                spark_context.cancelJobGroup(group)
                worker.join(CONNECT_SECONDS)
                raise UsageError(f"the Spark cluster at {spark_context.master} ran no task within"
                                 f" {PROBE_SECONDS} s: check that its workers are up and offer"
                                 " the cores and memory asked for (spark.executor.memory)")
            if len(answers) != tasks:
                raise UsageError(f"the Spark cluster at {spark_context.master} failed a probe job"
                                 " before the search; see the Spark log above")
            blind = sorted({host for _, host, read, _ in answers if not read})
            written = {int(name.split("-")[1]) for name in probe.files() if name.startswith("task-")}
            lost = sorted({host for index, host, _, wrote in answers
                           if not wrote or index not in written})
            if blind or lost:
                raise UsageError(f"Spark executors on {', '.join(blind or lost)} cannot"
                                 f" {'read' if blind else 'write to'} the run {location}"
                                 " as this driver does: put --out on storage every node reaches"
                                 " (a folder mounted at the same path everywhere, or s3://...)")
        finally:
            with contextlib.suppress(OSError):
                probe.remove_tree("")
        self._shared.add(location.uri)

    def _quiet_logs(self) -> str:
        """A log4j2 file (URI) that keeps the JVM this process starts to errors only."""
        self._log_folder = Path(tempfile.mkdtemp(prefix="pegsearch-spark-"))
        config = self._log_folder / "log4j2.properties"
        config.write_text(QUIET_LOG4J2)
        return config.as_uri()

    def _remove_log_folder(self) -> None:
        if self._log_folder is not None:
            shutil.rmtree(self._log_folder, ignore_errors=True)
            self._log_folder = None


def _log_level(spark: SparkSession, level: str) -> None:
    """Set the level of every logger of the driver's JVM (log4j's level names: ERROR, OFF)."""
    jvm = spark.sparkContext._jvm
    jvm.org.apache.logging.log4j.core.config.Configurator.setAllLevels(
        "", jvm.org.apache.logging.log4j.Level.getLevel(level))


@dataclass(frozen=True)
class Plan:
    """What every task of one level's job needs: where the run is, which level it reads, the
    kernel's tables, whether paths are counted, and the partitions (``2**pbits``) of the shuffle."""

    uri: str
    level: int
    codec: Codec
    counted: bool
    pbits: int

    def folder(self, level: int) -> Location:
        return Location.parse(self.uri) / level_name(level)

    @property
    def space(self) -> Keyspace:
        """The shuffle's partitions of the children's signatures."""
        return Keyspace(self.codec.holes, self.pbits)


def _partition(partition: int) -> int:
    return partition


def _map_task(plan: Plan, entries: Iterator[dict]) -> Iterator[tuple[int, bytes]]:
    """A map task: its parent parts, read from the store and checked, expanded with the shared
    kernel; the children routed to the level's partitions and deduplicated in each (the combiner),
    then one block per partition, for the shuffle."""
    folder = plan.folder(plan.level)
    where = f"level {plan.level} of {plan.uri}"
    for entry in entries:
        combiner = Combiner(plan.codec, plan.pbits, plan.counted, 2 * entry["rows"])
        for parents, paths in iter_parts(folder, [entry], BATCH_ROWS, plan.counted, where):
            try:
                combiner.add(parents, paths)
            except PathCountOverflow:
                raise PathCountOverflow(f"{OVERFLOW}map") from None
        yield from combiner.blocks()


def _reduce_task(plan: Plan, partition: int,
                 pairs: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, dict, str]]:
    """A reduce task: its partition's blocks from every map task merged (repeats dropped, path
    counts summed) and written as one part file, under a name unique to this attempt, straight
    into the store; the part's manifest entry goes back to the driver, which alone commits it."""
    try:
        keys, sums = merge_blocks([block for _, block in pairs], plan.counted, plan.space,
                                  partition)
    except PathCountOverflow:
        raise PathCountOverflow(f"{OVERFLOW}reduce") from None
    if len(keys):
        name = f"part-{partition:05d}-{secrets.token_hex(4)}.parquet"
        entry = write_part(plan.folder(plan.level + 1), name, keys,
                           sums if plan.counted else None)
        yield partition, entry, str(total(sums)) if plan.counted else "0"


def _winnable_task(plan: Plan, shared: Broadcast, entries: Iterator[dict]) -> Iterator[bytes]:
    """A task's share of the semi-join: the parents of its parts that reach `shared`, as blocks."""
    folder = plan.folder(plan.level)
    for entry in entries:
        for parents, _ in iter_parts(folder, [entry], BATCH_ROWS, False,
                                     f"level {plan.level} of {plan.uri}"):
            yield encode_block(np.sort(parents_reaching(plan.codec, parents, shared.value)))


def _task_error(exc: Exception, level: int) -> Exception:
    """A failed job's error as the user should see it: a path count too large, or a damaged part
    (named by the task that found it), in one line; anything else as it came."""
    text = str(exc)
    if f"{OVERFLOW}map" in text:
        return _overflow(level, "in a map task")
    if f"{OVERFLOW}reduce" in text:
        return _overflow(level, "in a reduce task")
    damaged = re.search(rf"{DamagedLevel.__name__}: (.+)", text)
    if damaged:
        return DamagedLevel(damaged[1].strip())
    return exc


def _overflow(level: int, where: str) -> PathCountOverflow:
    """The error for a level whose path counts do not fit the decimal(38, 0) column."""
    return PathCountOverflow(f"level {level}: a path count exceeds {LIMIT:.3e}, the largest a"
                             f" level stores ({where})")


def _visit_probe(probe: str, token: str, index: int,
                 _rows: Iterator[int]) -> Iterator[tuple[int, str, bool, bool]]:
    """One probe task: can this executor read the driver's token and leave a file for the driver?"""
    folder = Location.parse(probe)
    try:
        read = folder.read("driver") == token.encode()
    except OSError:
        read = False
    try:
        folder.write(f"task-{index}", token.encode())
        wrote = True
    except OSError:
        wrote = False
    yield index, socket.gethostname(), read, wrote


def _check_java() -> None:
    """Spark needs a JVM; without one pyspark fails with a page of shell errors, so say it first."""
    home = os.environ.get("JAVA_HOME")
    if home:
        if not os.access(Path(home, "bin", "java"), os.X_OK):
            raise UsageError(f"JAVA_HOME is {home}, which has no bin/java: the spark engine needs"
                             " Java 17 or 21; point JAVA_HOME at one")
    elif shutil.which("java") is None:
        raise UsageError("the spark engine needs Java 17 or 21, but no `java` is on PATH and"
                         " JAVA_HOME is not set: install a JDK or set JAVA_HOME")


def _check_master(master: str) -> None:
    """Refuse a master Spark would refuse, before the JVM starts: spark-submit prints a Java stack
    trace for a malformed one, and retries a spark:// master nobody answers at for a minute or more.
    """
    if not MASTER_FORMS.fullmatch(master):
        raise UsageError(f"--master {master}: not a Spark master; use local[N], spark://HOST:PORT,"
                         " yarn or k8s://HOST:PORT (N at least 1)")
    if master == "yarn" and not (os.environ.get("HADOOP_CONF_DIR") or os.environ.get("YARN_CONF_DIR")):
        raise UsageError("--master yarn needs HADOOP_CONF_DIR or YARN_CONF_DIR: point one at the"
                         " cluster's Hadoop configuration")
    if not master.startswith("spark://"):
        return
    for address in master.removeprefix("spark://").split(","):  # several masters = HA standby
        host, _, port = address.rpartition(":")
        try:
            socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
            return
        except (OSError, ValueError):
            continue
    raise UsageError(f"no Spark master answers at {master}: start a cluster"
                     " (cluster/spark-cluster.sh start 2) or use --master local[2]")


def _submitted_master() -> str:
    """The master spark-submit was given, read from the JVM it started (connecting is cheap)."""
    from pyspark import SparkConf, SparkContext

    SparkContext._ensure_initialized()  # without a JVM, SparkConf() would be empty
    return SparkConf().get("spark.master", "local[*]")


def _first_line(exc: Exception) -> str:
    """The Java message of a Spark failure without its stack trace (or the Python message)."""
    java = getattr(exc, "java_exception", None)
    message = java.getMessage() if java is not None else str(exc)
    first = (message or type(exc).__name__).strip().splitlines()[0]
    root = java
    while root is not None and root.getCause() is not None:
        root = root.getCause()
    if root is None or root is java or not root.getMessage():
        return first
    return f"{first} ({root.getMessage().strip().splitlines()[0]})"  # the vague top, the real cause

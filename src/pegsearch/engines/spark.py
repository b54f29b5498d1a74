"""The Spark engine: one Spark job per level, the shared kernel in the map, the reduce in the JVM.

Per-row Python costs 0.2-0.7 M rows/s here, so positions cross into Python only as Arrow record
batches, each handed whole to `expand_distinct`; the shuffle and the reduce (`distinct`, or a `sum` of path
counts by position) stay on the JVM side.
Each level is read back from the run directory rather than kept as a DataFrame, so lineage is one
level long: a lost executor costs at most the current level, and the driver's commit and resume work
as for every other engine. One SparkSession serves the whole run, because starting one takes seconds.

A level's fixed cost is kept to one Spark job of two stages: the schema is given (no job to read
footers), the shuffle is sized to the level before it runs (a small level is one task, not 200
merged afterwards by adaptive execution, whose extra planning jobs it also saves), and the Python
workers stay alive between levels so the kernel is imported and loaded from numba's cache once.

Every way this can fail before real work starts (no Java, no master, no executors, executors that do
not share the run directory) is checked up front and reported as one line within a bounded time.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
import tempfile
import uuid
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa
from pyspark.broadcast import Broadcast
from pyspark.errors import ArithmeticException, PythonException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.util import InheritableThread

from pegsearch.analysis import parents_reaching
from pegsearch.codec import Codec
from pegsearch.errors import UsageError
from pegsearch.expand import expand_distinct
from pegsearch.interrupts import cancelling, reclaim
from pegsearch.paths import LIMIT, PATHS, PathCountOverflow, from_arrow, to_arrow
from pegsearch.store import NO_PATHS, POSITION, Run, positions_of

# A level file's columns; decimal(38, 0) is paths.ARROW_TYPE, which the JVM sums exactly.
SCHEMAS = {False: f"{POSITION} long", True: f"{POSITION} long, {PATHS} decimal(38, 0)"}
# Parents per Arrow batch. The batch is also the combiner's reach (repeats are dropped, or path
# counts summed, within a batch before the rows go back to the JVM), so it is large: about 1 M
# parents make about 10 M children, some 100-200 MB in the Python worker at the peak.
BATCH_ROWS = 1 << 20
# Shuffle partitions per level: one per TASK_ROWS parents, at most one per core, unless a partition
# would pass MAX_TASK_ROWS. A small level is then one task, and a big one spreads over every core.
TASK_ROWS = 1 << 15
MAX_TASK_ROWS = 1 << 22
# The masters Spark accepts (SparkContext's and SparkSubmit's patterns), checked before its JVM starts.
MASTER_FORMS = re.compile(r"local(\[([1-9]\d*|\*)(\s*,\s*\d+)?\])?"
                          r"|local-cluster\[\s*[1-9]\d*\s*,\s*[1-9]\d*\s*,\s*[1-9]\d*\s*\]"
                          r"|yarn|spark://.+|k8s://.+")
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
    SETTINGS = ("master",)

    def __init__(self, master: str | None = None) -> None:
        self.master = master
        self.spark: SparkSession | None = None
        self._log_folder: Path | None = None
        self._shared: set[Path] = set()  # run directories the executors were shown to share

    def options(self) -> dict:
        return {"master": self.master, "batch_rows": BATCH_ROWS}

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
                   .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(BATCH_ROWS))
                   # Spark already runs one task per core: the kernel must not add threads.
                   .config("spark.executorEnv.NUMBA_NUM_THREADS", "1")
                   # Each level sizes its own shuffle (see _partitions); adaptive execution would
                   # only add a planning job per level to merge partitions that are right already.
                   .config("spark.sql.adaptive.enabled", "false")
                   # A Python worker imports the kernel and loads it from numba's cache once (about
                   # a second); reused workers pay that once per run instead of once per task.
                   .config("spark.python.worker.reuse", "true")
                   # An overflowing sum of path counts must fail the level, never become null.
                   .config("spark.sql.ansi.enabled", "true")
                   # The driver commits a level by its part files; no _SUCCESS marker to write.
                   .config("spark.hadoop.mapreduce.fileoutputcommitter.marksuccessfuljobs",
                           "false"))
        if self.master or not submitted:
            builder = builder.master(master)
        if not submitted:  # the JVM starts with this session: give it quiet logs
            builder = builder.config("spark.driver.extraJavaOptions",
                                     f"-Dlog4j2.configurationFile={self._quiet_logs()}")
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

    def next_level(self, run: Run, level: int, staging: Path) -> None:
        assert self.spark is not None, "next_level outside `with engine:`"
        # Ctrl-C mid-job cancels the job rather than raise inside py4j, which would print
        # py4j's tracebacks and leave its connection half-read (see interrupts.cancelling).
        with cancelling(self._cancel):
            self._make_level(run, level, staging)

    def _cancel(self) -> None:
        """Stop the running job for a signal, quietly: its tasks' failures are ours, not news."""
        assert self.spark is not None
        _log_level(self.spark, "OFF")
        self.spark.sparkContext.cancelAllJobs()

    def _make_level(self, run: Run, level: int, staging: Path) -> None:
        assert self.spark is not None
        self._check_shared(run.path.resolve())
        schema = SCHEMAS[run.count_paths]
        self.spark.conf.set("spark.sql.shuffle.partitions",
                            str(self._partitions(run.levels[level]["states"])))
        parents = self.spark.read.schema(schema).parquet(
            *[f.resolve().as_uri() for f in run.level_files(level)])
        children = parents.mapInArrow(partial(_expand_batches, run.codec()), schema)
        try:
            level_set(children).write.mode("append").option("compression", "zstd").parquet(
                staging.resolve().as_uri())
        except ArithmeticException:  # the JVM's sum, in ANSI mode
            raise _overflow(level + 1, "in Spark's sum") from None
        except PythonException as exc:  # a batch's own sum; only its text names the Python error
            if PathCountOverflow.__name__ in str(exc):
                raise _overflow(level + 1, "in a map task") from None
            raise

    def winnable_parents(self, run: Run, level: int, winnable: np.ndarray) -> np.ndarray:
        """One step of the backward walk as a Spark job: a broadcast semi-join of the level with
        the next level's winnable set (sorted, shipped once to each executor), kept parents back.

        Executors expand their Arrow batches with the shared kernel and keep a parent when a child's
        signature is in the set; only the kept parents, at most one level, return to the driver.
        """
        assert self.spark is not None, "winnable_parents outside `with engine:`"
        shared = self.spark.sparkContext.broadcast(winnable)
        try:
            parents = self.spark.read.schema(SCHEMAS[False]).parquet(
                *[f.resolve().as_uri() for f in run.level_files(level)])
            kept = parents.mapInArrow(partial(_winnable_batches, run.codec(), shared),
                                      SCHEMAS[False]).toArrow()
        finally:
            shared.unpersist()
        return np.sort(positions_of(kept.column(POSITION)))

    def _partitions(self, parents: int) -> int:
        """Shuffle partitions for the level made from `parents` positions (see TASK_ROWS)."""
        cores = self.spark.sparkContext.defaultParallelism
        return max(min(cores, -(-parents // TASK_ROWS)), -(-parents // MAX_TASK_ROWS), 1)

    def _check_shared(self, folder: Path) -> None:
        """Show that executors read and write `folder` exactly where this driver does.

        Without this, executors on machines that do not share the folder would fail deep inside a
        job, or worse, commit their parts somewhere the driver never looks and leave a level empty.
        Running the probe also proves the cluster gives us executors at all, within PROBE_SECONDS.
        It runs once per run directory, before the first level.
        """
        spark_context = self.spark.sparkContext
        if folder in self._shared or spark_context.master.startswith("local"):
            return  # local[N]: the executor is this machine's driver JVM, which sees what we see
        probe = folder / f".spark-probe-{uuid.uuid4().hex}"
        probe.mkdir()
        token = uuid.uuid4().hex
        (probe / "driver").write_text(token)
        tasks = 2 * spark_context.defaultParallelism  # enough to reach every executor, usually
        visit = partial(_visit_probe, str(probe), token)
        answers: list[tuple[int, str, bool, bool]] = []
        group = f"pegsearch-probe-{token}"

        def run_probe() -> None:
            spark_context.setJobGroup(group, "pegsearch: can executors see the run directory?",
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
            written = {int(p.name.split("-")[1]) for p in probe.glob("task-*")}
            lost = sorted({host for index, host, _, wrote in answers
                           if not wrote or index not in written})
            if blind or lost:
                raise UsageError(f"Spark executors on {', '.join(blind or lost)} cannot"
                                 f" {'see' if blind else 'write to'} the run directory {folder}"
                                 " as this driver does: put --out on storage every node mounts at"
                                 " the same path")
        finally:
            shutil.rmtree(probe, ignore_errors=True)
        self._shared.add(folder)

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


def level_set(children: DataFrame) -> DataFrame:
    """The reduce step: each signature once (with its paths summed when the children carry them),
    partitions disjoint (hashed) and each sorted as uint64.

    The sum of decimal(38, 0) is decimal(38, 0); in ANSI mode (set by the engine) a sum past
    10**38 - 1 fails the task instead of becoming null. Bit 63 set means negative as int64 but
    largest as unsigned, so the sort key is the position with bit 63 flipped: signed order of the
    key is unsigned order of the position, and one long key lets Spark radix-sort on it.
    """
    if PATHS in children.columns:
        reduced = children.groupBy(POSITION).agg(F.sum(PATHS).alias(PATHS))
    else:
        reduced = children.distinct()
    return reduced.sortWithinPartitions(F.col(POSITION).bitwiseXOR(F.lit(-(1 << 63))))


def _winnable_batches(codec: Codec, shared: Broadcast,
                      batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """A Python worker's share of the semi-join: the parents of each batch that reach `shared`."""
    for batch in batches:
        parents = positions_of(batch.column(0))
        kept = parents_reaching(codec, parents, shared.value).view(np.int64)
        yield pa.RecordBatch.from_arrays([pa.array(kept, type=pa.int64())], names=[POSITION])


def _expand_batches(codec: Codec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The map step, in a Python worker: a batch of parents in, their distinct children out.

    With path counts, each parent's count goes to every one of its children (a jump sequence to
    the parent plus one jump), and a child's counts are summed. Reducing within the batch is a free
    combiner: fewer rows go back through Arrow and the JVM's shuffle.
    """
    for batch in batches:
        parents = positions_of(batch.column(0))
        counted = batch.num_columns > 1
        paths = from_arrow(batch.column(1)) if counted else NO_PATHS
        keys, sums = expand_distinct(codec, parents, paths)
        columns = {POSITION: pa.array(keys.view(np.int64), type=pa.int64())}
        if counted:
            columns[PATHS] = to_arrow(sums)
        yield pa.RecordBatch.from_pydict(columns)


def _overflow(level: int, where: str) -> PathCountOverflow:
    """The error for a level whose path counts do not fit the decimal(38, 0) column."""
    return PathCountOverflow(f"level {level}: a path count exceeds {LIMIT:.3e}, the largest a"
                             f" level stores ({where})")


def _visit_probe(probe: str, token: str, index: int,
                 _rows: Iterator[int]) -> Iterator[tuple[int, str, bool, bool]]:
    """One probe task: can this executor read the driver's token and leave a file for the driver?"""
    folder = Path(probe)
    try:
        read = (folder / "driver").read_text() == token
    except OSError:
        read = False
    try:
        (folder / f"task-{index}").write_text(token)
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

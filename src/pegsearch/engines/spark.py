"""The Spark engine: one Spark job per level, the shared kernel in the map, deduplication in the JVM.

Per-row Python costs 0.2-0.7 M rows/s here, so positions cross into Python only as Arrow record
batches, each handed whole to `expand`; the shuffle and the dedup (`distinct`) stay on the JVM side.
Each level is read back from the run directory rather than kept as a DataFrame, so lineage is one
level long: a lost executor costs at most the current level, and the driver's commit and resume work
as for every other engine. One SparkSession serves the whole run, because starting one takes seconds.

Every way this can fail before real work starts (no Java, no master, no executors, executors that do
not share the run directory) is checked up front and reported as one line within a bounded time.
"""

from __future__ import annotations

import os
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
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.util import InheritableThread

from pegsearch.codec import Codec
from pegsearch.errors import UsageError
from pegsearch.expand import deduplicate, expand
from pegsearch.store import POSITION, Run

SCHEMA = f"{POSITION} long"
BATCH_ROWS = 1 << 18  # parents per Arrow batch: large enough that the kernel call cost vanishes
CONNECT_SECONDS = 5  # to open a TCP connection to a spark:// master
PROBE_SECONDS = 120  # for the cluster to run its first tasks (executors start, register, run)

# Used when this process starts the JVM itself (not under spark-submit): errors only, no banner.
# Spark's loggers are named so that Spark keeps this level rather than announce a shell WARN level.
QUIET_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
logger.spark.name = org.apache.spark
logger.spark.level = error
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
                   .config("spark.executorEnv.NUMBA_NUM_THREADS", "1"))
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
        return self

    def __exit__(self, *exc: object) -> None:
        if self.spark is not None:
            self.spark.stop()
            self.spark = None

    def next_level(self, run: Run, level: int, staging: Path) -> None:
        if run.count_paths:
            raise UsageError("the spark engine does not count paths yet")
        assert self.spark is not None, "next_level outside `with engine:`"
        self._check_shared(run.path.resolve())
        codec = run.codec()
        parents = self.spark.read.parquet(*[f.resolve().as_uri() for f in run.level_files(level)])
        children = parents.mapInArrow(partial(_expand_batches, codec), SCHEMA)
        level_set(children).write.mode("append").option("compression", "zstd").parquet(
            staging.resolve().as_uri())

    def _check_shared(self, folder: Path) -> None:
        """Show that executors read and write `folder` exactly where this driver does.

        Without this, executors on machines that do not share the folder would fail deep inside a
        job, or worse, commit their parts somewhere the driver never looks and leave a level empty.
        Running the probe also proves the cluster gives us executors at all, within PROBE_SECONDS.
        """
        if folder in self._shared:
            return
        spark_context = self.spark.sparkContext
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


def level_set(children: DataFrame) -> DataFrame:
    """The reduce step: each signature once, partitions disjoint (hashed) and each sorted as uint64.

    Bit 63 set means negative as int64 but largest as unsigned: those rows go last, then by value.
    """
    return children.distinct().sortWithinPartitions(F.col(POSITION) < 0, POSITION)


def _expand_batches(codec: Codec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The map step, in a Python worker: a batch of parents in, their distinct children out.

    Dropping repeats within the batch is a free combiner: fewer rows go back through Arrow.
    """
    for batch in batches:
        # A writable copy: numba compiles (and caches) a separate kernel for read-only arrays.
        parents = np.array(batch.column(0).to_numpy(), dtype=np.int64).view(np.uint64)
        children, _ = expand(codec, parents)
        distinct = deduplicate(children).view(np.int64)
        yield pa.RecordBatch.from_arrays([pa.array(distinct, type=pa.int64())], names=[POSITION])


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
    """Fail fast on a spark:// master nobody answers at; Spark itself retries for a minute or more."""
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
    return (message or type(exc).__name__).strip().splitlines()[0]

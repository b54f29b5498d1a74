"""Starting Spark for a run: checked up front, quiet, and the same whether this process starts the
JVM or spark-submit did.

Every way a start can fail before real work (no Java, a malformed master, a master nobody answers
at, a session that does not come up) is one line within a bounded time, and Spark's own logs stay
at errors so its Java stack traces never reach the terminal.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyspark
from pyspark import SparkConf, SparkContext

from pegsearch.engines import hadoop
from pegsearch.engines.jvm import check_java, log4j_file
from pegsearch.errors import InputError, UsageError

# The masters Spark accepts (SparkContext's and SparkSubmit's patterns), checked before its JVM starts.
MASTER_FORMS = re.compile(r"local(\[([1-9]\d*|\*)(\s*,\s*\d+)?\])?"
                          r"|local-cluster\[\s*[1-9]\d*\s*,\s*[1-9]\d*\s*,\s*[1-9]\d*\s*\]"
                          r"|yarn|spark://.+|k8s://.+")
CONNECT_SECONDS = 5  # to open a TCP connection to a spark:// master
YARN_PATIENCE = 15.0  # seconds a session's YARN application may wait unsaid, then between looks
STOP_PATIENCE = 60.0  # seconds a session on YARN may wait, stopping, for its master to know it


# Used when this process starts the JVM itself (not under spark-submit): nothing while the session
# starts (a failed start is a page of Java stack traces, and reaches the user as one line from the
# Python side), errors only once it has started (see log_level); no banner. Spark's loggers are
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


# The session a process keeps from one run to the next (see sessions_kept), with its master and
# YARN queue.
_kept: list[tuple[str, str | None, SparkContext]] = []
_keeping: list[bool] = []


@contextmanager
def sessions_kept() -> Iterator[None]:
    """Keep this process's Spark session from one run to the next within the block, as a
    service's Spark worker does (and the Spark tests, whose searches in one process share it): its
    JVM, its executors and their warm Python workers then serve every later search at once (a new
    session costs seconds: a JVM, executors, Python workers loading the kernel). The session kept
    is stopped as the block ends."""
    _keeping.append(True)
    try:
        yield
    finally:
        _keeping.pop()
        while _kept:
            _stop(_kept.pop()[2])


def release_shared_session() -> bool:
    """Stop the kept session if its master is a cluster others share (YARN, a standalone master,
    Kubernetes), as a service's Spark worker does once idle: kept, it held its YARN application
    master and executors between searches, and a queue whose limit for application masters it
    filled started nothing else (an mrjob search on the same server waited at level 1). The next
    search starts a session again, in seconds. Whether one was stopped."""
    if not _kept or _kept[0][0].startswith("local"):
        return False
    _, _, kept = _kept.pop()
    _stop(kept)
    return True


def start_session(master: str | None, queue: str | None = None) -> SparkContext:
    """One SparkContext for a whole run, on `master`; with none, the master given to spark-submit,
    or local[*] when this process starts Spark itself; on YARN, its application in `queue` (else
    the one YARN gives the user). A kept context on the same master (or any, when none is named)
    and queue is that context; another is stopped first (a process holds one SparkContext).

    A context, not a SparkSession: the engine's jobs are RDDs, and a session's SQL catalog cost
    every start some 4 s of loading classes on top of the context's 6 (AMD EPYC, local[2])."""
    if _kept:
        kept_master, kept_queue, kept = _kept[0]
        if master in (None, kept_master) and queue == kept_queue and kept._jsc is not None:
            return kept
        _kept.clear()
        _stop(kept)
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit already started the JVM
    if submitted:
        SparkContext._ensure_initialized()  # connected, SparkConf() reads what it was given
    else:
        check_java("the spark engine")
    master_given = master is not None
    master = master or (_submitted_master() if submitted else "local[*]")
    cluster = check_master(master)
    if queue is not None and master != "yarn":
        raise InputError("{queue} names a YARN queue: it applies to {master} yarn, not {given}",
                         given=master)
    hadoop.check_queue(cluster, queue)
    # Executors run the kernel, so they need this interpreter's packages; say otherwise with
    # PYSPARK_PYTHON (or spark.pyspark.python under spark-submit).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf = (SparkConf().setAppName("pegsearch")
            .set("spark.ui.showConsoleProgress", "false")
            # Spark already runs one task per core: the kernel must not add threads.
            .set("spark.executorEnv.NUMBA_NUM_THREADS", "1")
            # A Python worker imports the kernel and loads it from numba's cache once (about
            # a second); reused workers pay that once per run instead of once per task.
            .set("spark.python.worker.reuse", "true")
            # Its daemon forks them with numba started (engines.spark.daemon): about a second
            # less a worker. One given to spark-submit stays (its JVM's settings are read here).
            .setIfMissing("spark.python.daemon.module", "pegsearch.engines.spark.daemon"))
    # Executors open the run's store themselves: they get the driver's S3 settings and GCS
    # emulator (a cluster with instance roles or its own credentials needs none of them).
    for name, value in os.environ.items():
        if name.startswith("AWS_") or name == "STORAGE_EMULATOR_HOST":
            conf.set(f"spark.executorEnv.{name}", value)
    if master_given or not submitted:
        conf.setMaster(master)
    if queue is not None:
        conf.set("spark.yarn.queue", queue)
    if master == "yarn" and hadoop.on_this_machine(cluster):
        _on_local_yarn(conf)
    logs = Path(tempfile.mkdtemp(prefix="pegsearch-spark-"))
    if not submitted:  # the JVM starts with this context: give it quiet logs
        # The driver's JVM only schedules and moves blocks (the kernel runs in Python), so its
        # optimising compiler would cost start-up and never pay back, on a cluster's master too.
        options = (f"-Dlog4j2.configurationFile={log4j_file(logs, QUIET_LOG4J2)}"
                   " -XX:TieredStopAtLevel=1")
        # Java reads no KRB5_CONFIG (MIT's tools and hdfs-native do): the realm it names is passed on.
        if os.environ.get("KRB5_CONFIG"):
            options += f" -Djava.security.krb5.conf={os.environ['KRB5_CONFIG']}"
        if master.startswith("local"):  # nor is anyone there to open the web UI
            conf.set("spark.ui.enabled", "false")
        conf.set("spark.driver.extraJavaOptions", options)
    try:
        context = _made_off_the_main_thread(conf, cluster if master == "yarn" else None)
    except Exception as exc:
        said = _first_line(exc)
        raise UsageError(hadoop.queue_refusal(said) or f"Spark did not start: {said}") from None
    finally:
        shutil.rmtree(logs, ignore_errors=True)  # log4j read it as the JVM started
    if not submitted:
        log_level(context, "ERROR")  # now that the context is up (see QUIET_LOG4J2)
    if _keeping:
        _kept.append((master, queue, context))
    return context


def _made_off_the_main_thread(conf: SparkConf, yarn: dict[str, str] | None) -> SparkContext:
    """`SparkContext.getOrCreate(conf)` on a thread of its own, the main thread waiting for it; on YARN
    (`yarn`: its settings), saying so when the session's application waits to be run (it waited
    250 s without a word behind a service's application master that filled the queue's share).

    A SparkContext made on the main thread puts in a SIGINT handler of its own, which cancels jobs
    through py4j and raises a bare KeyboardInterrupt. A Ctrl-C in the seconds the session is still
    being made then lands inside a py4j call, the handler's own call fails ("reentrant call"), and
    py4j's tracebacks came out before the search's one line. Made elsewhere, the context puts in no
    handler: pegsearch's stays, and raises `Interrupted` where the main thread waits."""
    made: list[SparkContext] = []
    failed: list[Exception] = []

    def make() -> None:
        try:
            made.append(SparkContext.getOrCreate(conf))
        except Exception as exc:  # raised again on the main thread
            failed.append(exc)

    maker = threading.Thread(target=make, name="pegsearch-spark-start", daemon=True)
    maker.start()
    said = None
    while yarn is not None and maker.is_alive():
        maker.join(YARN_PATIENCE)
        note = hadoop.waiting_application(yarn, "pegsearch") if maker.is_alive() else None
        if note is not None and note != said:
            print(f"pegsearch: {note}", file=sys.stderr)
            said = note
    maker.join()
    if failed:
        raise failed[0]
    return made[0]


def stop_session(context: SparkContext, failed: bool) -> None:
    """Stop the context (unless this process keeps it); after a failure, quietly: the tasks it
    cuts short would each log a stack trace about a failure that is ours, not news."""
    if any(context is kept for _, _, kept in _kept):
        return
    if failed:
        log_level(context, "OFF")
        context.stop()
    else:
        _stop(context)


def _stop(context: SparkContext) -> None:
    """Stop a session that ended well; on YARN, once its application master has told the driver
    where it is, which it does just before it asks for executors. A master that had not yet (a
    search answered in the driver, stopped 3 s after its master registered) heard nothing of the
    stop: it went on starting executors that could not reach the driver, failed when four had,
    and YARN's second attempt failed too, so YARN listed a search that succeeded as FAILED. An
    executor registered, ever, says the master is told; one is waited for, at most STOP_PATIENCE s.
    (Ever: a session whose executors have all gone since, idle under dynamic allocation, is told.)"""
    if context.master == "yarn":
        status = context._jsc.sc().statusStore()
        deadline = time.monotonic() + STOP_PATIENCE
        # Every executor the session has had, the driver's own entry among them.
        while status.executorList(False).size() < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
    context.stop()


def log_level(context: SparkContext, level: str) -> None:
    """Set the level of every logger of the driver's JVM (log4j's level names: ERROR, OFF)."""
    jvm = context._jvm
    jvm.org.apache.logging.log4j.core.config.Configurator.setAllLevels(
        "", jvm.org.apache.logging.log4j.Level.getLevel(level))


def _on_local_yarn(conf: SparkConf) -> None:
    """Settings for a YARN cluster on this machine (cluster/hadoop/up): its containers read Spark's
    jars where pip put them rather than from a copy uploaded to HDFS for every session (about
    400 MB), and reach the driver on the loopback address. The driver's web UI is off: an
    application master that registered after waiting in a full queue had its proxy's filter
    (`AddWebUIFilter`) refused by the UI's handlers, and the session ended ("No filter named
    org.apache.spark.deploy.yarn.AmIpFilter"); YARN's own pages still show the application."""
    jars = Path(pyspark.__file__).parent / "jars"
    (conf.set("spark.yarn.jars", f"local:{jars}/*")
     .set("spark.driver.host", "127.0.0.1")
     .set("spark.driver.bindAddress", "127.0.0.1")
     .set("spark.ui.enabled", "false"))


def check_master(master: str) -> dict[str, str]:
    """Refuse a master Spark would refuse, before the JVM starts: spark-submit prints a Java stack
    trace for a malformed one, and retries a spark:// master nobody answers at for a minute or more
    (a YARN ResourceManager for 15). Return the YARN cluster's settings for `yarn` (else none)."""
    if not MASTER_FORMS.fullmatch(master):
        raise InputError("{master} {given}: not a Spark master; use local[N], spark://HOST:PORT,"
                         " yarn or k8s://HOST:PORT (N at least 1)", given=master)
    if master == "yarn":
        return hadoop.check_yarn("--master yarn")
    if not master.startswith("spark://"):
        return {}
    for address in master.removeprefix("spark://").split(","):  # several masters = HA standby
        host, _, port = address.rpartition(":")
        try:
            socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
            return {}
        except (OSError, ValueError):
            continue
    raise UsageError(f"no Spark master answers at {master}: start a cluster"
                     " (cluster/spark-cluster.sh start 2) or use --master local[2]")


def _submitted_master() -> str:
    """The master spark-submit was given, read from the JVM it started (connected to already)."""
    return SparkConf().get("spark.master", "local[*]")


def _first_line(exc: Exception) -> str:
    """The Java message of a Spark failure without its stack trace (or the Python message)."""
    java = getattr(exc, "java_exception", None)
    message = java.getMessage() if java is not None else str(exc)
    # A Java exception without a message is named by its class (a bare "Py4JJavaError" said nothing).
    named = java.getClass().getName() if java is not None else type(exc).__name__
    first = (message or named).strip().splitlines()[0]
    root = java
    while root is not None and root.getCause() is not None:
        root = root.getCause()
    if root is None or root is java or not root.getMessage():
        return first
    return f"{first} ({root.getMessage().strip().splitlines()[0]})"  # the vague top, the real cause

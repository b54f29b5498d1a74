"""The probe before a cluster's first level: can every executor read and write the run's store?

Executors open the run's store themselves, so one on a machine that cannot reach it (another mount,
no credentials) would fail deep inside a job, or write its parts where the driver never looks.
"""

from __future__ import annotations

import contextlib
import socket
import uuid
from collections.abc import Iterator
from functools import partial

from pyspark import SparkContext
from pyspark.util import InheritableThread

from pegsearch.engines.spark.session import CONNECT_SECONDS
from pegsearch.errors import UsageError
from pegsearch.store import Location

PROBE_SECONDS = 120  # for the cluster to run its first tasks (executors start, register, run)


def check_store(spark_context: SparkContext, location: Location) -> None:
    """Show that executors read and write the run's store exactly where this driver does.

    Without this, executors on machines that cannot reach it (another mount, no credentials)
    would fail deep inside a job, or worse, write their parts somewhere the driver never
    looks. Running the probe also proves the cluster gives us executors at all, within
    PROBE_SECONDS. It runs once per run, before the first level.
    """
    local_run = location.local is not None and spark_context.master.startswith("local")
    if local_run:
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


def _visit_probe(probe: str, token: str, index: int,
                 _rows: Iterator[int]) -> Iterator[tuple[int, str, bool, bool]]:
    """One probe task: can this executor read the driver's token and leave a file for the driver?
    Each attempt writes a file of its own: a speculative copy of a slow task (`spark.speculation`)
    writing the same name found it held by the first attempt on HDFS, and the copy's answer, the
    one Spark kept, said the store could not be written."""
    folder = Location.parse(probe)
    try:
        read = folder.read("driver") == token.encode()
    except OSError:
        read = False
    try:
        folder.write(f"task-{index}-{uuid.uuid4().hex}", token.encode())
        wrote = True
    except OSError:
        wrote = False
    yield index, socket.gethostname(), read, wrote

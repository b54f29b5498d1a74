"""The mrjob engine: each level is one run of `level_job.LevelJob`, on any mrjob runner.

mrjob is the classic way to take a Python MapReduce job from a laptop (inline, local runners) to
Spark, Hadoop streaming, EMR or Dataproc without changing the job. The engine moves positions (and
their values) between the run's store and the job, a slice at a time both ways, so the driver's
memory is bounded whatever the level's size: it streams level k out as decimal text lines, runs the
job, and streams its output back into sorted Parquet parts of level k + 1 like every other engine's,
so any engine can continue or read the run.

A runner that cannot work here (no `hadoop` command, no cloud credentials, no spark-submit) is
refused when the engine is built, before the run directory is touched; a level whose job fails
raises, and the driver leaves the run resumable.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from subprocess import CalledProcessError
from urllib.parse import urlparse

import numpy as np

import pegsearch.engines.mrjob.compat  # noqa: F401  (before mrjob, which needs `pipes`, gone in Python 3.13)

# isort: split
from mrjob.conf import find_mrjob_conf, load_opts_from_mrjob_confs
from mrjob.fs.hadoop import HadoopFilesystem
from mrjob.step import StepFailedException

from pegsearch.engines import LevelProgress, hadoop, no_progress
from pegsearch.engines.jvm import check_java, log4j_file
from pegsearch.engines.mrjob.level_job import BATCH_SIZE, LevelJob, values_as_text, values_from_text
from pegsearch.errors import InputError, UsageError
from pegsearch.kernel.reduce import distinct
from pegsearch.store import NO_VALUES, Carry, LevelWriter, Location, Run, level_name

RUNNERS = ("inline", "local", "spark", "hadoop", "emr", "dataproc")
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
# Where mrjob's setup wrapper script (mrjob.bin, _setup_cmd_content) puts a lock file per job:
# "/tmp/wrapper.lock.<job key>", the folder written into the script, whatever TMPDIR says.
WRAPPER_LOCKS = Path("/tmp")
TEXT_SLICE = 1 << 20  # positions converted to text at a time
# Each line `hadoop jar` prints, as mrjob logs it: where the job's YARN application is named.
HADOOP_OUTPUT = logging.getLogger("mrjob.logs.step")
# Where mrjob warns that a failed job's logs and counters cannot be found: noise after YARN refused
# the job's queue (no job ran), which is said in one line instead.
JOB_LOGS = logging.getLogger("mrjob.logs.mixin")
# A Hadoop job's settings unless mrjob.conf's jobconf gives them. A task killed (a node lost, the
# OOM killer) is tried again, up to 4 times, as Hadoop's defaults say; but a small job that runs
# inside its application master (uber mode, which a cluster may switch on) has one attempt per
# task, so a killed task would fail the level: pegsearch's jobs are never uber jobs.
HADOOP_JOB = {"mapreduce.job.ubertask.enable": "false", "mapreduce.map.maxattempts": 4,
              "mapreduce.reduce.maxattempts": 4}
# Spark's default logging, warnings only, without the native-Hadoop notice every spark-submit prints.
# The layout is Spark's default, which mrjob parses to find a failed step's error.
SPARK_LOG4J = """\
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.nativecode.name = org.apache.hadoop.util.NativeCodeLoader
logger.nativecode.level = error
"""


class MRJobEngine:
    """Runs one MRJob per level on the chosen mrjob runner (default: inline, in this process)."""

    name = "mrjob"

    def __init__(self, runner: str = "inline", mrjob_conf: Path | None = None,
                 master: str | None = None, batch_size: int = BATCH_SIZE,
                 queue: str | None = None) -> None:
        """`batch_size` is how many positions a mapper expands per kernel call; 1 (a call per
        position) exists to measure what batching is worth. `queue` is the YARN queue of the
        hadoop runner's jobs (mapreduce.job.queuename), over what mrjob.conf's jobconf says."""
        if runner not in RUNNERS:
            raise UsageError(f"unknown mrjob runner '{runner}': use one of {', '.join(RUNNERS)}")
        if master is not None and runner != "spark":
            raise InputError("{master} does not apply to the mrjob {given} runner; it sets the Spark"
                             " master of {runner} spark", given=runner)
        if queue is not None and runner != "hadoop":
            raise InputError("{queue} does not apply to the mrjob {given} runner; it names the YARN"
                             " queue of {runner} hadoop's jobs", given=runner)
        if mrjob_conf is not None and not Path(mrjob_conf).is_file():
            raise UsageError(f"{mrjob_conf}: no such mrjob.conf file")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise InputError("{batch_size} {given}: give a whole number of positions, at least 1",
                             given=batch_size)
        self.runner = runner
        self.mrjob_conf = mrjob_conf
        self.master = master
        self.conf_path = mrjob_conf or find_mrjob_conf()
        self.conf = _conf_options(runner, self.conf_path)
        self.cluster = _check_available(runner, self.conf)
        hadoop.check_queue(self.cluster, queue)
        self.queue = queue
        self.nodes = hadoop.NodeWatch(self.cluster)  # a node lost is said (engines.hadoop)
        self.batch_size = batch_size
        self.work: Path | None = None

    def __enter__(self) -> MRJobEngine:
        self.work = Path(tempfile.mkdtemp(prefix="pegsearch-mrjob-"))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.work is not None:
            # The local runner's task wrapper takes a lock file per job in /tmp and never removes
            # it (about twenty a run); the jobs are labelled with the work folder's unique name.
            for lock in WRAPPER_LOCKS.glob(f"wrapper.lock.{self.work.name}.*"):
                lock.unlink(missing_ok=True)
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None

    def options(self) -> dict:
        return {"runner": self.runner,
                "mrjob_conf": str(self.mrjob_conf) if self.mrjob_conf else None,
                "master": self.master, "batch_size": self.batch_size, "queue": self.queue}

    def check_location(self, location: Location) -> None:
        return None  # levels pass through this process on their way to and from the job

    def next_level(self, run: Run, level: int, writer: LevelWriter,
                   report: LevelProgress = no_progress) -> None:
        assert self.work is not None, "next_level is called inside `with engine`"
        writer.whole()  # one job a level: another engine's committed passes are not added to
        folder = self.work / level_name(level + 1)
        try:
            inputs = folder / "input"
            inputs.mkdir(parents=True)
            _write_lines(run, level, inputs)
            search = folder / "search.json"
            search.write_text(json.dumps({"board": run.board.definition(),
                                          "group": run.spec.signing}), encoding="utf-8")
            name = f"pegsearch {run.board.name} level {level + 1}"
            job = LevelJob(args=self._job_args(search, inputs, folder, run.carry, name))
            with job.make_runner() as runner, \
                    hadoop.submitted_applications(HADOOP_OUTPUT) as submitted, \
                    _quiet_once_refused(submitted), \
                    self.nodes.during(level + 1, writer.notes, submitted):
                if self.runner == "hadoop" and not runner.get_hadoop_streaming_jar():
                    raise UsageError("no Hadoop streaming jar found where mrjob looks (below"
                                     " HADOOP_HOME and the folder of the `hadoop` command): name"
                                     " it with hadoop_streaming_jar in mrjob.conf, or set"
                                     " HADOOP_HOME to the Hadoop distribution")
                try:
                    runner.run()
                except KeyboardInterrupt:  # Ctrl-C, SIGTERM, a service's cancel: end the job too
                    if self.runner == "hadoop":
                        hadoop.kill_applications(submitted.ids, _hadoop_bin(self.conf))
                    raise
                _store_lines(job.parse_output(runner.cat_output()), writer, run.carry)
        except StepFailedException as exc:
            if submitted.refusal:  # YARN would not take the job into its queue
                raise UsageError(f"level {level + 1}: {submitted.refusal}") from None
            raise UsageError(f"level {level + 1} failed on the mrjob {self.runner} runner"
                             f" ({self._failure(submitted.ids)}); the levels before it are kept:"
                             " continue with --resume") from exc
        except CalledProcessError as exc:  # a `hadoop fs` command of mrjob's: HDFS refused it
            command = " ".join(map(str, exc.cmd[:3])) if isinstance(exc.cmd, list) else exc.cmd
            raise UsageError(f"level {level + 1} failed on the mrjob {self.runner} runner: `{command}`"
                             f" exited with status {exc.returncode} (its error is above); the levels"
                             " before it are kept: continue with --resume") from None
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        parents = run.levels[level]["states"]
        report(parents, parents)  # a job reports nothing on its way

    def _failure(self, applications: list[str]) -> str:
        """Where a failed level's error is: above, as mrjob printed it; on YARN, the task's own
        stderr, which YARN keeps and this prints first, and where the application's logs are."""
        if self.runner != "hadoop" or not applications:
            return "the task's error is above"
        error = hadoop.task_error(applications[-1], _hadoop_bin(self.conf))
        if error:
            print(error, file=sys.stderr)
        return (("the task's error is above; " if error else "")
                + f"its logs: yarn logs -applicationId {applications[-1]}")

    def _job_args(self, search: Path, inputs: Path, folder: Path, carry: Carry, name: str
                  ) -> list[str]:
        """The job's command line: runner, board file, what positions carry, input folder,
        where Spark keeps files and the settings a Hadoop job is given unless mrjob.conf's
        `jobconf` says otherwise."""
        assert self.work is not None
        args = ["--runner", self.runner, "--label", self.work.name, "--search", str(search),
                "--batch-size", str(self.batch_size), "--carry", carry.name.lower(), str(inputs)]
        args += ["--conf-path", str(self.conf_path)] if self.conf else ["--no-conf"]
        if self.runner == "spark":
            master = self.master or self.conf.get("spark_master") or "local[*]"
            if self.master:
                args += ["--spark-master", self.master]
            if _on_this_machine(master):
                # No HDFS here: Spark keeps the job's files on local disk. Spark's Python (driver
                # and workers) must be this one, which has pegsearch; mrjob would pick `python3`.
                if not self.conf.get("spark_tmp_dir"):
                    args += ["--spark-tmp-dir", str(folder / "spark")]
                if not self.conf.get("python_bin"):
                    args += ["--python-bin", sys.executable]
                args += _local_spark(folder)
        if self.runner == "hadoop" and hadoop.on_this_machine(self.cluster) \
                and not self.conf.get("python_bin"):
            # YARN's tasks run on this machine: this Python, which has pegsearch and mrjob, so
            # mrjob need not upload a copy of itself with every job.
            args += ["--python-bin", sys.executable, "--no-bootstrap-mrjob"]
        if self.runner == "hadoop" and not self.conf.get("hadoop_tmp_dir"):
            # The job's files go to the HDFS user's home, as every Hadoop client's: mrjob's own
            # default takes the login name, not HADOOP_USER_NAME's user, and was refused there.
            args += ["--hadoop-tmp-dir", f"hdfs:///user/{hadoop.yarn_user()}/tmp/mrjob"]
        if self.runner == "hadoop":
            given = self.conf.get("jobconf") or {}
            args += [arg for key, value in {**HADOOP_JOB, "mapreduce.job.name": name}.items()
                     if key not in given for arg in ("-D", f"{key}={value}")]
            if self.queue is not None:  # the command line's choice wins over mrjob.conf's
                args += ["-D", f"mapreduce.job.queuename={self.queue}"]
        return args


@contextmanager
def _quiet_once_refused(submitted: hadoop.SubmittedApplications) -> Iterator[None]:
    """mrjob's warnings about a failed job's logs dropped while the block runs, once YARN has
    refused the job's queue."""
    def unrefused(_record: logging.LogRecord) -> bool:
        return submitted.refusal is None

    JOB_LOGS.addFilter(unrefused)
    try:
        yield
    finally:
        JOB_LOGS.removeFilter(unrefused)


def _local_spark(folder: Path) -> list[str]:
    """Job arguments for a Spark on this machine: four warnings per level fewer, and a driver that
    starts as the Spark engine's does (engines.spark.session).

    Binding to 127.0.0.1 silences "hostname resolves to a loopback address" (a remote cluster's
    driver must stay reachable, so this is for masters on this machine only); a log4j2 file of our
    own silences the native-Hadoop notice and Spark's "Using Spark's default log4j profile". The
    driver's JVM (the executor too, on a local master) only schedules and moves lines, so its
    optimising compiler costs start-up and never pays back, and no one opens its web UI: a level
    of triangle-5 took 24 CPU-s of spark-submit with both, 14 without.
    """
    return ["--cmdenv", "SPARK_LOCAL_IP=127.0.0.1",
            "--spark-args", shlex.join(["--conf", "spark.ui.enabled=false",
                                        "--driver-java-options", "-Dlog4j2.configurationFile="
                                        + log4j_file(folder, SPARK_LOG4J)
                                        + " -XX:TieredStopAtLevel=1"])]


def _write_lines(run: Run, level: int, folder: Path) -> None:
    """A level as text files of decimal lines, one per slice: what Hadoop streaming splits by line.

    A line is `position`, or `position<TAB>value` when the run carries values (see level_job).
    Streamed a slice at a time from the store, so the text of a large level never sits in memory
    whole.
    """
    slices = run.iter_level(level, TEXT_SLICE, with_values=True)
    for index, (positions, values) in enumerate(slices):
        keys = positions.tolist()
        with open(folder / f"part-{index:05d}.txt", "w", encoding="ascii") as handle:
            if not run.carry:
                handle.write("".join(f"{key}\n" for key in keys))
            else:
                texts = values_as_text(run.carry, values)
                handle.write("".join(f"{key}\t{text}\n"
                                     for key, text in zip(keys, texts, strict=True)))


def _store_lines(lines: Iterator[tuple[str, str | None]], writer: LevelWriter,
                 carry: Carry) -> None:
    """The job's output lines as part files of the next level, a slice at a time.

    The reducers' lines are distinct across the whole output (each key reaches one reducer), so
    every slice, sorted, is a part disjoint from the others. Only one slice is ever held as Python
    strings. mrjob's `parse_output` leaves each line's newline on its last field.
    """
    index = 0
    while chunk := list(islice(lines, TEXT_SLICE)):
        keys, texts = zip(*chunk, strict=True)
        positions = np.array([int(key) for key in keys], dtype=np.uint64)
        values = values_from_text(carry, list(texts)) if carry else NO_VALUES
        positions, values = distinct(positions, values, carry)  # sorted, as a part must be
        writer.write(index, positions, values)
        index += 1


def _drop_messages(logger: str, start: str) -> None:
    """Drop the messages of mrjob's `logger` that begin with `start`."""
    logging.getLogger(logger).addFilter(lambda record: not record.getMessage().startswith(start))


# mrjob's "No configs specified for ... runner" would repeat at every level: a runner without
# options in mrjob.conf (inline, usually) is normal here.
_drop_messages("mrjob.conf", "No configs specified")
# "Hadoop streaming jar not found. Use --hadoop-streaming-jar" names an option pegsearch does not
# have: pegsearch refuses the run in a line of its own that says where to name the jar.
_drop_messages("mrjob.hadoop", "Hadoop streaming jar not found")


def _on_this_machine(master: str) -> bool:
    return master.startswith("local") or urlparse(master).hostname in LOCAL_HOSTS


def _conf_options(runner: str, conf_path: Path | str | None) -> dict:
    """The options an mrjob.conf file (and the files it includes) gives this runner."""
    if conf_path is None:
        return {}
    try:
        found = load_opts_from_mrjob_confs(runner, [str(conf_path)])
    except Exception as exc:  # a YAML or JSON syntax error, reported by whichever parser mrjob uses
        message = f"{conf_path}: not a readable mrjob.conf ({exc})".replace("\n", " ")
        raise UsageError(message) from None
    options: dict = {}
    for _, opts in found:
        options.update(opts or {})
    return options


def _check_available(runner: str, conf: dict) -> dict[str, str]:
    """Refuse a runner this machine cannot use, in one line, before any level is computed; the
    hadoop runner's cluster settings are returned (none for the other runners)."""
    if runner == "spark":
        spark_submit = (conf.get("spark_submit_bin") or os.environ.get("SPARK_HOME")
                        or _importable("pyspark") or shutil.which("spark-submit"))
        if not spark_submit:
            raise UsageError("the mrjob spark runner needs spark-submit: pip install"
                             " 'pegsearch[spark]' or set SPARK_HOME")
        check_java("the mrjob spark runner")
    elif runner == "hadoop":
        if not shutil.which(_hadoop_bin(conf)):
            raise UsageError("the mrjob hadoop runner needs the `hadoop` command, which is not on"
                             " PATH nor under $HADOOP_HOME/bin: run on a Hadoop node, start one"
                             " (cluster/hadoop/up DIR) or use --runner inline, local or spark")
        return hadoop.check_yarn("the mrjob hadoop runner")
    elif runner == "emr":
        _check_emr(conf)
    elif runner == "dataproc":
        _check_dataproc()
    return {}


def _hadoop_bin(conf: dict) -> str:
    """The `hadoop` command mrjob's hadoop runner calls: mrjob.conf's `hadoop_bin`, or the one it
    finds on PATH or under $HADOOP_HOME."""
    configured = conf.get("hadoop_bin")
    if isinstance(configured, str):
        configured = shlex.split(configured)
    return HadoopFilesystem(configured or None).get_hadoop_bin()[0]


def _check_emr(conf: dict) -> None:
    if not _importable("boto3"):
        raise UsageError("the mrjob emr runner needs boto3: pip install boto3 (see"
                         " cluster/mrjob.md)")
    import boto3

    if not conf.get("aws_access_key_id") and boto3.Session().get_credentials() is None:
        raise UsageError("the mrjob emr runner found no AWS credentials (aws configure, AWS_*"
                         " variables or aws_access_key_id in mrjob.conf; see cluster/mrjob.md)")


def _check_dataproc() -> None:
    if not _importable("google.cloud.dataproc_v1"):
        raise UsageError("the mrjob dataproc runner needs google-cloud-dataproc: pip install"
                         " google-cloud-dataproc google-cloud-logging google-cloud-storage (see"
                         " cluster/mrjob.md)")
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        google.auth.default()
    except DefaultCredentialsError:
        raise UsageError("the mrjob dataproc runner found no Google Cloud credentials (gcloud auth"
                         " application-default login; see cluster/mrjob.md)") from None


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False

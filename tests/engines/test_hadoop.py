"""Hadoop for real: mrjob's hadoop runner on YARN, Spark on YARN and runs on HDFS, against Apache
Hadoop 3.5's own single-machine cluster (cluster/hadoop/up: HDFS and YARN on 127.0.0.1, its jars from
Maven Central), compared with the local engine level by level, digest for digest; and the one-line
refusals of a cluster that is missing, down or forbids the path, which need no cluster.

Each level's job is Apache's own Hadoop Streaming (hadoop-streaming 3.4.2 from Maven Central, the
newest it serves), which mrjob's real hadoop runner submits to YARN with `hadoop jar`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pegsearch as pegsearch_package
from tests.helpers import pegsearch, pegsearch_process
from tests.helpers.cluster import wait_until
from tests.helpers.hadoop_cluster import (
    HADOOP_BIN,
    ROOT,
    UP,
    running_tasks,
    yarn_applications,
    yarn_diagnostics,
)
from tests.helpers.serving import Server, free_ports
from tests.helpers.streaming_probe import StreamingProbe

TRIANGLE_5 = [1, 1, 4, 19, 62, 149, 268, 344, 317, 215, 112, 39, 10, 3]  # its levels' states
LEVEL_JOB = "pegsearch triangle-5 level "  # how YARN names a level's job
ENDED = ("FINISHED", "FAILED", "KILLED")  # YARN's states of an application that has ended


@pytest.fixture(scope="module")
def local_triangle_5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """triangle-5 searched whole by the local engine: what every Hadoop run is compared with."""
    out = tmp_path_factory.mktemp("local") / "triangle-5"
    assert pegsearch_process("run", "triangle-5", "--out", str(out)).returncode == 0
    return out


def assert_identical(run: str, local: Path, env: dict[str, str]) -> None:
    """`verify RUN --against LOCAL`: every level equal, digest for digest."""
    compared = pegsearch_process("verify", run, "--against", str(local), env=env)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "identical: all 14 levels equal" in compared.stdout, compared.stdout


def leaf(queue: str) -> str:
    """A queue as the user names it: YARN may report its path (root.other) instead."""
    return queue.rpartition(".")[2]


def one_line_refusal(result: subprocess.CompletedProcess, says: str) -> None:
    assert result.returncode == 2, result.stderr
    assert says in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


# ----- refusals, no cluster needed

@pytest.fixture
def nobody_home(tmp_path: Path) -> dict[str, str]:
    """A Hadoop configuration whose ResourceManager and NameNode nobody answers at, with the
    `hadoop` command on PATH (it is never run: the cluster is checked first)."""
    conf = tmp_path / "conf"
    conf.mkdir()
    rm, nn = free_ports(2)
    (conf / "core-site.xml").write_text(
        f"<configuration><property><name>fs.defaultFS</name><value>hdfs://127.0.0.1:{nn}</value>"
        "</property></configuration>")
    (conf / "yarn-site.xml").write_text(
        "<configuration><property><name>yarn.resourcemanager.address</name>"
        f"<value>127.0.0.1:{rm}</value></property></configuration>")
    return {"HADOOP_CONF_DIR": str(conf), "PATH": f"{HADOOP_BIN}{os.pathsep}{os.environ['PATH']}",
            "RM": f"127.0.0.1:{rm}", "NN": f"hdfs://127.0.0.1:{nn}"}


@pytest.mark.parametrize("engine", [("mrjob", "--runner", "hadoop"), ("spark", "--master", "yarn")])
def test_a_resource_manager_nobody_answers_at_is_one_line(engine: tuple[str, ...],
                                                          nobody_home: dict[str, str],
                                                          tmp_path: Path) -> None:
    out = tmp_path / "run"
    began = time.monotonic()
    refused = pegsearch_process("run", "triangle-4", "--engine", *engine, "--out", str(out), env=nobody_home)
    one_line_refusal(refused, f"no YARN ResourceManager answers at {nobody_home['RM']}")
    assert time.monotonic() - began < 30
    assert not out.exists(), "nothing written before the cluster is known to answer"


def test_a_namenode_nobody_answers_at_is_one_line_for_every_command(nobody_home: dict[str, str]
                                                                    ) -> None:
    where = f"{nobody_home['NN']}/runs/x"
    for command in (("run", "triangle-4", "--out", where), ("counts", where), ("verify", where)):
        began = time.monotonic()
        refused = pegsearch_process(*command, env=nobody_home)
        one_line_refusal(refused, "no NameNode answers at")
        assert time.monotonic() - began < 30, command


def test_hadoop_fs_with_no_namenode_fails_in_seconds(nobody_home: dict[str, str]) -> None:
    """bin/hadoop's `fs` (fs.py, what mrjob calls) waited 183 s on a NameNode that is down, where
    Hadoop's own FsShell fails in about a second (issue 62, item 8)."""
    began = time.monotonic()
    listed = subprocess.run(["hadoop", "fs", "-ls", "/"], capture_output=True, text=True, timeout=120,
                            env={**os.environ, **nobody_home, "PEGSEARCH_PYTHON": sys.executable})
    assert listed.returncode != 0 and time.monotonic() - began < 30
    assert f"no NameNode answers at {nobody_home['NN'].removeprefix('hdfs://')}" in listed.stderr


@pytest.mark.parametrize(("uri", "says"), [
    ("hdfs://127.0.0.1:abc/runs/x", "the NameNode's port is not a number"),
    ("hdfs://127.0.0.1:8020/", "name a folder on the filesystem"),
])
def test_a_malformed_hdfs_uri_is_one_line(uri: str, says: str) -> None:
    one_line_refusal(pegsearch_process("counts", uri), says)


@pytest.mark.parametrize("uri", ["hdfs:/runs/x", "HDFS:runs/x", "s3:/bucket/x", "file:/tmp/x"])
def test_a_uri_with_one_slash_is_refused_not_made_a_local_folder(uri: str, tmp_path: Path) -> None:
    """`--out hdfs:/runs/x` once wrote a local folder ./hdfs:/runs/x and exited 0."""
    refused = pegsearch("run", "triangle-4", "--out", uri, cwd=tmp_path)
    one_line_refusal(refused, "a URI needs two slashes after")
    assert not list(tmp_path.iterdir()), "nothing is made"


def test_the_hadoop_runner_without_a_cluster_configuration_is_one_line(tmp_path: Path) -> None:
    env = {"PATH": f"{HADOOP_BIN}{os.pathsep}{os.environ['PATH']}", "HADOOP_CONF_DIR": "",
           "YARN_CONF_DIR": "", "HADOOP_HOME": ""}
    refused = pegsearch_process("run", "triangle-4", "--engine", "mrjob", "--runner", "hadoop",
                                "--out", str(tmp_path / "run"), env=env)
    one_line_refusal(refused, "needs a Hadoop cluster's configuration")


# ----- on the cluster

@pytest.mark.slow
def test_mrjob_hadoop_runner_on_yarn_equals_the_local_engine(hadoop: dict[str, str],
                                                             local_triangle_5: Path) -> None:
    """Levels 1-2 each a streaming job on YARN (the run on HDFS), the rest resumed by the local
    engine: the whole run identical to the local engine's, and YARN ran the jobs."""
    run = f"{hadoop['PEGSEARCH_HDFS']}/runs/mrjob-yarn"
    before = succeeded_jobs(hadoop)
    made = pegsearch_process("run", "triangle-5", "--engine", "mrjob", "--runner", "hadoop", "--until", "2",
                             "--out", run, env=hadoop, timeout=1500)
    assert made.returncode == 0, made.stderr[-3000:]
    assert succeeded_jobs(hadoop) - before == 2, "one streaming job on YARN a level"
    # a job naming no queue goes where the cluster's mapping sends it (cluster/hadoop/queues.py)
    assert {leaf(app[4]) for app in yarn_applications(hadoop) if app[1].startswith(LEVEL_JOB)} \
        == {"other"}
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=hadoop)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, hadoop)


@pytest.mark.slow
def test_a_run_in_a_full_queue_says_it_waits_and_lands_in_its_queue(
        hadoop: dict[str, str], local_triangle_5: Path) -> None:
    """`--queue search` while another job holds that queue's share for application masters: the
    level's job waits ACCEPTED, the run says so in a line naming the queue and YARN's reason, then
    runs in queue `search` once the other is ended (as soon as the wait is said: a holder of a
    fixed length cost a minute); resumed by the local engine, identical."""
    holder = hold_queue(hadoop, "search", seconds=600)
    try:
        run = f"{hadoop['PEGSEARCH_HDFS']}/runs/queue-search"
        searching = subprocess.Popen(
            [sys.executable, "-m", "pegsearch", "run", "triangle-5", "--engine", "mrjob", "--runner",
             "hadoop", "--queue", "search", "--until", "1", "--out", run], env=hadoop,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        said = []
        for line in searching.stderr:  # up to the line saying it waits, or its end
            said.append(line)
            if "waiting for YARN" in line:
                break
        end_application(hadoop, "holding search")
        said.append(searching.communicate(timeout=900)[1])
    finally:
        holder.kill()
        holder.wait()
    errors = "".join(said)
    assert searching.returncode == 0, errors[-3000:]
    waiting = [line for line in errors.splitlines() if "waiting for YARN" in line]
    assert waiting and waiting[0].startswith("pegsearch: level 1: waiting for YARN: application_"), \
        errors
    assert re.search(r"is ACCEPTED in queue (root\.)?search, .* of its share", waiting[0]), waiting[0]
    waited = re.search(r"application_\d+_\d+", waiting[0]).group()
    level = next(app for app in yarn_applications(hadoop) if app[0] == waited)
    assert (level[1], leaf(level[4]), level[6]) == (f"{LEVEL_JOB}1", "search", "SUCCEEDED"), level
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=hadoop)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, hadoop)


def end_application(env: dict[str, str], name: str) -> None:
    """`yarn application -kill` of the running application called `name`."""
    running = [app[0] for app in yarn_applications(env, "RUNNING") if app[1] == name]
    assert running, f"no application {name!r} is running"
    killed = subprocess.run(["yarn", "application", "-kill", running[0]], env=env,
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == 0, killed.stderr[-3000:]


def hold_queue(env: dict[str, str], queue: str, seconds: int) -> subprocess.Popen:
    """A streaming job in `queue` whose one task sleeps `seconds`, running in its application
    master's container (the cluster allows uber jobs), a container of half the node: it takes the
    queue's share for application masters (half the queue, queues.py) until it ends. Returned
    once YARN runs it."""
    base = f"/tmp/hold-{queue}-{time.monotonic_ns()}"
    assert subprocess.run(["hadoop", "fs", "-touchz", f"{base}-in"], env=env, timeout=120).returncode == 0
    jar = next((UP.parent / "target").glob("hadoop-streaming-*.jar"))
    name = f"holding {queue}"
    holder = subprocess.Popen(
        ["hadoop", "jar", str(jar), "-D", f"mapreduce.job.queuename={queue}", "-D",
         f"mapreduce.job.name={name}", "-D", "yarn.app.mapreduce.am.resource.mb=3072",
         "-input", f"{base}-in", "-output", f"{base}-out",
         "-mapper", f"sleep {seconds}", "-reducer", "NONE"], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: any(app[1] == name and app[5] == "RUNNING"
                           for app in yarn_applications(env)) or holder.poll() is not None,
               300, f"a job holding queue {queue}", every=1)
    assert holder.poll() is None, "the holding job ended before it ran"
    return holder


@pytest.mark.slow
@pytest.mark.parametrize("engine", [("mrjob", "--runner", "hadoop"), ("spark", "--master", "yarn")])
def test_a_queue_the_user_may_not_use_is_one_line(hadoop: dict[str, str],
                                                  engine: tuple[str, ...]) -> None:
    """guest, not named in queue `search`'s ACL, sends a run there: YARN refuses the job as it is
    submitted, and the run says so in one line naming the queue (no Java exception), exit 2."""
    for args in (["-mkdir", "-p", "/user/guest"], ["-chown", "guest", "/user/guest"]):
        assert subprocess.run(["hadoop", "fs", *args], env=hadoop, timeout=120).returncode == 0
    guest = {**hadoop, "HADOOP_USER_NAME": "guest"}
    refused = pegsearch_process("run", "triangle-4", "--engine", *engine, "--queue", "search",
                                "--out", f"{hadoop['PEGSEARCH_HDFS']}/tmp/guest-{engine[0]}",
                                env=guest, timeout=600)
    # The JVM announces itself ("WARNING: Using incubator modules") before Spark's session exists.
    refused.stderr = "\n".join(line for line in refused.stderr.splitlines()
                                if not line.startswith("WARNING: Using incubator"))
    one_line_refusal(refused, "user guest may not submit to queue search")
    assert "acl_submit_applications" in refused.stderr


@pytest.mark.slow
@pytest.mark.parametrize("engine", [("mrjob", "--runner", "hadoop"), ("spark", "--master", "yarn")])
def test_a_queue_yarn_does_not_have_is_one_line_before_any_work(
        hadoop: dict[str, str], engine: tuple[str, ...], tmp_path: Path) -> None:
    began = time.monotonic()
    out = tmp_path / "run"
    refused = pegsearch_process("run", "triangle-4", "--engine", *engine, "--queue", "default",
                                "--out", str(out), env=hadoop)
    one_line_refusal(refused, "YARN has no queue 'default' to run jobs in (its queues: other, search)")
    assert time.monotonic() - began < 30
    assert not out.exists(), "nothing written before the queue is known"


@pytest.mark.slow
def test_counters_and_job_settings_reach_an_mrjob_job_as_on_any_cluster(
        hadoop: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Apache's streaming jar passes a task's counter lines to the job's counters and the job's
    settings into the task's environment, where mrjob's `increment_counter` and `jobconf_from_env`
    read them (a streaming job of pegsearch's own, before, dropped both)."""
    lines = tmp_path / "lines.txt"
    lines.write_text("one\ntwo\n")
    for name in ("HADOOP_CONF_DIR", "PATH", "PEGSEARCH_PYTHON"):
        monkeypatch.setenv(name, hadoop[name])
    job = StreamingProbe(args=["--runner", "hadoop", "--no-conf", "--python-bin", sys.executable,
                               "--no-bootstrap-mrjob", str(lines)])
    with job.make_runner() as runner:
        runner.run()
        said = dict(job.parse_output(runner.cat_output()))
        assert runner.counters()[0]["probe"] == {"lines": 2}
    assert said["partition"] == "0"
    assert said["input"].startswith("hdfs://") and said["input"].endswith("/lines.txt"), said


@pytest.mark.slow
def test_a_failed_tasks_own_error_is_shown(hadoop: dict[str, str], tmp_path: Path) -> None:
    """A task whose Python lacks pegsearch (as on nodes it is not installed on: here this Python
    without its site-packages): the level fails in one last line that names the application's
    logs, and the task's own error, read from the NodeManager's log folder, is shown above it.
    mrjob.conf's jobconf (one attempt) wins over pegsearch's job settings (four)."""
    conf = tmp_path / "mrjob.conf"
    conf.write_text(json.dumps({"runners": {"hadoop": {
        "python_bin": [sys.executable, "-S"], "jobconf": {"mapreduce.map.maxattempts": 1}}}}))
    failed = pegsearch_process("run", "triangle-5", "--engine", "mrjob", "--runner", "hadoop",
                               "--mrjob-conf", str(conf), "--until", "1", "--out",
                               f"{hadoop['PEGSEARCH_HDFS']}/runs/no-pegsearch", env=hadoop,
                               timeout=600)
    assert failed.returncode == 2, failed.stderr[-3000:]
    assert "ModuleNotFoundError: No module named" in failed.stderr, failed.stderr[-3000:]
    last = failed.stderr.strip().splitlines()[-1]
    assert "level 1 failed" in last and "yarn logs -applicationId application_" in last, last


@pytest.mark.slow
def test_a_hadoop_command_with_no_streaming_jar_near_it_is_one_line(hadoop: dict[str, str],
                                                                   tmp_path: Path) -> None:
    """`hadoop` on PATH a script of its own (a site's wrapper), no HADOOP_HOME: mrjob finds no
    streaming jar near it and raised a bare Exception, 20 lines of traceback; now one line that
    says where to name the jar, before any job is submitted."""
    wrapper = tmp_path / "bin" / "hadoop"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec {HADOOP_BIN / "hadoop"} "$@"\n')
    wrapper.chmod(0o755)
    refused = pegsearch_process("run", "triangle-5", "--engine", "mrjob", "--runner", "hadoop",
                                "--until", "1", "--out", f"{hadoop['PEGSEARCH_HDFS']}/runs/no-jar",
                                env={**hadoop, "PATH": f"{wrapper.parent}:{hadoop['PATH']}"})
    one_line_refusal(refused, "no Hadoop streaming jar found where mrjob looks")
    assert "hadoop_streaming_jar in mrjob.conf" in refused.stderr


@pytest.mark.slow
def test_pegsearch_shipped_with_the_job_runs_where_it_is_not_installed(
        hadoop: dict[str, str], local_triangle_5: Path, tmp_path: Path) -> None:
    """Nodes whose Python has pegsearch's dependencies but not pegsearch (this Python without its
    site-packages, as in the test above, given back the dependencies alone): the package shipped
    with the job as cluster/hadoop/README.md says (a folder named in mrjob.conf's `setup` with
    mrjob's `DIR/#`) makes level 1 on YARN, equal to the local engine's. The folder is the package
    as `pip install --no-deps --target` lays it out, with the kernels this machine compiled."""
    ship = tmp_path / "ship"
    shutil.copytree(Path(pegsearch_package.__file__).parent, ship / "pegsearch")
    dependencies = next(Path(path) for path in sys.path if path.endswith("site-packages"))
    assert not list(dependencies.glob("pegsearch/__init__.py")), "pegsearch is in site-packages"
    conf = tmp_path / "mrjob.conf"
    conf.write_text(json.dumps({"runners": {"hadoop": {
        "python_bin": [sys.executable, "-S"],
        "setup": [f"export PYTHONPATH={dependencies}:{ship}/#:$PYTHONPATH"]}}}))
    run = f"{hadoop['PEGSEARCH_HDFS']}/runs/shipped"
    before = succeeded_jobs(hadoop)
    made = pegsearch_process("run", "triangle-5", "--engine", "mrjob", "--runner", "hadoop",
                             "--mrjob-conf", str(conf), "--until", "1", "--out", run, env=hadoop,
                             timeout=900)
    assert made.returncode == 0, made.stderr[-3000:]
    assert succeeded_jobs(hadoop) - before == 1
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=hadoop)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, hadoop)


@pytest.mark.slow
def test_ctrl_c_ends_the_levels_job_on_yarn(hadoop: dict[str, str]) -> None:
    """Ctrl-C to an mrjob run on YARN (SIGINT to its process group, as a terminal sends it) while
    a map task runs: the command ends with 130 and the level's YARN application is KILLED, not left
    to run on (it went on to SUCCEEDED)."""
    run = f"{hadoop['PEGSEARCH_HDFS']}/runs/ctrl-c"
    searching = subprocess.Popen(
        [sys.executable, "-m", "pegsearch", "run", "triangle-5", "--engine", "mrjob", "--runner",
         "hadoop", "--until", "1", "--out", run], env=hadoop, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_until(lambda: running_tasks("mapper") or searching.poll() is not None, 600, "a map task running")
    assert searching.poll() is None, "the level finished before a map task was seen running"
    os.killpg(searching.pid, signal.SIGINT)
    _, errors = searching.communicate(timeout=300)
    assert searching.returncode == 130, errors[-3000:]
    # the module's only level job killed or still going: this one, killed (State is column 6)
    ours = [app[5].strip() for app in yarn_applications(hadoop, "NEW,NEW_SAVING,SUBMITTED,"
                                                        "ACCEPTED,RUNNING,KILLED")
            if app[1].startswith(LEVEL_JOB)]
    assert ours == ["KILLED"], ours


@pytest.mark.slow
def test_spark_on_yarn_equals_the_local_engine(hadoop: dict[str, str], local_triangle_5: Path
                                               ) -> None:
    """Levels 1-7 each a Spark job on YARN (none made in the driver; 7 is the widest),
    executors in YARN containers reading and writing the run on HDFS themselves, the application
    in the queue --queue names; the rest resumed by the local engine and the whole run compared."""
    run = f"{hadoop['PEGSEARCH_HDFS']}/runs/spark-yarn"
    made = pegsearch_process("run", "triangle-5", "--engine", "spark", "--master", "yarn",
                             "--driver-below", "0", "--until", "7", "--queue", "search", "--out", run,
                             env=hadoop, timeout=900)
    assert made.returncode == 0, made.stderr[-3000:]
    assert any(app[2].strip() == "SPARK" and leaf(app[4]) == "search" and app[6].strip() == "SUCCEEDED"
               for app in yarn_applications(hadoop))
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=hadoop)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, hadoop)


@pytest.mark.slow
def test_a_survey_by_the_services_spark_searches_runs_on_yarn(hadoop: dict[str, str],
                                                              tmp_path: Path) -> None:
    """A service whose Spark searches go to YARN's queue `search` (`serve --engine spark --master
    yarn --queue search`) surveys triangle-4 on YARN and answers as the local engine's `survey`
    does. Its kept session's application master fills the queue's share for them: a Spark run of
    the command line in that queue waits,
    says so in a line with YARN's reason, and runs once the service, idle, lets its session go (it
    waited 250 s without a word, for as long as the service ran: issue 62, item 5). (A search of
    the command line on YARN alone: test_spark_on_yarn_equals_the_local_engine.)"""
    made = pegsearch_process("survey", "triangle-4", "--json", "--out", str(tmp_path / "local-survey"))
    assert made.returncode == 0, made.stderr[-3000:]
    local = json.loads(made.stdout)
    before = {app[0] for app in yarn_applications(hadoop) if app[2].strip() == "SPARK"}

    def ours() -> dict[str, tuple[str, str]]:
        """The Spark applications since this test began: id -> (state, final status)."""
        return {app[0]: (app[5], app[6]) for app in yarn_applications(hadoop)
                if app[2].strip() == "SPARK" and app[0] not in before}

    server = Server(tmp_path / "runs", "--engine", "spark", "--master", "yarn", "--queue", "search",
                    env={**hadoop, "PEGSEARCH_SPARK_IDLE": "35"})
    try:
        document = server.wait(server.submit({"board": "triangle-4", "survey": True}), timeout=900)
        queued = pegsearch_process("run", "triangle-4", "--engine", "spark", "--master", "yarn",
                                   "--queue", "search", "--out", str(tmp_path / "queued"), env=hadoop)
        assert queued.returncode == 0, queued.stderr[-3000:]

        # The service's session was let go and the run's ended, the server still up. YARN says an
        # application has ended once its master has unregistered, which may come a moment after
        # the command's exit (it said RUNNING for the run's own once, in a trial on a busy machine;
        # in CI, one of the two was neither running nor yet FINISHED when counted at once).
        wait_until(lambda: len(ours()) >= 2 and all(state in ENDED for state, _ in ours().values()),
                   60, "YARN to say both Spark applications ended", every=1)
    finally:
        server.stop()
    assert document["starts"] == local["starts"] and document["verdict"] == local["verdict"]
    assert document["engine"] == "spark"
    waiting = [line for line in queued.stderr.splitlines() if "waiting for YARN" in line]
    assert waiting and waiting[0].startswith("pegsearch: waiting for YARN: application_"), queued.stderr
    assert re.search(r"is ACCEPTED in queue (root\.)?search, .* of its share", waiting[0]), waiting[0]
    ended = ours()
    queued_id = waiting[0].split()[4]  # pegsearch: waiting for YARN: application_... is ACCEPTED
    assert ended.pop(queued_id, None) == ("FINISHED", "SUCCEEDED"), \
        f"{queued_id} of {ours()}, ended so: {yarn_diagnostics(hadoop, queued_id)[:3000]}"
    assert ended, "the service's session was no YARN application"  # and it ended, waited above


@pytest.mark.slow
def test_a_session_stopped_before_its_master_knows_it_is_listed_succeeded_by_yarn(
        hadoop: dict[str, str], tmp_path: Path) -> None:
    """A Spark session on YARN stopped before its application master had told the driver where it
    is: the master heard nothing of the stop, started executors that could not reach the driver,
    failed, and YARN listed the application FAILED after a second attempt (the survey's queued run
    above, in CI: it had waited 30 s in the queue, so its driver went on without executors and
    answered the search itself within seconds). Here the driver waits for no executor and stops at
    once, and the master is frozen for 10 s as soon as YARN says it runs: the application ends
    FINISHED and SUCCEEDED."""
    conf = tmp_path / "spark-conf"
    shutil.copytree(ROOT / "cluster" / "spark-conf", conf)
    with open(conf / "spark-defaults.conf", "a") as defaults:
        defaults.write("spark.scheduler.minRegisteredResourcesRatio 0\n")
    before = {app[0] for app in yarn_applications(hadoop)}

    def ours() -> dict[str, tuple[str, str]]:
        return {app[0]: (app[5], app[6]) for app in yarn_applications(hadoop) if app[0] not in before}

    code = ("from pegsearch.engines.spark.session import start_session, stop_session;"
            " stop_session(start_session('yarn'), failed=False)")
    driver = subprocess.Popen([sys.executable, "-c", code], env={**hadoop, "SPARK_CONF_DIR": str(conf)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    masters: list[int] = []
    try:
        def running() -> bool:
            if any(state == "RUNNING" for state, _ in ours().values()):
                masters.extend(running_tasks("spark-master"))
            return bool(masters) or driver.poll() is not None
        wait_until(running, 300, "the session's application master to run", every=0.1)
        for pid in masters:
            os.kill(pid, signal.SIGSTOP)
        time.sleep(10)
    finally:
        for pid in masters:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    _, errors = driver.communicate(timeout=300)
    assert driver.returncode == 0 and masters, errors[-3000:]
    wait_until(lambda: len(ours()) == 1 and all(state in ENDED for state, _ in ours().values()),
               300, "YARN to say the session's application ended", every=1)
    [(application, ended)] = ours().items()
    assert ended == ("FINISHED", "SUCCEEDED"), \
        f"{application} {ended}: {yarn_diagnostics(hadoop, application)[:3000]}"


@pytest.mark.slow
def test_every_command_reads_and_writes_a_run_on_hdfs(hadoop: dict[str, str],
                                                      local_triangle_5: Path,
                                                      tmp_path: Path) -> None:
    """run, resume, counts, verify, solve and the service's --runs on HDFS, as on local disk."""
    root = f"{hadoop['PEGSEARCH_HDFS']}/runs/commands"
    run = f"{root}/triangle-5"
    assert pegsearch_process("run", "triangle-5", "--until", "5", "--out", run, env=hadoop).returncode == 0
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=hadoop)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, hadoop)
    counts = pegsearch_process("counts", run, "--json", env=hadoop)
    local = pegsearch_process("counts", str(local_triangle_5), "--json")
    assert states(counts) == states(local) == TRIANGLE_5
    solved = pegsearch_process("solve", run, env=hadoop)
    assert solved.returncode == 0
    assert solved.stdout == pegsearch_process("solve", str(local_triangle_5)).stdout

    server = Server(root, logs=tmp_path, env=hadoop)
    try:
        listed = server.get("/api/searches")
        assert [search["status"] for search in listed] == ["complete"], listed
    finally:
        server.stop()


@pytest.mark.slow
def test_a_folder_put_by_fs_py_is_what_hadoops_own_fsshell_makes(hadoop: dict[str, str],
                                                                  tmp_path: Path) -> None:
    """`hadoop fs -put FOLDER DEST` (a level job's input, as mrjob uploads it) by fs.py, without a
    JVM, lays out the files Hadoop's FsShell does: into DEST when it is new, inside it when it is
    a folder already; a second put over them is refused by both."""
    source = tmp_path / "input"
    (source / "deeper").mkdir(parents=True)
    (source / "part-00000.txt").write_text("1\n2\n")
    (source / "deeper" / "part-00001.txt").write_text("345\n")
    base = f"{hadoop['PEGSEARCH_HDFS']}/put-{tmp_path.name}"
    by = {"fs.py": hadoop, "FsShell": {**hadoop, "PEGSEARCH_PYTHON": "no-such-python"}}

    def fs(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["hadoop", "fs", *args], capture_output=True, text=True, env=env,
                              timeout=120)

    assert fs(hadoop, "-mkdir", "-p", base).returncode == 0
    listings = {}
    for name, env in by.items():
        assert fs(env, "-put", str(source), f"{base}/{name}-new").returncode == 0
        assert fs(env, "-mkdir", "-p", f"{base}/{name}-there").returncode == 0
        assert fs(env, "-put", str(source), f"{base}/{name}-there").returncode == 0
        assert fs(env, "-put", str(source), f"{base}/{name}-new").returncode == 0  # inside, now
        assert fs(env, "-put", str(source), f"{base}/{name}-there").returncode != 0  # there already
        listed = fs(hadoop, "-ls", "-R", f"{base}/{name}-new", f"{base}/{name}-there")
        listings[name] = sorted((line.split()[0][0], line.split()[4],
                                 line.split()[-1].removeprefix(f"{base}/{name}"))
                                for line in listed.stdout.splitlines())
    assert listings["fs.py"] == listings["FsShell"]
    assert ("-", "4", "-new/input/deeper/part-00001.txt") in listings["fs.py"]
    assert ("-", "4", "-there/input/part-00000.txt") in listings["fs.py"]


@pytest.mark.slow
def test_an_hdfs_folder_without_write_permission_is_one_line(hadoop: dict[str, str]) -> None:
    locked = f"{hadoop['PEGSEARCH_HDFS']}/locked"
    for args in (["-mkdir", "-p", "/locked"], ["-chmod", "755", "/locked"]):
        assert subprocess.run(["hadoop", "fs", *args], env=hadoop, timeout=120).returncode == 0
    alice = {**hadoop, "HADOOP_USER_NAME": "alice"}
    refused = pegsearch_process("run", "triangle-4", "--out", f"{locked}/run", env=alice)
    one_line_refusal(refused, "Permission denied: user=alice, access=WRITE")
    assert "--out" in refused.stderr
    # a run alice may read but not write: answers that keep winnable sets with it were a
    # traceback of some 55 lines ending in PermissionError
    readable = f"{locked}/readable"
    assert pegsearch_process("run", "triangle-4", "--out", readable, env=hadoop).returncode == 0
    assert pegsearch_process("counts", readable, env=alice).returncode == 0
    one_line_refusal(pegsearch_process("counts", readable, "--winnable", env=alice),
                     "cannot keep the winnable sets with")
    solved = pegsearch_process("solve", readable, env=alice)  # answered without keeping, or refused
    assert "Traceback" not in solved.stderr and solved.returncode in (0, 2), solved.stderr


@pytest.mark.slow
def test_a_web_port_given_for_an_rpc_address_is_one_line(hadoop: dict[str, str],
                                                         tmp_path: Path) -> None:
    """The NameNode's web port in `--out hdfs://...`: `run` waited 175 s, `counts` 357 s before
    "RPC listener disconnected"; the ResourceManager's web port as its address: mrjob printed 5
    lines with no cause and made the run folder. Each is one line within seconds."""
    conf = Path(hadoop["HADOOP_CONF_DIR"])
    sites = json.loads((conf.parent / "work" / "settings.json").read_text())
    web = f"hdfs://{sites['hdfs-site.xml']['dfs.namenode.http-address']}/runs/x"
    began = time.monotonic()
    for command in (("run", "triangle-4", "--out", web), ("counts", web)):
        one_line_refusal(pegsearch_process(*command, env=hadoop), "is a web server")
    wrong = tmp_path / "conf"
    shutil.copytree(conf, wrong)
    (wrong / "yarn-site.xml").write_text(
        "<configuration><property><name>yarn.resourcemanager.address</name><value>"
        f"{sites['yarn-site.xml']['yarn.resourcemanager.webapp.address']}</value></property>"
        "</configuration>")
    out = tmp_path / "run"
    refused = pegsearch_process("run", "triangle-4", "--engine", "mrjob", "--runner", "hadoop",
                                "--out", str(out), env={**hadoop, "HADOOP_CONF_DIR": str(wrong)})
    one_line_refusal(refused, "is a web server (the ResourceManager's web port?)")
    assert not out.exists()
    assert time.monotonic() - began < 60


@pytest.mark.slow
def test_a_killed_map_task_is_retried_and_the_level_is_equal(hadoop: dict[str, str],
                                                             local_triangle_5: Path) -> None:
    """The first map task's Python killed (kill -9) as it runs: YARN's next attempt makes the
    level, and the run equals the local engine's. The cluster runs small jobs inside their
    application master (uber mode), where a task has one attempt: pegsearch's jobs ask for task
    containers of their own and 4 attempts, with no mrjob.conf."""
    run = f"{hadoop['PEGSEARCH_HDFS']}/runs/killed-task"
    searching = subprocess.Popen(
        [sys.executable, "-m", "pegsearch", "run", "triangle-5", "--engine", "mrjob", "--runner",
         "hadoop", "--until", "1", "--out", run],
        env=hadoop, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    killed = []

    def kill_a_mapper() -> bool:
        for pid in running_tasks("mapper"):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        return bool(killed) or searching.poll() is not None

    wait_until(kill_a_mapper, 600, "a map task's Python to kill")
    _, errors = searching.communicate(timeout=900)
    assert killed, "no map task was seen running"
    assert searching.returncode == 0, errors[-3000:]
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=hadoop)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, hadoop)


@pytest.mark.slow
def test_a_job_killed_on_yarn_leaves_a_run_that_resumes(hadoop: dict[str, str],
                                                        local_triangle_5: Path) -> None:
    """`yarn application -kill` of a level's job: the command stops in one line, the levels
    before it are kept, and --resume finishes a run identical to the local engine's."""
    run = f"{hadoop['PEGSEARCH_HDFS']}/runs/killed-job"
    searching = subprocess.Popen(
        [sys.executable, "-m", "pegsearch", "run", "triangle-5", "--engine", "mrjob", "--runner",
         "hadoop", "--out", run], env=hadoop, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    killed: list[str] = []

    def a_later_job_killed() -> bool:
        """Kill a running job of level 2 or later; one that finished before `-kill` reached it
        (a level's job runs for some 20 s) is let be, and the next one killed."""
        if searching.poll() is not None:
            return True
        for app in yarn_applications(hadoop, "RUNNING"):
            if app[1].startswith(LEVEL_JOB) and levels_made(run, hadoop) >= 2:
                said = subprocess.run(["yarn", "application", "-kill", app[0]], env=hadoop,
                                      capture_output=True, text=True, timeout=120)
                assert said.returncode == 0, said.stderr
                if "already finished" not in said.stdout + said.stderr:
                    killed.append(app[0])
        return bool(killed)

    wait_until(a_later_job_killed, 900, "a job of level 2 or later killed on YARN", every=1)
    assert killed, "the search finished before any of its jobs could be killed"
    _, errors = searching.communicate(timeout=600)
    assert searching.returncode == 2, errors[-3000:]
    assert "continue with --resume" in errors.strip().splitlines()[-1]
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=hadoop)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, hadoop)


def states(counts: subprocess.CompletedProcess) -> list[int]:
    return [level["states"] for level in json.loads(counts.stdout)["levels"]]


def succeeded_jobs(env: dict[str, str]) -> int:
    """How many of pegsearch's level jobs YARN has run to success."""
    return sum(app[2].strip() == "MAPREDUCE" and app[1].startswith(LEVEL_JOB)
               and app[6].strip() == "SUCCEEDED" for app in yarn_applications(env, "FINISHED"))


@pytest.mark.slow
def test_a_datanode_stopped_for_10_s_mid_level(hadoop: dict[str, str], local_triangle_5: Path
                                               ) -> None:
    """HDFS's only DataNode killed while a level's job runs on YARN and started again 10 s later:
    the run rides through (its store waits for HDFS), or stops in one line and resumes; either
    way it equals the local engine's."""
    folder = Path(hadoop["HADOOP_CONF_DIR"]).parent
    run = f"{hadoop['PEGSEARCH_HDFS']}/runs/datanode-stopped"
    searching = subprocess.Popen(
        [sys.executable, "-m", "pegsearch", "run", "triangle-5", "--engine", "mrjob", "--runner",
         "hadoop", "--until", "2", "--out", run], env=hadoop, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    wait_until(lambda: levels_made(run, hadoop) >= 2 or searching.poll() is not None, 900,
               "level 1 of the run made on YARN", every=1)
    os.kill(int((folder / "datanode.pid").read_text()), signal.SIGKILL)
    time.sleep(10)
    restarted = subprocess.run([str(UP), str(folder)], capture_output=True, text=True, timeout=600)
    assert restarted.returncode == 0, restarted.stderr[-3000:]
    _, errors = searching.communicate(timeout=900)
    if searching.returncode != 0:  # stopped rather than rode through: in one line, resumable
        assert searching.returncode == 2, errors[-3000:]
        assert "continue with --resume" in errors.strip().splitlines()[-1]
        assert "Traceback" not in errors
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=hadoop)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, hadoop)


def levels_made(run: str, env: dict[str, str]) -> int:
    counted = pegsearch_process("counts", run, "--json", env=env)
    return len(json.loads(counted.stdout)["levels"]) if counted.returncode == 0 else 0

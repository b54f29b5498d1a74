"""Hadoop across several nodes: a 3-node cluster on this machine (cluster/hadoop/up --nodes 3: the
NameNode and ResourceManager on 127.0.0.1, each node's DataNode and NodeManager processes of their
own on 127.0.0.2-4, HDFS keeping 3 replicas), and the faults one node never shows, each made with
cluster/hadoop/node as an operator's drill would make it: a node lost with its containers while a
level's tasks run, a node that stops answering for longer than YARN's and HDFS's timeouts, a
DataNode lost after a level is committed. Every run is compared with the local engine's, level by
level and digest for digest, and `pegsearch verify` checks it lists each part once and nothing
else (a lost attempt's part left behind is a problem it names).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.helpers import pegsearch_process
from tests.helpers.cluster import wait_until
from tests.helpers.hadoop_cluster import (
    NODE,
    ROOT,
    hadoop_cluster,
    levels_made,
    node_state,
    nodes_of,
    running_tasks,
)
from tests.helpers.serving import Server

TRIANGLE_5_LEVELS = 14
SKIPPY_XL_LEVELS = 26
NODES = 3
LOST_SECONDS = 40  # frozen this long: past YARN's 15 s and HDFS's 20 s of silence (daemons.py)


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The 3-node cluster, shared by the module; every test leaves its nodes running."""
    with hadoop_cluster(tmp_path_factory.mktemp("nodes"), nodes=NODES) as env:
        yield env


@pytest.fixture(scope="module")
def local_triangle_5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local") / "triangle-5"
    assert pegsearch_process("run", "triangle-5", "--out", str(out)).returncode == 0
    return out


@pytest.fixture(scope="module")
def local_skippy_xl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local") / "skippy-xl"
    assert pegsearch_process("run", "skippy-xl", "--out", str(out)).returncode == 0
    return out


def drill(env: dict[str, str], node: int, action: str) -> None:
    """`cluster/hadoop/node DIR K ACTION`, as an operator types it."""
    done = subprocess.run([str(NODE), str(Path(env["HADOOP_CONF_DIR"]).parent), str(node), action],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def assert_identical_and_verified(run: str, local: Path, env: dict[str, str],
                                  board: str = "triangle-5", levels: int = TRIANGLE_5_LEVELS) -> None:
    """The rest of the run made by the local engine, then `verify` (each listed part there once,
    nothing unlisted) and `verify --against` the local engine's run: every level equal."""
    resumed = pegsearch_process("run", board, "--resume", "--out", run, env=env)
    assert resumed.returncode == 0, resumed.stderr
    checked = pegsearch_process("verify", run, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    compared = pegsearch_process("verify", run, "--against", str(local), env=env)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert f"identical: all {levels} levels equal" in compared.stdout, compared.stdout


def search(env: dict[str, str], run: str, *engine: str, until: int = 3,
           board: str = "triangle-5") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pegsearch", "run", board, *engine,
                             "--until", str(until), "--out", run],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def a_node_running_tasks(env: dict[str, str], run: str, ended: Callable[[], bool],
                         kind: str) -> int | None:
    """A node running one of the search's tasks (`kind`: a map task's Python, or a Spark
    executor) once its first level is committed (Spark's session up), waited for while the search
    runs. A node without the application's master is chosen if there is one: a Spark session in
    client mode whose master is lost ends (YARN's next attempt is a new application master the
    driver does not take up), which is a lost driver, not a lost node."""
    found: list[int] = []

    def seen() -> bool:
        if levels_made(run, env) >= 2:
            masters = nodes_of(env, running_tasks("mapreduce-master") + running_tasks("spark-master"))
            busy = nodes_of(env, running_tasks(kind))
            found.extend(sorted(busy - masters) or sorted(busy))
        return bool(found) or ended()

    wait_until(seen, 600, f"a {kind} running on a node", every=0.5)
    return found[0] if found else None  # None: the search ended first


ENGINES = {"mrjob": ("--engine", "mrjob", "--runner", "hadoop"),
           "spark": ("--engine", "spark", "--master", "yarn", "--driver-below", "0")}


@pytest.mark.slow
def test_a_node_lost_mid_level(nodes: dict[str, str], local_triangle_5: Path) -> None:
    """Every process of the node running a level's map task on mrjob's hadoop runner (its
    DataNode, NodeManager, containers and their Python) SIGKILLed as it runs: YARN calls the node
    LOST, pegsearch says so in one line, the lost tasks and the map outputs the node held are made
    again on the other nodes, and the run completes identical. (Spark on YARN meets the same loss
    in the service's search below.)"""
    run = f"{nodes['PEGSEARCH_HDFS']}/runs/lost-mrjob"
    searching = search(nodes, run, *ENGINES["mrjob"])
    lost = a_node_running_tasks(nodes, run, lambda: searching.poll() is not None, "mapper")
    assert lost is not None, "the search ended before a task was seen: " + searching.stderr.read()[-3000:]
    drill(nodes, lost, "kill")
    try:
        wait_until(lambda: node_state(nodes, lost) == "LOST", 120, f"YARN to call node {lost} lost")
        _, errors = searching.communicate(timeout=900)
        assert searching.returncode == 0, errors[-3000:]
    finally:
        drill(nodes, lost, "start")
    said = [line for line in errors.splitlines() if f"YARN lost node 127.0.0.{lost + 1}:" in line]
    assert said and said[0].startswith("pegsearch: level "), errors[-3000:]
    # The level's record keeps it: `counts --json` (and the service's level events) say it too.
    level = int(said[0].split()[2].rstrip(":"))
    counted = json.loads(pegsearch_process("counts", run, "--json", env=nodes).stdout)["levels"]
    assert any(f"YARN lost node 127.0.0.{lost + 1}:" in note for note in counted[level]["nodes"])
    assert_identical_and_verified(run, local_triangle_5, nodes)


@pytest.mark.slow
def test_the_service_says_a_node_was_lost_in_its_events(nodes: dict[str, str],
                                                       local_triangle_5: Path, tmp_path: Path) -> None:
    """`pegsearch serve --engine spark --master yarn`, its runs on HDFS, and every process of the
    node running an executor of its search SIGKILLed: the search completes, its level events (and
    the search's document) say in one line which node YARN lost, the run lists each part once and
    nothing else, and it is identical to the local engine's. (mrjob's hadoop runner meets the same
    loss above; the service's search on it, triangle-4 a MapReduce job a level, took 6 minutes.)"""
    root = f"{nodes['PEGSEARCH_HDFS']}/runs/service"
    server = Server(root, "--engine", "spark", "--master", "yarn", logs=tmp_path, env=nodes)
    try:
        search_id = server.submit({"board": "triangle-5", "settings": {"driver_below": 0}})
        run = f"{root}/{search_id}"

        def ended() -> bool:
            return server.get(f"/api/searches/{search_id}")["status"] not in ("queued", "running")

        lost = a_node_running_tasks(nodes, run, ended, "executor")
        assert lost is not None, f"the search ended before a task was seen: {server.log.read_text()[-3000:]}"
        drill(nodes, lost, "kill")
        try:
            wait_until(lambda: node_state(nodes, lost) == "LOST", 120, f"YARN to call node {lost} lost")
            events = [data for kind, data in server.events(search_id, timeout=900) if kind == "level"]
        finally:
            drill(nodes, lost, "start")
        document = server.wait(search_id, timeout=60)
    finally:
        server.stop()
    assert document["status"] == "complete", document
    said = [note for level in events for note in level.get("nodes", [])]
    assert any(note.startswith(f"YARN lost node 127.0.0.{lost + 1}:") for note in said), events
    assert [level["states"] for level in document["levels"]] == [level["states"] for level in events]
    checked = pegsearch_process("verify", run, env=nodes)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    compared = pegsearch_process("verify", run, "--against", str(local_triangle_5), env=nodes)
    assert compared.returncode == 0 and f"all {TRIANGLE_5_LEVELS} levels equal" in compared.stdout, \
        compared.stdout + compared.stderr


@pytest.mark.slow
def test_a_node_that_stops_answering_and_comes_back(nodes: dict[str, str],
                                                    local_triangle_5: Path) -> None:
    """Every process of a node running a map task frozen (SIGSTOP) for longer than YARN's and
    HDFS's timeouts, then woken: meanwhile YARN calls it LOST and HDFS dead, and the level goes
    on without it; woken, its stale containers are told to stop, and the run is identical."""
    run = f"{nodes['PEGSEARCH_HDFS']}/runs/frozen"
    searching = search(nodes, run, *ENGINES["mrjob"])
    frozen = a_node_running_tasks(nodes, run, lambda: searching.poll() is not None, "mapper")
    assert frozen is not None, "the search ended before a task was seen: " + searching.stderr.read()[-3000:]
    drill(nodes, frozen, "freeze")
    try:
        wait_until(lambda: node_state(nodes, frozen) == "LOST", 120,
                   f"YARN to call node {frozen} lost")
        time.sleep(max(0.0, LOST_SECONDS - 15))
    finally:
        drill(nodes, frozen, "thaw")
    _, errors = searching.communicate(timeout=900)
    assert searching.returncode == 0, errors[-3000:]
    assert f"YARN lost node 127.0.0.{frozen + 1}:" in errors, errors[-3000:]  # said meanwhile
    wait_until(lambda: node_state(nodes, frozen) == "RUNNING", 180,
               f"node {frozen} back in YARN", every=1)
    assert_identical_and_verified(run, local_triangle_5, nodes)


@pytest.mark.slow
def test_a_datanode_lost_after_a_level_is_committed(nodes: dict[str, str],
                                                    local_triangle_5: Path) -> None:
    """A run's levels committed with 3 replicas, then one node's DataNode killed: every block is
    read back from the replicas on the others; `verify`, `counts` and a resume find nothing
    missing."""
    run = f"{nodes['PEGSEARCH_HDFS']}/runs/replicated"
    made = pegsearch_process("run", "triangle-5", "--until", "6", "--out", run, env=nodes)
    assert made.returncode == 0, made.stderr
    drill(nodes, 3, "kill")
    try:
        assert_identical_and_verified(run, local_triangle_5, nodes)
        counted = pegsearch_process("counts", run, "--json", env=nodes)
        assert counted.returncode == 0, counted.stderr
        assert len(json.loads(counted.stdout)["levels"]) == TRIANGLE_5_LEVELS
    finally:
        drill(nodes, 3, "start")


@pytest.mark.slow
def test_a_level_whose_one_replica_is_lost_is_one_line_and_resumes(nodes: dict[str, str],
                                                                   local_triangle_5: Path) -> None:
    """Level 5 of a run kept in one replica (`hadoop fs -setrep 1`), then the DataNode holding it
    killed: `verify` and `--resume` each say in one line that level 5's blocks are missing and to
    start its DataNodes again (exit 2, no stack); with the node back, `--resume` finishes the run
    identical."""
    run = f"{nodes['PEGSEARCH_HDFS']}/runs/one-replica"
    made = pegsearch_process("run", "triangle-5", "--until", "5", "--out", run, env=nodes)
    assert made.returncode == 0, made.stderr
    level = "/runs/one-replica/level-005"
    kept = subprocess.run(["hadoop", "fs", "-setrep", "-w", "1", level], env=nodes,
                          capture_output=True, text=True, timeout=300)
    assert kept.returncode == 0, kept.stderr[-3000:]
    holders = replica_nodes(nodes, level)
    assert len(holders) == 1, holders
    holder = holders.pop()
    folder = Path(nodes["HADOOP_CONF_DIR"]).parent
    os.kill(int((folder / f"node-{holder}-datanode.pid").read_text()), signal.SIGKILL)
    try:
        for command in (("verify", run), ("run", "triangle-5", "--resume", "--out", run)):
            said = pegsearch_process(*command, env=nodes, timeout=300)
            assert said.returncode == 2, said.stdout + said.stderr
            lines = said.stderr.strip().splitlines()
            assert "level 5's blocks are missing from HDFS" in lines[-1], said.stderr
            assert "start those DataNodes again" in lines[-1]
            assert "Traceback" not in said.stderr and "at org.apache" not in said.stderr
    finally:
        drill(nodes, holder, "start")
    assert_identical_and_verified(run, local_triangle_5, nodes)


def replica_nodes(env: dict[str, str], folder: str) -> set[int]:
    """The nodes holding a replica of a block of a file in `folder` on HDFS, as the NameNode
    lists them (WebHDFS's GET_BLOCK_LOCATIONS: each DataNode by the address it was given)."""
    hdfs = ElementTree.parse(Path(env["HADOOP_CONF_DIR"]) / "hdfs-site.xml")
    page = hdfs.find("property[name='dfs.namenode.http-address']/value").text
    found: set[int] = set()
    for name in pegsearch_files(env, folder):
        query = f"http://{page}/webhdfs/v1{folder}/{name}?op=GET_BLOCK_LOCATIONS&user.name=root"
        with urllib.request.urlopen(query, timeout=30) as answer:
            blocks = json.load(answer)["LocatedBlocks"]["locatedBlocks"]
        found.update(int(place["hostName"].rsplit(".", 1)[1]) - 1
                     for block in blocks for place in block["locations"])
    return found


def pegsearch_files(env: dict[str, str], folder: str) -> list[str]:
    listed = subprocess.run(["hadoop", "fs", "-ls", folder], env=env, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    return [line.rsplit("/", 1)[1] for line in listed.stdout.splitlines() if "/" in line]


SPECULATION = {"spark.speculation": "true", "spark.speculation.interval": "200ms",
               "spark.speculation.multiplier": "1.5", "spark.speculation.quantile": "0.5",
               # a stage of one task is copied too, once it has run this long
               "spark.speculation.task.duration.threshold": "2s",
               # no task before both executors are up: with one, the search ended (in CI) before
               # the second registered, with nothing to freeze (YARN's default waits 30 s for 80 %)
               "spark.scheduler.minRegisteredResourcesRatio": "1.0",
               "spark.scheduler.maxRegisteredResourcesWaitingTime": "600s"}


@pytest.mark.slow
def test_a_straggler_copied_by_speculation(nodes: dict[str, str], local_skippy_xl: Path,
                                           tmp_path: Path) -> None:
    """Spark's speculation on (`spark.speculation`, a copy of a task past 2 s): one executor, its
    JVM and its Python workers, frozen for 20 s once skippy-xl's level 9 is committed (less than
    Spark's 120 s before it calls an executor lost). Levels 10-12 are made from two parts by two
    map and two reduce tasks each, so each stage sends one of its tasks to the frozen executor,
    where it stalls, and a copy runs on the other (Spark's event log shows one at least); thawed,
    the straggler's attempts finish late or are killed. (On triangle-5, whose levels are one task
    a stage, a fresh .ci/run once saw every task sent to the executor left running, and no copy.)
    Exactly one attempt's part is listed for each task, none is left unlisted, and the run is
    identical."""
    conf = tmp_path / "spark-conf"
    shutil.copytree(ROOT / "cluster" / "spark-conf", conf)
    events = tmp_path / "events"  # Spark's event log: each task attempt, a copy marked Speculative
    events.mkdir()
    with open(conf / "spark-defaults.conf", "a") as defaults:
        defaults.writelines(f"{key} {value}\n" for key, value in {
            **SPECULATION, "spark.eventLog.enabled": "true", "spark.eventLog.compress": "false",
            "spark.eventLog.dir": events.as_uri()}.items())
    env = {**nodes, "SPARK_CONF_DIR": str(conf)}
    run = f"{nodes['PEGSEARCH_HDFS']}/runs/straggler"
    searching = search(env, run, *ENGINES["spark"], until=12, board="skippy-xl")
    frozen: list[int] = []
    try:
        def two_executors_after_level_9() -> bool:
            executors = running_tasks("executor")
            if levels_made(run, env) >= 10 and len(executors) >= 2:
                frozen.extend(process_tree(executors[0]))
            return bool(frozen) or searching.poll() is not None
        wait_until(two_executors_after_level_9, 600, "two executors and level 9 committed")
        assert frozen, "the search ended before an executor could be frozen: " + \
            searching.stderr.read()[-3000:]
        signal_all(frozen, signal.SIGSTOP)
        time.sleep(20)
    finally:
        signal_all(frozen, signal.SIGCONT)
    _, errors = searching.communicate(timeout=900)
    assert searching.returncode == 0, errors[-3000:]
    time.sleep(10)  # a straggler's late attempt, thawed, has time to write what it would
    assert_identical_and_verified(run, local_skippy_xl, nodes, "skippy-xl", SKIPPY_XL_LEVELS)
    started = [json.loads(line) for log in events.rglob("*") if log.is_file()
               for line in log.open(errors="replace") if '"Event":"SparkListenerTaskStart"' in line]
    assert any(event["Task Info"]["Speculative"] for event in started), \
        "no task was copied by speculation (Spark's event log)"


def process_tree(pid: int) -> list[int]:
    """`pid` and every process below it (an executor's Python daemon and workers)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(stat.parent.name))
    tree, waiting = [], [pid]
    while waiting:
        tree.append(current := waiting.pop())
        waiting.extend(children.get(current, []))
    return tree


def signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)

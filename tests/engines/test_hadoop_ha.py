"""HDFS highly available: `cluster/hadoop/up DIR --nodes 2 --ha`, two NameNodes under the
nameservice hdfs://pegsearch (their edits in three JournalNodes, a failover controller beside each,
one ZooKeeper), every one of them Hadoop's own daemon in a process of its own. The active NameNode
is SIGKILLed while a search's levels are being made, by the local engine writing to
hdfs://pegsearch, by mrjob's hadoop runner and by Spark on YARN: the standby takes over, the
search rides through, and its run is identical to the local engine's, level by level and digest
for digest. A manifest's rename whose answer the failover lost is committed once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

from pegsearch.store import location
from pegsearch.store.location import Location
from tests.helpers import pegsearch_process
from tests.helpers.cluster import wait_until
from tests.helpers.hadoop_cluster import UP, hadoop_cluster, levels_made, running_tasks

NODES = 2
NAMENODES = ("nn1", "nn2")
FAILOVER_SECONDS = 60  # the standby active within this of the active's death (2-3 s seen)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The HA cluster, shared by the module; every test leaves both NameNodes running."""
    with hadoop_cluster(tmp_path_factory.mktemp("ha"), NODES, "--ha") as env:
        yield env


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The local engine's triangle-5 and skippy-xl, on local disk: what every run is compared with."""
    runs = {}
    for board in ("triangle-5", "skippy-xl"):
        runs[board] = tmp_path_factory.mktemp("local") / board
        assert pegsearch_process("run", board, "--out", str(runs[board])).returncode == 0
    return runs


def states(env: dict[str, str]) -> dict[str, str]:
    """What each NameNode says it is (active, standby; '' if it does not answer), from its JMX."""
    tree = ElementTree.parse(Path(env["HADOOP_CONF_DIR"]) / "hdfs-site.xml")
    found = {}
    for name in NAMENODES:
        address = tree.find(f"property[name='dfs.namenode.http-address.pegsearch.{name}']/value").text
        query = f"http://{address}/jmx?qry=Hadoop:service=NameNode,name=NameNodeStatus"
        try:
            with urllib.request.urlopen(query, timeout=5) as page:
                found[name] = json.load(page)["beans"][0]["State"]
        except (OSError, ValueError, KeyError, IndexError):
            found[name] = ""
    return found


def kill_active(env: dict[str, str]) -> str:
    """SIGKILL the active NameNode; its name."""
    active = next(name for name, state in states(env).items() if state == "active")
    folder = Path(env["HADOOP_CONF_DIR"]).parent
    os.kill(int((folder / f"{active}.pid").read_text()), signal.SIGKILL)
    return active


def taken_over(env: dict[str, str], killed: str) -> None:
    """Wait for the other NameNode to be active."""
    other = next(name for name in NAMENODES if name != killed)
    wait_until(lambda: states(env)[other] == "active", FAILOVER_SECONDS,
               f"{other} to take over from {killed}")


def start_again(env: dict[str, str], killed: str) -> None:
    """`up` again, as an operator would: the killed NameNode comes back as the standby."""
    folder = Path(env["HADOOP_CONF_DIR"]).parent
    started = subprocess.run([str(UP), str(folder), "--nodes", str(NODES), "--ha"],
                             capture_output=True, text=True, timeout=600)
    assert started.returncode == 0, started.stderr[-3000:]
    wait_until(lambda: states(env)[killed] == "standby", FAILOVER_SECONDS, f"{killed} standby again")


# Each engine's search, and the moment its active NameNode is killed: the local engine's skippy-xl
# (26 levels) once 4 are committed; mrjob's triangle-5 once a level job's map task runs (a job a
# level: its tasks read and write HDFS through Hadoop's client); Spark's once its executors run
# levels (each a Spark job, its parts written by hdfs-native in the executors).
SEARCHES: dict[str, tuple[tuple[str, ...], Callable[[str, dict[str, str]], bool]]] = {
    "local": (("skippy-xl",), lambda run, env: levels_made(run, env) >= 4),
    "mrjob": (("triangle-5", "--engine", "mrjob", "--runner", "hadoop", "--until", "4"),
              lambda run, env: bool(running_tasks("mapper"))),
    "spark": (("triangle-5", "--engine", "spark", "--master", "yarn", "--driver-below", "0",
               "--until", "9"),
              lambda run, env: bool(running_tasks("executor")) and levels_made(run, env) >= 2),
}


def test_ha_with_kerberos_is_refused_in_one_line(tmp_path: Path) -> None:
    """Not built (each HA daemon would need its principal): said before anything is made."""
    refused = subprocess.run([str(UP), str(tmp_path / "c"), "--ha", "--kerberos"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1
    assert refused.stderr.strip() == ("cluster/hadoop/up: --ha with --kerberos is not built (each HA"
                                      " daemon would need its principal): start one or the other")
    assert not (tmp_path / "c").exists()


@pytest.mark.slow
@pytest.mark.parametrize("engine", SEARCHES)
def test_the_active_namenode_killed_while_a_search_runs(pair: dict[str, str],
                                                        local_runs: dict[str, Path],
                                                        engine: str) -> None:
    """The search's store is hdfs://pegsearch: its client (Hadoop's in MapReduce's tasks and
    Spark's driver, hdfs-native in pegsearch and Spark's executors) finds the NameNode that took
    over, and the run completes (the engine's levels, then the local engine's --resume) identical
    to the local engine's, every part listed once (`verify`)."""
    (board, *options), moment = SEARCHES[engine]
    run = f"hdfs://pegsearch/runs/failover-{engine}"
    searching = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", board, *options,
                                  "--out", run], env=pair, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
    wait_until(lambda: moment(run, pair) or searching.poll() is not None, 600,
               f"the {engine} search to be under way", every=0.3)
    assert searching.poll() is None, "the search ended first: " + searching.stderr.read()[-3000:]
    killed = kill_active(pair)
    try:
        taken_over(pair, killed)
        _, errors = searching.communicate(timeout=900)
        assert searching.returncode == 0, errors[-3000:]
    finally:
        start_again(pair, killed)
    resumed = pegsearch_process("run", board, "--resume", "--out", run, env=pair)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    checked = pegsearch_process("verify", run, env=pair)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    compared = pegsearch_process("verify", run, "--against", str(local_runs[board]), env=pair)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "identical: all" in compared.stdout and "digest for digest" in compared.stdout


@pytest.mark.slow
def test_a_manifest_renamed_as_its_namenode_dies_is_committed_once(
        pair: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The window on purpose: the rename that commits a manifest is made by the active NameNode,
    which is then SIGKILLed before its answer is read: hdfs-native then says what it said when
    the test above killed a NameNode mid-call ('RPC listener disconnected'), and the store sends
    the rename again, to the NameNode that took over, where its source is gone. The manifest is
    the new one, committed once, and no temporary is left (before, the commit failed, and the
    level with it: first on the lost answer, then, asked again, on the source not found)."""
    for name in ("HADOOP_CONF_DIR", "PATH"):
        monkeypatch.setenv(name, pair[name])
    store = Location.parse("hdfs://pegsearch/runs/rename-in-failover")
    store.make()
    store.replace("manifest.json", b'{"levels": 1}')
    rename = location._HdfsHandler.move
    killed: list[str] = []

    def renamed_then_answer_lost(handler: location._HdfsHandler, src: str, dest: str) -> None:
        rename(handler, src, dest)
        if not killed:  # the first rename's answer lost with its NameNode
            killed.append(kill_active(pair))
            taken_over(pair, killed[0])
            raise OSError("RPC listener disconnected")

    monkeypatch.setattr(location._HdfsHandler, "move", renamed_then_answer_lost)
    try:
        store.replace("manifest.json", b'{"levels": 2}')
    finally:
        monkeypatch.setattr(location._HdfsHandler, "move", rename)
        if killed:
            start_again(pair, killed[0])
    assert killed, "the rename never reached HDFS"
    assert store.read("manifest.json") == b'{"levels": 2}'
    assert list(store.files()) == ["manifest.json"], store.files()

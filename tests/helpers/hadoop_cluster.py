"""A real Hadoop cluster on this machine: Apache Hadoop 3.5's own daemons (from Maven Central)
started by cluster/hadoop/up, one node on 127.0.0.1 or several each on its own loopback address,
always stopped again by cluster/hadoop/down, and reached through the environment its `export`
lines give, as a user's shell would reach it; and what the tests ask of its nodes and tasks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from xml.etree import ElementTree

from tests.helpers import pegsearch_process

ROOT = Path(__file__).resolve().parents[2]
UP, DOWN, NODE = (ROOT / "cluster" / "hadoop" / name for name in ("up", "down", "node"))
HADOOP_BIN = ROOT / "cluster" / "hadoop" / "bin"


@contextmanager
def hadoop_cluster(folder: Path, nodes: int = 1, *options: str) -> Iterator[dict[str, str]]:
    """Start the cluster of `nodes` nodes in `folder` (with `up`'s `options`: --kerberos); yield
    the environment that reaches it (HADOOP_CONF_DIR, PATH with `hadoop` and `yarn`,
    PEGSEARCH_HDFS the NameNode's hdfs:// URI; with --kerberos, KRB5_CONFIG and the rest)."""
    try:
        started = subprocess.run([str(UP), str(folder), "--nodes", str(nodes), *options],
                                 capture_output=True, text=True, timeout=600)
        assert started.returncode == 0, started.stderr[-4000:]
        yield exports(started.stdout)
    finally:
        subprocess.run([str(DOWN), str(folder)], capture_output=True, timeout=180)


def exports(text: str) -> dict[str, str]:
    """The environment after `eval`ing lines `export NAME=VALUE` (PATH's "$PATH" expanded), and
    this interpreter for bin/hadoop's `fs` (its hdfs-native), whatever python3 PATH finds."""
    environment = {**os.environ, "PEGSEARCH_PYTHON": sys.executable}
    for line in text.splitlines():
        if not line.startswith("export "):  # a comment: `up --kerberos`'s kinit
            continue
        name, _, value = line.removeprefix("export ").partition("=")
        environment[name] = value.replace('"$PATH"', os.environ.get("PATH", ""))
    return environment


def resource_manager(env: dict[str, str]) -> str:
    """The ResourceManager's web address, from the client configuration."""
    return ElementTree.parse(Path(env["HADOOP_CONF_DIR"]) / "yarn-site.xml").find(
        "property[name='yarn.resourcemanager.webapp.address']/value").text


def yarn_applications(env: dict[str, str], states: str = "ALL") -> list[list[str]]:
    """YARN's applications in these states (comma-separated, or ALL), each as the columns `yarn
    application -list` gives (id, name, type, user, queue, state, final state, progress, tracking
    URL), asked of the ResourceManager's web service: a test polling it every fraction of a second
    started a JVM each time (`yarn application -list`), a core busy beside the cluster it waited on."""
    address = resource_manager(env)
    query = "" if states == "ALL" else "?" + urllib.parse.urlencode({"states": states})
    with urllib.request.urlopen(f"http://{address}/ws/v1/cluster/apps{query}", timeout=30) as answer:
        listed = (json.load(answer).get("apps") or {}).get("app", [])
    return [[app["id"], app["name"], app["applicationType"], app["user"], app["queue"], app["state"],
             app["finalStatus"], f"{app['progress']:g}%", app.get("trackingUrl", "")] for app in listed]


def yarn_diagnostics(env: dict[str, str], application: str) -> str:
    """What YARN says of how an application ended (its `diagnostics`), for a failed test's message."""
    address = resource_manager(env)
    with urllib.request.urlopen(f"http://{address}/ws/v1/cluster/apps/{application}", timeout=30) as answer:
        return json.load(answer)["app"].get("diagnostics", "")


def node_state(env: dict[str, str], node: int) -> str:
    """What the ResourceManager says of node `node`'s NodeManager (at 127.0.0.(node+1)): RUNNING,
    LOST, ..., or '' if it does not know it."""
    with urllib.request.urlopen(f"http://{resource_manager(env)}/ws/v1/cluster/nodes",
                                timeout=30) as answer:
        listed = (json.load(answer).get("nodes") or {}).get("node", [])
    host = f"127.0.0.{node + 1}"
    return next((entry["state"] for entry in listed if entry["id"].split(":")[0] == host), "")


# What a task of each kind runs: a map task's Python (mrjob's `level_job.py ... --mapper`), a
# Spark executor's JVM on YARN, an application master (MapReduce's, or Spark's in client mode).
TASK_WORDS = {"mapper": (b"--mapper", b"level_job.py"),
              "executor": (b"org.apache.spark.executor.YarnCoarseGrainedExecutorBackend",),
              "mapreduce-master": (b"MRAppMaster",), "spark-master": (b"ExecutorLauncher",)}


def running_tasks(kind: str) -> list[int]:
    """The PIDs of tasks of this kind running in YARN's containers: those with a CONTAINER_ID in
    their environment (the same command under mrjob's local runner, in another worker's test, is
    not a cluster's to kill)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0") if entry.name.isdigit() else []
            if all(any(word.endswith(sought) for word in words) for sought in TASK_WORDS[kind]) \
                    and not words[0].endswith(b"sh") \
                    and b"\0CONTAINER_ID=" in b"\0" + (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def nodes_of(env: dict[str, str], pids: list[int]) -> set[int]:
    """The nodes whose folders (DIR/nodes/K) these processes work in (one that has ended since
    it was listed is in none)."""
    nodes, found = Path(env["HADOOP_CONF_DIR"]).parent / "nodes", set()
    for pid in pids:
        try:
            found.add(int(Path(os.readlink(f"/proc/{pid}/cwd")).relative_to(nodes).parts[0]))
        except (OSError, ValueError):
            continue
    return found


def levels_made(run: str, env: dict[str, str]) -> int:
    """The levels `pegsearch counts` lists of a run on the cluster so far (0 before it can)."""
    counted = pegsearch_process("counts", run, "--json", env=env)
    return len(json.loads(counted.stdout)["levels"]) if counted.returncode == 0 else 0

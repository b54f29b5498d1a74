"""A real Hadoop cluster on 127.0.0.1: Apache Hadoop 3.5's own single-machine cluster (HDFS and
YARN in one JVM, from Maven Central) started by cluster/hadoop/up, always stopped again by
cluster/hadoop/down, and reached through the environment its `export` lines give, as a user's
shell would reach it."""

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

ROOT = Path(__file__).resolve().parents[2]
UP, DOWN = ROOT / "cluster" / "hadoop" / "up", ROOT / "cluster" / "hadoop" / "down"
HADOOP_BIN = ROOT / "cluster" / "hadoop" / "bin"


@contextmanager
def hadoop_cluster(folder: Path) -> Iterator[dict[str, str]]:
    """Start the cluster in `folder`; yield the environment that reaches it (HADOOP_CONF_DIR,
    PATH with `hadoop` and `yarn`, PEGSEARCH_HDFS the NameNode's hdfs:// URI)."""
    try:
        started = subprocess.run([str(UP), str(folder)], capture_output=True, text=True,
                                 timeout=600)
        assert started.returncode == 0, started.stderr[-4000:]
        yield exports(started.stdout)
    finally:
        subprocess.run([str(DOWN), str(folder)], capture_output=True, timeout=180)


def exports(text: str) -> dict[str, str]:
    """The environment after `eval`ing lines `export NAME=VALUE` (PATH's "$PATH" expanded), and
    this interpreter for bin/hadoop's `fs` (its hdfs-native), whatever python3 PATH finds."""
    environment = {**os.environ, "PEGSEARCH_PYTHON": sys.executable}
    for line in text.splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        environment[name] = value.replace('"$PATH"', os.environ.get("PATH", ""))
    return environment


def yarn_applications(env: dict[str, str], states: str = "ALL") -> list[list[str]]:
    """YARN's applications in these states (comma-separated, or ALL), each as the columns `yarn
    application -list` gives (id, name, type, user, queue, state, final state, progress, tracking
    URL), asked of the ResourceManager's web service: a test polling it every fraction of a second
    started a JVM each time (`yarn application -list`), a core busy beside the cluster it waited on."""
    address = ElementTree.parse(Path(env["HADOOP_CONF_DIR"]) / "yarn-site.xml").find(
        "property[name='yarn.resourcemanager.webapp.address']/value").text
    query = "" if states == "ALL" else "?" + urllib.parse.urlencode({"states": states})
    with urllib.request.urlopen(f"http://{address}/ws/v1/cluster/apps{query}", timeout=30) as answer:
        listed = (json.load(answer).get("apps") or {}).get("app", [])
    return [[app["id"], app["name"], app["applicationType"], app["user"], app["queue"], app["state"],
             app["finalStatus"], f"{app['progress']:g}%", app.get("trackingUrl", "")] for app in listed]

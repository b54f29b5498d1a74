"""The Hadoop cluster a YARN job is sent to, as its configuration names it, checked before any work.

mrjob's hadoop runner and Spark's `yarn` master both find the cluster through the Hadoop client
configuration in `HADOOP_CONF_DIR` (or `YARN_CONF_DIR`, or `$HADOOP_HOME/etc/hadoop`). Hadoop's
clients ask an address nobody answers at again and again (YARN's for 15 minutes by default), so the
ResourceManager and the NameNode are reached once here first: a cluster that is down, or a
configuration that names the wrong one, is one line within seconds.

The same configuration says whether the cluster is this machine (a single-machine cluster such as
cluster/hadoop/up starts): its tasks can then run this very Python, which has pegsearch, and read
Spark's jars where pip put them.
"""

from __future__ import annotations

import os
import re
import socket
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from pegsearch.errors import UsageError

CONNECT_SECONDS = 5
SITE_FILES = ("core-site.xml", "hdfs-site.xml", "yarn-site.xml", "mapred-site.xml")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0", socket.gethostname()}
# Hadoop's defaults for what a client needs, where the site files say nothing.
DEFAULTS = {"yarn.resourcemanager.hostname": "0.0.0.0",
            "yarn.resourcemanager.address": "${yarn.resourcemanager.hostname}:8032",
            "fs.defaultFS": "file:///", "mapreduce.framework.name": "local"}
VARIABLE = re.compile(r"\$\{([^}]+)\}")
HELP = "start one (cluster/hadoop/up DIR) or point HADOOP_CONF_DIR at the cluster's configuration"


def conf_dir() -> Path | None:
    """The folder of the Hadoop client configuration this process would use, if any."""
    for name in ("HADOOP_CONF_DIR", "YARN_CONF_DIR"):
        if os.environ.get(name):
            return Path(os.environ[name])
    home = os.environ.get("HADOOP_HOME")
    return Path(home) / "etc" / "hadoop" if home else None


def settings() -> dict[str, str]:
    """The client configuration's settings, site files read in Hadoop's order (later ones win)."""
    found = dict(DEFAULTS)
    folder = conf_dir()
    for name in SITE_FILES if folder else ():
        path = folder / name
        if not path.is_file():
            continue
        try:
            root = ElementTree.parse(path).getroot()
        except ElementTree.ParseError as exc:
            raise UsageError(f"{path}: not a Hadoop configuration file ({exc})") from None
        for prop in root.iter("property"):
            key, value = prop.findtext("name"), prop.findtext("value")
            if key and value is not None:
                found[key.strip()] = value.strip()
    return found


def setting(found: dict[str, str], key: str) -> str:
    """One setting with its ${...} references to other settings filled in."""
    value = found.get(key, "")
    for _ in range(8):  # references may nest, never loop for ever
        value = VARIABLE.sub(lambda match: found.get(match[1], ""), value)
    return value


def resource_managers(found: dict[str, str]) -> list[str]:
    """The ResourceManager addresses (host:port) a YARN client would try: one, or each of an HA pair."""
    if found.get("yarn.resourcemanager.ha.enabled", "false").lower() == "true":
        ids = [rm.strip() for rm in found.get("yarn.resourcemanager.ha.rm-ids", "").split(",") if rm]
        return [setting(found, f"yarn.resourcemanager.address.{rm}")
                or f"{setting(found, f'yarn.resourcemanager.hostname.{rm}')}:8032" for rm in ids]
    return [setting(found, "yarn.resourcemanager.address")]


def check_yarn(what: str) -> dict[str, str]:
    """Refuse, in one line, a YARN cluster that is not configured or does not answer; return its
    settings. `what` names who needs it ("the mrjob hadoop runner", "--master yarn")."""
    if conf_dir() is None:
        raise UsageError(f"{what} needs a Hadoop cluster's configuration: {HELP}")
    found = settings()
    managers = resource_managers(found)
    if not any(answers(address) for address in managers):
        raise UsageError(f"no YARN ResourceManager answers at {', '.join(managers)} (from"
                         f" {conf_dir()}): {HELP}")
    nodes = namenodes(found)
    if nodes and not any(answers(address) for address in nodes):
        raise UsageError(f"no HDFS NameNode answers at {', '.join(nodes)} (from {conf_dir()}): {HELP}")
    return found


def namenodes(found: dict[str, str]) -> list[str]:
    """The NameNode addresses behind fs.defaultFS (each of an HA nameservice's); none when the
    default filesystem is not HDFS."""
    uri = setting(found, "fs.defaultFS")
    if not uri.startswith("hdfs://"):
        return []
    authority = uri.removeprefix("hdfs://").split("/", 1)[0]
    if authority in found.get("dfs.nameservices", "").split(","):
        ids = [nn.strip() for nn in found.get(f"dfs.ha.namenodes.{authority}", "").split(",")]
        return [setting(found, f"dfs.namenode.rpc-address.{authority}.{nn}") for nn in ids if nn]
    return [authority if ":" in authority else f"{authority}:8020"]


def on_this_machine(found: dict[str, str]) -> bool:
    """Whether the cluster's ResourceManager is this machine (so its tasks share this disk)."""
    return all(address.rpartition(":")[0].strip("[]") in LOCAL_HOSTS
               for address in resource_managers(found))


def answers(address: str) -> bool:
    """Whether something accepts a TCP connection at host:port."""
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS).close()
    except (OSError, ValueError):
        return False
    return True

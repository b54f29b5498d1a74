"""The YARN cluster a job is sent to, as its configuration names it, checked before any work.

mrjob's hadoop runner and Spark's `yarn` master both find the cluster through the Hadoop client
configuration (store.hadoop_conf). Its ResourceManager and NameNode are reached once here first:
YARN's client would otherwise ask a ResourceManager that is down for 15 minutes.

The same configuration says whether the cluster is this machine (a single-machine cluster such as
cluster/hadoop/up starts): its tasks can then run this very Python, which has pegsearch, and read
Spark's jars where pip put them.
"""

from __future__ import annotations

import socket

from pegsearch.errors import UsageError
from pegsearch.store.hadoop_conf import answers, conf_dir, namenodes, setting, settings

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0", socket.gethostname()}
HELP = "start one (cluster/hadoop/up DIR) or point HADOOP_CONF_DIR at the cluster's configuration"


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
    nodes = namenodes(setting(found, "fs.defaultFS"), found)
    if nodes and not any(answers(address) for address in nodes):
        raise UsageError(f"no HDFS NameNode answers at {', '.join(nodes)} (from {conf_dir()}): {HELP}")
    return found


def on_this_machine(found: dict[str, str]) -> bool:
    """Whether the cluster's ResourceManager is this machine (so its tasks share this disk)."""
    return all(address.rpartition(":")[0].strip("[]") in LOCAL_HOSTS
               for address in resource_managers(found))

"""HDFS high availability for the cluster that `cluster/hadoop/up DIR --ha` starts: two NameNodes,
nn1 and nn2, under one nameservice (`hdfs://pegsearch`), their edits shared through three
JournalNodes, and automatic failover by a ZKFailoverController beside each NameNode and one
ZooKeeper server. All of them Hadoop's and ZooKeeper's own daemon classes, from the jars Maven
fetched (ZooKeeper 3.8 comes with Hadoop's client), each a process of its own on 127.0.0.1.

Every daemon here reads a configuration folder of its own (DIR/ha/NAME/conf): two NameNodes on one
address cannot tell which of the nameservice's they are, so each is told (dfs.ha.namenode.id),
and each failover controller reads its NameNode's. Fencing is `shell(/bin/true)`: the NameNode
that loses its election here is one killed or frozen on purpose, and the JournalNodes take edits
from one writer at a time whatever fencing says (their epochs), which is what keeps the pair
from both writing. Clients (Hadoop's, and pegsearch's hdfs-native) fail over by the nameservice's
settings in DIR/conf, as on a company's cluster.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

NAMESERVICE = "pegsearch"
NAMENODES = ("nn1", "nn2")
JOURNALS = ("journal-1", "journal-2", "journal-3")
ZOOKEEPER_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain"
JOURNAL_NODE = "org.apache.hadoop.hdfs.qjournal.server.JournalNode"
FAILOVER_CONTROLLER = "org.apache.hadoop.hdfs.tools.DFSZKFailoverController"
# Ports: ZooKeeper's, and each NameNode's RPC, web and failover controller's, each JournalNode's
# RPC, web and secure web (unused, but bound unless given).
PORTS = 1 + 3 * len(NAMENODES) + 3 * len(JOURNALS)
# A NameNode killed is seen at once (its RPC refused); one frozen within 10 s (not 45). The
# standby reads the shared edits every second (not every 60), so it is current when it takes over.
SETTINGS = {
    "core-site.xml": {"ha.health-monitor.rpc-timeout.ms": "10000",
                      "ha.zookeeper.session-timeout.ms": "10000"},
    "hdfs-site.xml": {"dfs.ha.automatic-failover.enabled": "true",
                      "dfs.ha.fencing.methods": "shell(/bin/true)",
                      "dfs.ha.tail-edits.period": "1",
                      f"dfs.client.failover.proxy.provider.{NAMESERVICE}":
                          "org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider"},
}


def home(folder: Path, name: str) -> Path:
    """The working folder of one of the HA daemons (its configuration in conf/ there)."""
    return folder / "ha" / name


def plan(folder: Path, ports: list[int]) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """What the cluster's client configuration adds for HA (the nameservice, both NameNodes'
    addresses, the JournalNodes' shared edits, ZooKeeper's quorum), and each HA daemon's own
    settings (its id, folders and ports), `PORTS` of `ports` taken."""
    taken = iter(ports)
    hdfs = {"dfs.nameservices": NAMESERVICE,
            f"dfs.ha.namenodes.{NAMESERVICE}": ",".join(NAMENODES)}
    for name in NAMENODES:
        hdfs[f"dfs.namenode.rpc-address.{NAMESERVICE}.{name}"] = f"127.0.0.1:{next(taken)}"
        hdfs[f"dfs.namenode.http-address.{NAMESERVICE}.{name}"] = f"127.0.0.1:{next(taken)}"
    journals = [f"127.0.0.1:{next(taken)}" for _ in JOURNALS]
    hdfs["dfs.namenode.shared.edits.dir"] = f"qjournal://{';'.join(journals)}/{NAMESERVICE}"
    core = {"fs.defaultFS": f"hdfs://{NAMESERVICE}",
            "ha.zookeeper.quorum": f"127.0.0.1:{next(taken)}"}
    own = {name: {"dfs.ha.namenode.id": name, "dfs.ha.zkfc.port": str(next(taken)),
                  "dfs.namenode.name.dir": str(home(folder, name) / "name")}
           for name in NAMENODES}
    for name, rpc in zip(JOURNALS, journals, strict=True):
        own[name] = {"dfs.journalnode.rpc-address": rpc,
                     "dfs.journalnode.http-address": f"127.0.0.1:{next(taken)}",
                     "dfs.journalnode.https-address": f"127.0.0.1:{next(taken)}",
                     "dfs.journalnode.edits.dir": str(home(folder, name) / "edits")}
    added = {"core-site.xml": {**core, **SETTINGS["core-site.xml"]},
             "hdfs-site.xml": {**hdfs, **SETTINGS["hdfs-site.xml"]}}
    return added, own


def daemon_sites(sites: dict[str, dict[str, str]], own: dict[str, str]) -> dict[str, dict[str, str]]:
    """An HA daemon's configuration (a NameNode's, which its failover controller reads too, or a
    JournalNode's): the cluster's, with that daemon's `own` settings."""
    return {**sites, "hdfs-site.xml": {**sites["hdfs-site.xml"], **own}}


def zookeeper_config(folder: Path, sites: dict[str, dict[str, str]]) -> Path:
    """ZooKeeper's configuration, written to its folder: its client port on 127.0.0.1 alone (given
    as arguments, ZooKeeperServerMain listens on every address) and no admin web server (it would
    take port 8080 on every address)."""
    address, _, port = sites["core-site.xml"]["ha.zookeeper.quorum"].rpartition(":")
    config = home(folder, "zookeeper") / "zoo.cfg"
    config.write_text(f"tickTime=2000\ndataDir={home(folder, 'zookeeper') / 'data'}\n"
                      f"clientPort={port}\nclientPortAddress={address}\n"
                      "admin.enableServer=false\n")
    return config


def state(sites: dict[str, dict[str, str]], name: str) -> str:
    """What NameNode `name` says it is (active, standby), or '' if it does not answer."""
    address = sites["hdfs-site.xml"][f"dfs.namenode.http-address.{NAMESERVICE}.{name}"]
    query = "/jmx?qry=Hadoop:service=NameNode,name=NameNodeStatus"
    try:
        with urllib.request.urlopen(f"http://{address}{query}", timeout=5) as page:
            return str(json.load(page)["beans"][0]["State"])
    except (OSError, ValueError, KeyError, IndexError):
        return ""


def active(sites: dict[str, dict[str, str]]) -> str | None:
    """The NameNode that is active now, if one is."""
    return next((name for name in NAMENODES if state(sites, name) == "active"), None)


def web_address(sites: dict[str, dict[str, str]]) -> str:
    """The web address of the NameNode to ask about the cluster's DataNodes: the active one's
    (a standby's counts lag), else nn1's."""
    name = active(sites) or NAMENODES[0]
    return sites["hdfs-site.xml"][f"dfs.namenode.http-address.{NAMESERVICE}.{name}"]

"""The Hadoop cluster that cluster/hadoop/up starts on this machine: its settings, its daemons and
its nodes, shared by `up`, `down` and `node` (each a thin script over this module).

One node (the default) is three JVMs on 127.0.0.1: the NameNode, a DataNode, and YARN (a
ResourceManager, one NodeManager and a JobHistoryServer) in one MiniHadoopClusterManager. With
`--nodes N` (N >= 2) every daemon is a process of its own running Hadoop's own daemon class, as a
real cluster runs them: the NameNode, the ResourceManager and the JobHistoryServer on 127.0.0.1,
and node k (1..N) a DataNode and a NodeManager bound to 127.0.0.(k+1), each node's folder
DIR/nodes/K its processes' working folder, so that every process of a node (its containers and
their tasks too) is found by that folder and can be stopped, frozen or killed alone. With
`--kerberos` (kerberos.py: a KDC of its own, HDFS and YARN secured) or `--ha` (ha.py: two
NameNodes under one nameservice, failing over by themselves) the daemons are laid out so for one
node too.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from xml.etree import ElementTree

import ha
import kerberos
import queues

HOME = Path(__file__).resolve().parent
WAIT_SECONDS = 240
STOP_SECONDS = 20
CONTAINER_MB, VCORES, TASK_MB = 6144, 4, 1024
# A node of a many-node cluster offers less: three of them with the suite beside them fit in 24 GiB.
NODE_CONTAINER_MB, NODE_VCORES = 3072, 2
# A level job's JVMs (its application master, map and reduce tasks) live seconds and pipe lines to
# Python: without the optimising compiler and with one GC thread, a 3-level run took the cluster
# 110-126 s of CPU against 196-198 (AMD EPYC, 2 cores, a test suite beside both;
# bench/hadoop_jvm_cpu.py).
SHORT_LIVED = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:CICompilerCount=1"
SETTINGS = {
    "yarn.nodemanager.resource.memory-mb": CONTAINER_MB,
    "yarn.nodemanager.resource.cpu-vcores": VCORES,
    "yarn.scheduler.minimum-allocation-mb": 256,
    "yarn.scheduler.maximum-allocation-mb": CONTAINER_MB,
    # A task's Python (numpy, numba) is counted in its container: memory is bounded by the sizes
    # above, not by killing a container whose virtual memory the JVM and Python reserve.
    "yarn.nodemanager.vmem-check-enabled": "false",
    "yarn.nodemanager.pmem-check-enabled": "false",
    "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage": 99,
    "mapreduce.map.memory.mb": TASK_MB,
    "mapreduce.reduce.memory.mb": TASK_MB,
    "mapreduce.map.java.opts": f"-Xmx256m {SHORT_LIVED}",
    "mapreduce.reduce.java.opts": f"-Xmx384m {SHORT_LIVED}",
    "yarn.app.mapreduce.am.resource.mb": TASK_MB,
    "yarn.app.mapreduce.am.command-opts": f"-Xmx384m {SHORT_LIVED}",
    "mapreduce.framework.name": "yarn",
    # A small job may run in its application master's container (uber mode), as a cluster may
    # allow: the tests check that pegsearch's level jobs, which decline it to keep a killed task's
    # retries, are retried here. The client asks about its job every half second, not every 5.
    "mapreduce.job.ubertask.enable": "true",
    "mapreduce.client.completion.pollinterval": 500,
    # A level job's tasks take seconds: containers are asked for and granted every quarter second
    # (not every second), a reduce's container starts beside the maps, and no task is speculated
    # (a copy of a map started 0.5 s after it, on 2 cores, only slowed both).
    "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": 250,
    "yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms": 250,
    "mapreduce.job.reduce.slowstart.completedmaps": 0,
    "mapreduce.map.speculative": "false",
    "mapreduce.reduce.speculative": "false",
    "yarn.log-aggregation-enable": "true",
    "yarn.nodemanager.remote-app-log-dir": "/tmp/logs",
    "mapreduce.client.progressmonitor.pollinterval": 500,
    "yarn.minicluster.fixed.ports": "true",  # the addresses below, not ports of its own choosing
    "dfs.replication": 1,
    # A NameNode started again leaves safe mode as soon as its one DataNode has reported.
    "dfs.namenode.safemode.extension": 0,
}
# What a cluster of several nodes adds. A node that stops answering is called lost within seconds,
# as the fault drills need, not minutes (YARN's 10 min, HDFS's 10.5): YARN after 15 s without a
# heartbeat, HDFS after 2 x 5 s + 10 x 1 s; a DataNode silent for 6 s is stale, read last and not
# written to. Clients reach a DataNode by the address it was given (the NameNode sees every node
# come from 127.0.0.1, the address a loopback connection leaves from). Every node's NodeManager
# runs MapReduce's shuffle, each on a port of its own (it listens on every address). A level's
# reduce starts beside its maps and holds its container: a map to make again after a node is lost
# takes a reduce's container if it waits 10 s for one, not 300 (a lost node's level took 218 s).
MANY_NODES = {
    "mapreduce.job.reducer.unconditional-preempt.delay.sec": 10,
    "yarn.nm.liveness-monitor.expiry-interval-ms": 15000,
    "yarn.nodemanager.resource.memory-mb": NODE_CONTAINER_MB,
    "yarn.nodemanager.resource.cpu-vcores": NODE_VCORES,
    "yarn.scheduler.maximum-allocation-mb": NODE_CONTAINER_MB,
    "yarn.nodemanager.aux-services": "mapreduce_shuffle",
    "yarn.nodemanager.aux-services.mapreduce_shuffle.class": "org.apache.hadoop.mapred.ShuffleHandler",
    "yarn.resourcemanager.recovery.enabled": "false",
    "dfs.heartbeat.interval": 1,
    "dfs.namenode.heartbeat.recheck-interval": 5000,
    "dfs.namenode.stale.datanode.interval": 6000,
    "dfs.namenode.avoid.read.stale.datanode": "true",
    "dfs.namenode.avoid.write.stale.datanode": "true",
    "dfs.client.use.datanode.hostname": "true",
    "dfs.datanode.use.datanode.hostname": "true",
    "dfs.client.block.write.replace-datanode-on-failure.best-effort": "true",
}
# What each of the cluster's addresses is called in Hadoop's configuration: all on 127.0.0.1, each
# on a port free when the cluster is first started.
ADDRESSES = {
    "core-site.xml": ("fs.defaultFS",),
    "hdfs-site.xml": ("dfs.namenode.http-address", "dfs.datanode.address",
                      "dfs.datanode.http.address", "dfs.datanode.ipc.address"),
    "yarn-site.xml": ("yarn.resourcemanager.address", "yarn.resourcemanager.scheduler.address",
                      "yarn.resourcemanager.resource-tracker.address",
                      "yarn.resourcemanager.admin.address", "yarn.resourcemanager.webapp.address"),
    "mapred-site.xml": ("mapreduce.jobhistory.address", "mapreduce.jobhistory.webapp.address",
                        "mapreduce.jobhistory.admin.address"),
}
# A node's own addresses, each on its node's address 127.0.0.(k+1).
NODE_ADDRESSES = {
    "hdfs-site.xml": ("dfs.datanode.address", "dfs.datanode.http.address",
                      "dfs.datanode.ipc.address"),
    "yarn-site.xml": ("yarn.nodemanager.address", "yarn.nodemanager.localizer.address",
                      "yarn.nodemanager.webapp.address"),
}
# A node's ports: its addresses', its shuffle's and its secured DataNode's web port (--kerberos).
NODE_PORTS = 2 + sum(len(keys) for keys in NODE_ADDRESSES.values())
STAGING = "/tmp/hadoop-yarn/staging"  # yarn.app.mapreduce.am.staging-dir's default
NAMENODE = "org.apache.hadoop.hdfs.server.namenode.NameNode"
DATANODE = "org.apache.hadoop.hdfs.server.datanode.DataNode"
RESOURCE_MANAGER = "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager"
NODE_MANAGER = "org.apache.hadoop.yarn.server.nodemanager.NodeManager"
JOB_HISTORY = "org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer"


def up(folder: Path, nodes: int, secure: bool = False,
       lifetime: str = kerberos.LIFETIME, available: bool = False) -> int:
    """Start in `folder` whatever of its cluster is not running (all of it the first time), then
    print the `export` lines that reach it. `secure`: with Kerberos (kerberos.py), its tickets
    lasting `lifetime`; `available`: HDFS highly available (ha.py)."""
    folder = folder.resolve()
    if secure and available:
        give_up(folder, "--ha with --kerberos is not built (each HA daemon would need its"
                " principal): start one or the other", None)
    if not (folder / "work" / "settings.json").exists():
        prepare(folder, nodes, secure, lifetime, available)
    elif (node_count(folder), secured(folder), highly_available(folder)) != (nodes, secure, available):
        kind = (" with --kerberos" if secured(folder) else "") + (
            " with --ha" if highly_available(folder) else "")
        give_up(folder, f"{folder} holds a cluster of {node_count(folder)} node(s){kind}: run `up`"
                f" with --nodes {node_count(folder)}{kind}, or `down` it and start one in "
                "another folder", None)
    if secure and not alive(folder, "kdc"):
        start_kdc(folder)
    if available:
        start_highly_available(folder)
    elif not alive(folder, "namenode"):
        start_namenode(folder)
    if not separate(folder):
        if not alive(folder, "datanode"):
            start_datanode(folder)
        if not alive(folder, "yarn"):
            start_yarn(folder)
    else:
        # The DataNodes first: HDFS's shared folders exist before the JobHistoryServer makes its
        # own in /tmp (on a secured cluster it is no superuser).
        for node in range(1, nodes + 1):
            start_datanode_of(folder, node)
        for name, main_class in (("resourcemanager", RESOURCE_MANAGER),
                                 ("historyserver", JOB_HISTORY)):
            if not alive(folder, name):
                start_service(folder, name, main_class)
        for node in range(1, nodes + 1):
            start_node(folder, node)
    print(f"export HADOOP_CONF_DIR={folder / 'conf'}")
    print(f'export PATH={HOME / "bin"}:"$PATH"')
    print(f"export PEGSEARCH_HDFS={site(folder, 'core-site.xml', 'fs.defaultFS')}")
    for line in kerberos.exports(folder) if secure else ():
        print(line)
    return 0


def prepare(folder: Path, nodes: int, secure: bool, lifetime: str, available: bool) -> None:
    """Fetch the jars if needed; make the Kerberos realm if `secure`; write the client
    configuration (and each node's, and each HA daemon's if `available`); format HDFS."""
    subprocess.run(["mvn", "-q", "-f", str(HOME / "pom.xml"), "package"], check=True,
                   stdout=sys.stderr)
    for name in ("conf", "logs", "work"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    if secure:
        if missing := kerberos.missing_tools():
            give_up(folder, f"--kerberos needs MIT Kerberos's KDC and tools ({', '.join(missing)}"
                    f" not found): apt-get install {kerberos.PACKAGES}", None)
        kerberos.prepare(folder, free_ports(1)[0], lifetime)
        start_kdc(folder)  # formatting HDFS logs the NameNode in
    sites = site_settings(folder, nodes, secure)
    own: dict[str, dict[str, str]] = {}
    if available:
        added, own = ha.plan(folder, free_ports(ha.PORTS))
        del sites["hdfs-site.xml"]["dfs.namenode.http-address"]  # each NameNode has its own
        for name, values in added.items():
            sites[name].update(values)
        for name, values in own.items():
            (ha.home(folder, name) / "conf").mkdir(parents=True, exist_ok=True)
            write_sites(ha.home(folder, name) / "conf", ha.daemon_sites(sites, values))
    write_sites(folder / "conf", sites)
    # Every node's ports drawn at once, none shared: the NameNode knows a DataNode by the address
    # its RPC comes from (127.0.0.1 for every node here) and its port, so two nodes given the same
    # port by draws of their own were one DataNode to it, each registering over the other.
    ports = iter(free_ports(nodes * NODE_PORTS))
    for node in range(1, nodes + 1):
        (folder / "nodes" / str(node) / "conf").mkdir(parents=True, exist_ok=True)
        write_sites(folder / "nodes" / str(node) / "conf", node_sites(folder, sites, node, ports))
        if secure:
            kerberos.write_ssl(folder, folder / "nodes" / str(node) / "conf")
    (folder / "work" / "settings.json").write_text(
        json.dumps({**sites, "nodes": nodes, "kerberos": secure, "ha": own}, indent=1))
    if available:
        format_highly_available(folder)
        return
    formatted = daemon(folder, "namenode", NAMENODE, "-format", "-nonInteractive", "-force")
    if formatted.wait() != 0:
        give_up(folder, "formatting HDFS failed", "namenode")


def format_highly_available(folder: Path) -> None:
    """HDFS formatted for HA as Hadoop's guide does it: the JournalNodes up, nn1 formatted (the
    shared edits with it) and started, nn2 made its standby from it, ZooKeeper's failover state
    made; nn2 and the failover controllers are then started as any daemon that is down."""
    start_zookeeper(folder)
    for name in ha.JOURNALS:
        start_journal(folder, name)
    first, second = ha.NAMENODES
    run_to_end(folder, first, NAMENODE, "-format", home=ha.home(folder, first))
    start_ha_namenode(folder, first)
    run_to_end(folder, second, NAMENODE, "-bootstrapStandby", home=ha.home(folder, second))
    run_to_end(folder, "zkfc-format", ha.FAILOVER_CONTROLLER, "-formatZK",
               home=ha.home(folder, first))


def run_to_end(folder: Path, name: str, main_class: str, command: str, home: Path) -> None:
    """One of HA's formatting commands (`-format`, `-bootstrapStandby`, `-formatZK`), run to its
    end without questions; its PID file gone with it, so the daemon of that name starts later."""
    process = daemon(folder, name, main_class, command, "-nonInteractive", "-force", home=home)
    if process.wait() != 0:
        give_up(folder, f"formatting HDFS for HA ({name} {command}) failed", name)
    (folder / f"{name}.pid").unlink(missing_ok=True)


def start_ha_namenode(folder: Path, name: str) -> None:
    """NameNode `name` of the pair; up once it answers at its RPC address."""
    process = daemon(folder, name, NAMENODE, home=ha.home(folder, name))
    rpc = site(folder, "hdfs-site.xml", f"dfs.namenode.rpc-address.{ha.NAMESERVICE}.{name}")
    wait(folder, name, process, lambda: answers(rpc))


def start_highly_available(folder: Path) -> None:
    """ZooKeeper, the JournalNodes, both NameNodes and their failover controllers, whichever is
    not running; up once one NameNode is active."""
    if not alive(folder, "zookeeper"):
        start_zookeeper(folder)
    for name in ha.JOURNALS:
        if not alive(folder, name):
            start_journal(folder, name)
    for name in ha.NAMENODES:
        if not alive(folder, name):
            start_ha_namenode(folder, name)
    for name in ha.NAMENODES:
        controller = f"zkfc-{name}"
        if not alive(folder, controller):
            daemon(folder, controller, ha.FAILOVER_CONTROLLER, home=ha.home(folder, name))
    wait(folder, "zkfc-nn1", None, lambda: ha.active(sites_of(folder)) is not None)


def start_zookeeper(folder: Path) -> None:
    (ha.home(folder, "zookeeper") / "data").mkdir(parents=True, exist_ok=True)
    config = ha.zookeeper_config(folder, sites_of(folder))
    process = daemon(folder, "zookeeper", ha.ZOOKEEPER_MAIN, str(config),
                     home=ha.home(folder, "zookeeper"))
    quorum = site(folder, "core-site.xml", "ha.zookeeper.quorum")
    wait(folder, "zookeeper", process, lambda: answers(quorum))


def start_journal(folder: Path, name: str) -> None:
    process = daemon(folder, name, ha.JOURNAL_NODE, home=ha.home(folder, name))
    address = ha_daemons(folder)[name]["dfs.journalnode.rpc-address"]
    wait(folder, name, process, lambda: answers(address))


def start_kdc(folder: Path) -> None:
    """The realm's KDC (kerberos.py); up once it answers on its port."""
    command, env = kerberos.kdc_command(folder)
    with open(folder / "logs" / "kdc.out", "ab") as out:
        process = subprocess.Popen(command, cwd=folder / "work", stdout=out, stderr=out, env=env,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    (folder / "kdc.pid").write_text(f"{process.pid}\n")
    wait(folder, "kdc", process, lambda: answers(kerberos.kdc_address(folder)))


def start_namenode(folder: Path) -> None:
    process = daemon(folder, "namenode", NAMENODE)
    namenode = site(folder, "core-site.xml", "fs.defaultFS").removeprefix("hdfs://")
    wait(folder, "namenode", process, lambda: answers(namenode))


def start_datanode(folder: Path) -> None:
    """The one DataNode, its blocks kept in DIR/work from one start to the next; up once the
    NameNode counts it live."""
    process = daemon(folder, "datanode", DATANODE)
    wait(folder, "datanode", process, lambda: live_datanodes(folder) >= 1)
    make_shared_folders(folder, "datanode")


def make_shared_folders(folder: Path, name: str) -> None:
    """/tmp and MapReduce's staging folder (world-writable, as on any cluster that several users'
    jobs share: the first job's user made it theirs) and the user's home on HDFS, made by HDFS's
    superuser (a secured cluster's is the NameNode's principal; the user then owns its home)."""
    user = getpass.getuser()
    environment = {**os.environ, "HADOOP_CONF_DIR": str(folder / "conf")}
    commands = [["-mkdir", "-p", "/tmp", STAGING, f"/user/{user}"], ["-chmod", "1777", "/tmp", STAGING]]
    if secured(folder):  # and the history folder, where the JobHistoryServer and each job's user
        # make folders of their own (made by the JobHistoryServer: its own, mode 770)
        environment.update(kerberos.as_service(folder, "nn"))
        commands += [["-mkdir", "-p", f"{STAGING}/history"],
                     ["-chmod", "1777", STAGING, f"{STAGING}/history"],
                     ["-chown", user, f"/user/{user}"]]
    for args in commands:
        answer = subprocess.run([str(HOME / "bin" / "hadoop"), "fs", *args], env=environment,
                                capture_output=True, text=True)
        if answer.returncode:
            give_up(folder, f"HDFS did not answer `hadoop fs {' '.join(args)}`: "
                    + (answer.stderr.strip().splitlines() or ["no error"])[-1], name)


def start_yarn(folder: Path) -> None:
    """YARN and MapReduce of the one-node cluster in one MiniHadoopClusterManager, on HDFS."""
    (folder / "work" / "yarn.json").unlink(missing_ok=True)
    port = {key: site(folder, name, key).rsplit(":", 1)[1] for name, key in
            (("yarn-site.xml", "yarn.resourcemanager.address"),
             ("mapred-site.xml", "mapreduce.jobhistory.address"))}
    process = daemon(folder, "yarn", "org.apache.hadoop.mapreduce.MiniHadoopClusterManager",
                     "-nodfs", "-namenode", site(folder, "core-site.xml", "fs.defaultFS"),
                     "-rmport", port["yarn.resourcemanager.address"],
                     "-jhsport", port["mapreduce.jobhistory.address"],
                     "-writeDetails", str(folder / "work" / "yarn.json"),
                     *[f"-D{key}={value}" for name in ("yarn-site.xml", "mapred-site.xml")
                       for key, value in settings_of(folder, name).items()])
    wait(folder, "yarn", process, lambda: (folder / "work" / "yarn.json").exists())


def start_service(folder: Path, name: str, main_class: str) -> None:
    """The ResourceManager or the JobHistoryServer of a many-node cluster; up once it answers at
    its RPC address."""
    key = {"resourcemanager": ("yarn-site.xml", "yarn.resourcemanager.address"),
           "historyserver": ("mapred-site.xml", "mapreduce.jobhistory.address")}[name]
    process = daemon(folder, name, main_class)
    wait(folder, name, process, lambda: answers(site(folder, *key)))


def start_node(folder: Path, node: int) -> None:
    """Node `node`'s DataNode and NodeManager, whichever is not running; up once the NameNode
    counts the DataNode live and the ResourceManager the NodeManager running."""
    start_datanode_of(folder, node)
    prefix = f"node-{node}-"
    if not alive(folder, prefix + "nodemanager"):
        process = daemon(folder, prefix + "nodemanager", NODE_MANAGER, home=node_home(folder, node))
        wait(folder, prefix + "nodemanager", process,
             lambda: node_state(folder, node) == "RUNNING")


def start_datanode_of(folder: Path, node: int) -> None:
    """Node `node`'s DataNode unless it runs; up once the NameNode counts it live."""
    name = f"node-{node}-datanode"
    if not alive(folder, name):
        process = daemon(folder, name, DATANODE, home=node_home(folder, node))
        wait(folder, name, process, lambda: datanode_live(folder, node))
        make_shared_folders(folder, name)


def node_home(folder: Path, node: int) -> Path:
    return folder / "nodes" / str(node)


def daemon(folder: Path, name: str, main_class: str, *args: str,
           home: Path | None = None) -> subprocess.Popen:
    """A JVM running `main_class` on the jars, the configuration first on
    its class path and in its HADOOP_CONF_DIR (`home`'s own conf/ for a node's or an HA daemon's,
    which works in `home`), its output in DIR/logs/NAME.out and its log in NAME.log, its PID in
    DIR/NAME.pid."""
    classpath = (HOME / "target" / "classpath.txt").read_text().strip()
    conf, cwd = folder / "conf", folder / "work"
    if home is not None:
        cwd, conf = home, home / "conf"
    # Without the optimising compiler the cluster starts in 32-33 s on 26-28 s of CPU, against
    # 38-39 s and 49-50 (AMD EPYC, 2 cores, quiet); its daemons' work is RPC, never hot loops.
    heap = "-Xmx1g" if home is None else "-Xmx512m"
    secure = kerberos.jvm_options(folder) if secured(folder) else []
    command = ["java", heap, "-XX:TieredStopAtLevel=1", *secure,
               f"-Dhadoop.log.dir={folder / 'logs'}",
               f"-Dhadoop.log.file={name}.log",
               f"-Dlog4j.configuration=file:{HOME / 'log4j-cluster.properties'}",
               f"-Dtest.build.data={folder / 'work' / name}",
               "-cp", f"{conf}:{classpath}", main_class, *args]
    # HADOOP_CONF_DIR, as a node's own /etc/hadoop/conf: YARN passes it on to every container,
    # where a task's own HDFS client (hdfs-native in a Spark executor) reads it.
    environment = {**os.environ, "HADOOP_CONF_DIR": str(conf)}
    with open(folder / "logs" / f"{name}.out", "ab") as out:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=out, env=environment,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    (folder / f"{name}.pid").write_text(f"{process.pid}\n")
    return process


def wait(folder: Path, name: str, process: subprocess.Popen | None,
         ready: Callable[[], bool]) -> None:
    """Until `ready()`, giving up if `process` (the daemon `name`, if just started) ends or its
    log says its main thread failed, or after WAIT_SECONDS."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not ready():
        ended = process is not None and process.poll() is not None
        if ended or 'Exception in thread "main"' in log_tail(folder, name):
            give_up(folder, f"the {name} failed to start", name)
        if time.monotonic() > deadline:
            give_up(folder, f"the {name} did not start within {WAIT_SECONDS} s", name)
        time.sleep(1)


def site_settings(folder: Path, nodes: int, secure: bool) -> dict[str, dict[str, str]]:
    """The cluster's settings by the site file a client reads them from: its addresses, each on a
    free port, its folders in DIR/work, the sizes above, its queues (queues.py) and Kerberos's if
    `secure`. MapReduce's tasks run on the jars Maven fetched."""
    sites: dict[str, dict[str, str]] = {name: {} for name in ADDRESSES}
    ports = iter(free_ports(sum(len(keys) for keys in ADDRESSES.values())))
    for name, keys in ADDRESSES.items():
        for key in keys:
            sites[name][key] = f"127.0.0.1:{next(ports)}"
    sites["core-site.xml"]["fs.defaultFS"] = "hdfs://" + sites["core-site.xml"]["fs.defaultFS"]
    sites["core-site.xml"]["hadoop.tmp.dir"] = str(folder / "work" / "tmp")
    settings = SETTINGS if nodes == 1 and not secure else {**SETTINGS, **MANY_NODES,
                                                           "dfs.replication": min(3, nodes)}
    for key, value in settings.items():
        sites[site_file(key)][key] = str(value)
    # YARN's queues (queues.py): read by the ResourceManager from its class path, the
    # configuration folder first on it.
    sites["yarn-site.xml"].update(queues.yarn_settings())
    sites["capacity-scheduler.xml"] = queues.capacity_scheduler()
    for name, values in (kerberos.site_settings(folder) if secure else {}).items():
        sites[name].update(values)
    sites["hdfs-site.xml"].update({"dfs.namenode.name.dir": str(folder / "work" / "namenode"),
                                   "dfs.datanode.data.dir": str(folder / "work" / "datanode"),
                                   "dfs.datanode.hostname": "127.0.0.1"})
    classpath = (HOME / "target" / "classpath.txt").read_text().strip()
    sites["mapred-site.xml"]["mapreduce.application.classpath"] = classpath
    return sites


def site_file(key: str) -> str:
    """The site file a setting belongs in."""
    if key.startswith("yarn."):
        return "yarn-site.xml"
    return "hdfs-site.xml" if key.startswith("dfs.") else "mapred-site.xml"


def node_sites(folder: Path, sites: dict[str, dict[str, str]], node: int,
               ports: Iterator[int]) -> dict[str, dict[str, str]]:
    """Node `node`'s configuration: the cluster's, with its DataNode's and NodeManager's addresses
    on 127.0.0.(node+1), its shuffle's port, and its blocks, containers and logs in its folder;
    NODE_PORTS of `ports` taken."""
    address, home = node_address(node), folder / "nodes" / str(node)
    own = {name: dict(settings) for name, settings in sites.items()}
    for name, keys in NODE_ADDRESSES.items():
        for key in keys:
            own[name][key] = f"{address}:{next(ports)}"
    own["hdfs-site.xml"].update({"dfs.datanode.hostname": address,
                                 "dfs.datanode.data.dir": str(home / "datanode")})
    if "dfs.datanode.kerberos.principal" in own["hdfs-site.xml"]:
        own["hdfs-site.xml"].update(kerberos.datanode_settings(address, next(ports)))
    else:
        next(ports)  # its secured web port, unused: every node takes NODE_PORTS
    own["yarn-site.xml"].update({"yarn.nodemanager.hostname": address,
                                 "yarn.nodemanager.local-dirs": str(home / "local"),
                                 "yarn.nodemanager.log-dirs": str(home / "userlogs")})
    # In mapred-site.xml: the shuffle reads MapReduce's configuration, whose mapred-default.xml
    # (13562 for every node) would win over yarn-site.xml.
    own["mapred-site.xml"]["mapreduce.shuffle.port"] = str(next(ports))
    return own


def node_address(node: int) -> str:
    """Node k's own loopback address, 127.0.0.(k+1): the NameNode and ResourceManager keep
    127.0.0.1."""
    if not 1 <= node <= 253:
        raise ValueError(f"node {node} has no address in 127.0.0.0/8 (1 to 253)")
    return f"127.0.0.{node + 1}"


def write_sites(conf: Path, sites: dict[str, dict[str, str]]) -> None:
    """A configuration folder (the client's is what HADOOP_CONF_DIR names, and the daemons' of
    127.0.0.1 read it too) and its logging."""
    for name, settings in sites.items():
        properties = "".join(f"  <property><name>{key}</name><value>{value}</value></property>\n"
                             for key, value in settings.items())
        (conf / name).write_text(f'<?xml version="1.0"?>\n<configuration>\n{properties}'
                                 "</configuration>\n")
    (conf / "log4j.properties").write_text((HOME / "log4j.properties").read_text())


def settings_of(folder: Path, name: str) -> dict[str, str]:
    return json.loads((folder / "work" / "settings.json").read_text())[name]


def sites_of(folder: Path) -> dict[str, dict[str, str]]:
    """The client configuration's site files, by name."""
    saved = json.loads((folder / "work" / "settings.json").read_text())
    return {name: values for name, values in saved.items() if name.endswith(".xml")}


def site(folder: Path, name: str, key: str) -> str:
    return settings_of(folder, name)[key]


def secured(folder: Path) -> bool:
    """Whether the cluster in `folder` was made with --kerberos."""
    return bool(json.loads((folder / "work" / "settings.json").read_text()).get("kerberos"))


def ha_daemons(folder: Path) -> dict[str, dict[str, str]]:
    """Each HA daemon's own settings (ha.plan), by name: none unless made with --ha."""
    return json.loads((folder / "work" / "settings.json").read_text()).get("ha") or {}


def highly_available(folder: Path) -> bool:
    """Whether the cluster in `folder` was made with --ha."""
    return bool(ha_daemons(folder))


def separate(folder: Path) -> bool:
    """Whether every daemon is a process of its own (several nodes, Kerberos or HA: the one-node
    cluster's MiniHadoopClusterManager skips its daemons' Kerberos logins and knows one NameNode,
    so such a cluster runs Hadoop's own daemons, node 1 on 127.0.0.2)."""
    return node_count(folder) > 1 or secured(folder) or highly_available(folder)


def node_count(folder: Path) -> int:
    """How many nodes the cluster in `folder` was made with (1 for one made before --nodes)."""
    return int(json.loads((folder / "work" / "settings.json").read_text()).get("nodes", 1))


def namenode_bean(folder: Path, name: str) -> dict:
    """One of the NameNode's JMX beans (FSNamesystemState, NameNodeInfo), from its web page (the
    active NameNode's, with --ha)."""
    if highly_available(folder):
        address = ha.web_address(sites_of(folder))
    else:
        address = site(folder, "hdfs-site.xml", "dfs.namenode.http-address")
    query = f"/jmx?qry=Hadoop:service=NameNode,name={name}"
    with urllib.request.urlopen(f"http://{address}{query}", timeout=5) as page:
        return json.load(page)["beans"][0]


def live_datanodes(folder: Path) -> int:
    """How many DataNodes the NameNode counts live."""
    try:
        return int(namenode_bean(folder, "FSNamesystemState")["NumLiveDataNodes"])
    except (OSError, ValueError, KeyError, IndexError):
        return 0


def datanode_live(folder: Path, node: int) -> bool:
    """Whether the NameNode counts node `node`'s DataNode live (it has heard from it lately)."""
    address = site_of_node(folder, node, "hdfs-site.xml", "dfs.datanode.address")
    address = address.replace(node_address(node), "127.0.0.1")  # as the NameNode names it
    try:
        live = json.loads(namenode_bean(folder, "NameNodeInfo")["LiveNodes"])
    except (OSError, ValueError, KeyError, IndexError):
        return False
    return any(entry.get("xferaddr") == address for entry in live.values())


def node_state(folder: Path, node: int) -> str:
    """What the ResourceManager says of node `node`'s NodeManager (RUNNING, LOST, ...), or '' if
    it does not know it or does not answer."""
    address = site(folder, "yarn-site.xml", "yarn.resourcemanager.webapp.address")
    nodemanager = site_of_node(folder, node, "yarn-site.xml", "yarn.nodemanager.address")
    try:
        with urllib.request.urlopen(f"http://{address}/ws/v1/cluster/nodes",
                                    timeout=5) as answer:
            listed = (json.load(answer).get("nodes") or {}).get("node", [])
    except (OSError, ValueError):
        return ""
    return next((entry["state"] for entry in listed if entry.get("id") == nodemanager), "")


def site_of_node(folder: Path, node: int, name: str, key: str) -> str:
    """A setting of node `node`'s own configuration (DIR/nodes/K/conf)."""
    tree = ElementTree.parse(folder / "nodes" / str(node) / "conf" / name)
    return tree.find(f"property[name='{key}']/value").text


def answers(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except OSError:
        return False
    return True


def free_ports(count: int) -> list[int]:
    """`count` distinct ports free now: every probe is held open until all are chosen (closed one
    at a time, the kernel may hand the same port out twice: two daemons then race for it)."""
    with contextlib.ExitStack() as stack:
        probes = [stack.enter_context(socket.socket()) for _ in range(count)]
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]


def pid_of(folder: Path, name: str) -> int | None:
    try:
        return int((folder / f"{name}.pid").read_text())
    except (OSError, ValueError):
        return None


def alive(folder: Path, name: str) -> bool:
    """Whether the daemon started in this folder under this name is still running."""
    pid = pid_of(folder, name)
    return pid is not None and running(pid)


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie, killed and not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def working_in(folder: Path) -> list[int]:
    """The processes working in `folder` (a node's daemons, containers and their tasks; YARN
    starts each container in a session of its own, so a daemon's process group misses them)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if Path(os.readlink(entry / "cwd")).is_relative_to(folder):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def stop(pids: list[int]) -> None:
    """SIGTERM, then SIGKILL what is still running after STOP_SECONDS (a frozen process is woken
    first, or SIGTERM would wait for it)."""
    signal_all(pids, signal.SIGCONT)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        signal_all(pids, sig)
        deadline = time.monotonic() + STOP_SECONDS
        while time.monotonic() < deadline and any(running(pid) for pid in pids):
            time.sleep(0.2)


def down(folder: Path) -> int:
    """Stop every daemon started in `folder`, then any task process still working there."""
    folder = folder.resolve()
    files = sorted(folder.glob("*.pid"))
    pids = [pid for pid in (pid_of(folder, file.stem) for file in files) if pid is not None]
    if not pids:
        print(f"cluster/hadoop/down: no cluster was started in {folder}", file=sys.stderr)
    stop(pids)
    stop(working_in(folder))
    for file in files:
        file.unlink(missing_ok=True)
    return 0


NODE_ACTIONS = ("kill", "freeze", "thaw", "stop", "start")


def node(folder: Path, number: int, action: str) -> int:
    """Do `action` to every process of node `number` (its DataNode, its NodeManager, and their
    containers and tasks): kill (SIGKILL), freeze (SIGSTOP), thaw (SIGCONT), stop (SIGTERM, then
    SIGKILL), or start it again (its daemons; the containers it had are gone)."""
    folder = folder.resolve()
    if not (folder / "work" / "settings.json").exists():
        give_up(folder, f"no cluster was started in {folder}", None)
    nodes = node_count(folder)
    if not separate(folder):
        give_up(folder, "a one-node cluster's NodeManager lives in the ResourceManager's JVM; "
                "start one with `up DIR --nodes N` (N >= 2) to drill a node alone", None)
    if not 1 <= number <= nodes:
        give_up(folder, f"the cluster in {folder} has nodes 1 to {nodes}, not {number}", None)
    home = folder / "nodes" / str(number)
    if action == "start":
        start_node(folder, number)
    elif action == "stop":
        stop(working_in(home))
    else:
        sig = {"kill": signal.SIGKILL, "freeze": signal.SIGSTOP, "thaw": signal.SIGCONT}[action]
        signalled: set[int] = set()
        # A daemon may start a container between the listing and the signal: list again until a
        # listing finds nothing new.
        while fresh := [pid for pid in working_in(home) if pid not in signalled]:
            signal_all(fresh, sig)
            signalled.update(fresh)
            if sig == signal.SIGKILL:
                time.sleep(0.1)
    return 0


def log_tail(folder: Path, name: str) -> str:
    path = folder / "logs" / f"{name}.out"
    return "\n".join(path.read_text(errors="replace").splitlines()[-15:]) if path.exists() else ""


def give_up(folder: Path, why: str, name: str | None) -> None:
    """One line (after the log's tail of the daemon that failed, which is killed) and exit 1."""
    if name is not None:
        print(log_tail(folder, name), file=sys.stderr)
        why = f"{why}; logs in {folder / 'logs'}"
        pid = pid_of(folder, name)
        if pid is not None:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
    script = Path(sys.argv[0]).name
    print(f"cluster/hadoop/{script}: {why}", file=sys.stderr)
    sys.exit(1)

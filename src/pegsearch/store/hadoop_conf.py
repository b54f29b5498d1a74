"""A Hadoop cluster's client configuration, as Hadoop's own clients read it, and whether its
servers answer.

HADOOP_CONF_DIR (or YARN_CONF_DIR, or $HADOOP_HOME/etc/hadoop) holds the site files that name a
cluster's NameNode (or an HA nameservice's NameNodes) and its ResourceManager. Hadoop's clients, and
hdfs-native, ask an address nobody answers at again and again, for minutes; one TCP connection
first turns a cluster that is down, or a configuration that names the wrong one, into one line
within seconds.

A cluster secured by Kerberos (hadoop.security.authentication=kerberos) needs a ticket first: its
clients without one (Hadoop's Java client, Spark's, hdfs-native) retry and then fail with a page of
SASL and GSSAPI errors. `check_kerberos` asks MIT's `klist` beforehand and says it in one line.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from urllib.parse import urlparse

from pegsearch.errors import UsageError

CONNECT_SECONDS = 5
SITE_FILES = ("core-site.xml", "hdfs-site.xml", "yarn-site.xml", "mapred-site.xml")
NAMENODE_PORT = 8020
# Hadoop's defaults for what a client needs, where the site files say nothing.
DEFAULTS = {"yarn.resourcemanager.hostname": "0.0.0.0",
            "yarn.resourcemanager.address": "${yarn.resourcemanager.hostname}:8032",
            "yarn.resourcemanager.webapp.address": "${yarn.resourcemanager.hostname}:8088",
            "fs.defaultFS": "file:///", "mapreduce.framework.name": "local"}
VARIABLE = re.compile(r"\$\{([^}]+)\}")


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


def namenodes(uri: str, found: dict[str, str]) -> list[str]:
    """The NameNode addresses (host:port) behind an hdfs:// URI: its own, or each NameNode of the
    HA nameservice it names; none for another scheme (viewfs mounts are the client's to resolve)."""
    parsed = urlparse(uri)
    if parsed.scheme.lower() != "hdfs" or not parsed.hostname:
        return []
    service = parsed.hostname
    if service in found.get("dfs.nameservices", "").split(","):
        ids = [nn.strip() for nn in found.get(f"dfs.ha.namenodes.{service}", "").split(",")]
        return [setting(found, f"dfs.namenode.rpc-address.{service}.{nn}") for nn in ids if nn]
    return [f"{service}:{parsed.port or NAMENODE_PORT}"]


def _connected(address: str) -> socket.socket:
    """A TCP connection to host:port ([host] for IPv6), given CONNECT_SECONDS for each step."""
    host, _, port = address.rpartition(":")
    return socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS)


def answers(address: str) -> bool:
    """Whether something accepts a TCP connection at host:port."""
    try:
        _connected(address).close()
    except (OSError, ValueError):
        return False
    return True


def web_server(address: str) -> bool:
    """Whether host:port answers HTTP as a web server does: a daemon's web port given where its RPC
    address belongs (the NameNode's 9870, the ResourceManager's 8088), which Hadoop's clients and
    hdfs-native wait on for minutes. A Hadoop RPC port answers an HTTP request too, but says it is
    one ("It looks like you are making an HTTP request to a Hadoop IPC port")."""
    try:
        with _connected(address) as probe:
            probe.sendall(b"GET / HTTP/1.0\r\nHost: " + address.encode() + b"\r\n\r\n")
            answer = probe.recv(4096)
    except (OSError, ValueError):
        return False
    return answer.startswith(b"HTTP/") and b"Hadoop IPC port" not in answer


def kerberized(found: dict[str, str]) -> bool:
    """Whether the cluster's configuration asks its clients for Kerberos."""
    return found.get("hadoop.security.authentication", "simple").strip().lower() == "kerberos"


def check_kerberos(found: dict[str, str], who: str, keytab_will_do: bool = False) -> None:
    """Refuse, in one line naming Kerberos and `kinit`, to go on against a kerberized cluster
    without a valid ticket in the credentials cache (none, or expired: `klist -s` fails).
    `keytab_will_do`: a client keytab (KRB5_CLIENT_KTNAME) is enough, as for hdfs-native, whose
    GSSAPI takes a ticket from it itself; Java's clients (YARN, Spark) read only the cache.
    A YARN container (a task, an executor) holds the job's delegation tokens instead
    (HADOOP_TOKEN_FILE_LOCATION) and is not asked. Without `klist` (no MIT tools), nothing is
    checked: the client's own error says it."""
    klist = shutil.which("klist")
    if not kerberized(found) or klist is None or os.environ.get("HADOOP_TOKEN_FILE_LOCATION"):
        return
    keytab = os.environ.get("KRB5_CLIENT_KTNAME", "").removeprefix("FILE:")
    if keytab_will_do and keytab and os.path.isfile(keytab):
        return
    try:
        valid = subprocess.run([klist, "-s"], capture_output=True, timeout=CONNECT_SECONDS,
                               stdin=subprocess.DEVNULL).returncode == 0
        said = subprocess.run([klist], capture_output=True, text=True, timeout=CONNECT_SECONDS,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return
    if valid:
        return
    held = re.search(r"Default principal: (\S+)", said.stdout)
    why = (f"the ticket of {held[1]} has expired" if held
           else "there is no Kerberos ticket in the credentials cache")
    principal = held[1] if held else "PRINCIPAL"
    raise UsageError(f"{who}: the cluster needs Kerberos (hadoop.security.authentication=kerberos,"
                     f" from {conf_dir()}) and {why}: run `kinit {principal}` (or `kinit -kt"
                     f" KEYTAB {principal}`), then again")

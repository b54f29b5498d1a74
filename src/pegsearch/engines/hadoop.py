"""The YARN cluster a job is sent to, as its configuration names it, checked before any work.

mrjob's hadoop runner and Spark's `yarn` master both find the cluster through the Hadoop client
configuration (store.hadoop_conf). Its ResourceManager and NameNode are reached once here first:
YARN's client would otherwise ask a ResourceManager that is down for 15 minutes.

The same configuration says whether the cluster is this machine (a single-machine cluster such as
cluster/hadoop/up starts): its tasks can then run this very Python, which has pegsearch, and read
Spark's jars where pip put them.

A job's client ending does not end the job on YARN: a level stopped by Ctrl-C, SIGTERM or a
service's cancel kills its application (`kill_applications`), as `yarn application -kill` would.
A level whose job failed shows its task's own error (`task_error`, from `yarn logs`). While a
level's job runs, a node YARN calls lost (or that comes back) is said in one line
(`NodeWatch`): the level then takes longer, as YARN makes the lost node's work again elsewhere.

A job may name its YARN queue (--queue): a queue the scheduler does not have is refused before any
work (`check_queue`); one whose ACL does not admit the user is refused by YARN as the job is
submitted, and that refusal is one line (`queue_refusal`), not the client's Java exception. A job
left ACCEPTED in a full queue is said, with what the queue uses (`waiting_note`).
"""

from __future__ import annotations

import getpass
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pegsearch.errors import InputError, UsageError
from pegsearch.store.hadoop_conf import (
    answers,
    check_kerberos,
    conf_dir,
    namenodes,
    setting,
    settings,
    web_server,
)

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0", socket.gethostname()}
HELP = "start one (cluster/hadoop/up DIR) or point HADOOP_CONF_DIR at the cluster's configuration"
AGGREGATION_WAIT = 30  # seconds for YARN to gather a finished application's logs
# The last line of a task's stderr that failed it: a Python exception, or a Java one.
TASK_ERROR = re.compile(r"^[\w.]*(Error|Exception)\b|^Exception in thread")
TASK_ERROR_LINES = 12
# A NodeManager's states in which its containers are gone or going: YARN runs their tasks again.
LOST_STATES = frozenset({"LOST", "UNHEALTHY", "SHUTDOWN", "DECOMMISSIONED", "DECOMMISSIONING"})
WATCH_SECONDS = 5.0  # how often the ResourceManager is asked about its nodes while a level runs
WAIT_SAID = 15.0  # seconds a level's application may wait ACCEPTED before that is said


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
    if all(web_server(address) for address in managers):
        raise UsageError(f"{managers[0]} (yarn.resourcemanager.address, from {conf_dir()}) is a web"
                         " server (the ResourceManager's web port?), not its RPC address (often"
                         " 8032)")
    nodes = namenodes(setting(found, "fs.defaultFS"), found)
    if nodes and not any(answers(address) for address in nodes):
        raise UsageError(f"no HDFS NameNode answers at {', '.join(nodes)} (from {conf_dir()}): {HELP}")
    check_kerberos(found, what)
    return found


def on_this_machine(found: dict[str, str]) -> bool:
    """Whether the cluster's ResourceManager is this machine (so its tasks share this disk)."""
    return all(address.rpartition(":")[0].strip("[]") in LOCAL_HOSTS
               for address in resource_managers(found))


class SubmittedApplications(logging.Filter):
    """The YARN applications a job's client has reported submitting, and YARN's refusal of its
    queue if it said one (`refusal`, then said as one line instead of the client's Java error),
    read from the log records it passes through Python's logging (mrjob logs each line of `hadoop
    jar`'s output); every other record that would have been shown still is, and no other."""

    ID = re.compile(r"\b(?:application|job)_(\d+_\d+)\b")

    def __init__(self, shown: int) -> None:
        super().__init__()
        self.shown = shown
        self.ids: list[str] = []
        self.refusal: str | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        for number in self.ID.findall(message):
            if f"application_{number}" not in self.ids:
                self.ids.append(f"application_{number}")
        refused = queue_refusal(message)
        self.refusal = self.refusal or refused
        return record.levelno >= self.shown and refused is None


@contextmanager
def submitted_applications(logger: logging.Logger) -> Iterator[SubmittedApplications]:
    """A `SubmittedApplications` on `logger` while the block runs; the logger passes its INFO
    records to it meanwhile (the client's "Submitted application" line is INFO)."""
    found = SubmittedApplications(logger.getEffectiveLevel())
    before = logger.level
    logger.addFilter(found)
    logger.setLevel(logging.INFO)
    try:
        yield found
    finally:
        logger.removeFilter(found)
        logger.setLevel(before)


def waiting_application(found: dict[str, str], name: str) -> str | None:
    """What YARN says of this user's application `name` if it is ACCEPTED but not yet running
    (no container for its application master: the queue's limit for them, or its resources),
    asked of the ResourceManager's web service (`waiting_note`); None if no such application waits
    or the web service does not answer."""
    query = urllib.parse.urlencode({"states": "ACCEPTED", "user": yarn_user()})
    listed = (_ask(found, f"apps?{query}").get("apps") or {}).get("app", [])
    return next((waiting_note(found, app) for app in listed if app.get("name") == name), None)


def waiting_note(found: dict[str, str], app: dict) -> str:
    """An ACCEPTED application (the web service's entry) as one line: its queue, how full that
    queue is, and YARN's reason it has not started (its diagnostics: the queue's limit for
    application masters, say)."""
    said = " ".join(str(app.get("diagnostics", "")).split())
    queue = queue_info(found, str(app.get("queue")))
    usage = "" if queue is None else (
        f"; the queue uses {queue.get('usedCapacity', 0):.0f}% of its share"
        f" ({queue.get('absoluteCapacity', 0):.0f}% of the cluster), {queue.get('numPendingApplications', 0)}"
        f" application(s) waiting, {queue.get('numActiveApplications', 0)} running")
    return (f"waiting for YARN: {app.get('id')} is ACCEPTED in queue {app.get('queue')}, not yet"
            f" running{usage}{f' ({said})' if said else ''}")


def yarn_user() -> str:
    """Who YARN takes this process for without Kerberos: HADOOP_USER_NAME, else the login."""
    return os.environ.get("HADOOP_USER_NAME") or getpass.getuser()


def _ask(found: dict[str, str], path: str) -> dict:
    """The ResourceManager's web service's answer at /ws/v1/cluster/PATH; {} if it does not
    answer."""
    address = setting(found, "yarn.resourcemanager.webapp.address")
    try:
        with urllib.request.urlopen(f"http://{address}/ws/v1/cluster/{path}", timeout=5) as answer:
            return json.load(answer) or {}
    except (OSError, ValueError):
        return {}


def leaf_queues(found: dict[str, str]) -> dict[str, dict]:
    """The CapacityScheduler's leaf queues (where jobs run), by name and by path (root.search),
    as its web service lists them: none if it does not answer or the scheduler is another."""
    info = (_ask(found, "scheduler").get("scheduler") or {}).get("schedulerInfo") or {}
    if info.get("type") != "capacityScheduler":
        return {}
    found_queues: dict[str, dict] = {}
    below = [info]
    while below:
        queue = below.pop()
        children = (queue.get("queues") or {}).get("queue", [])
        below.extend(children)
        if not children and queue is not info:
            found_queues[queue["queueName"]] = found_queues[queue.get("queuePath", "")] = queue
    return found_queues


def queue_info(found: dict[str, str], name: str) -> dict | None:
    """What the scheduler says of leaf queue `name` now (its capacity, what it uses), or None."""
    return leaf_queues(found).get(name)


def check_queue(found: dict[str, str], queue: str | None) -> None:
    """Refuse, in one line and before any work, a queue the cluster's scheduler does not have (or
    a parent queue, where no job runs). Unchecked where the scheduler is not asked (its web
    service closed, another scheduler): YARN's own refusal is then said (`queue_refusal`)."""
    if queue is None:
        return
    if not queue.strip():
        raise InputError("{queue} '': name a YARN queue")
    queues = leaf_queues(found)
    if queues and queue not in queues:
        names = ", ".join(sorted({entry["queueName"] for entry in queues.values()}))
        raise UsageError(f"YARN has no queue '{queue}' to run jobs in (its queues: {names}); choose"
                         " one with --queue, or leave it out for the one the cluster gives you")


# YARN's refusals of a job sent to a queue, as its client's exception words them.
NOT_PERMITTED = re.compile(r"User (\S+) does not have permission to submit (\S+) to queue (\S+)")
UNKNOWN_QUEUE = re.compile(r"submitted by user (\S+) to (?:unknown|non-leaf) queue:? (\S+)")


def queue_refusal(text: str) -> str | None:
    """The one line for YARN's refusal of a job's queue found in `text` (a job client's output or
    exception), or None if it holds none."""
    if denied := NOT_PERMITTED.search(text):
        user, application, queue = denied.groups()
        path = queue if queue.startswith("root.") else f"root.{queue}"  # YARN says either
        return (f"YARN refused {application}: user {user} may not submit to queue {queue} (its ACL,"
                f" yarn.scheduler.capacity.{path}.acl_submit_applications); choose a queue you"
                " may use with --queue, or ask the cluster's administrators to admit you")
    if unknown := UNKNOWN_QUEUE.search(text):
        user, queue = unknown.groups()
        return (f"YARN has no queue {queue} for user {user} to run jobs in; choose one with --queue,"
                " or leave it out for the one the cluster gives you")
    return None


class NodeWatch:
    """The cluster's nodes as the ResourceManager reports them, watched while a level's job runs:
    each node it calls lost (its containers gone: the tasks they ran, and the map outputs they
    held, are made again on the other nodes), and each that is back, is said in one line on
    stderr; so is the level's application while it waits ACCEPTED (its queue full). What was
    seen is kept from one level to the next, so a node lost at the end of one level's job is said
    during the next. Nothing is watched without a cluster (`found` empty) or
    while the ResourceManager's web service does not answer."""

    def __init__(self, found: dict[str, str]) -> None:
        self.found = found
        self.known: dict[str, str] | None = None  # first asked as the first level's job starts
        # An application seen ACCEPTED: since when, and YARN's reason when it was last said.
        self.waits: dict[str, tuple[float, str | None]] = {}

    @contextmanager
    def during(self, level: int, notes: dict, submitted: SubmittedApplications | None = None
               ) -> Iterator[None]:
        """Watch while the block (level `level`'s job, whose applications `submitted` collects)
        runs, and look once more as it ends; what is said of nodes is kept in the level's `notes`
        too (its record: `counts`, the service's events)."""
        if not self.found:
            yield
            return
        if self.known is None:
            self.known = node_states(self.found)
        stop = threading.Event()
        watcher = threading.Thread(target=self._watch, args=(level, notes, stop, submitted),
                                   daemon=True,
                                   name="pegsearch-yarn-nodes")
        watcher.start()
        try:
            yield
        finally:
            stop.set()
            watcher.join(timeout=2 * WATCH_SECONDS)

    def _watch(self, level: int, notes: dict, stop: threading.Event,
               submitted: SubmittedApplications | None) -> None:
        while not stop.wait(WATCH_SECONDS):
            self._look(level, notes)
            if submitted is not None and submitted.ids:
                self._waiting(level, submitted.ids[-1])
        self._look(level, notes)

    def _waiting(self, level: int, application: str) -> None:
        """Say, once it has waited WAIT_SAID seconds and again whenever YARN's reason changes,
        that the level's application is ACCEPTED but not running: a queue full, or its share for
        application masters taken."""
        app = _ask(self.found, f"apps/{application}").get("app") or {}
        if app.get("state") != "ACCEPTED":
            self.waits.pop(application, None)
            return
        since, said = self.waits.setdefault(application, (time.monotonic(), None))
        waited, reason = time.monotonic() - since, str(app.get("diagnostics", ""))
        if waited >= WAIT_SAID and reason != said:
            print(f"pegsearch: level {level}: {waiting_note(self.found, app)}; waited"
                  f" {waited:.0f} s so far", file=sys.stderr, flush=True)
            self.waits[application] = (since, reason)

    def _look(self, level: int, notes: dict) -> None:
        assert self.known is not None, "looked at outside `during`"
        now = node_states(self.found)
        for node, state in now.items():
            before = self.known.get(node)
            if state in LOST_STATES and before not in LOST_STATES:
                said = f"YARN lost node {node} ({state}); the tasks it ran run again on the other nodes"
            elif state == "RUNNING" and before in LOST_STATES:
                said = f"node {node} is back in YARN"
            else:
                continue
            print(f"pegsearch: level {level}: {said}", file=sys.stderr, flush=True)
            notes.setdefault("nodes", []).append(said)
        self.known.update(now)


def node_states(found: dict[str, str]) -> dict[str, str]:
    """Each NodeManager's state (RUNNING, LOST, ...) by its id (HOST:PORT), as the
    ResourceManager's web service says; none if it does not answer."""
    address = setting(found, "yarn.resourcemanager.webapp.address")
    try:
        with urllib.request.urlopen(f"http://{address}/ws/v1/cluster/nodes", timeout=5) as answer:
            listed = (json.load(answer).get("nodes") or {}).get("node", [])
    except (OSError, ValueError):
        return {}
    return {entry["id"]: entry["state"] for entry in listed if "id" in entry and "state" in entry}


def kill_applications(ids: list[str], hadoop_bin: str) -> None:
    """Kill these YARN applications by `yarn application -kill`, each within a minute; one that
    has finished already is left as it is."""
    for application in ids:
        _yarn(hadoop_bin, "application", "-kill", application)


def task_error(application: str, hadoop_bin: str) -> str:
    """A failed task's own error, from its container's stderr as `yarn logs` gives it once YARN
    has gathered the application's logs (log aggregation, waited for up to 30 s): the last lines
    of the first stderr that ends in a Python or Java error; "" if there is none to be had (log
    aggregation off, no `yarn` command)."""
    deadline = time.monotonic() + AGGREGATION_WAIT
    while True:
        logs = _yarn(hadoop_bin, "logs", "-applicationId", application, "-log_files", "stderr")
        if "LogContents:" in logs or time.monotonic() > deadline:
            break
        time.sleep(2)
    for section in logs.split("LogContents:")[1:]:
        lines = [line for line in section.split("End of LogType:")[0].strip().splitlines()
                 if not line.startswith("+ ")]  # the setup script's trace (set -x)
        if lines and TASK_ERROR.match(lines[-1]):
            return "\n".join(lines[-TASK_ERROR_LINES:])
    return ""


def _yarn(hadoop_bin: str, *args: str) -> str:
    """What `yarn ARGS` prints (the `yarn` beside `hadoop_bin`, or on PATH), within a minute;
    "" if it cannot be run."""
    beside = Path(shutil.which(hadoop_bin) or hadoop_bin).with_name("yarn")
    yarn = str(beside) if beside.exists() else shutil.which("yarn")
    if yarn is None:
        return ""
    try:
        said = subprocess.run([yarn, *args], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return said.stdout

"""A real Spark standalone cluster on 127.0.0.1 (a master and workers started by
cluster/spark-cluster.sh on free ports), always stopped again, and waiting for what it does."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers.serving import free_ports

ROOT = Path(__file__).resolve().parents[2]
CLUSTER_SCRIPT = ROOT / "cluster" / "spark-cluster.sh"
SPARK_CONF = ROOT / "cluster" / "spark-conf"
BIN = Path(sys.executable).parent  # spark-submit and spark-class of this environment


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_until(condition, seconds: float, what: str, every: float = 0.2) -> None:
    """Ask `condition` every `every` seconds until it holds; fail after `seconds`. A condition that
    starts a process (a `pegsearch counts`) asks less often: asked every 0.2 s it kept a core busy
    beside the cluster it waited on."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(every)


@contextmanager
def standalone_cluster(folder: Path, workers: int) -> Iterator[dict]:
    """Start a master and `workers` workers with cluster/spark-cluster.sh; always stop them.

    Yields the master URL, the environment to submit with, and the folder of PID files. On exit,
    checks that every daemon the script started is gone.
    """
    master, webui = free_ports(2)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "PEGSEARCH_SPARK_DIR": str(folder), "SPARK_MASTER_PORT": str(master),
           "SPARK_MASTER_WEBUI_PORT": str(webui), "SPARK_CONF_DIR": str(SPARK_CONF),
           "PYSPARK_PYTHON": sys.executable}
    pids: list[int] = []
    try:
        started = subprocess.run(["bash", str(CLUSTER_SCRIPT), "start", str(workers)], env=env,
                                 capture_output=True, text=True, timeout=180)
        pids = [int(p.read_text()) for p in (folder / "pids").glob("*.pid")]
        assert started.returncode == 0, started.stderr
        assert len(pids) == workers + 1
        yield {"url": started.stdout.strip(), "env": env, "pids": folder / "pids"}
    finally:
        stopped = subprocess.run(["bash", str(CLUSTER_SCRIPT), "stop"], env=env,
                                 capture_output=True, text=True, timeout=180)
        assert stopped.returncode == 0, stopped.stderr
        assert not [pid for pid in pids if alive(pid)], "a daemon survived `stop`"

"""Kerberos for real: the cluster `cluster/hadoop/up DIR --kerberos` starts (MIT Kerberos's own KDC
on 127.0.0.1, HDFS and YARN secured with a principal and keytab per daemon: Kerberos RPC with
privacy, block tokens, SASL on data transfer), reached as a user with a ticket from `kinit -kt`,
each run compared with the local engine's level by level; and what a user without a ticket sees.

Not here: mrjob's hadoop runner. On this cluster its level jobs are submitted, get their delegation
tokens and run their maps, but the reduce's shuffle fails: secured, Hadoop reads map outputs only
through SecureIOUtils, which needs Hadoop's native library (libhadoop.so). Every distribution
ships it; Maven Central, where this cluster's jars come from, does not.
"""

from __future__ import annotations

import getpass
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engines.test_hadoop import TRIANGLE_5, assert_identical, local_triangle_5, states
from tests.helpers import pegsearch_process
from tests.helpers.hadoop_cluster import hadoop_cluster, yarn_applications
from tests.helpers.serving import Server

__all__ = ["local_triangle_5"]  # the fixture, shared with the unsecured cluster's tests

pytestmark = pytest.mark.slow
PRINCIPAL = f"{getpass.getuser()}@PEGSEARCH.TEST"  # `up --kerberos`'s user principal


@pytest.fixture(scope="module")
def kerberized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The secured cluster for this module, and the environment of a user who has run `kinit -kt`
    with the keytab `up` made (the client keytab itself left out of the environment: Java's
    clients read only the ticket, and the tests below say which client needs what)."""
    with hadoop_cluster(tmp_path_factory.mktemp("kerberos"), 1, "--kerberos") as env:
        keytab = env.pop("KRB5_CLIENT_KTNAME")
        subprocess.run(["kinit", "-kt", keytab, PRINCIPAL], env=env, check=True, timeout=30)
        yield {**env, "USER_KEYTAB": keytab}


def without_ticket(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The same user with an empty credentials cache and no client keytab."""
    bare = {key: value for key, value in env.items() if key != "USER_KEYTAB"}
    return {**bare, "KRB5CCNAME": f"FILE:{tmp_path / 'no-ticket.ccache'}"}


def test_the_cluster_lets_in_a_ticket_only(kerberized: dict[str, str], tmp_path: Path) -> None:
    """HDFS answers the user with a ticket (their home is theirs, made by HDFS's superuser, the
    NameNode's principal) and refuses the same client without one, as GSSAPI says."""
    listed = subprocess.run(["hadoop", "fs", "-ls", "/user"], env=kerberized, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert f" {getpass.getuser()} supergroup " in listed.stdout, listed.stdout
    refused = subprocess.run(["hadoop", "fs", "-ls", "/user"], capture_output=True, text=True,
                             env=without_ticket(kerberized, tmp_path), timeout=120)
    assert refused.returncode != 0 and "No Kerberos credentials" in refused.stderr, refused.stderr


def test_a_run_on_kerberized_hdfs_equals_the_local_engine(kerberized: dict[str, str],
                                                          local_triangle_5: Path,
                                                          tmp_path: Path) -> None:
    """The local engine writes the run on HDFS through hdfs-native (GSSAPI, with the ticket): run,
    `--resume`, `counts`, `verify --against`, `solve` and `pegsearch serve --runs` as on local
    disk. A client keytab with no ticket will do for hdfs-native (MIT's GSSAPI takes a ticket from
    KRB5_CLIENT_KTNAME itself)."""
    root = f"{kerberized['PEGSEARCH_HDFS']}/user/{getpass.getuser()}/runs"
    run = f"{root}/local"
    made = pegsearch_process("run", "triangle-5", "--until", "5", "--out", run, env=kerberized)
    assert made.returncode == 0, made.stderr
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=kerberized)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, kerberized)
    assert states(pegsearch_process("counts", run, "--json", env=kerberized)) == TRIANGLE_5
    keytab_only = {**without_ticket(kerberized, tmp_path),
                   "KRB5_CLIENT_KTNAME": kerberized["USER_KEYTAB"]}
    assert states(pegsearch_process("counts", run, "--json", env=keytab_only)) == TRIANGLE_5
    solved = pegsearch_process("solve", run, env=kerberized)
    assert solved.returncode == 0, solved.stderr
    assert solved.stdout == pegsearch_process("solve", str(local_triangle_5)).stdout
    server = Server(root, logs=tmp_path, env=kerberized)
    try:
        assert [search["status"] for search in server.get("/api/searches")] == ["complete"]
    finally:
        server.stop()


def test_spark_on_kerberized_yarn_equals_the_local_engine(kerberized: dict[str, str],
                                                          local_triangle_5: Path) -> None:
    """Levels 1-3 each a Spark job on the secured YARN, as the user: the driver authenticates
    with the ticket, the executors with the delegation tokens Spark got for HDFS, writing the run
    there through hdfs-native; the rest resumed by the local engine, identical."""
    run = f"{kerberized['PEGSEARCH_HDFS']}/user/{getpass.getuser()}/runs/spark"
    made = pegsearch_process("run", "triangle-5", "--engine", "spark", "--master", "yarn",
                             "--driver-below", "0", "--until", "3", "--out", run, env=kerberized,
                             timeout=900)
    assert made.returncode == 0, made.stderr[-3000:]
    assert any(app[2].strip() == "SPARK" and app[3].strip() == getpass.getuser()
               and app[6].strip() == "SUCCEEDED" for app in yarn_applications(kerberized))
    resumed = pegsearch_process("run", "triangle-5", "--resume", "--out", run, env=kerberized)
    assert resumed.returncode == 0, resumed.stderr
    assert_identical(run, local_triangle_5, kerberized)


@pytest.mark.parametrize("command", [
    ("counts", "{hdfs}/user/{user}/runs/local"),
    ("run", "triangle-5", "--out", "{hdfs}/user/{user}/runs/none"),
    ("run", "triangle-5", "--engine", "spark", "--master", "yarn", "--out", "runs/none"),
    ("run", "triangle-5", "--engine", "mrjob", "--runner", "hadoop", "--out", "runs/none"),
])
def test_without_a_ticket_each_command_is_one_line_naming_kinit(
        command: tuple[str, ...], kerberized: dict[str, str], tmp_path: Path) -> None:
    """No ticket: one line that names Kerberos and `kinit`, exit 2, within seconds (Hadoop's and
    hdfs-native's clients retry, then print a page of SASL and GSSAPI errors); nothing made."""
    args = [arg.format(hdfs=kerberized["PEGSEARCH_HDFS"], user=getpass.getuser())
            for arg in command]
    began = time.monotonic()
    refused = pegsearch_process(*args, env=without_ticket(kerberized, tmp_path), cwd=tmp_path)
    assert time.monotonic() - began < 30
    assert refused.returncode == 2, refused.stderr
    line = refused.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line, line
    assert "the cluster needs Kerberos" in line and "kinit -kt KEYTAB" in line, line
    assert not (tmp_path / "runs").exists()


def test_an_expired_ticket_is_one_line_naming_kinit(kerberized: dict[str, str],
                                                     tmp_path: Path) -> None:
    """A ticket that has expired (`kinit -l 3s`, then 4 s): one line that says so, naming the
    ticket's principal for `kinit`, exit 2."""
    env = without_ticket(kerberized, tmp_path)
    subprocess.run(["kinit", "-l", "3s", "-kt", kerberized["USER_KEYTAB"], PRINCIPAL], env=env,
                   check=True, timeout=30)
    time.sleep(4)
    refused = pegsearch_process("counts", f"{kerberized['PEGSEARCH_HDFS']}/user/x", env=env)
    assert refused.returncode == 2, refused.stderr
    line = refused.stderr.strip()
    assert len(line.splitlines()) == 1, line
    assert f"the ticket of {PRINCIPAL} has expired: run `kinit {PRINCIPAL}`" in line, line


def test_a_search_outlives_its_ticket(kerberized: dict[str, str], tmp_path: Path) -> None:
    """A ticket of 5 s, a search on HDFS of longer (skippy-xl whole): it finishes,
    on the connection hdfs-native authenticated while the ticket was valid; the run is then
    identical to the local engine's (read with a fresh ticket)."""
    env = without_ticket(kerberized, tmp_path)
    subprocess.run(["kinit", "-l", "5s", "-kt", kerberized["USER_KEYTAB"], PRINCIPAL], env=env,
                   check=True, timeout=30)
    began = time.monotonic()
    run = f"{kerberized['PEGSEARCH_HDFS']}/user/{getpass.getuser()}/runs/xl"
    made = pegsearch_process("run", "skippy-xl", "--out", run, env=env)
    took = time.monotonic() - began
    assert made.returncode == 0, made.stderr
    assert took > 5, f"the search took {took:.1f} s, no longer than its ticket"
    local = tmp_path / "xl"
    assert pegsearch_process("run", "skippy-xl", "--out", str(local)).returncode == 0
    compared = pegsearch_process("verify", run, "--against", str(local), env=kerberized)
    assert compared.returncode == 0 and "identical: all 26 levels equal" in compared.stdout, \
        compared.stdout + compared.stderr

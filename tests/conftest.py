"""Shared fixtures and the --slow switch: slow tests (full 28/33-hole runs, clusters) run in CI."""

from __future__ import annotations

import json
import os
import random
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="also run tests marked slow (CI does)")
    parser.addoption("--seed", type=int, default=None,
                     help="the seed of the tests that draw at random (the `seed` fixture), to replay"
                          " a failure; default PEGSEARCH_TEST_SEED, else a new one a test, printed")


# The modules whose tests take the longest together (minutes each: clusters, JVMs, the compile
# targets; docs/lab/2026-11-tests.md lists the slowest tests), longest first. The workers take a module at a
# time in the order collected, so these go first: the rest then fills around them and the workers
# end together, where a cluster's module taken last ran on alone for a quarter of the suite.
FIRST = ("engines/test_hadoop.py", "engines/test_spark.py", "engines/test_mrjob.py",
         "engines/test_hadoop_nodes.py", "engines/test_kerberos.py", "engines/test_contract.py",
         "engines/test_hadoop_ha.py", "faces/test_service_cluster.py", "faces/test_hostile.py",
         "kernel/test_target.py", "engines/test_cluster_costs.py", "store/test_s3_faults.py",
         "faces/test_service_browser.py")


def pytest_configure(config: pytest.Config) -> None:
    """SIGINT taken as Python takes it (KeyboardInterrupt) where the suite was started ignoring it:
    a run in the background of a shell (CI's) inherits SIGINT ignored, every command a test starts
    would inherit that, and pegsearch, like Python, leaves a signal it was started ignoring
    ignored, so a Ctrl-C test would test nothing. A handler is reset to the default at exec, so
    each child starts as from a terminal. (It was each child's `preexec_fn`, which runs Python
    between fork and exec: in a worker with threads (numba's, py4j's) a child deadlocked there
    and CI's suite stopped at test_hostile's signals, both workers idle.)"""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: a worker a core for `pytest --slow`, a worker more for the quick tests. The quick
    ones leave a core idle a third of the time (servers, subprocesses and Spark's JVM starting: 141 %
    of 200), which a third worker fills (10 min 4 s -> 9 min 42 s); beside the clusters of the slow
    ones a third worker ran longer (docs/lab/2026-11-tests.md)."""
    cores = len(os.sched_getaffinity(0))
    return cores if config.getoption("--slow") else cores + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest modules first (FIRST), the rest in their order; slow tests skipped unless --slow."""
    first = {f"tests/{name}": rank for rank, name in enumerate(FIRST)}
    items.sort(key=lambda item: first.get(item.nodeid.split("::")[0], len(FIRST)))
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# Each module's seconds (its tests' setup, call and teardown), summed from the reports the workers
# send, for the summary at the end: CI's output shows its last lines, where --durations' longest
# tests are cut off above.
MODULE_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    module = report.nodeid.split("::")[0]
    MODULE_SECONDS[module] = MODULE_SECONDS.get(module, 0.0) + report.duration


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The modules that took longest, with the share of the workers' time each took."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not MODULE_SECONDS:
        return
    total = sum(MODULE_SECONDS.values())
    longest = sorted(MODULE_SECONDS.items(), key=lambda item: -item[1])[:12]
    terminalreporter.write_sep("-", f"the longest modules, of {total / 60:.1f} worker-minutes")
    for module, seconds in longest:
        terminalreporter.write_line(f"{seconds:7.0f} s  {100 * seconds / total:4.1f} %  {module}")


@pytest.fixture(scope="session", autouse=True)
def kernels_compiled_ahead() -> None:
    """Every command's kernels compiled before the first test, as the first command on a machine
    does (cli.ahead): else whichever test came first would wait minutes and find the line saying
    so in its command's stderr."""
    from pegsearch.cli.ahead import ensure

    ensure()


@pytest.fixture
def seed(request: pytest.FixtureRequest) -> int:
    """The seed of a test that draws at random (a moment to kill a search at, an order of requests):
    `--seed N` or PEGSEARCH_TEST_SEED=N replays a run; without either each test draws a new one.
    Printed (a failing test's report shows it under "Captured stdout setup") and kept in the test's
    properties (junit XML)."""
    given = request.config.getoption("--seed")
    if given is None and os.environ.get("PEGSEARCH_TEST_SEED", "").strip():
        given = int(os.environ["PEGSEARCH_TEST_SEED"])
    value = random.SystemRandom().randrange(1 << 32) if given is None else given
    print(f"seed {value}: replay with `pytest --seed {value} {request.node.nodeid}`")
    request.node.user_properties.append(("seed", value))
    return value


@pytest.fixture(scope="session")
def published() -> dict:
    """Published figures copied from OEIS, Scherphuis, Bell and Durango Bill, with their sources."""
    return json.loads((DATA / "published.json").read_text())


@pytest.fixture(scope="session")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real S3-compatible server (SeaweedFS) on 127.0.0.1 for the whole session, reached through
    the AWS_* environment as a user would reach theirs; yields the bucket's URI, s3://runs."""
    from tests.helpers.s3_server import BUCKET, SeaweedFS
    from tests.helpers.store_server import reached

    with reached(SeaweedFS(tmp_path_factory.mktemp("seaweedfs"))):
        yield f"s3://{BUCKET}"


@pytest.fixture(scope="module")  # stopped after its module: its JVMs are not left to the rest
def hadoop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Apache Hadoop's single-machine cluster (HDFS, YARN) on 127.0.0.1 for the Hadoop tests'
    module, started by cluster/hadoop/up; yields the environment its `export` lines give. Stopped
    after that module: held for the session, its JVMs took CPU beside every test after it."""
    from tests.helpers.hadoop_cluster import hadoop_cluster

    with hadoop_cluster(tmp_path_factory.mktemp("hadoop")) as env:
        yield env


@pytest.fixture(scope="session")
def gcs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Google Cloud Storage emulator (fake-gcs-server) on 127.0.0.1 for the whole session,
    reached through STORAGE_EMULATOR_HOST as Google's own libraries reach one; yields the bucket's
    URI, gs://runs."""
    from tests.helpers.gcs_server import BUCKET, FakeGcs
    from tests.helpers.store_server import reached

    with reached(FakeGcs(tmp_path_factory.mktemp("fake-gcs"))):
        yield f"gs://{BUCKET}"

"""The Spark engine beyond the contract every engine keeps (tests/engines/test_contract.py: its
levels on local[2] equal to the local engine's, digest for digest, a resume, a killed run, bad
settings), and on a real standalone cluster.

Fast tests use an in-process SparkSession on local[2] and the real CLI for path counting and the
error paths: levels made in the driver and by Spark jobs in one run, fewest moves, path counts
position for position and Durango Bill's published totals, a count too large to store failing the
level, never wrapping. Slow tests start a real cluster (a master and workers on 127.0.0.1, free
ports) with cluster/spark-cluster.sh, submit with spark-submit, and always stop the cluster again.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyspark")

from pegsearch.answers.winnable import winnable_counts
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.engines.spark.blocks import SPARSE_SHARE, decode_block, encode_block, encode_range, or_range
from pegsearch.engines.spark.engine import SparkEngine
from pegsearch.engines.spark.probe import _visit_probe
from pegsearch.engines.spark.session import sessions_kept
from pegsearch.engines.spark.sizing import TASK_ROWS, shuffle_for, spark_bytes, task_memory
from pegsearch.errors import PathCountOverflow, UsageError
from pegsearch.kernel.path_counts import LIMIT, as_int
from pegsearch.kernel.values import Carry
from pegsearch.sizes import default_budget
from pegsearch.store import Location, Run, level_name
from tests.helpers import (
    level_sets,
    local_run,
    one_level_run,
    pegsearch,
    pegsearch_process,
    values_by_position,
    written,
)
from tests.helpers.cluster import BIN, CLUSTER_SCRIPT, alive, standalone_cluster, wait_until

ROOT = Path(__file__).resolve().parents[2]
JOB = ROOT / "jobs" / "spark_search.py"
# The spark engine on local[2], every level a Spark job (none made in the driver).
LOCAL2 = ("--engine", "spark", "--master", "local[2]", "--driver-below", "0")
ERROR_SECONDS = 30  # an error must arrive well before this


def paths_by_position(run: Run, level: int) -> dict[int, int]:
    positions, paths = run.read_level(level), run.read_level_values(level)
    return {p: as_int(row) for p, row in zip(positions.tolist(), paths, strict=True)}


def assert_same_levels(run: Run, reference: Run) -> None:
    """Every level of `run` equals the reference's position for position (and path count for path
    count when both runs count paths)."""
    assert [r["states"] for r in run.levels] == [r["states"] for r in reference.levels]
    for mine, theirs in zip(level_sets(run), level_sets(reference), strict=True):
        np.testing.assert_array_equal(mine, theirs)
    if run.count_paths and reference.count_paths:
        assert [r["paths"] for r in run.levels] == [r["paths"] for r in reference.levels]
        for level in range(len(run.levels)):
            assert paths_by_position(run, level) == paths_by_position(reference, level), level


# ----- local[2], in process

@pytest.fixture(scope="module", autouse=True)
def one_session() -> Iterator[None]:
    """The module's searches in this process share one local[2] session, as the service's Spark
    worker's searches do (sessions_kept): a session each cost the quick suite some 6 s a test (a
    JVM, its Python workers loading the kernel). Stopped after the module."""
    with sessions_kept():
        yield


def test_levels_made_in_the_driver_and_by_spark_jobs_equal_the_local_engine(tmp_path: Path) -> None:
    """With the threshold at the median level, the small levels are made in the driver and the
    large ones by Spark jobs, in one run: its levels still equal the local engine's."""
    board = load_board("triangle-6")
    reference = local_run("triangle-6", tmp_path / "local")
    sizes = sorted(record["states"] for record in reference.levels)
    engine = SparkEngine("local[2]", driver_below=sizes[len(sizes) // 2])
    mixed = search(SearchSpec(board, board.empty), tmp_path / "mixed", engine)
    assert_same_levels(mixed, reference)
    made_in_driver = engine._driver.passes  # one pass per small level
    assert 0 < made_in_driver < len(mixed.levels) - 1


def test_fewest_moves_on_local2_equal_the_local_engines_position_for_position(tmp_path: Path) -> None:
    """Fewest moves and last holes ride through map tasks, blocks and reduce tasks unchanged: the
    same value for every position as the local engine's."""
    board = load_board("triangle-6")
    spec = SearchSpec.asked(board, (4,), fewest_moves=True)
    spark_run = search(spec, tmp_path / "spark", SparkEngine("local[2]", driver_below=0))
    reference = search(spec, tmp_path / "local", LocalEngine())
    assert_same_levels(spark_run, reference)
    assert [r["by_moves"] for r in spark_run.levels] == [r["by_moves"] for r in reference.levels]
    for level in range(len(reference.levels)):
        assert values_by_position(spark_run, level) == values_by_position(reference, level), level
        if level and spark_run.levels[level - 1]["states"] <= TASK_ROWS:
            # A small level is one reduce task, so one part file, not one per default partition.
            assert len(spark_run.levels[level]["files"]) == 1, f"level {level}"


@pytest.fixture(scope="module")
def engine() -> Iterator[SparkEngine]:
    """The engine on the module's session, for the tests below that drive it a level at a time."""
    with SparkEngine("local[2]", driver_below=0) as started:
        yield started


def test_blocks_keep_positions_with_bit_63_and_path_counts() -> None:
    """64-hole boards set bit 63: such positions must survive a block's deltas and stay sorted."""
    keys = np.array([0, 3, 5, (1 << 63) - 1, 1 << 63, (1 << 64) - 1], dtype=np.uint64)
    paths = np.arange(12, dtype=np.uint64).reshape(-1, 2)
    back, back_paths = decode_block(encode_block(keys, paths))
    np.testing.assert_array_equal(back, keys)
    np.testing.assert_array_equal(back_paths, paths)
    alone, none = decode_block(encode_block(keys))
    np.testing.assert_array_equal(alone, keys)
    assert none is None


def test_a_path_count_at_the_limit_is_kept_exactly(engine: SparkEngine, tmp_path: Path) -> None:
    """Holes 2 and 3 (mirror images, in two parts, so two map tasks) share both child signatures:
    each child's count is a reduce task's sum of two, exactly 10**38 - 1, written as
    decimal(38, 0) and read back by the store."""
    run = one_level_run(tmp_path / "run", "spark", [2, 3], [LIMIT // 2, LIMIT // 2 + 1],
                        split=True)
    writer = run.level_writer(1)
    engine.next_level(run, 0, writer)
    (positions, paths), = written(writer)
    assert len(positions) == 2
    assert [as_int(row) for row in paths] == [LIMIT, LIMIT]


@pytest.mark.parametrize(("holes", "paths", "where"), [
    # Hole 1's two jumps are mirror images: one parent's children are summed in its map task.
    ([1], [LIMIT // 2 + 1], "in a map task"),
    # Holes 2 and 3, one part (one map task) each, share their children: they meet in a reduce.
    ([2, 3], [LIMIT // 2, LIMIT // 2 + 2], "in a reduce task"),
])
def test_a_path_count_past_the_limit_fails_never_wraps(engine: SparkEngine, holes: list[int],
                                                       paths: list[int], where: str,
                                                       tmp_path: Path) -> None:
    run = one_level_run(tmp_path / "run", "spark", holes, paths, split=True)
    with pytest.raises(PathCountOverflow, match=rf"level 1: a path count exceeds .*\({where}\)"):
        engine.next_level(run, 0, run.level_writer(1))


def test_cli_counts_paths_like_local_engine_and_durango_bill(published: dict,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "spark"
    result = pegsearch_process("run", "triangle-5", *LOCAL2,
                               "--count-paths", "--out", str(out))
    assert result.returncode == 0, result.stderr
    run = Run.open(out)
    board = load_board("triangle-5")
    reference = search(SearchSpec(board, board.empty, count_paths=True), tmp_path / "local",
                       LocalEngine())
    assert_same_levels(run, reference)
    assert run.levels[-1]["pegs"] == 1
    bill = published["triangle5_solutions"]["by_start_hole"][str(board.empty[0])]
    assert int(run.levels[-1]["paths"]) == bill
    # `counts --winnable --engine spark` walks the run back on Spark (on the run's master); the
    # walk in this process (the default, as the service's) is the second computation.
    on_spark = pegsearch_process("counts", str(out), "--winnable", "--engine", "spark", "--json")
    in_process = pegsearch("counts", str(out), "--winnable", "--json")
    assert on_spark.returncode == 0, on_spark.stderr
    spark_counts = [level["winnable"] for level in json.loads(on_spark.stdout)["levels"]]
    assert spark_counts == [level["winnable"] for level in json.loads(in_process.stdout)["levels"]]
    assert spark_counts[0] == 1 and spark_counts[-1] == run.levels[-1]["states"]


def test_backward_walk_on_spark_equals_the_walk_in_process(engine: SparkEngine,
                                                         tmp_path: Path) -> None:
    run = local_run("triangle-6", tmp_path / "run", start=(4,))
    for finish in (None, 4, 13):
        in_process = winnable_counts(run, finish)
        assert winnable_counts(run, finish, engine.winnable_parents) == in_process
        if finish is None:
            assert in_process[0] == 1 and min(in_process) > 0  # triangle-6 is solvable from 4


# ----- errors through the real CLI

def assert_one_line_error(result: subprocess.CompletedProcess, seconds: float, text: str) -> None:
    assert result.returncode == 2, result.stderr
    assert seconds < ERROR_SECONDS
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pegsearch: error: ") and text in lines[0]


def test_unreachable_master_is_one_line(tmp_path: Path) -> None:
    began = time.monotonic()
    result = pegsearch_process("run", "triangle-5", "--engine", "spark", "--master",
                               "spark://127.0.0.1:1", "--out", str(tmp_path / "run"), timeout=120)
    assert_one_line_error(result, time.monotonic() - began,
                          "no Spark master answers at spark://127.0.0.1:1")


@pytest.mark.parametrize("java", ["bad JAVA_HOME", "no java on PATH"])
def test_missing_java_is_one_line(tmp_path: Path, java: str) -> None:
    env = {key: value for key, value in os.environ.items() if key != "JAVA_HOME"}
    if java == "bad JAVA_HOME":
        env["JAVA_HOME"] = str(tmp_path / "no-jdk")
        expected = "has no bin/java"
    else:
        env["PATH"] = str(tmp_path)  # an empty folder: no java (and no spark-submit) to find
        expected = "no `java` is on PATH"
    began = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "pegsearch", "run", "triangle-5",
                             "--engine", "spark", "--out", str(tmp_path / "run")],
                            capture_output=True, text=True, env=env, timeout=120)
    assert_one_line_error(result, time.monotonic() - began, expected)


# ----- a real standalone cluster

def children_of(parent: int) -> list[int]:
    """PIDs whose parent is `parent` (a worker's executors are its children)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[1]) == parent:
            found.append(int(stat.parent.name))
    return found


def listens_only_on(pid: int, address: str) -> bool | None:
    """Whether every TCP port the process listens on is bound to IPv4 `address` (a JVM's socket
    is IPv6, the address IPv4-mapped: ::ffff:127.0.0.3), read from /proc/PID/net/tcp and tcp6
    through its open sockets, and it listens on one at least; None where the process has ended
    meanwhile (a worker's child that lived a moment: CI once found one gone between the two)."""
    try:
        return _listens_only_on(pid, address)
    except FileNotFoundError:
        return None


def _listens_only_on(pid: int, address: str) -> bool:
    sockets = {os.readlink(fd).removeprefix("socket:[").removesuffix("]")
               for fd in Path(f"/proc/{pid}/fd").iterdir()
               if os.readlink(fd).startswith("socket:[")}
    bound = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in sockets:  # LISTEN
                local = fields[1].split(":")[0]
                mapped = local[-8:] if local[:-8] == "0000000000000000FFFF0000" else None
                raw = bytes.fromhex(local if table == "tcp" else mapped or "00000000")[::-1]
                bound.append(".".join(str(byte) for byte in raw) if table == "tcp" or mapped
                             else local)
    return bool(bound) and set(bound) == {address}


def submit(cluster: dict, board: str, out: str | Path, logs: Path,
           *options: str) -> subprocess.Popen:
    """spark-submit the whole search of `board` to the cluster, as a user would.

    Output goes to files (LOGS.stdout, LOGS.stderr): a pipe nobody reads while the test waits
    could fill up and stall the job.
    """
    with open(f"{logs}.stdout", "w") as stdout, open(f"{logs}.stderr", "w") as stderr:
        return subprocess.Popen([str(BIN / "spark-submit"), "--master", cluster["url"],
                                 str(JOB), board, "--out", str(out), "--driver-below", "0",
                                 *options],
                                env=cluster["env"], stdout=stdout, stderr=stderr)


def finished(job: subprocess.Popen, logs: Path) -> tuple[int, str, str]:
    """Wait for a submitted search; its exit code, stdout and stderr."""
    code = job.wait(timeout=600)
    return code, Path(f"{logs}.stdout").read_text(), Path(f"{logs}.stderr").read_text()


def committed_levels(out: str | Path) -> int:
    try:
        return len(json.loads(Location.parse(out).read("manifest.json"))["levels"])
    except (FileNotFoundError, json.JSONDecodeError):
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("store", ["folder", "s3"])
def test_cluster_survives_a_killed_worker(store: str, tmp_path: Path,
                                          request: pytest.FixtureRequest) -> None:
    """A real 3-worker standalone cluster, each worker on its own address (127.0.0.2-4),
    triangle-6 spark-submitted to it as a user would, worker 2 and its executors (with the shuffle
    files they held) killed by SIGKILL mid-search (`spark-cluster.sh kill 2`): the search ran on
    the cluster, says its verdict, and its levels (read by `pegsearch counts` too) still equal the
    local engine's, with the run in a shared folder or on S3, where the executors read and write
    the parts themselves (and leave none that the manifest does not list)."""
    board = "triangle-6"
    out = tmp_path / "run" if store == "folder" else f"{request.getfixturevalue('s3')}/cluster"
    logs = tmp_path / "job"
    with standalone_cluster(tmp_path / "cluster", workers=3) as cluster:
        job = submit(cluster, board, out, logs)
        try:
            wait_until(lambda: committed_levels(out) >= 9 or job.poll() is not None, 300,
                       "level 8 to be committed")
            assert job.poll() is None, "the search ended before a worker could be killed"
            worker = int((cluster["pids"] / "worker-2.pid").read_text())
            executors = children_of(worker)
            assert executors, "the worker ran no executor for the search"
            found = [listens_only_on(pid, "127.0.0.3") for pid in executors]
            assert listens_only_on(worker, "127.0.0.3") and True in found and False not in found
            drilled = subprocess.run(["bash", str(CLUSTER_SCRIPT), "kill", "2"], env=cluster["env"],
                                     capture_output=True, text=True, timeout=60)
            assert drilled.returncode == 0, drilled.stderr
            code, stdout, stderr = finished(job, logs)
        finally:
            if job.poll() is None:
                job.kill()
                job.wait()
        wait_until(lambda: not any(alive(pid) for pid in executors), 60,
                   "the killed worker's executor to exit")
        registered = (tmp_path / "cluster" / "logs" / "master.out").read_text()
    assert code == 0, stderr
    assert "one peg is reachable" in stdout
    assert "Registered app pegsearch" in registered  # it ran on the cluster, not locally
    assert "Lost executor" in stderr  # the search really lost the worker's executor mid-run
    run = Run.open(out)
    reference = local_run(board, tmp_path / "local")
    assert_same_levels(run, reference)
    counts = pegsearch("counts", str(out), "--json")
    assert counts.returncode == 0, counts.stderr
    assert [level["states"] for level in json.loads(counts.stdout)["levels"]] == \
        [record["states"] for record in reference.levels]
    listed = {f"{level_name(r['level'])}/{f['name']}" for r in run.levels for f in r["files"]}
    assert set(Location.parse(str(out)).files()) - {".lock"} == listed | {"manifest.json"}


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"),
                    reason="hiding a folder from one worker needs a mount namespace (root)")
def test_cluster_that_cannot_see_the_run_directory(tmp_path: Path) -> None:
    """A worker whose filesystem hides --out (a tmpfs over it) is caught before any level runs."""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    with standalone_cluster(tmp_path / "cluster", workers=0) as cluster:
        with open(tmp_path / "worker.out", "w") as log:
            worker = subprocess.Popen(
                ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                 'mount -t tmpfs tmpfs "$0" && exec "$@"', str(hidden),
                 str(BIN / "spark-class"), "org.apache.spark.deploy.worker.Worker",
                 "--host", "127.0.0.1", "--cores", "1", "--memory", "1g",
                 "--work-dir", str(tmp_path / "work"), "--webui-port", "0", cluster["url"]],
                env=cluster["env"], stdout=log, stderr=subprocess.STDOUT)
        try:
            began = time.monotonic()
            result = pegsearch_process("run", "triangle-5", "--engine", "spark", "--master",
                                       cluster["url"], "--driver-below", "0", "--out", str(hidden / "run"),
                                       timeout=300)
            seconds = time.monotonic() - began
        finally:
            worker.terminate()
            worker.wait(timeout=60)
    assert result.returncode == 2, result.stderr
    assert seconds < 180
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("pegsearch: error: Spark executors on ")
    assert f"cannot read the run {hidden / 'run'}" in last


def test_each_attempt_of_a_probe_task_leaves_a_file_of_its_own(tmp_path: Path) -> None:
    """A probe task run twice, as a speculative copy of a slow one runs (`spark.speculation`): on
    HDFS the copy's write of the first attempt's file failed while that attempt held it, and the
    probe called a store every executor reaches unwritable (test_hadoop_nodes' straggler)."""
    probe = Location.parse(str(tmp_path / "probe"))
    probe.make()
    probe.write("driver", b"token")
    answers = [next(_visit_probe(probe.uri, "token", 3, iter([]))) for _ in range(2)]
    assert all(read and wrote for _, _, read, wrote in answers)
    assert len([name for name in probe.files() if name.startswith("task-3-")]) == 2


# ----- runs on S3 (a real SeaweedFS on 127.0.0.1, see tests/s3_server.py)

def test_local2_searches_a_run_on_s3_like_the_local_engine(s3: str, tmp_path: Path) -> None:
    uri = f"{s3}/spark-triangle-6"
    result = pegsearch_process("run", "triangle-6", *LOCAL2,
                               "--count-paths", "--out", uri)
    assert result.returncode == 0, result.stderr
    reference = search(SearchSpec(load_board("triangle-6"), (1,), count_paths=True),
                       tmp_path / "local", LocalEngine())
    assert_same_levels(Run.open(uri), reference)
    assert pegsearch("verify", uri).returncode == 0


@pytest.mark.slow
def test_a_spark_run_on_s3_killed_then_resumed_on_spark(s3: str, tmp_path: Path) -> None:
    """triangle-6 on local[2], every level a Spark job, the run on S3: the driver and its JVM
    killed after level 8, the run left interrupted, resumed on Spark to the local engine's levels."""
    uri = f"{s3}/spark-resumed"
    command = [sys.executable, "-m", "pegsearch", "run", "triangle-6", "--engine", "spark",
               "--master", "local[2]", "--driver-below", "0", "--out", uri]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        wait_until(lambda: committed_levels(uri) >= 9 or process.poll() is not None, 300,
                   "level 8 to be committed")
        assert process.poll() is None, "the search ended before it could be killed"
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the driver and the JVM it started
        process.wait()
    assert Run.open(uri).status == "interrupted" and len(Run.open(uri).levels) < 20  # writer gone
    resumed = pegsearch_process("run", "triangle-6", *LOCAL2,
                                "--out", uri, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert_same_levels(Run.open(uri), local_run("triangle-6", tmp_path / "local"))
    assert pegsearch("verify", uri).returncode == 0


# ----- partitions sized from what a task may hold

def test_partitions_follow_the_memory_a_task_may_hold() -> None:
    assert spark_bytes("512m", "x") == 512 << 20 and spark_bytes("2048", "x") == 2048 << 20
    assert task_memory({"spark.executor.memory": "8g", "spark.executor.cores": "4"}, None) == 2 << 30
    assert task_memory({"spark.driver.memory": "2g"}, 2) == 1 << 30
    assert task_memory({}, 2) == default_budget() // 2  # local[2] with nothing said: the local engine's
    cluster = {"spark.executor.memory": "8g"}
    assert task_memory({**cluster, "spark.executor.pyspark.memory": "1g"}, None) == 1 << 30
    assert task_memory({**cluster, "spark.pegsearch.task.memory": "64m"}, None) == 64 << 20
    small = shuffle_for(5, 1_000, 9_000, 36, 8, 1 << 30, Carry.NOTHING)
    assert small.bits == 0  # one task: few parents, and it fits
    spread = shuffle_for(5, 1 << 20, 1 << 22, 36, 8, 1 << 30, Carry.NOTHING)
    assert spread.bits == 3  # one per core
    big = shuffle_for(18, 1 << 28, 10**9, 36, 8, 1 << 30, Carry.NOTHING)
    assert (1 << big.bits) * big.fits >= 10**9 > (1 << (big.bits - 1)) * big.fits
    assert shuffle_for(18, 1 << 28, 10**9, 36, 8, 1 << 30, Carry.MOVES).bits == big.bits + 2
    assert shuffle_for(18, 1 << 30, 10**12, 45, 256, 1 << 30, Carry.NOTHING).bits == 15
    with pytest.raises(UsageError, match=r"level 18: about 10,000,000,000,000 positions need .* give"
                                         r" the tasks more memory: spark.executor.memory"):
        shuffle_for(18, 1 << 30, 10**13, 45, 256, 1 << 30, Carry.NOTHING)


# ----- bitmap levels in rank ranges

@pytest.mark.parametrize("density", [0.002, 0.01, 0.2, 0.9])
def test_range_blocks_carry_their_bits_in_either_form(density: float) -> None:
    """A range block of a sparse slice (deltas) or a dense one (the slice) sets exactly its bits,
    ORed into what the slice already holds."""
    rng = np.random.default_rng(7)
    ranks = 1 << 16
    chosen = np.unique(rng.integers(0, ranks, int(ranks * density)))
    held = np.unique(rng.integers(0, ranks, 500))
    bits, into = np.zeros(ranks, dtype=bool), np.zeros(ranks, dtype=bool)
    bits[chosen], into[held] = True, True
    block = encode_range(np.packbits(bits, bitorder="little").view(np.uint64), len(chosen))
    sparse = len(chosen) * SPARSE_SHARE < ranks
    assert np.frombuffer(block, np.uint64, 1)[0] == int(sparse)  # the form it chose
    words = np.packbits(into, bitorder="little").view(np.uint64).copy()
    or_range(block, words)
    got = np.unpackbits(words.view(np.uint8), bitorder="little").astype(bool)
    np.testing.assert_array_equal(np.flatnonzero(got), np.union1d(chosen, held))


@pytest.mark.slow  # 38-116 s on 2 cores: too long for the quick suite
def test_bitmap_levels_in_rank_ranges_on_s3_equal_the_local_engines(s3: str, tmp_path: Path) -> None:
    """Every level a bitmap (--reduce bitmap) cut into several rank ranges, made in several passes
    (a job each, tasks may hold 8 KiB), the run on S3: Spark makes levels 1-7 (7 the first made in
    two passes, in 25 rank ranges), the local engine the rest (the whole run on Spark took 171 s
    of the suite, levels 10 and 11 some 45 s each: a task each rank range); the levels equal the
    local engine's hash tables' position for position, and `verify --against` finds them
    identical digest for digest."""
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text("spark.pegsearch.task.memory 8k\n")
    uri = f"{s3}/spark-ranges"
    result = subprocess.run([sys.executable, "-m", "pegsearch", "run", "triangle-6", "--out", uri,
                             *LOCAL2, "--reduce", "bitmap", "--until", "7"], capture_output=True,
                            text=True, timeout=600, env={**os.environ, "SPARK_CONF_DIR": str(conf)})
    assert result.returncode == 0, result.stderr
    resumed = pegsearch("run", "triangle-6", "--out", uri, "--reduce", "bitmap", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    run = Run.open(uri)
    assert [record["engine"] for record in run.levels[7:9]] == ["spark", "local"]
    reference = search(SearchSpec(load_board("triangle-6"), (1,)), tmp_path / "local",
                       LocalEngine(reduce="tables"))
    assert_same_levels(run, reference)
    notes = [record.get("shuffle", "") for record in run.levels]
    assert all(record["reduce"].startswith("bitmap") for record in run.levels[1:])
    widest = max(range(1, 8), key=lambda k: run.levels[k]["states"])  # of Spark's levels
    assert int(notes[widest].split("; ")[1].split()[0]) >= 4, notes[widest]  # rank ranges
    assert len(run.levels[widest]["files"]) >= 4
    assert any("passes (a job each)" in note for note in notes[:8]), notes
    compared = pegsearch("verify", uri, "--against", str(tmp_path / "local"))
    assert compared.returncode == 0, compared.stderr
    assert compared.stdout.strip().endswith(f"identical: all {len(run.levels)} levels equal"
                                            f" {tmp_path / 'local'}'s, digest for digest")


def test_a_small_task_memory_spreads_a_level_over_more_parts(tmp_path: Path) -> None:
    """With spark.pegsearch.task.memory at 128 KiB (4,096 positions a task) in spark-defaults.conf,
    triangle-6's large levels get many reduce partitions, and still equal the local engine's."""
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text("spark.pegsearch.task.memory 128k\n")
    out = tmp_path / "spark"
    result = subprocess.run([sys.executable, "-m", "pegsearch", "run", "triangle-6", "--out", str(out),
                             *LOCAL2], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "SPARK_CONF_DIR": str(conf)})
    assert result.returncode == 0, result.stderr
    run = Run.open(out)
    assert_same_levels(run, local_run("triangle-6", tmp_path / "local"))
    widest = max(range(1, len(run.levels)), key=lambda k: run.levels[k]["states"])
    assert len(run.levels[widest]["files"]) >= 4
    assert "at most 4,096 a task in 128 KiB" in run.levels[widest]["shuffle"]


@pytest.mark.parametrize("board", ["triangle-9", "wiegleb-45"])
def test_boards_past_37_holes_route_bitmap_levels_by_rank_range(board: str, tmp_path: Path) -> None:
    """A 45-hole board's levels as bitmaps on local[2] (ranks in several chunks, kernel.ranks), cut
    into rank ranges and made in several map passes (tasks may hold 32 KiB: triangle-9's level 5 in
    16 passes, where 16 KiB made 32 and took twice as long): position for position the local
    engine's hash tables, digest for digest by `verify --against`."""
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text("spark.pegsearch.task.memory 32k\n")
    out = tmp_path / "spark"
    result = subprocess.run([sys.executable, "-m", "pegsearch", "run", board, "--out", str(out),
                             "--until", "5", *LOCAL2, "--reduce", "bitmap"], capture_output=True,
                            text=True, timeout=600, env={**os.environ, "SPARK_CONF_DIR": str(conf)})
    assert result.returncode == 0, result.stderr
    run = Run.open(out)
    loaded = load_board(board)
    reference = search(SearchSpec(loaded, loaded.empty), tmp_path / "local", LocalEngine(reduce="tables"),
                       until=5)
    assert_same_levels(run, reference)
    notes = [record.get("shuffle", "") for record in run.levels[1:]]
    assert all(record["reduce"].startswith("bitmap") for record in run.levels[1:])
    assert "passes (a job each)" in notes[-1] and len(run.levels[-1]["files"]) >= 2, notes[-1]
    compared = pegsearch("verify", str(out), "--against", str(tmp_path / "local"))
    assert compared.returncode == 0, compared.stderr
    assert "digest for digest" in compared.stdout

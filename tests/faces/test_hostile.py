"""Hostile input and faults, through the real command: every one ends in one line, never a traceback.

Unreadable board files, a start with no peg, Ctrl-C and SIGTERM at random moments of a real search,
Spark masters that cannot work, a read-only install run by another user, and mrjob's lock files.
Each test asserts the exit code, the single `pegsearch: error: ...` (or interrupted) line, that no
traceback was printed, and that no run directory that looks finished was left behind.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import pegsearch
from pegsearch.interrupts import interruption
from pegsearch.kernel.target import CHOSEN, COMPILING, FILE
from pegsearch.store import MANIFEST, Run
from tests.helpers import pegsearch_process as run_pegsearch
from tests.helpers.cluster import wait_until

ROOT = Path(__file__).parents[2]
BOARD = (ROOT / "boards" / "triangle-5.toml").read_text()
NOBODY = 65534


def assert_one_line(result: subprocess.CompletedProcess, fragment: str, code: int = 2) -> None:
    """The command failed with `code` and said exactly one line on stderr, containing `fragment`."""
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pegsearch: "), lines[0]
    assert fragment in lines[0], lines[0]


def run_board(board: str, out: Path, *flags: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return run_pegsearch("run", board, "--out", str(out), *flags, timeout=timeout)


# --- board files that cannot be read -----------------------------------------------------------


def make_not_utf8(folder: Path) -> Path:
    path = folder / "latin1.toml"
    path.write_bytes(BOARD.replace('"triangle-5"', '"dreieck-\xfc"').encode("latin-1"))
    return path


def make_huge(folder: Path) -> Path:
    """50 MB: a binary head, then a hole in the file (sparse, so the test writes little)."""
    path = folder / "huge.toml"
    path.write_bytes(random.Random(4096).randbytes(4096))
    os.truncate(path, 50_000_000)
    return path


def make_directory(folder: Path) -> Path:
    path = folder / "folder.toml"
    path.mkdir()
    return path


def make_loop(folder: Path) -> Path:
    path = folder / "loop.toml"
    path.symlink_to(path.name)
    return path


def make_fifo(folder: Path) -> Path:
    path = folder / "pipe.toml"
    os.mkfifo(path)
    return path


def make_socket(folder: Path) -> Path:
    path = folder / "socket.toml"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
    return path


def make_dangling(folder: Path) -> Path:
    path = folder / "dangling.toml"
    path.symlink_to("nowhere.toml")
    return path


def make_newline_name(folder: Path) -> Path:
    return folder / "two\nlines.toml"


@pytest.mark.parametrize(("make", "says"), [
    (make_not_utf8, "is not UTF-8 text (byte 0xfc at offset"),
    (make_huge, "is 50,000,000 bytes, too large for a board file"),
    (make_directory, "is a directory"),
    (make_loop, "is a symbolic link that leads back to itself"),
    (make_fifo, "is a named pipe (FIFO), not a regular file"),
    (make_socket, "is a socket, not a regular file"),
    (make_dangling, "is a symbolic link to nowhere.toml, which does not exist"),
    (make_newline_name, "two\\nlines.toml does not exist"),
])
def test_an_unreadable_board_file_is_one_line(make, says: str, tmp_path: Path) -> None:
    """Refused at once (a FIFO is never waited on, 50 MB never read), for the right reason."""
    board = make(tmp_path)
    out = tmp_path / "run"
    began = time.monotonic()
    result = run_board(str(board), out, timeout=30)
    assert time.monotonic() - began < 20
    assert_one_line(result, f"pegsearch: error: board file {str(board)[:-len(board.name)]}")
    assert says in result.stderr
    assert not out.exists()


def test_a_board_file_without_read_permission(tmp_path: Path) -> None:
    """Run without the power to read others' files (root without its capabilities, if root)."""
    board = tmp_path / "secret.toml"
    board.write_text(BOARD)
    board.chmod(0)
    command = [sys.executable, "-m", "pegsearch", "run", str(board), "--out", str(tmp_path / "r")]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root, and no setpriv to drop the capability to read anything")
        drop = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", *command]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert_one_line(result, f"board file {board} cannot be read: permission denied")
    assert not (tmp_path / "r").exists()


def test_a_folder_named_like_a_shipped_board_is_not_taken_for_its_file(tmp_path: Path) -> None:
    """`--out english-33` makes a folder of the board's name; the board must still load there."""
    (tmp_path / "triangle-5").mkdir()
    result = run_pegsearch("run", "triangle-5", "--out", "triangle-5", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "complete"


def test_a_board_file_saved_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    board = tmp_path / "bom.toml"
    board.write_bytes(b"\xef\xbb\xbf" + BOARD.encode())
    result = run_pegsearch("show", str(board))
    assert result.returncode == 0, result.stderr
    assert "15 holes" in result.stdout


# --- starts with no peg, or one -----------------------------------------------------------------


def test_a_start_naming_every_hole_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_board("triangle-5", out, "--start", *map(str, range(1, 16)))
    assert_one_line(result, "the start leaves no peg on triangle-5: all 15 holes are empty;")
    assert not out.exists()


def test_a_layout_drawing_every_hole_empty_is_refused(tmp_path: Path) -> None:
    board = tmp_path / "dots.toml"
    board.write_text('name = "dots"\ngrid = "square"\nlayout = """\n. . .\n. . .\n"""\n')
    out = tmp_path / "run"
    result = run_board(str(board), out)
    assert_one_line(result, "all 6 holes are empty (the layout draws every hole empty)")
    assert not out.exists()


def test_a_start_with_one_peg_is_already_solved(tmp_path: Path) -> None:
    result = run_board("triangle-5", tmp_path / "run", "--start", *map(str, range(1, 15)), "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["status"] == "complete"
    assert document["levels"] == [{"level": 0, "pegs": 1, "states": 1, "engine": "local"}]
    assert document["verdict"] == "one peg is reachable: the start already has one peg, no jump to make"


# --- SIGINT and SIGTERM -------------------------------------------------------------------------

def ended(signum: int, board: str, out: Path, flags: tuple[str, ...]) -> str:
    """The one line an interrupted `run` ends with: what stopped it, and the whole command that
    continues it."""
    what = "interrupted" if signum == signal.SIGINT else "stopped by SIGTERM"
    resume = shlex.join(["run", board, *flags, "--out", str(out), "--resume"])
    return f"pegsearch: {what}; completed levels are kept (continue with `pegsearch {resume}`)"


def listed_levels(out: Path) -> int:
    try:
        return len(json.loads((out / MANIFEST).read_text())["levels"])
    except (FileNotFoundError, json.JSONDecodeError):
        return 0


def interrupt_and_resume(board: str, signum: int, levels: int, delay: float, counts: list[int],
                         out: Path, flags: tuple[str, ...] = (), group: bool = False,
                         again: float | None = None) -> None:
    """Send `signum` `delay` seconds after `levels` levels are listed (to the whole process group,
    as a terminal's Ctrl-C, if `group`; once more `again` seconds later, as an impatient user
    does); check the one line, the exit code and the status; then `--resume` must finish with
    `counts`, verified."""
    process = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", board, "--out",
                                str(out), *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=group)
    deadline = time.monotonic() + 120
    while listed_levels(out) < levels and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(delay)
    for wait in (0.0,) if again is None else (0.0, again):
        time.sleep(wait)
        if process.poll() is not None:
            break
        if group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=120)
    said = f"levels {levels}, delay {delay:.3f} s: exit {process.returncode}, stderr {stderr!r}"
    assert process.returncode == 128 + signum, said
    # Java announces itself ("WARNING: Using incubator modules") before Spark's session exists.
    lines = [line for line in stderr.splitlines() if not line.startswith("WARNING: Using incubator")]
    assert lines == [ended(signum, board, out, flags)], said
    assert stdout == "", said
    assert Run.open(out).status == "interrupted", said
    resumed = run_pegsearch("run", board, "--out", str(out), "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert [level["states"] for level in json.loads(resumed.stdout)["levels"]] == counts
    verified = run_pegsearch("verify", str(out))
    assert verified.returncode == 0 and verified.stdout.startswith("ok:"), verified.stdout


Counts = Callable[[str], list[int]]


@pytest.fixture(scope="module")
def counts(tmp_path_factory: pytest.TempPathFactory) -> Counts:
    """Per-level counts of an uninterrupted run of a board (each board searched once, when asked)."""
    found: dict[str, list[int]] = {}

    def of(board: str) -> list[int]:
        if board not in found:
            out = tmp_path_factory.mktemp("whole") / board
            result = run_board(board, out, "--json", timeout=600)
            found[board] = [level["states"] for level in json.loads(result.stdout)["levels"]]
        return found[board]

    return of


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_mid_search_ends_in_one_line_and_resumes(signum: int, counts: Counts,
                                                          tmp_path: Path) -> None:
    """One signal while skippy-xl's kernel runs (level 10 of 26); the quick version of the trials."""
    interrupt_and_resume("skippy-xl", signum, 10, 0.05, counts("skippy-xl"), tmp_path / "run")


# English's levels a trial signals after: past level 16 the rest of the search can take less than
# a trial's 0.7 s at most before its signals (about 0.3 s after level 20 on a quiet machine), and
# a search that has ended cannot be interrupted.
LAST_LEVEL_SIGNALLED = 16


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signals_at_random_moments_of_english_33(signum: int, seed: int, counts: Counts,
                                                 tmp_path: Path) -> None:
    """Ctrl-C or SIGTERM at a random level and a random moment inside it (where the compiled kernel
    runs most of the time), each trial resumed to the uninterrupted run's counts (`--seed` replays a
    trial's moment). A trial a signal (some 18 s of CI each): each run draws new moments."""
    chance = random.Random(f"{int(signum)}-{seed}")
    interrupt_and_resume("english-33", signum, chance.randint(1, LAST_LEVEL_SIGNALLED),
                         chance.uniform(0, 0.4), counts("english-33"), tmp_path / "run")


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(2))  # a new moment each run; each trial some 18 s of CI
def test_ctrl_c_twice_still_ends_in_one_line(trial: int, seed: int, counts: Counts,
                                            tmp_path: Path) -> None:
    """A second Ctrl-C while the first is being handled (a read-ahead thread's join, the manifest's
    commit, the interpreter's exit) once printed a traceback, a second line or died of the signal:
    the search stops once, and the second is ignored (`--seed` replays a trial's moments)."""
    chance = random.Random(f"twice-{trial}-{seed}")
    interrupt_and_resume("english-33", signal.SIGINT, chance.randint(1, LAST_LEVEL_SIGNALLED),
                         chance.uniform(0, 0.4), counts("english-33"), tmp_path / "run",
                         again=chance.uniform(0, 0.3))


@pytest.mark.slow
@pytest.mark.parametrize("flags", [("--engine", "spark", "--master", "local[2]", "--driver-below", "0"),
                                   ("--engine", "mrjob", "--runner", "local")],
                         ids=["spark", "mrjob-local"])
def test_ctrl_c_to_the_process_group_on_other_engines(flags: tuple[str, ...], counts: Counts,
                                                      tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the JVM, mrjob's pool workers and their tasks too: still one
    line (no py4j, Java or multiprocessing traceback), and the run resumes."""
    pytest.importorskip("pyspark" if "spark" in flags else "mrjob")
    interrupt_and_resume("triangle-6", signal.SIGINT, 3, 0.3, counts("triangle-6"),
                         tmp_path / "run", flags, group=True)


def test_a_signal_handled_where_python_cannot_raise_is_kept_not_printed() -> None:
    """A Ctrl-C handled inside a __del__ (as one was inside a weakref callback in a CI run, with an
    "Exception ignored in" traceback before the one line): nothing printed, and the next check
    raises it."""
    code = ("import os, signal\n"
            "from pegsearch.interrupts import Interrupted, check, install\n"
            "install()\n"
            "class Dying:\n"
            "    def __del__(self):\n"
            "        os.kill(os.getpid(), signal.SIGINT)\n"
            "        for _ in range(10_000): pass\n"
            "Dying()\n"
            "try:\n"
            "    check()\n"
            "except Interrupted as stopped:\n"
            "    print('stopped by', stopped)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "stopped by SIGINT\n", "")


def test_a_library_logging_the_interrupt_prints_nothing() -> None:
    """What py4j does when Ctrl-C lands in one of its calls between Spark jobs (two CI runs saw
    it ahead of the one line): it logs the KeyboardInterrupt on the root logger, then the broken
    pipe of shutting the connection down on its own logger while handling it, each with a
    traceback, and passes the interrupt on. Both records are dropped; other errors, on either
    logger, are still logged."""
    code = ("import logging, os, signal\n"
            "from pegsearch.interrupts import Interrupted, install\n"
            "install()\n"
            "py4j = logging.getLogger('py4j.clientserver')\n"
            "try:\n"
            "    try:\n"
            "        os.kill(os.getpid(), signal.SIGINT)\n"
            "        for _ in range(10_000): pass\n"
            "    except KeyboardInterrupt:\n"
            "        logging.exception('KeyboardInterrupt while sending command.')\n"
            "        try:\n"
            "            raise BrokenPipeError(32, 'Broken pipe')\n"
            "        except OSError:\n"
            "            py4j.exception('Exception occurred while shutting down connection')\n"
            "        raise\n"
            "except Interrupted as stopped:\n"
            "    print('stopped by', stopped)\n"
            "logging.error('a real error')\n"
            "try:\n"
            "    raise BrokenPipeError(32, 'Broken pipe')\n"
            "except OSError:\n"
            "    py4j.exception('a real py4j error')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    lines = result.stderr.splitlines()
    assert (result.returncode, result.stdout) == (0, "stopped by SIGINT\n")
    assert lines[:2] == ["ERROR:root:a real error", "ERROR:py4j.clientserver:a real py4j error"]
    assert lines[-1] == "BrokenPipeError: [Errno 32] Broken pipe"
    assert not any("Interrupted" in line or "shutting down" in line for line in lines)


def test_a_keyboard_interrupt_wrapped_by_a_dispatcher_is_found() -> None:
    """What numba's dispatcher raises when Ctrl-C lands inside it: a SystemError caused by it."""
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as inner:
            raise SystemError("CPUDispatcher(<function f>) returned a result with an exception"
                              " set") from inner
    except SystemError as wrapped:
        assert isinstance(interruption(wrapped), KeyboardInterrupt)
    assert interruption(SystemError("a real bug")) is None


# --- Spark masters that cannot work -------------------------------------------------------------


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_serve_on_a_port_that_is_none_is_one_line(port: str, tmp_path: Path) -> None:
    """It was a traceback ending in OverflowError, exit 1."""
    result = run_pegsearch("serve", "--runs", str(tmp_path / "runs"), f"--port={port}", timeout=60)
    assert_one_line(result, f"--port {port}: not a TCP port")


def test_run_into_a_complete_run_points_at_its_answers_not_at_resume(tmp_path: Path) -> None:
    assert run_board("triangle-5", tmp_path / "run").returncode == 0
    result = run_board("triangle-5", tmp_path / "run")
    assert_one_line(result, "complete): read it with `pegsearch counts")
    assert "--resume" not in result.stderr


@pytest.mark.parametrize(("master", "says"), [
    ("nonsense://x", "--master nonsense://x: not a Spark master"),
    ("local[abc]", "--master local[abc]: not a Spark master"),
    ("local[0]", "--master local[0]: not a Spark master"),
    ("spark://127.0.0.1:1", "no Spark master answers at spark://127.0.0.1:1"),
])
def test_a_spark_master_that_cannot_work_leaves_no_run(master: str, says: str, tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    out = tmp_path / "run"
    result = run_board("triangle-5", out, "--engine", "spark", "--master", master)
    assert_one_line(result, says)
    assert not out.exists()


@pytest.mark.slow
def test_a_spark_session_that_fails_to_start_prints_no_java_stack_trace(tmp_path: Path) -> None:
    """A well-formed master whose start fails in the JVM (no Kubernetes API answers)."""
    pytest.importorskip("pyspark")
    out = tmp_path / "run"
    result = run_board("triangle-5", out, "--engine", "spark", "--master", "k8s://127.0.0.1:1",
                       timeout=300)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "\tat " not in result.stderr and "Exception" not in result.stderr, result.stderr
    # The JVM itself announces "WARNING: Using incubator modules" before anything can be said.
    assert result.stderr.strip().splitlines()[-1].startswith("pegsearch: error: Spark did not start:")
    assert not out.exists()


# --- a read-only install, run by another user ---------------------------------------------------


def as_nobody() -> list[str]:
    """A command prefix running as user `nobody` who may read everything (this interpreter lives
    under /root) but write nothing of root's: the package folder stays read-only to it."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run a command as another user")
    if not shutil.which("setpriv"):
        pytest.skip("no setpriv to run a command as another user")
    caps = "+dac_read_search"
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
            f"--inh-caps={caps}", f"--ambient-caps={caps}"]


def install_copy(tmp_path: Path) -> Path:
    """The package copied, without its compiled files, into a folder of its own (a site-packages)."""
    install = tmp_path / "site"
    shutil.copytree(Path(pegsearch.__file__).parent, install / "pegsearch",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return install


def make_read_only(install: Path) -> None:
    for folder, _, files in os.walk(install):
        for name in files:
            os.chmod(Path(folder, name), 0o444)
        os.chmod(folder, 0o555)


def nobodys_scratch(tmp_path: Path) -> Path:
    """TMPDIR and the run directory: nobody's own."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    os.chown(scratch, NOBODY, NOBODY)
    return scratch


@pytest.mark.slow
def test_a_read_only_install_runs_for_a_user_without_a_writable_home(tmp_path: Path) -> None:
    """The package copied to a folder made read-only; `nobody` (home /nonexistent) searches with it:
    numba's cache must land in the user's own temporary folder, nothing in the package."""
    install = install_copy(tmp_path)
    make_read_only(install)
    scratch = nobodys_scratch(tmp_path)
    environment = {"PATH": os.environ["PATH"], "HOME": "/nonexistent", "PYTHONPATH": str(install),
                   "TMPDIR": str(scratch)}
    python = [*as_nobody(), sys.executable]
    where = subprocess.run([*python, "-c", "import pegsearch; print(pegsearch.__file__)"],
                           capture_output=True, text=True, env=environment, timeout=60)
    assert where.stdout.strip() == str(install / "pegsearch" / "__init__.py"), where.stderr
    result = subprocess.run([*python, "-m", "pegsearch", "run", "triangle-5", "--out",
                             str(scratch / "run"), "--json"],
                            capture_output=True, text=True, env=environment, timeout=600)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["verdict"].startswith("one peg is reachable: 3 one-peg")
    cached = list((scratch / f"pegsearch-{NOBODY}" / "numba").rglob("*.nbi"))
    assert cached, "the compiled kernels were cached in the user's temporary folder"
    assert not list(install.rglob("__pycache__")), "nothing was written into the install"


@pytest.mark.slow
def test_a_read_only_install_uses_the_kernels_its_administrator_compiled(tmp_path: Path) -> None:
    """The administrator's first search, while the package folder was writable, measured the
    compile target and compiled the kernels into the package; the folder made read-only, a user's
    search compiles nothing and measures nothing (it did both, 30-50 s, for every user)."""
    install = install_copy(tmp_path)
    clean = {name: value for name, value in os.environ.items()  # no target, no cache inherited
             if name not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_CACHE_DIR", CHOSEN)}
    admin = subprocess.run([sys.executable, "-m", "pegsearch", "run", "triangle-5", "--out",
                            str(tmp_path / "admin")], capture_output=True, text=True,
                           env={**clean, "PYTHONPATH": str(install)}, timeout=600)
    assert admin.returncode == 0, admin.stderr
    assert (install / "pegsearch" / "kernel" / "__pycache__" / FILE).exists()
    make_read_only(install)
    scratch = nobodys_scratch(tmp_path)
    environment = {"PATH": os.environ["PATH"], "HOME": "/nonexistent", "PYTHONPATH": str(install),
                   "TMPDIR": str(scratch), "NUMBA_DEBUG_CACHE": "1"}  # numba says what it loads, saves
    result = subprocess.run([*as_nobody(), sys.executable, "-m", "pegsearch", "run", "triangle-5",
                             "--out", str(scratch / "run")],
                            capture_output=True, text=True, env=environment, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "one peg is reachable: 3 one-peg positions after 13 jumps" in result.stdout
    assert "[cache] data loaded from" in result.stdout
    assert "[cache] data saved to" not in result.stdout, "a kernel was compiled again"
    assert COMPILING not in result.stderr, "the compile target was measured again"


# --- mrjob's lock files -------------------------------------------------------------------------


@pytest.mark.slow
def test_the_mrjob_local_runner_leaves_no_lock_files_in_tmp(tmp_path: Path) -> None:
    """mrjob's task wrapper takes its lock files in /tmp whatever TMPDIR says: after a search on
    the local runner, /tmp holds none that were not there before. (A private /tmp would hide a
    checkout or interpreter that lives under /tmp, as a CI clone may.) Another test's local-runner
    job (another worker, CI's second interpreter) holds its own lock while it runs: the check waits
    for every new lock to go, as a left one never does."""
    pytest.importorskip("mrjob")
    tmp = Path("/tmp")
    before = set(tmp.glob("wrapper.lock.*"))
    # Levels 1-3 on the local runner (each a dozen task processes, some 10 s), the rest resumed.
    made = run_pegsearch("run", "triangle-5", "--engine", "mrjob", "--runner", "local", "--until",
                         "3", "--out", str(tmp_path / "run"))
    assert made.returncode == 0, made.stderr
    result = run_pegsearch("run", "triangle-5", "--resume", "--out", str(tmp_path / "run"))
    assert result.returncode == 0, result.stderr
    assert "one peg is reachable: 3 one-peg positions after 13 jumps" in result.stdout
    wait_until(lambda: not set(tmp.glob("wrapper.lock.*")) - before, 120,
               "the new lock files in /tmp to be removed")


@pytest.mark.parametrize(("master", "says"), [
    ("nonsense://x", "--master nonsense://x: not a Spark master"),
    ("spark://127.0.0.1:1", "no Spark master answers at spark://127.0.0.1:1"),
])
def test_serve_checks_its_spark_master_at_start(master: str, says: str, tmp_path: Path) -> None:
    """A server with a master nobody answers at (or not a master at all) started, and then every
    search submitted to it failed with the same line."""
    pytest.importorskip("pyspark")
    result = run_pegsearch("serve", "--runs", str(tmp_path / "runs"), "--port", "0", "--engine",
                           "spark", "--master", master, timeout=120)
    assert_one_line(result, says)


@pytest.mark.parametrize(("engine", "says"), [
    (("local",), "--queue does not apply to the local engine"),
    (("mrjob",), "the mrjob hadoop runner needs"),
    (("spark", "--master", "local[1]"), "--queue names a YARN queue: serve Spark's searches on YARN"),
])
def test_serve_refuses_a_queue_where_no_search_would_run_in_one(engine: tuple[str, ...], says: str,
                                                                tmp_path: Path) -> None:
    """`serve --queue` fixes the YARN queue of its searches' jobs: an engine or master that sends
    none to YARN (or no YARN to send them to) is one line at start, not a queue silently unused."""
    result = run_pegsearch("serve", "--runs", str(tmp_path / "runs"), "--port", "0", "--engine",
                           *engine, "--queue", "search", timeout=120,
                           env={"HADOOP_CONF_DIR": "", "YARN_CONF_DIR": "", "HADOOP_HOME": ""})
    assert_one_line(result, says)


@pytest.mark.parametrize("idle", ["soon", "-1", "inf"])
def test_serve_refuses_a_spark_idle_that_is_not_seconds(idle: str, tmp_path: Path) -> None:
    """PEGSEARCH_SPARK_IDLE (how long the service's Spark worker keeps a cluster's session) was
    read by the worker alone, at its first search: `serve` took any value and every Spark search
    then failed on it."""
    pytest.importorskip("pyspark")
    result = run_pegsearch("serve", "--runs", str(tmp_path / "runs"), "--port", "0", "--engine",
                           "spark", env={"PEGSEARCH_SPARK_IDLE": idle}, timeout=120)
    assert_one_line(result, f"PEGSEARCH_SPARK_IDLE={idle}: not a number of seconds; give how long a"
                            " server's idle Spark worker keeps a cluster's session, 0 or more"
                            " (default 30)")
    assert not (tmp_path / "runs").exists()

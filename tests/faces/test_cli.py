"""The `pegsearch` command as a user meets it: output shapes, errors, interrupted runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pegsearch import __version__ as pegsearch_version
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.cli.main import build_parser
from pegsearch.engines import LevelProgress, no_progress
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.store import MANIFEST, LevelWriter, Run
from tests.helpers import assert_one_line_error, pegsearch, pegsearch_process, sha256_of, wait_for_levels


def test_run_prints_table_and_verdict(tmp_path: Path) -> None:
    result = pegsearch("run", "triangle-5", "--out", str(tmp_path / "run"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("triangle-5 (15 holes), start: hole 1")
    assert lines[1].split() == ["level", "pegs", "states"]
    assert lines[2].split() == ["0", "14", "1"]
    assert lines[-1].startswith("one peg is reachable")


def test_run_json_and_counts_json_agree(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = pegsearch("run", "triangle-5", "--start", "5", "--raw", "--json", "--out", str(out))
    document = json.loads(result.stdout)
    assert {k: document[k] for k in ("board", "holes", "symmetries", "start", "reduced")} == {
        "board": "triangle-5", "holes": 15, "symmetries": 1, "start": [5], "reduced": False}
    assert document["levels"][0] == {"level": 0, "pegs": 14, "states": 1, "engine": "local"}
    assert document["levels"][-1] == {"level": 13, "pegs": 1, "states": 1, "engine": "local"}
    again = json.loads(pegsearch("counts", str(out), "--json").stdout)
    assert again == document


def test_default_out_is_a_new_folder_under_runs(tmp_path: Path) -> None:
    result = pegsearch("run", "triangle-5", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    [folder] = (tmp_path / "runs").iterdir()
    assert folder.name.startswith("triangle-5-h1-")
    assert Run.open(folder).status == "complete"


def test_boards_and_show() -> None:
    listing = pegsearch("boards").stdout
    assert any(line.split()[:7] == ["skippy-xl", "(also", "triangle-7)", "triangle", "28", "90", "6"]
               for line in listing.splitlines())
    shown = pegsearch("show", "english-33").stdout
    assert "33 holes, 76 jumps, 8 symmetries" in shown
    assert "o o o . o o o" in shown


def test_triangle_7_is_skippy_xl(tmp_path: Path) -> None:
    """triangle-4 to triangle-10 are board names but side 7 was only skippy-xl (issue 81, item 6):
    triangle-7 is its other name, for every command that takes a board."""
    shown = pegsearch("show", "triangle-7")
    assert shown.returncode == 0 and shown.stdout.startswith("skippy-xl: 28 holes, 90 jumps")
    out = tmp_path / "run"
    assert pegsearch("run", "triangle-7", "--until", "2", "--out", str(out)).returncode == 0
    assert Run.open(out).board.name == "skippy-xl"
    solved = json.loads(pegsearch("solve", "triangle-7", "--start", "4", "--json").stdout)
    assert solved["solved"] and solved["board"]["name"] == "skippy-xl"
    assert_one_line_error(pegsearch("run", "triangle-77"), "did you mean 'triangle-7'?")


def test_malformed_board_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\ngrid = "square"\nlayout = """\no o o\no * o\n"""\n')
    assert_one_line_error(pegsearch("run", str(bad), "--out", str(tmp_path / "r")),
                          f"{bad} line 5, column 3: unexpected '*'")
    assert not (tmp_path / "r").exists()


def test_unknown_board(tmp_path: Path) -> None:
    assert_one_line_error(pegsearch("run", "skippy", "--out", str(tmp_path / "r")),
                          "unknown board 'skippy': did you mean 'skippy-xl'?")
    assert_one_line_error(pegsearch("run", "abacus", "--out", str(tmp_path / "r")),
                          "unknown board 'abacus': use one of")


def test_start_hole_that_does_not_exist(tmp_path: Path) -> None:
    assert_one_line_error(pegsearch("run", "triangle-5", "--start", "16", "--out",
                                    str(tmp_path / "r")), "hole 16 does not exist on triangle-5")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("argv", [("solve", "triangle-5", "--start", "-1"),
                                  ("run", "triangle-5", "--start", "3", "-1"),
                                  ("solve", "triangle-5", "--finish", "-1"),
                                  ("hint", "triangle-5", "1,2", "--finish", "-1")])
def test_a_negative_hole_is_a_hole_off_the_board(argv: tuple[str, ...]) -> None:
    """`--start -1` was refused as "not a whole number": it is one, only not a hole of the board
    (issue 81, item 6)."""
    option = next(word for word in argv if word.startswith("--"))
    assert_one_line_error(pegsearch(*argv), f"{option} -1: hole -1 does not exist on triangle-5;"
                                            " holes are numbered 1 to 15 (see `pegsearch show"
                                            " triangle-5`)")


def test_a_solved_line_names_the_hole_it_ends_on(tmp_path: Path) -> None:
    """`solve --json` without --finish said `"finish": null` of a solved line; it names the hole
    the last peg stands on, by the solver and from a stored run alike (issue 81, item 6)."""
    out = tmp_path / "run"
    assert pegsearch("run", "triangle-5", "--out", str(out)).returncode == 0
    for asked in (("triangle-5", "--start", "1"), (str(out),)):
        document = json.loads(pegsearch("solve", *asked, "--json").stdout)
        assert document["solved"]
        [last] = document["positions"][-1]
        assert document["finish"] == last
    asked = json.loads(pegsearch("solve", "triangle-5", "--start", "1", "--finish", "13", "--json").stdout)
    assert asked["finish"] == 13 and asked["positions"][-1] == [13]


def test_out_holding_another_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert pegsearch("run", "triangle-5", "--out", str(out)).returncode == 0
    before = (out / MANIFEST).read_text()
    assert_one_line_error(pegsearch("run", "triangle-6", "--out", str(out)),
                          "already holds a different run (triangle-5 from hole 1)")
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", str(out)),  # complete: its answers
                          f"complete): read it with `pegsearch counts {out}`")
    assert (out / MANIFEST).read_text() == before
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine")
    assert_one_line_error(pegsearch("run", "triangle-5", "--out", str(stray)),
                          "is not an empty folder or a pegsearch run")


def test_counts_of_a_folder_that_is_no_run(tmp_path: Path) -> None:
    assert_one_line_error(pegsearch("counts", str(tmp_path)), "is not a pegsearch run (no manifest.json)")
    assert_one_line_error(pegsearch("counts", str(tmp_path / "typo")), f"{tmp_path / 'typo'} does not exist")


def test_words_for_one(tmp_path: Path) -> None:
    """One jump, one symmetry, one peg: no "1 jumps"."""
    board = tmp_path / "line.toml"
    board.write_text('name = "line"\ngrid = "square"\nlayout = """\no o .\n"""\n')
    out = tmp_path / "run"
    result = pegsearch("run", str(board), "--out", str(out))
    assert result.returncode == 0
    assert "one peg is reachable: 1 one-peg position after 1 jump" in result.stdout
    shown = pegsearch("show", str(board)).stdout
    assert shown.startswith("line: 3 holes, 2 jumps, 2 symmetries, square grid")


def test_engine_setting_that_does_not_apply(tmp_path: Path) -> None:
    assert_one_line_error(pegsearch("run", "triangle-5", "--runner", "inline", "--out",
                                    str(tmp_path / "r")), "--runner does not apply to the local")


def listed_levels_are_whole(out: Path) -> int:
    """Every level the manifest lists has exactly its files, rows and checksums; returns how many."""
    run = Run.open(out)
    for record in run.levels:
        folder = out / f"level-{record['level']:03d}"
        assert sorted(p.name for p in folder.iterdir()) == sorted(f["name"] for f in record["files"])
        for entry in record["files"]:
            assert sha256_of(folder / entry["name"]) == entry["sha256"]
        assert len(run.read_level(record["level"])) == record["states"]
    return len(run.levels)


@pytest.fixture(scope="module")
def skippy_counts(tmp_path_factory: pytest.TempPathFactory) -> list[int]:
    """The per-level counts of an uninterrupted skippy-xl run."""
    out = tmp_path_factory.mktemp("whole") / "run"
    result = pegsearch("run", "skippy-xl", "--out", str(out), "--json")
    return [level["states"] for level in json.loads(result.stdout)["levels"]]


@pytest.mark.parametrize("levels", [1, 9, 13, 15, 18])
def test_a_killed_run_lists_only_whole_levels_and_resumes(levels: int, skippy_counts: list[int],
                                                          tmp_path: Path) -> None:
    """SIGKILL once the manifest lists `levels` levels, i.e. while the next one is being written."""
    out = tmp_path / "run"
    command = [sys.executable, "-m", "pegsearch", "run", "skippy-xl", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_levels(out, levels)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert listed_levels_are_whole(out) < 26
    assert Run.open(out).status == "interrupted"  # "running" in the manifest, but its writer died
    assert "incomplete run (interrupted)" in pegsearch("counts", str(out)).stdout
    resumed = pegsearch("run", "skippy-xl", "--out", str(out), "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert listed_levels_are_whole(out) == 26
    assert [x["states"] for x in json.loads(resumed.stdout)["levels"]] == skippy_counts
    # Nothing but the listed levels (checked whole above), the manifest and the lock file.
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [".lock", MANIFEST, *(f"level-{k:03d}" for k in range(26))])


class InterruptedAtLevel(LocalEngine):
    """The local engine, interrupted (as by Ctrl-C) while it computes a given level."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.stop_at = level

    def next_level(self, run: Run, level: int, writer: LevelWriter,
                   report: LevelProgress = no_progress) -> None:
        super().next_level(run, level, writer, report)
        if level + 1 == self.stop_at:
            raise KeyboardInterrupt


def test_resume_without_out_continues_the_newest_unfinished_run(tmp_path: Path) -> None:
    board = load_board("triangle-6")
    folder = tmp_path / "runs" / "triangle-6-h1-20260101-000000"
    with pytest.raises(KeyboardInterrupt):
        search(SearchSpec(board, (1,)), folder, InterruptedAtLevel(7))
    assert Run.open(folder).status == "interrupted"
    assert len(Run.open(folder).levels) == 7 and not (folder / "level-007").exists()
    assert "incomplete run (interrupted)" in pegsearch("counts", str(folder)).stdout
    resumed = pegsearch("run", "triangle-6", "--resume", "--json", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    whole = pegsearch("run", "triangle-6", "--json", "--out", str(tmp_path / "whole"))
    assert json.loads(resumed.stdout)["levels"] == json.loads(whole.stdout)["levels"]
    assert Run.open(folder).status == "complete"
    nothing = pegsearch("run", "triangle-6", "--resume", cwd=tmp_path)
    assert nothing.returncode == 2 and "no unfinished run of triangle-6" in nothing.stderr


COMMANDS = ("run", "counts", "solve", "survey", "verify", "bench", "compare", "boards", "show", "serve")


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_starts_with_a_sentence_for_users(command: str, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as ended:
        build_parser().parse_args([*([command] if command else []), "--help"])
    assert ended.value.code == 0
    first = capsys.readouterr().out.split("\n\n")[1]
    assert first[0].isupper() and first.rstrip().endswith("."), first
    assert "module" not in first and "`" not in first, first


def test_python_m_pegsearch_and_version() -> None:
    result = pegsearch("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"pegsearch {pegsearch_version}")


def test_runs_started_together_get_their_own_folders_and_say_where(tmp_path: Path) -> None:
    """Five searches started in the same second under the default runs/ folder: each gets a
    folder of its own, and its --json document says where."""
    started = [subprocess.Popen([sys.executable, "-m", "pegsearch", "run", "triangle-5", "--json"],
                                cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(5)]
    documents = []
    for process in started:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        documents.append(json.loads(out))
    locations = {document["location"] for document in documents}
    assert len(locations) == 5
    assert all((tmp_path / location / MANIFEST).is_file() for location in locations)
    counted = json.loads(pegsearch("counts", str(tmp_path / documents[0]["location"]), "--json").stdout)
    assert counted["location"] == str(tmp_path / documents[0]["location"])


def on_a_terminal(*args: str) -> tuple[int, str]:
    """Run the command with stderr on a pseudo-terminal, as a user at a terminal sees it: its exit
    code and what reached the terminal."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))  # 100 columns
    process = subprocess.Popen([sys.executable, "-m", "pegsearch", *args], stdout=subprocess.DEVNULL,
                               stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process has ended
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return process.wait(), seen.decode(errors="replace")


def test_solve_shows_its_progress_on_a_terminal(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert pegsearch("run", "triangle-6", "--out", str(out)).returncode == 0
    code, terminal = on_a_terminal("solve", str(out))
    assert code == 0 and "walking the levels back" in terminal and "levels" in terminal


# --- what users hit (issue 31): each fails without its fix ----------------------------------------

@pytest.mark.parametrize(("argv", "says"), [
    (("run", "triangle-5", "--memory", "-5G"), "--memory: give it a value (one starting with '-' is"
                                               " written --memory=VALUE)"),
    (("run", "triangle-5", "--start", "abc"), "--start abc: not a whole number"),
    (("run", "triangle-5", "--until", "x"), "--until x: not a whole number"),
    (("run", "triangle-5", "--engine", "hadoop"), "--engine: invalid choice: 'hadoop'"),
    (("run",), "the following arguments are required: board"),
    (("counts", "a", "b"), "unrecognized arguments: b"),
    # a single-valued option given twice was taken at its last (issue 64, item 8)
    (("solve", "triangle-9", "--start", "5", "--start", "6"), "--start is given more than once"),
    (("solve", "triangle-5", "--finish", "5", "--finish=13"), "--finish is given more than once"),
    (("run", "triangle-5", "--out", "a", "--out", "b"), "--out is given more than once"),
])
def test_argument_errors_are_one_line_naming_the_argument(argv: tuple[str, ...], says: str) -> None:
    """argparse printed its usage block before the error: nine lines for one wrong value."""
    result = pegsearch(*argv)
    assert_one_line_error(result, says)
    assert "usage:" not in result.stderr and "--help`" in result.stderr


def test_a_memory_bound_beyond_this_machine_is_refused(tmp_path: Path) -> None:
    """`--memory 10T` was accepted on a 24 GiB machine, to end in swapping or the OOM killer."""
    result = pegsearch("run", "triangle-5", "--memory", "10T", "--out", str(tmp_path / "r"))
    assert_one_line_error(result, "--memory 10T: more than this machine's")
    assert not (tmp_path / "r").exists()


def test_run_says_where_the_run_is_when_output_is_not_a_terminal(tmp_path: Path) -> None:
    """With stdout and stderr piped, only --json said where the run went."""
    paused = pegsearch("run", "triangle-5", "--until", "3", "--out", str(tmp_path / "r"))
    assert paused.returncode == 0
    assert paused.stderr.strip().splitlines()[-1] == f"pegsearch: the paused run is in {tmp_path / 'r'}"
    finished = pegsearch("run", "triangle-5", "--resume", "--out", str(tmp_path / "r"))
    assert finished.stderr.strip().splitlines()[-1] == f"pegsearch: the complete run is in {tmp_path / 'r'}"


def test_a_second_run_into_a_busy_out_names_the_process_making_it(tmp_path: Path) -> None:
    """It was told to pass --resume, which the first run's lock would then refuse."""
    out = tmp_path / "run"
    first = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", "english-33", "--symmetry",
                              "none", "--memory", "128M", "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_levels(out, 3)
        assert_one_line_error(pegsearch("run", "english-33", "--symmetry", "none", "--out", str(out)),
                              f"is being written by pegsearch process {first.pid} on")
    finally:
        first.terminate()
        first.wait(timeout=60)
    assert_one_line_error(pegsearch("run", "english-33", "--symmetry", "none", "--out", str(out)),
                          "interrupted); pass --resume")


def test_words_of_tables_positions_and_surveys(tmp_path: Path) -> None:
    """The paths column's total, a fewest-moves position's moves apart from its holes, a start
    with no one-peg finish, every level's engine (level 0 had none), the survey's 'searched'."""
    paths = pegsearch("run", "triangle-5", "--count-paths", "--json", "--out", str(tmp_path / "p"))
    levels = json.loads(paths.stdout)["levels"]
    assert all(level["engine"] == "local" for level in levels)
    total = pegsearch("counts", str(tmp_path / "p")).stdout
    assert [line.split()[-1] for line in total.splitlines() if line.lstrip().startswith("total")] == [
        f"{sum(int(level['paths']) for level in levels):,}"]

    assert pegsearch("run", "triangle-5", "--fewest-moves", "--out", str(tmp_path / "m")).returncode == 0
    shown = pegsearch("positions", str(tmp_path / "m"), "3").stdout
    described = [line for line in shown.splitlines() if ": pegs on " in line]
    assert described and all("; " in line and " at fewest, the last moved peg on hole " in line
                             for line in described), described

    assert pegsearch("run", "hexagon-19", "--out", str(tmp_path / "h")).returncode == 0
    assert "last peg: nowhere (no position with one peg is reachable" in pegsearch(
        "counts", str(tmp_path / "h")).stdout

    survey = pegsearch("survey", "triangle-5", "--out", str(tmp_path / "s")).stdout
    assert "(searched: the start whose search answers the row" in survey


@pytest.mark.parametrize("argv", [["boards"], ["show", "english-33"], ["--help"], ["run", "--help"]])
def test_commands_that_search_nothing_load_no_search_machinery(argv: list[str]) -> None:
    """`pegsearch boards`, `show` and `--help` took 0.4-0.5 s, most of it importing numpy, numba,
    pyarrow and the kernels they never use (timed in the issue-30 note, not here)."""
    probe = ("import sys\nfrom pegsearch.cli.main import main\ntry:\n    main(sys.argv[1:])\n"
             "except SystemExit:\n    pass\n"
             "print(sorted(m for m in ('numpy', 'numba', 'pyarrow', 'pegsearch.kernel') if m in sys.modules),"
             " file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True,
                            timeout=120)
    assert result.stderr.strip().splitlines()[-1] == "[]", result.stderr
    assert result.stdout


@pytest.mark.parametrize("patience", ["soon", "-5", "nan", "inf"])
def test_a_store_patience_that_is_no_number_of_seconds_is_refused_before_a_local_run(
        patience: str, tmp_path: Path) -> None:
    """It was refused only once an object store was waited for; on local disk it was accepted."""
    refused = pegsearch_process("run", "triangle-4", "--out", str(tmp_path / "run"),
                                env={"PEGSEARCH_STORE_PATIENCE": patience})
    assert_one_line_error(refused, f"PEGSEARCH_STORE_PATIENCE={patience}: not a number of seconds")
    assert not (tmp_path / "run").exists()


def test_a_survey_with_undecided_pairs_names_the_commands_that_decide_them() -> None:
    """The verdict said pairs were undecided; --seconds and --whole-search, which decide them,
    were in --help and the docs only (issue 81, item 2). triangle-6 is surveyed by the solver
    only with --depth-first, which the commands keep."""
    result = pegsearch("survey", "triangle-6", "--depth-first", "--seconds", "0.0001")
    assert result.returncode == 0, result.stderr
    verdict = result.stdout.splitlines()[-1]
    assert "undecided (each pair's time bound, 0.0001 s, was reached): decide them with" in verdict
    assert "`pegsearch survey triangle-6 --depth-first --seconds 60`" in verdict
    assert "`pegsearch survey triangle-6 --depth-first --whole-search`" in verdict

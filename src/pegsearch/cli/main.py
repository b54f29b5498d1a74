"""The `pegsearch` command's arguments: the parser, and the handlers that need no search machinery.

The handlers of everything that reads or makes runs are in `pegsearch.cli.commands`, imported only
when such a command runs: `pegsearch boards`, `show` and `--help` never pay for numpy, numba,
pyarrow or the compiled kernels. Every answer and every check of a request comes from
`pegsearch.answers` (and the search from the driver), which the service calls too.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shlex
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any, NoReturn

from pegsearch import __version__
from pegsearch.answers import PAIR_SECONDS, SURVEY_WHOLE
from pegsearch.board.files import load_board, shipped_boards
from pegsearch.board.numbers import hole
from pegsearch.board.pictures import render
from pegsearch.board.spec import KEEPS, SYMMETRY_MODES, SearchSpec
from pegsearch.cli.defaults import RUNS
from pegsearch.cli.text import boards_table
from pegsearch.engines import ENGINES
from pegsearch.engines.settings import SETTINGS, help_line
from pegsearch.errors import failure
from pegsearch.interrupts import install
from pegsearch.words import plural

RUN_HELP = "a run: its folder, or a URI such as s3://BUCKET/PATH"
RUN_OR_BOARD = ("a run (its folder, or a URI such as s3://BUCKET/PATH), answered from its levels; or"
                " a board (a shipped name or a .toml file), answered by the depth-first solver")
RUN_OPTIONS = "Options after -- are passed to `pegsearch run`, e.g. -- --memory 2G."
DESCRIPTION = ("Exhaustive breadth-first search of peg-solitaire boards, one MapReduce job per level:"
               " search a board into a run directory (on this machine, Spark or mrjob), then ask the"
               " stored run for its counts, solutions and winnable positions, or serve searches over"
               " HTTP.")

# What each command's --help says first, written for users.
ABOUT = {
    "run": ("Search a board level by level, from a start, into a run directory (a folder or a "
            "store URI): every level is kept (unless --keep last), so the run can be counted, "
            "solved, verified or resumed later, with any engine."),
    "counts": ("Print the per-level table of a stored run (states, and path counts when counted), "
               "its verdict and where the last peg can stand; --winnable adds, per level, the "
               "positions that can still be played down to one peg."),
    "solve": ("Print one solution of a stored run, jump by jump from its real start, with the "
              "board after each jump; when one peg cannot be reached, a line of play down to the "
              "fewest pegs. Given a board (or a run not yet complete), the depth-first solver "
              "finds one, or proves there is none."),
    "winnable": ("Walk a complete run back and keep, beside its levels, each level's positions "
                 "that can still be played down to one peg (on a hole): hints, solve and counts "
                 "--winnable then read them instead of walking again."),
    "hint": ("Look up one position in a stored run: whether the run reaches it, whether it can "
             "still be won, and which of its legal jumps keep it winnable. Given a board (or a run "
             "not yet complete), the depth-first solver answers, each jump won, lost or undecided."),
    "survey": ("Search every start hole of a board (one search per class of symmetric holes) and "
               "say, per hole, whether one peg can be reached and where it can stand; boards too "
               "large to search whole (or --depth-first) are surveyed by the solver, pair by pair."),
    "verify": ("Reread a stored run and check every level against its manifest and the rules of "
               "the search; prints one line per problem (exit 1), or ok."),
    "runs": ("List the runs under a folder (default runs/) or a store prefix: board, start, status, "
             "levels, states, bytes stored and when each was made, newest first."),
    "files": ("Print the part files a run's manifest lists (of one level, or all), one per line: "
              "what to give DuckDB, Polars or pyarrow, rather than a glob that would also take an "
              "interrupted attempt's files."),
    "positions": ("Print the positions of a stored level decoded: the holes with pegs and a "
                  "picture of each (and its path count or fewest moves)."),
    "bench": ("Time whole searches in child processes: median wall and CPU seconds, states per "
              "CPU-second and peak memory, per board and engine."),
    "compare": ("Time pegsearch and another program side by side, alternating runs, and print both "
                "sides' medians and the ratios pegsearch / other."),
    "estimate": ("Estimate a whole search before paying for it: per level the positions (a run's "
                 "measured levels, then a projection), passes at --memory, CPU and wall seconds on "
                 "--cores cores at this machine's speed (from the run's own levels, or a short "
                 "measurement of the board), peak memory and stored bytes; and the totals."),
    "tune": ("Time the hot kernel compiled for the host's CPU model and a few portable ones, and keep "
             "the fastest for this machine: every later pegsearch process here compiles for it (a "
             "NUMBA_CPU_NAME you set still wins). Done once by itself on a machine not seen before."),
    "boards": ("List the boards shipped with pegsearch, with their holes, jumps and symmetries."),
    "records": ("List the whole searches shipped as records (a start the solver cannot decide, "
                "searched whole once): the command that makes each again, its positions, where one "
                "peg can stand at its end. `pegsearch verify RUN --record` compares a run with its "
                "record."),
    "show": ("Draw a board with its hole numbers, then with its default start."),
    "serve": ("Serve searches over HTTP: a JSON API and a dashboard over a folder of run "
              "directories; searches run in worker processes and survive a restart."),
}


def main(argv: list[str] | None = None) -> int:
    """Entry point: SIGINT and SIGTERM end the command in one line and 128 + the signal's number;
    the stores are closed before the process exits."""
    install()
    try:
        return answer(sys.argv[1:] if argv is None else list(argv))
    finally:
        if "pegsearch.store.location" in sys.modules:  # a command that opened no store has none
            sys.modules["pegsearch.store.location"].close_stores()


def answer(argv: list[str]) -> int:
    """The command's work and its exit code, user errors as one line on stderr and exit code 2: all
    of `main` but what belongs to the process (its signals, the stores shut before it exits, after
    which none opens again), so a longer-lived caller, the tests' own process, gets the same answer."""
    parser = build_parser()
    run_options: list[str] = []
    if "--" in argv and argv[0] in ("bench", "compare"):  # elsewhere `--` is argparse's own
        cut = argv.index("--")
        argv, run_options = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    if run_options and not hasattr(args, "run_options"):
        parser.error("options after -- are passed to `pegsearch run` by bench and compare only")
    if hasattr(args, "run_options"):
        args.run_options = run_options
    if getattr(args, "threads", None) is not None:
        if args.threads < 1:
            parser.error(f"--threads {args.threads}: give the threads to use, 1 or more")
        # Read once, when the kernels' module is imported (kernel.threads.WORKERS): set before.
        os.environ["NUMBA_NUM_THREADS"] = str(args.threads)
    try:
        _check_search(args)
        return _handler(args.handler)(args)
    except BrokenPipeError:
        # The reader went away (`pegsearch counts RUN | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (Exception, KeyboardInterrupt) as exc:
        ended = failure(exc, _resume_command(argv, args), getattr(args, "makes_levels", False))
        if ended is None:
            raise
        print(f"pegsearch: {'' if ended.interrupted else 'error: '}{ended.line}", file=sys.stderr)
        return ended.exit_code


def _check_search(args: argparse.Namespace) -> None:
    """The board and start holes a search names, checked before its handler's imports (numpy,
    numba, the kernels: most of a second), so that a mistyped name or hole is refused at once;
    `run` keeps the checked spec."""
    if args.handler == "command_run":
        args.spec = SearchSpec.asked(load_board(args.board), args.start,
                                     "none" if args.raw else args.symmetry, args.count_paths,
                                     args.fewest_moves)
    elif args.handler == "command_survey":
        load_board(args.board)


def _handler(handler: str | Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A command's handler: those named by a string are in `pegsearch.cli.commands`, imported
    only now (numpy, numba, pyarrow, the kernels).

    Those imports leave hundreds of thousands of objects that live as long as the process; the
    garbage collector would walk them all again at every full collection (a fifth of `solve`'s
    time on Skippy XL), so they are imported with it off and then frozen out of its sight."""
    if not isinstance(handler, str):
        return handler
    gc.disable()
    try:
        found = getattr(import_module("pegsearch.cli.commands"), handler)
    finally:
        gc.freeze()
        gc.enable()
    if handler not in NO_KERNELS:
        import_module("pegsearch.cli.ahead").ensure()  # every command's kernels, once a machine
    return found


# The commands that never call a kernel (they list and read runs, or start processes that do,
# each of which compiles ahead itself): no need to compile every command's kernels first.
NO_KERNELS = frozenset({"command_runs", "command_files", "command_positions", "command_tune",
                        "command_serve"})
GIVEN = "_options_given"  # the namespace's record of the options seen while parsing, then dropped


class Once(argparse.Action):
    """argparse's `store`, refusing an option given twice: `solve --start 5 --start 6` once solved
    from 6 without a word, `--finish 5 --finish 13` used 13."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        given = namespace.__dict__.setdefault(GIVEN, set())
        if option_string is not None:
            if self.dest in given:
                parser.error(f"{option_string} is given more than once: give it once")
            given.add(self.dest)
        setattr(namespace, self.dest, values)


class Parser(argparse.ArgumentParser):
    """argparse with errors in one line: what was wrong, with which argument, and where the
    command's help is (argparse's own prints the usage block first; subcommands share the class);
    an option that takes a value may be given once (`Once`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, Once)
        self.register("action", "store", Once)

    def parse_known_args(self, args: Any = None, namespace: Any = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        found, extras = super().parse_known_args(args, namespace)
        found.__dict__.pop(GIVEN, None)
        return found, extras

    # argparse's words for a bad value, and ours: the argument and what it takes.
    WORDS = ((re.compile(r"argument (\S+): invalid (?:int|hole) value: '(.*)'"),
              r"\1 \2: not a whole number"),
             (re.compile(r"argument (\S+): expected one argument"),
              r"\1: give it a value (one starting with '-' is written \1=VALUE)"),
             (re.compile(r"argument (\S+): expected at least one argument"), r"\1: give it a value"),
             (re.compile(r"argument (\S+): "), r"\1: "))

    def error(self, message: str) -> NoReturn:
        for pattern, words in self.WORDS:
            message, found = pattern.subn(words, message, count=1)
            if found:
                break
        self.exit(2, f"pegsearch: error: {message}; see `{self.prog} --help`\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="pegsearch", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"pegsearch {__version__}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    run = commands.add_parser("run", description=ABOUT["run"],
                               help="search a board level by level into a run directory")
    run.add_argument("board", help="a shipped board name (see `pegsearch boards`) or a .toml file")
    run.add_argument("--start", type=hole, nargs="+", metavar="HOLE",
                     help="the hole(s) empty at the start (default: those drawn empty)")
    run.add_argument("--out", metavar="RUN", help="where the run goes: a folder or a URI such as"
                     " s3://BUCKET/PATH (default: a new folder under runs/)")
    run.add_argument("--raw", action="store_true",
                     help="count without symmetry reduction (the same as --symmetry none)")
    run.add_argument("--symmetry", choices=SYMMETRY_MODES, default="board",
                     help="reduce by the board's whole group (default), only the symmetries fixing"
                          " the start (exact per-hole answers), or none")
    run.add_argument("--count-paths", action="store_true",
                     help="also count the distinct jump sequences reaching each position")
    run.add_argument("--fewest-moves", action="store_true",
                     help="also find the fewest moves reaching each position (a move is one or more"
                          " jumps in a row by one peg); not with --count-paths")
    _add_engine_arguments(run)
    run.add_argument("--until", type=int, metavar="LEVEL",
                     help="stop on purpose once level LEVEL is made (the run is paused; --resume"
                          " continues it, with a later --until or none)")
    run.add_argument("--resume", action="store_true",
                     help="continue the run in --out (default: the newest matching run in runs/)")
    run.add_argument("--threads", type=int, metavar="N",
                     help="local engine: threads for its kernels and part writers (default: every"
                          " core); more than the cores is allowed, to measure contention")
    run.add_argument("--keep", choices=KEEPS,
                     help="what the run keeps: every level (all, the default), or only the last"
                          " level's parts (last: disk for two levels; counts, verify and --resume"
                          " work, solve, hint and winnable do not); a resumed run keeps its choice")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.set_defaults(handler="command_run")

    counts = commands.add_parser("counts", description=ABOUT["counts"],
                               help="the per-level table of a stored run")
    counts.add_argument("run", help=RUN_HELP)
    counts.add_argument("--json", action="store_true", help="print the counts as JSON")
    counts.add_argument("--winnable", action="store_true",
                        help="add, per level, the positions that can still be played down to one peg")
    counts.add_argument("--finish", type=hole, metavar="HOLE",
                        help="with --winnable: down to one peg on this hole")
    counts.add_argument("--engine", choices=sorted(ENGINES),
                        help="with --winnable: the engine that walks the levels back (default: this"
                             " process; spark walks a cluster run back on its cluster)")
    counts.add_argument("--master", "--spark-master", dest="master", metavar="URL",
                        help="with --winnable --engine spark: the master (default: the run's)")
    counts.add_argument("--by-moves", action="store_true",
                        help="of a --fewest-moves run: how many positions need exactly n moves at"
                             " fewest, for every n")
    counts.add_argument("--plot", type=Path, metavar="FILE.png",
                        help="draw states (and winnable states) per level, log scale, into FILE")
    counts.set_defaults(handler="command_counts")

    solve = commands.add_parser("solve", description=ABOUT["solve"],
                               help="one solution (or best line of play) of a run or a board")
    solve.add_argument("run", metavar="RUN|BOARD", help=RUN_OR_BOARD)
    solve.add_argument("--start", type=hole, nargs="+", metavar="HOLE",
                       help="of a board: the hole(s) empty at the start (default: those drawn empty)")
    solve.add_argument("--finish", type=hole, metavar="HOLE", help="end with the last peg on HOLE")
    solve.add_argument("--fewest-moves", action="store_true",
                       help="a line with the fewest moves (a move: one or more jumps by the same"
                            " peg): read from a fewest-moves run, else found by the solver, proved"
                            " fewest or the best found with the bound not closed")
    _add_solver_arguments(solve, 60)
    solve.add_argument("--json", action="store_true", help="print the solution as JSON")
    solve.add_argument("--svg", type=Path, metavar="FILE", help="also draw the boards into an SVG strip")
    solve.add_argument("--png", type=Path, metavar="FILE", help="also draw the boards into a PNG strip")
    solve.set_defaults(handler="command_solve")

    winnable = commands.add_parser("winnable", description=ABOUT["winnable"],
                                   help="keep a run's winnable positions, level by level")
    winnable.add_argument("run", help=RUN_HELP)
    winnable.add_argument("--finish", type=hole, metavar="HOLE", help="down to one peg on this hole")
    winnable.add_argument("--engine", choices=sorted(ENGINES),
                          help="the engine that walks the levels back (default: this process;"
                               " spark walks a cluster run back on its cluster)")
    winnable.add_argument("--master", "--spark-master", dest="master", metavar="URL",
                          help="with --engine spark: the master (default: the run's)")
    winnable.add_argument("--json", action="store_true", help="print the kept sets' record as JSON")
    winnable.set_defaults(handler="command_winnable")

    hint = commands.add_parser("hint", description=ABOUT["hint"],
                               help="can a position still be won, and which jumps keep it so")
    hint.add_argument("run", metavar="RUN|BOARD", help=RUN_OR_BOARD)
    hint.add_argument("position", help="the holes with pegs (2,3,5), a picture as `pegsearch"
                                       " positions` draws it, or jumps from the start (5-9-14,...)")
    hint.add_argument("--finish", type=hole, metavar="HOLE", help="won means one peg on this hole")
    _add_solver_arguments(hint, 5)
    hint.add_argument("--json", action="store_true", help="print the hint as JSON")
    hint.set_defaults(handler="command_hint")
    # A position written as jumps or holes may start with '-' (`-1,2`): a value, not an option.
    hint._negative_number_matcher = re.compile(r"^-\d[\d,\-\s]*$")

    survey = commands.add_parser("survey", description=ABOUT["survey"],
                               help="search every start hole (one per symmetry class)")
    survey.add_argument("board", help="a shipped board name or a .toml file")
    survey.add_argument("--out", metavar="FOLDER",
                        help="folder for the runs, one per class (default: a new one under runs/);"
                             " complete runs there are reused, unfinished ones resumed")
    survey.add_argument("--count-paths", action="store_true", help="also count the solutions")
    survey.add_argument("--fewest-moves", action="store_true",
                        help="also find the fewest moves to one peg, per start and finishing hole")
    survey.add_argument("--json", action="store_true", help="print every hole's result as JSON")
    survey.add_argument("--depth-first", action="store_true",
                        help="answer by the depth-first solver, one (start, finish) pair at a time,"
                             f" rather than a search per start (the default above {SURVEY_WHOLE}"
                             " holes, where a search of every start takes hours or more)")
    survey.add_argument("--seconds", default=str(PAIR_SECONDS), metavar="S",
                        help="with the solver: the time bound of each (start, finish) pair"
                             f" (default {PAIR_SECONDS}); a pair not decided in it is named"
                             " undecided")
    survey.add_argument("--whole-search", action="store_true",
                        help="with the solver: a start whose pairs it leaves undecided is then"
                             " searched whole into --out (a run reduced by the symmetries fixing"
                             " the start, with --engine), which decides every pair of it: about"
                             " 8-24 min a start on diamond-41 on 2 cores, far more past 41 holes")
    _add_engine_arguments(survey)
    survey.set_defaults(handler="command_survey")

    verify = commands.add_parser("verify", description=ABOUT["verify"],
                               help="reread a run and report anything wrong with it")
    verify.add_argument("run", help=RUN_HELP)
    verify.add_argument("--against", metavar="OTHER-RUN",
                        help="also compare with another run of the same search, level by level, by"
                             " the manifests' digests (any engine, any store); names the first level"
                             " that differs")
    verify.add_argument("--recompute", type=int, default=0, metavar="LEVELS",
                        help="also make levels 1..LEVELS again by a second, plain-numpy computation"
                             " and compare them position for position (for the smaller levels)")
    verify.add_argument("--record", action="store_true",
                        help="also compare with the shipped record of the run's search (`pegsearch"
                             " records`), level by level: a run made by its command, whole or to"
                             " any level (--until)")
    verify.set_defaults(handler="command_verify")

    records = commands.add_parser("records", description=ABOUT["records"],
                                  help="the whole searches shipped as records")
    records.add_argument("--json", action="store_true", help="print the records as JSON")
    records.set_defaults(handler="command_records")

    runs = commands.add_parser("runs", description=ABOUT["runs"], help="list the runs under a folder")
    runs.add_argument("root", nargs="?", default=str(RUNS), help="a folder or a store URI (default runs/)")
    runs.add_argument("--json", action="store_true", help="print the list as JSON")
    runs.set_defaults(handler="command_runs")

    files = commands.add_parser("files", description=ABOUT["files"],
                                help="the part files a run lists, for other tools")
    files.add_argument("run", help=RUN_HELP)
    files.add_argument("level", nargs="?", type=int, help="one level (default: every level)")
    files.add_argument("--json", action="store_true", help="print levels and files as JSON")
    files.set_defaults(handler="command_files")

    positions = commands.add_parser("positions", description=ABOUT["positions"],
                                    help="the positions of a stored level, decoded")
    positions.add_argument("run", help=RUN_HELP)
    positions.add_argument("level", type=int, help="the level (its number of jumps)")
    positions.add_argument("--limit", type=int, default=10, metavar="N",
                           help="at most N positions (default 10)")
    positions.add_argument("--json", action="store_true", help="print them as JSON")
    positions.set_defaults(handler="command_positions")

    bench = commands.add_parser("bench", description=ABOUT["bench"],
                               help="time searches: wall, CPU, states per CPU-second, memory",
                                epilog=RUN_OPTIONS)
    bench.add_argument("--boards", nargs="+", default=["skippy-xl", "english-33"], metavar="BOARD")
    bench.add_argument("--engines", nargs="+", default=["local"], choices=sorted(ENGINES),
                       metavar="ENGINE", help=f"engines to time (of {', '.join(sorted(ENGINES))})")
    bench.add_argument("--repeat", type=int, default=3, help="runs per board and engine (median)")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.set_defaults(handler="command_bench", run_options=[])

    compare = commands.add_parser("compare", description=ABOUT["compare"],
                               help="time pegsearch side by side with another program, alternating runs",
        epilog=RUN_OPTIONS)
    compare.add_argument("board", help="the board pegsearch searches (local engine)")
    compare.add_argument("--peer", required=True, metavar="COMMAND",
                         help="the other program's command line, quoted, e.g."
                              " \"/tmp/peer/peg_solitaire english 2\"")
    compare.add_argument("--repeat", type=int, default=5, help="pairs of runs (default 5)")
    compare.add_argument("--json", action="store_true", help="print the figures as JSON")
    compare.set_defaults(handler="command_compare", run_options=[])

    estimate = commands.add_parser("estimate", description=ABOUT["estimate"],
                                   help="time, memory and disk a whole search will take")
    estimate.add_argument("target", metavar="BOARD|RUN",
                          help="a run to go on from (its levels measured), or a board to measure")
    estimate.add_argument("--cores", type=int, metavar="N",
                          help="cores of the machine priced (default: this machine's)")
    estimate.add_argument("--memory", metavar="SIZE",
                          help="the local engine's --memory there, e.g. 400G (default: as on this"
                               " machine, 1/4 of RAM, <= 4G)")
    estimate.add_argument("--keep", choices=KEEPS, default="all",
                          help="what the run keeps: disk for every level (all) or two (last)")
    estimate.add_argument("--gpu", nargs="?", const="", metavar="GPU-RUN",
                          help="also the GPU engine's passes for each bitmap level, and its seconds"
                               " at the rate of GPU-RUN's (or RUN's) GPU levels; unmeasured without")
    estimate.add_argument("--gpu-memory", metavar="SIZE",
                          help="with --gpu: the GPU's share, e.g. 120G (default: 90%% of an 80 GB H100)")
    estimate.add_argument("--nodes", type=int, metavar="N",
                          help="also the Spark engine on a cluster of N nodes, each of --cores cores"
                               " and --memory of RAM: per level its tasks, passes, shuffle bytes, a"
                               " node's memory and seconds, and the settings that plan it so")
    estimate.add_argument("--json", action="store_true", help="print the estimate as JSON")
    estimate.set_defaults(handler="command_estimate")

    tune = commands.add_parser("tune", description=ABOUT["tune"],
                               help="choose the kernels' compile target for this machine by measurement")
    tune.add_argument("--json", action="store_true", help="print the choice as JSON")
    tune.set_defaults(handler="command_tune")

    boards = commands.add_parser("boards", description=ABOUT["boards"],
                               help="list the shipped boards")
    boards.set_defaults(handler=command_boards)

    show = commands.add_parser("show", description=ABOUT["show"],
                               help="draw a board with its hole numbers")
    show.add_argument("board", help="a shipped board name or a .toml file")
    show.set_defaults(handler=command_show)

    serve = commands.add_parser("serve", description=ABOUT["serve"],
                               help="the search service: HTTP API and dashboard over a runs root")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1;"
                       " any other needs a token)")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    serve.add_argument("--runs", default=str(RUNS), metavar="ROOT",
                       help="folder or store prefix (s3://BUCKET/PREFIX, gs://..., hdfs://...) of"
                       " runs to serve and search into (default runs/)")
    serve.add_argument("--state", type=Path, metavar="DIR",
                       help="local folder for the server's queue, logs and locks (default: inside a"
                       " local ROOT, else under ~/.cache/pegsearch/serve)")
    serve.add_argument("--jobs", type=int, default=1, metavar="N", help="searches run at a time (default 1)")
    serve.add_argument("--engine", default="local", choices=sorted(ENGINES),
                       help="the engine of searches whose request names none (default local)")
    serve.add_argument("--master", help="the Spark master every spark search runs on (requests may"
                       " not choose another)")
    serve.add_argument("--queue", metavar="NAME", help="the YARN queue every search of --engine"
                       " runs its jobs in (mrjob's hadoop runner, Spark on YARN; requests may not"
                       " choose another)")
    serve.add_argument("--token", default=os.environ.get("PEGSEARCH_TOKEN"),
                       help="bearer token every API request must carry (default: $PEGSEARCH_TOKEN)")
    serve.add_argument("--log-format", default="text", choices=("text", "json"),
                       help="the server's log on stderr: text (warnings and errors, the default) or"
                       " json (one JSON object a line, a line per request; see docs/service.md)")
    serve.set_defaults(handler="command_serve")
    return parser


def _resume_command(argv: list[str], args: argparse.Namespace) -> str | None:
    """The whole command that continues an interrupted `run` or `survey`: as typed, with --out
    naming the folder it chose (a folder left out was chosen afresh, and typing the command again
    would choose another), without --until; a run's with --resume, a survey's without (it reads
    its complete start runs and resumes the others). None while no folder was chosen."""
    out = getattr(args, "out", None) if args.handler in ("command_run", "command_survey") else None
    if out is None:
        return None
    kept, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word in ("--out", "--until"):
            skip = True
        elif word != "--resume" and not word.startswith(("--out=", "--until=")):
            kept.append(word)
    again = ["--resume"] if args.handler == "command_run" else []
    return f"pegsearch {shlex.join([*kept, '--out', str(out), *again])}"


def _add_solver_arguments(parser: argparse.ArgumentParser, seconds: int) -> None:
    """The flags of answers a board's solver gives (solve and hint)."""
    parser.add_argument("--depth-first", action="store_true",
                        help="answer by the depth-first solver even from a complete run")
    parser.add_argument("--seconds", default=str(seconds), metavar="S",
                        help=f"the solver's time bound (default {seconds}); past it, undecided")
    parser.add_argument("--memory", metavar="SIZE",
                        help="the solver's bound on its tables of positions, e.g. 2G (default: 1/4"
                             " of RAM, <= 4G)")


def _add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags choosing and configuring an engine (shared by run and survey)."""
    parser.add_argument("--engine", default="local", choices=sorted(ENGINES),
                        help="how each level is computed (default: local)")
    for setting in SETTINGS:  # declared once, in engines.settings
        parser.add_argument(setting.flag, *setting.aliases, dest=setting.name, type=setting.kind,
                            metavar=setting.metavar, choices=setting.choices or None,
                            help=help_line(setting))


def command_boards(args: argparse.Namespace) -> int:
    print(boards_table([load_board(name) for name in shipped_boards()]))
    return 0


def command_show(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    print(f"{board.name}: {plural(board.holes, 'hole')}, {plural(len(board.jumps), 'jump')},"
          f" {plural(len(board.symmetries), 'symmetry', 'symmetries')},"
          f" {board.grid} grid")
    print(render(board, numbers=True))
    print()
    print(render(board, board.start_position()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

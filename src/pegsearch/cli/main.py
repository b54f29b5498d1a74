"""The `pegsearch` command: arguments in, text or JSON out.

Every answer and every check of a request comes from `pegsearch.answers` (and the search from the
driver), which the service calls too; what is here is the argument parser, the choice of text or
JSON, and the terminal's progress.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from pegsearch import __version__
from pegsearch.answers.documents import (
    counts_document,
    files_document,
    moves_document,
    positions_document,
    require_complete,
    search_document,
    survey_document,
)
from pegsearch.answers.fewest import move_numbers
from pegsearch.answers.finishes import exact_per_hole, finishes
from pegsearch.answers.listing import runs_document
from pegsearch.answers.solve import solve
from pegsearch.answers.survey import store_answers, survey
from pegsearch.answers.verdict import verdict
from pegsearch.answers.verify import against, recompute, same_signatures, verify
from pegsearch.board.files import load_board, shipped_boards
from pegsearch.board.pictures import render
from pegsearch.board.plots import board_strip, check_picture_path, level_plot
from pegsearch.board.spec import SYMMETRY_MODES, SearchSpec, survey_name
from pegsearch.board.symmetry import orbit
from pegsearch.cli.bench import compare, machine, measure, medians
from pegsearch.cli.text import (
    bench_table,
    boards_table,
    compare_table,
    finish_table,
    grouped_jumps,
    level_table,
    moves_table,
    run_heading,
    runs_table,
    survey_table,
)
from pegsearch.engines import ENGINES, Engine, make_engine
from pegsearch.engines.driver import Progress, search
from pegsearch.errors import UsageError, failure
from pegsearch.interrupts import install
from pegsearch.store import Carry, Location, Run
from pegsearch.store.location import close_stores
from pegsearch.words import plural

if TYPE_CHECKING:
    from tqdm import tqdm

RUNS = Path("runs")
# What `verify` says it checked of the values a run carries.
VALUES_CHECKED = {Carry.NOTHING: "", Carry.PATHS: " and path totals",
                  Carry.MOVES: " and fewest moves (per level, and each possible)"}
RUN_HELP = "a run: its folder, or a URI such as s3://BUCKET/PATH"
RUN_OPTIONS = "Options after -- are passed to `pegsearch run`, e.g. -- --memory 2G."
DESCRIPTION = ("Exhaustive breadth-first search of peg-solitaire boards, one MapReduce job per level:"
               " search a board into a run directory (on this machine, Spark or mrjob), then ask the"
               " stored run for its counts, solutions and winnable positions, or serve searches over"
               " HTTP.")

# What each command's --help says first, written for users.
ABOUT = {
    "run": ("Search a board level by level, from a start, into a run directory (a folder or a "
            "store URI): every level is kept, so the run can be counted, solved, verified or "
            "resumed later, with any engine."),
    "counts": ("Print the per-level table of a stored run (states, and path counts when counted), "
               "its verdict and where the last peg can stand; --winnable adds, per level, the "
               "positions that can still be played down to one peg."),
    "solve": ("Print one solution of a stored run, jump by jump from its real start, with the "
              "board after each jump; when one peg cannot be reached, a line of play down to the "
              "fewest pegs."),
    "survey": ("Search every start hole of a board (one search per class of symmetric holes) and "
               "say, per hole, whether one peg can be reached and where it can stand."),
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
    "boards": ("List the boards shipped with pegsearch, with their holes, jumps and symmetries."),
    "show": ("Draw a board with its hole numbers, then with its default start."),
    "serve": ("Serve searches over HTTP: a JSON API and a dashboard over a folder of run "
              "directories; searches run in worker processes and survive a restart."),
}


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors become one line on stderr and exit code 2; SIGINT and SIGTERM one
    line and 128 + the signal's number."""
    install()
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    run_options: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, run_options = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    if run_options and not hasattr(args, "run_options"):
        parser.error("options after -- are passed to `pegsearch run` by bench and compare only")
    if hasattr(args, "run_options"):
        args.run_options = run_options
    try:
        return args.handler(args)
    except BrokenPipeError:
        # The reader went away (`pegsearch counts RUN | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (Exception, KeyboardInterrupt) as exc:
        ended = failure(exc, _resume_command(argv, args.out) if args.handler is command_run else None)
        if ended is None:
            raise
        print(f"pegsearch: {'' if ended.interrupted else 'error: '}{ended.line}", file=sys.stderr)
        return ended.exit_code
    finally:
        close_stores()


class Parser(argparse.ArgumentParser):
    """argparse with errors in one line: what was wrong, with which argument, and where the
    command's help is (argparse's own prints the usage block first; subcommands share the class)."""

    # argparse's words for a bad value, and ours: the argument and what it takes.
    WORDS = ((re.compile(r"argument (\S+): invalid int value: '(.*)'"), r"\1 \2: not a whole number"),
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
    run.add_argument("--start", type=int, nargs="+", metavar="HOLE",
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
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.set_defaults(handler=command_run)

    counts = commands.add_parser("counts", description=ABOUT["counts"],
                               help="the per-level table of a stored run")
    counts.add_argument("run", help=RUN_HELP)
    counts.add_argument("--json", action="store_true", help="print the counts as JSON")
    counts.add_argument("--winnable", action="store_true",
                        help="add, per level, the positions that can still be played down to one peg")
    counts.add_argument("--finish", type=int, metavar="HOLE",
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
    counts.set_defaults(handler=command_counts)

    solve = commands.add_parser("solve", description=ABOUT["solve"],
                               help="one solution (or best line of play) of a stored run")
    solve.add_argument("run", help=RUN_HELP)
    solve.add_argument("--finish", type=int, metavar="HOLE", help="end with the last peg on HOLE")
    solve.add_argument("--svg", type=Path, metavar="FILE", help="also draw the boards into an SVG strip")
    solve.add_argument("--png", type=Path, metavar="FILE", help="also draw the boards into a PNG strip")
    solve.set_defaults(handler=command_solve)

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
    _add_engine_arguments(survey)
    survey.set_defaults(handler=command_survey)

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
    verify.set_defaults(handler=command_verify)

    runs = commands.add_parser("runs", description=ABOUT["runs"], help="list the runs under a folder")
    runs.add_argument("root", nargs="?", default=str(RUNS), help="a folder or a store URI (default runs/)")
    runs.add_argument("--json", action="store_true", help="print the list as JSON")
    runs.set_defaults(handler=command_runs)

    files = commands.add_parser("files", description=ABOUT["files"],
                                help="the part files a run lists, for other tools")
    files.add_argument("run", help=RUN_HELP)
    files.add_argument("level", nargs="?", type=int, help="one level (default: every level)")
    files.add_argument("--json", action="store_true", help="print levels and files as JSON")
    files.set_defaults(handler=command_files)

    positions = commands.add_parser("positions", description=ABOUT["positions"],
                                    help="the positions of a stored level, decoded")
    positions.add_argument("run", help=RUN_HELP)
    positions.add_argument("level", type=int, help="the level (its number of jumps)")
    positions.add_argument("--limit", type=int, default=10, metavar="N",
                           help="at most N positions (default 10)")
    positions.add_argument("--json", action="store_true", help="print them as JSON")
    positions.set_defaults(handler=command_positions)

    bench = commands.add_parser("bench", description=ABOUT["bench"],
                               help="time searches: wall, CPU, states per CPU-second, memory",
                                epilog=RUN_OPTIONS)
    bench.add_argument("--boards", nargs="+", default=["skippy-xl", "english-33"], metavar="BOARD")
    bench.add_argument("--engines", nargs="+", default=["local"], choices=sorted(ENGINES),
                       metavar="ENGINE", help=f"engines to time (of {', '.join(sorted(ENGINES))})")
    bench.add_argument("--repeat", type=int, default=3, help="runs per board and engine (median)")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.set_defaults(handler=command_bench, run_options=[])

    compare = commands.add_parser("compare", description=ABOUT["compare"],
                               help="time pegsearch side by side with another program, alternating runs",
        epilog=RUN_OPTIONS)
    compare.add_argument("board", help="the board pegsearch searches (local engine)")
    compare.add_argument("--peer", required=True, metavar="COMMAND",
                         help="the other program's command line, quoted, e.g."
                              " \"/tmp/peer/peg_solitaire english 2\"")
    compare.add_argument("--repeat", type=int, default=5, help="pairs of runs (default 5)")
    compare.add_argument("--json", action="store_true", help="print the figures as JSON")
    compare.set_defaults(handler=command_compare, run_options=[])

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
    serve.add_argument("--token", default=os.environ.get("PEGSEARCH_TOKEN"),
                       help="bearer token every API request must carry (default: $PEGSEARCH_TOKEN)")
    serve.set_defaults(handler=command_serve)
    return parser


def command_run(args: argparse.Namespace) -> int:
    spec = SearchSpec.asked(load_board(args.board), args.start, "none" if args.raw else args.symmetry,
                            args.count_paths, args.fewest_moves)
    out = args.out = args.out or (_newest_run(spec) if args.resume else str(RUNS / spec.name()))
    engine = _engine(args)
    if sys.stderr.isatty():
        doing = "resuming" if args.resume else "searching"
        print(f"{doing} {spec.describe()} with the {engine.name} engine into {out}", file=sys.stderr)
    run = search(spec, out, engine, resume=args.resume, until=args.until,
                 progress=TerminalProgress() if sys.stderr.isatty() else None)
    _print_run(run, {**search_document(run), "location": run.uri} if args.json else None)
    # Said on stderr whatever stdout is (a file, a pipe, JSON), so a user always learns where it is.
    print(f"pegsearch: the {run.status} run is in {run.uri}", file=sys.stderr)
    return 0


def _resume_command(argv: list[str], out: str | None) -> str | None:
    """The whole command that continues an interrupted `run`: as typed, with --out naming its
    folder and --resume, without --until (None while no folder was chosen)."""
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
    return f"pegsearch {shlex.join([*kept, '--out', str(out), '--resume'])}"


def _add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags choosing and configuring an engine (shared by run and survey)."""
    parser.add_argument("--engine", default="local", choices=sorted(ENGINES),
                        help="how each level is computed (default: local)")
    parser.add_argument("--runner", help="mrjob engine: inline, local, spark, hadoop, emr or dataproc")
    parser.add_argument("--mrjob-conf", type=Path, help="mrjob engine: an mrjob.conf file")
    parser.add_argument("--master", "--spark-master", dest="master", metavar="URL",
                        help="spark engines: local[N], spark://HOST:PORT, yarn or k8s://...")
    parser.add_argument("--driver-below", type=int, metavar="N",
                        help="spark engine: levels made from fewer than N parents are made in the"
                             " driver, where they take less than a Spark job's fixed cost"
                             " (default 131072; 0 sends every level to Spark)")
    parser.add_argument("--memory", metavar="SIZE",
                        help="local engine: bound on what it holds, e.g. 2G (default: 1/4 of RAM,"
                             " <= 4G); larger levels take several passes over their parents")
    parser.add_argument("--reduce", choices=("auto", "bitmap", "tables"),
                        help="local engine: how a level drops repeats: a bitmap over ranks where the"
                             " level is dense enough (auto, the default), or always bitmap or tables")
    parser.add_argument("--batch-size", type=int, metavar="N",
                        help="mrjob engine: positions per kernel call in a mapper (default 65536)")


def _engine(args: argparse.Namespace) -> Engine:
    return make_engine(args.engine, runner=args.runner, mrjob_conf=args.mrjob_conf,
                       master=args.master, memory=args.memory, reduce=args.reduce,
                       batch_size=args.batch_size,
                       driver_below=args.driver_below)


def command_counts(args: argparse.Namespace) -> int:
    run = Run.open(args.run)
    if args.by_moves:
        return _print_by_moves(run, args)
    if args.plot:
        check_picture_path(args.plot)
        require_complete(run, "a plot")
    # The text prints where the last peg stands itself (as a table), so only JSON asks for it here.
    document = counts_document(run, args.winnable, args.finish, args.engine, args.master,
                               answers=args.json)
    winnable = [level["winnable"] for level in document["levels"]] if args.winnable else None
    _print_run(run, {**document, "location": run.uri} if args.json else None, winnable,
               finish_classes=True)
    if winnable is not None and not args.json:
        print(f"winnable: {_winnable_meaning(run, args.finish)}")
    if args.plot:
        level_plot(args.plot, f"{run.board.name}, start: hole {', '.join(map(str, run.start))}",
                   [r["states"] for r in run.levels], winnable,
                   "winnable" if args.finish is None else f"winnable to hole {args.finish}")
    return 0


def _print_by_moves(run: Run, args: argparse.Namespace) -> int:
    """`counts --by-moves`: the run's positions by the fewest moves reaching them."""
    if args.winnable or args.plot or args.finish is not None or args.engine or args.master:
        raise UsageError("--by-moves is a table of its own: drop --winnable, --finish, --engine,"
                         " --master and --plot, or ask for them without --by-moves")
    document = moves_document(run)
    if args.json:
        print(json.dumps({**document, "location": run.uri}, indent=1))
    else:
        print(run_heading(run))
        print(moves_table(document))
    return 0


def _winnable_meaning(run: Run, finish: int | None) -> str:
    unit = "positions (one per symmetry class)" if run.reduced else "positions"
    if finish is None:
        return f"{unit} from which one peg can still be reached"
    holes = orbit(run.spec.signing, finish)
    alike = (f" or a hole symmetric to it under the run's symmetries ({', '.join(map(str, holes))})"
             if len(holes) > 1 else "")
    return f"{unit} from which one peg can still be reached on hole {finish}{alike}"


def command_solve(args: argparse.Namespace) -> int:
    run = Run.open(args.run)
    if args.finish is not None:
        run.board.hole_of(args.finish, "finish")
    pictures = [check_picture_path(path, (kind,))
                for path, kind in ((args.svg, ".svg"), (args.png, ".png")) if path]
    with LevelBar("walking the levels back") as bar:
        line = solve(require_complete(run, "a solution"), args.finish, bar)
    print(run_heading(run))
    numbers = move_numbers(line.jumps)
    moves = f"{numbers[-1] if numbers else 0} moves{' (the fewest)' if line.moves is not None else ''}"
    if line.solved:
        print(f"a solution in {len(line.jumps)} jumps, {moves}, last peg on hole"
              f" {line.last.bit_length()}")
    else:
        print(f"{line.note}, in {len(line.jumps)} jumps, {moves}")
    print("jumps: " + " ".join(map(str, line.jumps)))
    print("moves: " + grouped_jumps(line.jumps, numbers))
    print()
    captions = ["start", *(f"{k}. {jump}  (move {number})" for k, (jump, number)
                           in enumerate(zip(line.jumps, numbers, strict=True), start=1))]
    positions = [line.start, *line.positions]
    for caption, position in zip(captions, positions, strict=True):
        print(caption)
        print(render(run.board, position))
        print()
    title = (f"{run.board.name}, start: hole {', '.join(map(str, run.start))}; "
             + (f"solved in {plural(len(line.jumps), 'jump')}, {moves}" if line.solved else line.note))
    for path in pictures:
        board_strip(path, title, run.board, positions, captions, [None, *line.jumps])
    return 0


def command_survey(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    out = args.out or str(RUNS / survey_name(board, args.count_paths, args.fewest_moves))
    results = survey(board, out, lambda: _engine(args), args.count_paths,
                     progress=_survey_progress if sys.stderr.isatty() else None,
                     fewest_moves=args.fewest_moves)
    document = survey_document(board, results, args.engine)
    store_answers(Location.parse(out), document)
    document = {**document, "location": str(out)}
    if args.json:
        print(json.dumps(document, indent=1))
        return 0
    print(f"survey of {board.name} ({board.holes} holes) into {out}: one search per class of start"
          " holes, reduced only by the symmetries fixing the start, so the holes listed are exact")
    print("(searched: the start whose search answers the row; a hole symmetric to it takes its"
          " answer through the symmetry)")
    print(survey_table(results))
    print(document["verdict"])
    return 0


def _survey_progress(start: int) -> Progress:
    print(f"start hole {start}:", file=sys.stderr)
    return TerminalProgress()


def command_verify(args: argparse.Namespace) -> int:
    if args.recompute < 0:
        raise UsageError(f"--recompute {args.recompute}: give a number of levels, 0 or more")
    checked = verify(args.run)
    if checked.ok and args.recompute:
        checked.problems += recompute(args.run, args.recompute)
    compared = 0
    if checked.ok and args.against:
        compared, differences = against(args.run, args.against)
        checked.problems += differences
    for problem in checked.problems:
        print(f"{args.run}: {problem}")
    if not checked.ok:
        return 1
    run = Run.open(args.run)
    incomplete = "" if run.status == "complete" else f" (the run is {run.status}: resume it to finish)"
    print(f"ok: {args.run}: {checked.levels} levels, {checked.states:,} states; checksums, row counts,"
          f" order, pegs, signatures{VALUES_CHECKED[run.carry]} agree with"
          f" the manifest{incomplete}")
    if args.recompute:
        shown = min(args.recompute, checked.levels - 1)
        print(f"ok: levels 1 to {shown} agree position for position with a second computation")
    if args.against:
        how = ("digest for digest" if same_signatures(run, Run.open(args.against)) else "state count for"
               " state count (one run takes signatures under other symmetries: it was made before"
               " signatures kept the start's class)")
        print(f"identical: all {plural(compared, 'level')} equal {args.against}'s, {how}")
    return 0


def command_runs(args: argparse.Namespace) -> int:
    document = runs_document(args.root, missing_ok=args.root == str(RUNS))
    if args.json:
        print(json.dumps(document, indent=1))
    elif not document["runs"]:
        print(f"no runs under {document['root']}")
    else:
        print(runs_table(document["runs"]))
    return 0


def command_files(args: argparse.Namespace) -> int:
    document = files_document(Run.open(args.run), args.level)
    if args.json:
        print(json.dumps(document, indent=1))
    else:
        print("\n".join(path for level in document["levels"] for path in level["files"]))
    return 0


def command_positions(args: argparse.Namespace) -> int:
    run = Run.open(args.run)
    document = positions_document(run, args.level, args.limit)
    if args.json:
        print(json.dumps(document, indent=1))
        return 0
    print(run_heading(run))
    shown = len(document["positions"])
    pegs = document["pegs"]
    print(f"level {args.level}: {plural(document['states'], 'position')} with {plural(pegs, 'peg')},"
          f" {document['meaning']}; {'all' if shown == document['states'] else f'the first {shown:,}'}"
          " as stored")
    for row in document["positions"]:
        last = " or ".join(map(str, row.get("last_holes", ())))
        values = (f"; {plural(row['paths'], 'path')}" if "paths" in row else
                  f"; {plural(row['moves'], 'move')} at fewest"
                  + (f", the last moved peg on hole {last}" if last else "") if "moves" in row else "")
        print(f"\n{row['position']}: pegs on {', '.join(map(str, row['holes']))}{values}")
        print(row["picture"])
    return 0


def command_bench(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise UsageError(f"--repeat {args.repeat}: give at least 1")
    for board in args.boards:
        load_board(board)
    figures = []
    for board in args.boards:
        for engine in args.engines:
            figures.append(measure(board, engine, args.repeat, args.run_options))
            if sys.stderr.isatty():
                print(f"  {board} on {engine}: {figures[-1].wall_seconds} s", file=sys.stderr)
    if args.json:
        print(json.dumps({"machine": machine(), "results": [f.as_json() for f in figures]},
                         indent=1))
    else:
        print(f"machine: {machine()}")
        print(bench_table(figures))
    return 0


def command_compare(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise UsageError(f"--repeat {args.repeat}: give at least 1")
    load_board(args.board)
    peer = shlex.split(args.peer)
    if not peer:
        raise UsageError("--peer is empty: give the other program's command line")
    pairs, states = compare(args.board, peer, args.repeat, args.run_options)
    middle = medians(pairs)
    if args.json:
        print(json.dumps({"machine": machine(), "board": args.board, "peer": args.peer,
                          "states": states,
                          "pairs": [{"pegsearch": asdict(p.ours), "peer": asdict(p.peer)}
                                    for p in pairs], "medians": middle}, indent=1))
    else:
        print(f"machine: {machine()}")
        print(f"pegsearch run {args.board} {' '.join(args.run_options)}".rstrip()
              + f"  against  {args.peer}")
        print(f"pegsearch found {states:,} states (reduced, all levels)")
        print(compare_table(pairs, middle))
    return 0


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


def command_serve(args: argparse.Namespace) -> int:
    from pegsearch.service.server import serve

    serve(args.host, args.port, args.runs, args.state, args.jobs, args.token, args.engine, args.master)
    return 0


def _print_run(run: Run, document: dict | None, winnable: list[int] | None = None,
               finish_classes: bool = False) -> None:
    """The run's document as JSON when given, else the level table and verdict as text;
    `finish_classes` adds where the last peg stands."""
    if document is not None:
        print(json.dumps(document, indent=1))
        return
    print(run_heading(run))
    print(level_table(run, winnable))
    if run.status == "complete":
        print(verdict(run).sentence())
        if finish_classes:
            print(finish_table(finishes(run), exact_per_hole(run)))
    else:
        paused = f" after level {len(run.levels) - 1}" if run.status == "paused" else ""
        print(f"incomplete run ({run.status}{paused}): continue it with"
              f" `pegsearch run {run.board.name} --out {run.uri} --resume [--until LEVEL]`")


class LevelBar:
    """A bar of levels on the terminal while an answer walks a run (nothing when stderr is not a
    terminal); a callable `(levels done, levels)` inside `with`."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.bar: tqdm | None = None

    def __enter__(self) -> LevelBar:
        return self

    def __call__(self, done: int, total: int) -> None:
        if not sys.stderr.isatty():
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, file=sys.stderr, leave=False, unit=" levels", desc=self.what)
        self.bar.update(done - self.bar.n)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


class TerminalProgress:
    """A search's progress on the terminal: a bar while a level is made (parents done out of the
    total, positions per second, time left), then one line per committed level. tqdm is imported
    when the first bar is drawn: a search whose output is not a terminal never pays for it."""

    def __init__(self) -> None:
        self.bar: tqdm | None = None

    def __call__(self, event: dict) -> None:
        if "done" in event:
            if self.bar is None:
                from tqdm import tqdm

                disk = f"  ~{event['disk'] / 1e9:.2g} GB" if event.get("disk") else ""
                self.bar = tqdm(total=event["total"], file=sys.stderr, leave=False, unit=" parents",
                                unit_scale=True, desc=f"  level {event['level']:3d}  pegs"
                                                      f" {event['pegs']:3d}{disk}")
            self.bar.total = event["total"]
            self.bar.update(event["done"] - self.bar.n)
            return
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        took = "  (stored)" if event.get("stored") else f"  {event['seconds']:8.2f} s"
        print(f"  level {event['level']:3d}  pegs {event['pegs']:3d}  states {event['states']:>13,}"
              f"{took}", file=sys.stderr)


def _newest_run(spec: SearchSpec) -> str:
    """The most recent run under runs/ of the same search that has not finished."""
    candidates = sorted(RUNS.glob(f"{spec.board.name}-*/manifest.json"),
                        key=lambda p: p.stat().st_mtime, reverse=True)
    for manifest in candidates:
        run = Run.open(manifest.parent, check_parts=False)
        if run.spec.same_search(spec) and run.status != "complete":
            return run.uri
    raise UsageError(f"no unfinished run of {spec.describe()} under {RUNS}/ to resume;"
                     " pass --out DIR")


if __name__ == "__main__":
    sys.exit(main())

"""The `pegsearch` command: argument parsing and printing only; the work happens in the modules."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from pegsearch.board import load_board, shipped_boards
from pegsearch.codec import render
from pegsearch.engines import ENGINES, make_engine
from pegsearch.errors import UsageError
from pegsearch.report import boards_table, level_table, run_document, run_heading
from pegsearch.search import search, verdict
from pegsearch.store import SYMMETRY_MODES, Identity, Run

RUNS = Path("runs")


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors become one line on stderr and exit code 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except UsageError as exc:
        print(f"pegsearch: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pegsearch: interrupted; completed levels are kept (resume with --resume)",
              file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pegsearch", description=__doc__)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="search a board level by level into a run directory")
    run.add_argument("board", help="a shipped board name (see `pegsearch boards`) or a .toml file")
    run.add_argument("--start", type=int, nargs="+", metavar="HOLE",
                     help="the hole(s) empty at the start (default: those drawn empty)")
    run.add_argument("--out", type=Path, help="run directory (default: a new one under runs/)")
    run.add_argument("--raw", action="store_true",
                     help="count without symmetry reduction (the same as --symmetry none)")
    run.add_argument("--symmetry", choices=SYMMETRY_MODES, default="board",
                     help="reduce by the board's whole group (default), only the symmetries fixing"
                          " the start (exact per-hole answers), or none")
    run.add_argument("--count-paths", action="store_true",
                     help="also count the distinct jump sequences reaching each position")
    run.add_argument("--engine", default="local", choices=sorted(ENGINES),
                     help="how each level is computed (default: local)")
    run.add_argument("--runner", help="mrjob engine: inline, local, spark, hadoop, emr or dataproc")
    run.add_argument("--mrjob-conf", type=Path, help="mrjob engine: an mrjob.conf file")
    run.add_argument("--master", "--spark-master", dest="master", metavar="URL",
                     help="spark engines: local[N], spark://HOST:PORT, yarn or k8s://...")
    run.add_argument("--resume", action="store_true",
                     help="continue the run in --out (default: the newest matching run in runs/)")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.set_defaults(handler=command_run)

    counts = commands.add_parser("counts", help="the per-level table of a stored run")
    counts.add_argument("run", type=Path, help="a run directory")
    counts.add_argument("--json", action="store_true", help="print the counts as JSON")
    counts.set_defaults(handler=command_counts)

    boards = commands.add_parser("boards", help="list the shipped boards")
    boards.set_defaults(handler=command_boards)

    show = commands.add_parser("show", help="draw a board with its hole numbers")
    show.add_argument("board", help="a shipped board name or a .toml file")
    show.set_defaults(handler=command_show)
    return parser


def command_run(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    start = tuple(sorted({board.hole_of(h) for h in args.start})) if args.start else board.empty
    if not start:
        raise UsageError(f"{board.name} has no empty hole to start from: pass --start HOLE")
    symmetry = "none" if args.raw else args.symmetry
    identity = Identity(board, start, symmetry, count_paths=args.count_paths)
    out = args.out or (_newest_run(identity) if args.resume else _new_run_path(identity))
    engine = make_engine(args.engine, runner=args.runner, mrjob_conf=args.mrjob_conf,
                         master=args.master)
    if sys.stderr.isatty():
        print(f"searching {identity.describe()} with the {engine.name} engine into {out}",
              file=sys.stderr)
    run = search(identity, out, engine, resume=args.resume,
                 progress=_print_progress if sys.stderr.isatty() else None)
    _print_run(run, args.json)
    return 0


def command_counts(args: argparse.Namespace) -> int:
    _print_run(Run.open(args.run), args.json)
    return 0


def command_boards(args: argparse.Namespace) -> int:
    print(boards_table([load_board(name) for name in shipped_boards()]))
    return 0


def command_show(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    print(f"{board.name}: {board.holes} holes, {len(board.jumps)} jumps,"
          f" {len(board.symmetries)} symmetries, {board.grid} grid")
    print(render(board, numbers=True))
    print()
    print(render(board, board.start_position()))
    return 0


def _print_run(run: Run, as_json: bool) -> None:
    if as_json:
        document = run_document(run)
        if run.status == "complete":
            document["verdict"] = verdict(run).sentence()
        print(json.dumps(document, indent=1))
        return
    print(run_heading(run))
    print(level_table(run))
    if run.status == "complete":
        print(verdict(run).sentence())
    else:
        print(f"incomplete run ({run.status}): continue it with"
              f" `pegsearch run {run.board.name} --out {run.path} --resume`")


def _print_progress(record: dict) -> None:
    print(f"  level {record['level']:3d}  pegs {record['pegs']:3d}  states {record['states']:>13,}"
          f"  {record['seconds']:8.2f} s", file=sys.stderr)


def _new_run_path(identity: Identity) -> Path:
    holes = "-".join(str(h) for h in identity.start)
    flags = {"board": "", "start": "-bystart", "none": "-raw"}[identity.symmetry]
    flags += "-paths" if identity.count_paths else ""
    return RUNS / f"{identity.board.name}-h{holes}{flags}-{time.strftime('%Y%m%d-%H%M%S')}"


def _newest_run(identity: Identity) -> Path:
    """The most recent run under runs/ of the same search that has not finished."""
    candidates = sorted(RUNS.glob(f"{identity.board.name}-*/manifest.json"),
                        key=lambda p: p.stat().st_mtime, reverse=True)
    for manifest in candidates:
        run = Run.open(manifest.parent)
        if run.identity.as_json() == identity.as_json() and run.status != "complete":
            return run.path
    raise UsageError(f"no unfinished run of {identity.describe()} under {RUNS}/ to resume;"
                     " pass --out DIR")


if __name__ == "__main__":
    sys.exit(main())

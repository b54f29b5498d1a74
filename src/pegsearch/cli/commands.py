"""The handlers of the commands that read or make runs: imported by `pegsearch.cli.main` only when
one of them runs, so the parser, `boards` and `show` stay quick.

Every answer and every check of a request comes from `pegsearch.answers` (and the search from the
driver), which the service calls too; what is here is the choice of text or JSON. The text of a
run and of a solution is printed by cli.printing, the terminal's progress drawn by cli.progress.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from pegsearch.answers.by_solver import survey_by_solver
from pegsearch.answers.documents import (
    counts_answer,
    files_document,
    moves_counts,
    positions_document,
    require_complete,
    run_counts,
    winnable_answer,
)
from pegsearch.answers.door import (
    asked,
    board_solver,
    fewest_asked,
    fewest_survey_solver,
    hint_of,
    solution_of,
    solution_solver,
    survey_reason,
    survey_solver,
)
from pegsearch.answers.fewest_survey import fewest_survey
from pegsearch.answers.hint import played, read_position
from pegsearch.answers.listing import runs_document
from pegsearch.answers.records import SearchRecord, disagreements, shipped
from pegsearch.answers.shapes import BY, Survey
from pegsearch.answers.solver import time_bound
from pegsearch.answers.survey import refuse_other_searches, store_answers, survey, whole_search
from pegsearch.answers.verify import against, recompute, same_signatures, verify
from pegsearch.board.files import load_board
from pegsearch.board.geometry import Board
from pegsearch.board.plots import board_strip, check_picture_path, level_plot
from pegsearch.board.spec import SearchSpec, survey_name
from pegsearch.board.symmetry import orbit
from pegsearch.cli.bench import compare, machine, measure, medians
from pegsearch.cli.defaults import RUNS
from pegsearch.cli.printing import captions, print_run, print_solution
from pegsearch.cli.progress import (
    LevelBar,
    TerminalProgress,
    fewest_progress,
    pair_progress,
    say_continuing,
    survey_progress,
)
from pegsearch.cli.subjects import asked_of, open_run
from pegsearch.cli.text import (
    bench_table,
    cluster_estimate_lines,
    compare_table,
    estimate_table,
    fewest_table,
    gpu_estimate_lines,
    moves_table,
    run_heading,
    runs_table,
    survey_table,
)
from pegsearch.engines import Engine, make_engine
from pegsearch.engines.cluster_costs import ClusterEstimate, cluster_estimate, cluster_task_memory
from pegsearch.engines.costs import Estimate, estimate, measured
from pegsearch.engines.driver import search
from pegsearch.engines.gpu_costs import gpu_estimate
from pegsearch.engines.settings import BY_NAME, SETTINGS
from pegsearch.errors import UsageError
from pegsearch.kernel.target import CHOSEN, tune, wisdom_file
from pegsearch.sizes import default_budget, parse_size
from pegsearch.store import MANIFEST, Carry, Location, Run
from pegsearch.store.sets import VALUES, set_values, stored_sets
from pegsearch.words import levels_named, plural

# What `verify` says it checked of the values a run carries.
VALUES_CHECKED = {Carry.NOTHING: "", Carry.PATHS: " and path totals",
                  Carry.MOVES: " and fewest moves (per level, and each possible)"}


def command_run(args: argparse.Namespace) -> int:
    spec = args.spec  # checked by cli.main before this module was imported
    out = args.out = args.out or (_newest_run(spec) if args.resume else str(RUNS / spec.name()))
    args.makes_levels = True  # a signal now keeps the levels made: main says how to resume
    engine = _engine(args)
    if sys.stderr.isatty():
        doing = "resuming" if args.resume else "searching"
        print(f"{doing} {spec.describe()} with the {engine.name} engine into {out}", file=sys.stderr)
    run = search(spec, out, engine, resume=args.resume, until=args.until, keep=args.keep,
                 progress=TerminalProgress() if sys.stderr.isatty() else say_continuing)
    print_run(run, run_counts(run, answers=args.json), args.json)
    # Said on stderr whatever stdout is (a file, a pipe, JSON), so a user always learns where it is.
    print(f"pegsearch: the {run.status} run is in {run.uri}", file=sys.stderr)
    return 0


def _engine(args: argparse.Namespace) -> Engine:
    return make_engine(args.engine, **{setting.name: getattr(args, setting.name)
                                       for setting in SETTINGS})


def command_counts(args: argparse.Namespace) -> int:
    run = open_run(args.run)
    if args.by_moves:
        return _print_by_moves(run, args)
    if args.plot:
        check_picture_path(args.plot)
        require_complete(run, "a plot", every_level=False)
    counts = counts_answer(run, args.winnable, args.finish, args.engine, args.master)
    print_run(run, counts, args.json)
    winnable = counts.winnable
    if winnable is not None and not args.json:
        print(f"winnable: {_winnable_meaning(run, args.finish)}")
    if args.plot:
        level_plot(args.plot, f"{run.board.name}, start: hole {', '.join(map(str, run.start))}",
                   [level.states for level in counts.levels], winnable,
                   "winnable" if args.finish is None else f"winnable to hole {args.finish}")
    return 0


def _print_by_moves(run: Run, args: argparse.Namespace) -> int:
    """`counts --by-moves`: the run's positions by the fewest moves reaching them."""
    if args.winnable or args.plot or args.finish is not None or args.engine or args.master:
        raise UsageError("--by-moves is a table of its own: drop --winnable, --finish, --engine,"
                         " --master and --plot, or ask for them without --by-moves")
    counted = moves_counts(run)
    if args.json:
        print(json.dumps({**counted.as_document(), "location": run.uri}, indent=1))
    else:
        print(run_heading(run))
        print(moves_table(counted))
    return 0


def _winnable_meaning(run: Run, finish: int | None) -> str:
    unit = "positions (one per symmetry class)" if run.reduced else "positions"
    if finish is None:
        return f"{unit} from which one peg can still be reached"
    holes = orbit(run.spec.signing, finish)
    alike = (f" or a hole symmetric to it under the run's symmetries ({', '.join(map(str, holes))})"
             if len(holes) > 1 else "")
    return f"{unit} from which one peg can still be reached on hole {finish}{alike}"


def command_winnable(args: argparse.Namespace) -> int:
    run = open_run(args.run)
    kept = winnable_answer(run, args.finish, args.engine, args.master)
    if args.json:
        print(json.dumps({"location": run.uri, **kept.as_document()}, indent=1))
        return 0
    print(run_heading(run))
    how = f"walked back in {kept.seconds:.1f} s and kept" if kept.walked else "were kept already"
    print(f"winnable {_winnable_meaning(run, args.finish)}: {sum(kept.states):,} over"
          f" {len(kept.states)} levels, {kept.stored:,} bytes; {how}")
    return 0


def command_hint(args: argparse.Namespace) -> int:
    question = asked(asked_of(args.run), None, args.depth_first)
    seconds = time_bound(args.seconds)
    position = read_position(question.board, question.start, args.position)
    if question.run is not None and stored_sets(question.run, args.finish) is None \
            and sys.stderr.isatty():
        print("keeping the run's winnable sets first (once a run; later hints read them)",
              file=sys.stderr)
    found = hint_of(question, position, args.finish, seconds,
                    board_solver(question.board, args.memory), from_start=played(args.position))
    if question.run is None:
        print(f"pegsearch: answered by the depth-first solver ({question.reason})", file=sys.stderr)
        heading = (f"{question.board.name} ({question.board.holes} holes), answered by the"
                   " depth-first solver")
    else:
        heading = run_heading(question.run)
    if args.json:
        print(json.dumps({**found.as_document(), "location": question.location}, indent=1))
        return 0
    print(heading)
    after = f" (after {plural(found.level, 'jump')})" if found.level is not None else ""
    print(f"{plural(found.pegs, 'peg')}{after}: pegs on {', '.join(map(str, found.position))}")
    print(found.picture)
    goal = "one peg" if args.finish is None else f"one peg on hole {args.finish}"
    left = (f": {plural(found.solutions, 'solution')} from here" if found.solutions is not None
            else f": {plural(found.moves_left, 'move')} at fewest from here"
            if found.moves_left is not None else "")
    state = {True: "can still be won", False: "cannot be won any more", None: "undecided"}
    print(f"{state[found.winnable]} ({goal}){left}")
    if found.note:
        print(f"{'reachable' if found.by is None else 'why'}: {found.note}")
    if found.finishes_undecided is not None and found.winnable is not False:
        possible = ", ".join(map(str, found.finishes)) or "none found"
        open_ = found.finishes_undecided
        print(f"the last peg can still end on: {possible}"
              + (f" (undecided: {', '.join(map(str, open_))})" if open_ else ""))
    words = {True: "keeps it winnable", False: "loses", None: "undecided"}
    for jump in found.jumps:
        after = (f", {plural(jump.solutions, 'solution')} left" if jump.solutions is not None else
                 f", {plural(jump.moves_left, 'move')} left at fewest" if jump.moves_left is not None
                 else "")
        print(f"  {jump.jump:>10}  {words[jump.winnable]}{after}")
    if not found.jumps:
        print("no jump is left")
    return 0


def command_solve(args: argparse.Namespace) -> int:
    question = asked(asked_of(args.run), args.start, args.depth_first)
    if args.fewest_moves:
        question = fewest_asked(question)
    seconds = time_bound(args.seconds)
    if args.finish is not None:
        question.board.hole_of(args.finish, "finish")
    pictures = [check_picture_path(path, (kind,))
                for path, kind in ((args.svg, ".svg"), (args.png, ".png")) if path]
    with LevelBar("walking the levels back") as bar:
        solution = solution_of(question, args.finish, seconds, solution_solver(args.memory),
                               None if question.run is None else bar, args.fewest_moves)
    board, start = question.board, question.start
    if solution.found is not None:
        print(f"pegsearch: answered by the depth-first solver ({question.reason})", file=sys.stderr)
        heading = (f"{board.name} ({board.holes} holes), start: hole {', '.join(map(str, start))};"
                   f" answered by the depth-first solver ({solution.found.examined:,} positions,"
                   f" {solution.found.seconds:.1f} s)")
    else:
        heading = run_heading(question.run)
    if args.json:
        print(json.dumps({**solution.as_document(), "location": question.location}, indent=1))
    else:
        print_solution(heading, solution)
    title = (f"{board.name}, start: hole {', '.join(map(str, start))}; "
             + (f"solved in {plural(len(solution.steps), 'jump')}, {solution.moves} moves"
                if solution.solved else solution.note))
    for path in pictures:
        board_strip(path, title, board, list(solution.positions), captions(solution.jumps),
                    [None, *solution.jumps])
    return 0


def command_survey(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    why = survey_reason(board, args.depth_first, args.count_paths, args.fewest_moves)
    if why is not None:
        return (_fewest_survey if args.fewest_moves else _survey_by_solver)(board, args, why)
    if args.whole_search:  # the solver's: said, not silently dropped
        print(f"pegsearch: --whole-search adds nothing here: every start of {board.name} is searched"
              " whole", file=sys.stderr)
    out = args.out = args.out or str(RUNS / survey_name(board, args.count_paths, args.fewest_moves))
    args.makes_levels = True
    results = survey(board, out, lambda: _engine(args), args.count_paths,
                     progress=survey_progress if sys.stderr.isatty() else None,
                     fewest_moves=args.fewest_moves)
    surveyed = Survey(board, tuple(results), args.engine)
    document = surveyed.as_document()
    store_answers(Location.parse(out), document)
    if args.json:
        print(json.dumps({**document, "location": str(out)}, indent=1))
        return 0
    print(f"survey of {board.name} ({board.holes} holes) into {out}: one search per class of start"
          " holes, reduced only by the symmetries fixing the start, so the holes listed are exact")
    print("(searched: the start whose search answers the row; a hole symmetric to it takes its"
          " answer through the symmetry)")
    print(survey_table(results))
    print(surveyed.verdict)
    return 0


def _survey_by_solver(board: Board, args: argparse.Namespace, why: str) -> int:
    """`survey` by the solver (`why`: the door's reason): every (start, finishing hole) pair up to
    symmetry, each within --seconds; kept in --out when given."""
    seconds = time_bound(args.seconds)
    out = args.out = args.out or (str(RUNS / survey_name(board, False, False)) if args.whole_search
                                  else None)
    folder = Location.parse(out) if out else None
    if folder is not None:
        folder.check()  # before the survey, not after it
        if args.whole_search:
            refuse_other_searches(board, folder)
    print(f"pegsearch: surveyed by the depth-first solver ({why}), each pair within {seconds:g} s",
          file=sys.stderr)
    results = survey_by_solver(board, seconds, survey_solver(args.memory),
                               pair_progress if sys.stderr.isatty() else None,
                               _whole_search(board, args, folder) if folder and args.whole_search
                               else None)
    surveyed = Survey(board, tuple(results), BY, seconds=seconds)
    document = _kept(surveyed.as_document(), folder, out)
    if args.json:
        print(json.dumps(document, indent=1))
        return 0
    print(f"survey of {board.name} ({board.holes} holes) by the depth-first solver: every start"
          " hole to every finishing hole its position class allows, each solvable pair with a"
          " solution replayed")
    print("(searched: the start whose pairs answer the row, a hole symmetric to it taking their"
          " answers through the symmetry; positions examined: by the solver for those pairs, a core"
          " each, sharing its tables of proved positions, so the count changes from run to run with"
          " which pair proved a position first)")
    print(survey_table(results))
    whole = sorted({result.run for result in results if result.run})
    if whole:
        print(f"(the pairs the solver left undecided were settled by the whole search from their"
              f" start, kept in {', '.join(whole)}: `pegsearch verify` rereads each)")
    print(surveyed.verdict)
    return 0


def _kept(document: dict, folder: Location | None, out: str | None) -> dict:
    """A survey's answer stored in `folder` (--out, named `out`) when given, and said to be there."""
    if folder is None:
        return document
    folder.make()
    store_answers(folder, document)
    return {**document, "location": out}


def _fewest_survey(board: Board, args: argparse.Namespace, why: str) -> int:
    """`survey --fewest-moves` by the solver (Bell's table): every start's fewest moves to one
    peg, one start per class of holes, each within --seconds; kept in --out when given."""
    if args.whole_search:
        raise UsageError("--whole-search settles the solver's pairs: a survey of fewest moves by the"
                         " solver gives each start more time with --seconds instead; drop it")
    seconds = time_bound(args.seconds)
    folder = Location.parse(args.out) if args.out else None
    if folder is not None:
        folder.check()
    print(f"pegsearch: the fewest moves surveyed by the depth-first solver ({why}), each start"
          f" within {seconds:g} s", file=sys.stderr)
    surveyed = fewest_survey(board, seconds, fewest_survey_solver(args.memory),
                             fewest_progress if sys.stderr.isatty() else None)
    document = _kept(surveyed.as_document(), folder, args.out)
    if args.json:
        print(json.dumps(document, indent=1))
        return 0
    print(f"survey of {board.name} ({board.holes} holes) by the depth-first solver: every start"
          " hole's fewest moves to one peg anywhere (a move: one or more jumps in a row by one"
          " peg), each line replayed")
    print("(searched: the start whose answer is the row's, a hole symmetric to it taking it through"
          " the symmetry; at least: the fewest moves any solution can have, as proved)")
    print(fewest_table(surveyed.results))
    print(surveyed.verdict)
    return 0


def _whole_search(board: Board, args: argparse.Namespace, folder: Location) -> Callable[[int], Run]:
    """A start's complete run in `folder`/start-NN, reduced by the symmetries fixing the start
    (`survey --whole-search`): read, resumed or searched, and said on stderr before it starts."""

    def whole(start: int) -> Run:
        args.makes_levels = True  # a signal now keeps the levels made: main says how to resume
        into = folder / f"start-{start:02d}"
        print(f"pegsearch: start {start} has pairs the solver left undecided: searching it whole"
              f" into {into}", file=sys.stderr)
        spec = SearchSpec.asked(board, (start,), "start", False, False)
        return whole_search(spec, into, lambda: _engine(args),
                            survey_progress(start) if sys.stderr.isatty() else None)

    return whole


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
    shipped_record = _record_of(open_run(args.run)) if checked.ok and args.record else None
    if shipped_record is not None:
        checked.problems += disagreements(shipped_record, open_run(args.run))
    for problem in checked.problems:
        print(f"{args.run}: {problem}")
    if not checked.ok:
        return 1
    run = open_run(args.run)
    incomplete = "" if run.status == "complete" else f" (the run is {run.status}: resume it to finish)"
    if run.in_progress is not None:
        incomplete += f"; {run.passes_note()}, its parts checked too"
    kept = f" of the {checked.levels - len(checked.dropped)} kept" if checked.dropped else ""
    print(f"ok: {args.run}: {checked.levels} levels, {checked.states:,} states; checksums, row counts,"
          f" order, pegs, signatures{VALUES_CHECKED[run.carry]}{kept} agree with"
          f" the manifest{incomplete}")
    if checked.dropped:
        print(f"dropped: {levels_named(checked.dropped)} (the run keeps only its last level's parts,"
              " --keep last): their counts and digests are in the manifest, their parts were"
              " removed and not checked")
    for key, record in run.manifest.get("winnable", {}).items():
        values = set_values(record)
        made = f", each position's {VALUES[values]} made from its children's" if values else ""
        print(f"ok: winnable sets {key}: each position in its level with a winnable child, the"
              f" last level's its one-peg finishes{made}")
    if args.recompute:
        shown = min(args.recompute, checked.levels - 1)
        print(f"ok: levels 1 to {shown} agree position for position with a second computation")
    if shipped_record is not None:
        held = len(run.levels) - 1
        whole = "every level and the last level's digest" if run.status == "complete" else \
            f"levels 0 to {held} of its {len(shipped_record.levels)}"
        print(f"recorded: {whole} equal the record of {shipped_record.proof()}")
    if args.against:
        other = Run.open(args.against)
        how = ("digest for digest" if same_signatures(run, other) else "state count for"
               " state count (one run takes signatures under other symmetries: it was made before"
               " signatures kept the start's class)")
        if len(run.levels) == len(other.levels):
            print(f"identical: all {plural(compared, 'level')} equal {args.against}'s, {how}")
        else:
            shorter, name = (run, args.run) if len(run.levels) < len(other.levels) else (other, args.against)
            print(f"identical: the {plural(compared, 'level')} both runs hold are equal, {how};"
                  f" {name} is {shorter.status} after level {compared - 1}: resume it to compare"
                  " the rest")
    return 0


def _record_of(run: Run) -> SearchRecord:
    """The shipped record of `run`'s search, refused in one line where there is none."""
    found = [record for record in shipped() if record.board == run.board.name
             and record.start == tuple(run.start) and record.symmetry == run.spec.symmetry]
    if not found:
        raise UsageError(f"--record: no record of {run.describe()} is shipped (`pegsearch records`"
                         " lists them)")
    return found[0]


def command_records(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({"records": [record.as_document() for record in shipped()]}, indent=1))
        return 0
    for record in shipped():
        ends = (f"one peg on holes {', '.join(map(str, record.one_peg))}" if record.one_peg
                else f"never one peg (fewest {record.pegs})")
        print(f"{record.board} from hole {', '.join(map(str, record.start))}: {record.positions:,}"
              f" positions in {len(record.levels)} levels, {ends}; recorded {record.recorded};"
              f" `{record.command}`")
    return 0


def command_estimate(args: argparse.Namespace) -> int:
    if args.cores is not None and args.cores < 1:
        raise UsageError(f"--cores {args.cores}: give the cores of the machine priced, 1 or more")
    cores = args.cores or os.cpu_count() or 1
    memory = default_budget() if args.memory is None else parse_size(args.memory, here=False)
    if args.nodes is not None:
        cluster_task_memory(args.nodes, cores, memory)  # a cluster it cannot price is refused first
    location = Location.parse(args.target)
    if location.is_file(MANIFEST):
        run = open_run(args.target)
        found = estimate(run, cores, memory, args.keep)
        cluster = _cluster(run, found, args, cores, memory)
    else:
        spec = SearchSpec.asked(load_board(args.target), None, "board", False, False)
        if sys.stderr.isatty():
            print(f"measuring {spec.describe()} until its levels are large enough to time", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="pegsearch-estimate-") as folder:
            run = measured(spec, Path(folder) / "run")
            found = estimate(run, cores, memory, args.keep)
            cluster = _cluster(run, found, args, cores, memory)
    gpu = None if args.gpu is None else gpu_estimate(found, args.target, args.gpu, args.gpu_memory)
    document = {**found.document(), **({"gpu": gpu.document()} if gpu else {}),
                **({"cluster": cluster.document()} if cluster else {})}
    print(json.dumps(document, indent=1) if args.json else estimate_table(found) + gpu_estimate_lines(gpu)
          + cluster_estimate_lines(cluster))
    return 0


def _cluster(run: Run, found: Estimate, args: argparse.Namespace, cores: int,
             memory: int) -> ClusterEstimate | None:
    """`estimate --nodes`'s plan of the Spark engine on the cluster, None without it."""
    if args.nodes is None:
        return None
    return cluster_estimate(run, found, args.nodes, cores, memory, BY_NAME["driver_below"].default)


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
    document = files_document(open_run(args.run), args.level)
    if args.json:
        print(json.dumps(document, indent=1))
    else:
        print("\n".join(path for level in document["levels"] for path in level["files"]))
    return 0


def command_positions(args: argparse.Namespace) -> int:
    run = open_run(args.run)
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


def command_tune(args: argparse.Namespace) -> int:
    choice, unkept = tune()
    if args.json:
        print(json.dumps(choice.as_json(), indent=1))
    else:
        print(f"{choice.cpu}: LLVM's model for it is {choice.host}")
        for model, ns in sorted(choice.timings.items(), key=lambda item: item[1]):
            print(f"  {model:<16} {ns:6.2f} CPU-ns a child (the map's one step)")
    if unkept:
        raise UsageError(f"{unkept}: {choice.target} is not kept, so every later process measures"
                         " again; make room for the file or set NUMBA_CACHE_DIR to a writable folder")
    if args.json:
        return 0
    print(f"kept: {choice.target} ({choice.how}, in {choice.seconds:.1f} s), for every later process"
          f" on this machine; {wisdom_file()}")
    if os.environ.get("NUMBA_CPU_NAME") and os.environ.get(CHOSEN) != os.environ["NUMBA_CPU_NAME"]:
        print(f"note: NUMBA_CPU_NAME={os.environ['NUMBA_CPU_NAME']} is set here, and wins while it is")
    return 0


def command_serve(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: not a TCP port; give one from 1 to 65535 (0: any"
                         " free one)")
    from pegsearch.service.server import serve

    serve(args.host, args.port, args.runs, args.state, args.jobs, args.token, args.engine,
          {name: value for name, value in (("master", args.master), ("queue", args.queue))
           if value is not None},
          args.log_format)
    return 0


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

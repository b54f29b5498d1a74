"""Tables and JSON documents for people and scripts; nothing here computes search results."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from pegsearch.board.files import other_names
from pegsearch.cli.bench import FIGURES
from pegsearch.words import levels_named, readable

if TYPE_CHECKING:  # types only: `pegsearch boards` draws its table without the search machinery
    from pegsearch.answers.fewest_survey import FewestStart
    from pegsearch.answers.finishes import FinishClass
    from pegsearch.answers.shapes import ByMoves, Counts
    from pegsearch.answers.survey import StartResult
    from pegsearch.board.geometry import Board, Jump
    from pegsearch.cli.bench import Measurement, Pair
    from pegsearch.engines.cluster_costs import ClusterEstimate
    from pegsearch.engines.costs import Estimate
    from pegsearch.engines.gpu_costs import GpuEstimate
    from pegsearch.store import Run


def run_heading(run: Run) -> str:
    group = run.manifest["symmetries"]
    symmetry = (f"reduced by {group} symmetr{'ies' if group != 1 else 'y'}" if run.reduced
                else "raw (no symmetry reduction)")
    if run.spec.symmetry == "start":
        symmetry += " (those fixing the start)"
    return (f"{run.board.name} ({run.board.holes} holes), start: hole"
            f"{'s' if len(run.start) > 1 else ''} {', '.join(map(str, run.start))}, {symmetry}")


def level_table(counts: Counts) -> str:
    """The per-level table: level, pegs left, states (and paths when counted, or the fewest moves
    reaching any position of the level, winnable when walked), and the totals."""
    levels = counts.levels
    value = "paths" if counts.count_paths else "fewest moves" if counts.fewest_moves else ""
    rows = [("level", "pegs", "states", value)]
    rows += [(str(r.level), str(r.pegs), f"{r.states:,}",
              f"{r.paths:,}" if counts.count_paths else "" if r.moves is None else str(r.moves))
             for r in levels]
    rows.append(("total", "", f"{sum(r.states for r in levels):,}",
                 f"{sum(r.paths for r in levels):,}" if counts.count_paths else ""))
    if not value:
        rows = [row[:3] for row in rows]
    winnable = counts.winnable
    if winnable is not None:
        column = ["winnable", *(f"{n:,}" for n in winnable), f"{sum(winnable):,}"]
        rows = [(*row, cell) for row, cell in zip(rows, column, strict=True)]
    return aligned(rows)


# Why a per-hole table is exact: a run reduced by the whole group signs its positions only under
# the symmetries that keep the start's position class (see DESIGN, signature), and it is those,
# not the group (whose rotations may move the start), that must fix the start.
EXACT = ("(exact: the symmetries the run's positions are reduced by, those keeping the start's"
         " position class, all fix the start)")


def finish_table(classes: tuple[FinishClass, ...], exact: bool) -> str:
    """Where the last peg stands, with path counts when counted (or fewest moves): per hole, or
    per symmetry class."""
    if not classes:
        return "last peg: nowhere (no position with one peg is reachable from this start)"
    if classes[0].moves is not None:
        return _finish_moves(classes, exact)
    counted = classes[0].paths is not None
    if exact:
        heading = f"last peg on each hole {EXACT}"
        rows = [("hole", "paths")] + [(str(h), f"{c.per_hole:,}" if counted else "")
                                      for h, c in sorted((h, c) for c in classes for h in c.holes)]
    else:
        heading = ("last peg up to symmetry: one row per class of holes under the board's"
                   " symmetries; which holes of a class the start reaches needs --symmetry start")
        holes = ["holes of the class", *(", ".join(map(str, c.holes)) for c in classes)]
        if not counted:
            return "\n".join([heading, *holes])
        paths = aligned([("paths to the class",), *((f"{c.paths:,}",) for c in classes)])
        return "\n".join([heading, *(f"{a}  {b}" for a, b in zip(paths.splitlines(), holes,
                                                                   strict=True))])
    if not counted:
        rows = [row[:1] for row in rows]
    return heading + "\n" + aligned(rows)


def _finish_moves(classes: tuple[FinishClass, ...], exact: bool) -> str:
    """Where the last peg stands, and the fewest moves to it: per hole, or per symmetry class."""
    if exact:
        rows = sorted((h, c.moves) for c in classes for h in c.holes)
        return (f"last peg on each hole, with the fewest moves {EXACT}\n" + aligned([("hole", "fewest moves"),
                                            *((str(h), str(m)) for h, m in rows)]))
    return ("last peg up to symmetry, with the fewest moves to any hole of the class\n"
            + aligned([("fewest moves", "holes of the class"),
                       *((str(c.moves), ", ".join(map(str, c.holes))) for c in classes)]))


def survey_table(results: list[StartResult]) -> str:
    """One row per start hole: solvable, states (by the solver: the positions it examined, which
    vary from run to run), solutions (or fewest moves), the finishing holes a time bound left
    undecided (by the solver, when any did), then where the last peg can stand (with the fewest
    moves to each hole)."""
    counted = results[0].solutions is not None
    moved = results[0].moves is not None
    solved = results[0].lines is not None
    rows = [("start", "searched", "solvable", "positions examined" if solved else "states",
             "fewest moves" if moved else "solutions")]
    rows += [(str(r.start), str(r.searched), "yes" if r.solvable else "undecided" if r.undecided else "no",
              f"{r.states:,}",
              f"{r.solutions:,}" if counted else str(r.fewest_moves or "-") if moved else "")
             for r in results]
    if not counted and not moved:
        rows = [row[:4] for row in rows]
    if any(r.undecided for r in results):
        rows = [(*rows[0], "undecided finishes"),
                *((*row, ", ".join(map(str, r.undecided)) or "-") for row, r in zip(rows[1:], results,
                                                                                    strict=True))]
    finishing = ["last peg on (fewest moves)" if moved else "last peg on",
                 *(", ".join(f"{f} ({m})" if moved else str(f)
                             for f, m in zip(r.finishes, r.moves or r.finishes, strict=True)) or "-"
                   for r in results)]
    return "\n".join(f"{line}  {holes}"
                     for line, holes in zip(aligned(rows).splitlines(), finishing, strict=True))


def fewest_table(results: tuple[FewestStart, ...]) -> str:
    """One row per start hole of a survey of fewest moves by the solver: its fewest moves (or the
    best found and the bound proved), whether proved, the positions examined, the seconds, and
    the line, a move's jumps joined."""
    rows = [("start", "searched", "fewest moves", "proved", "positions examined", "seconds")]
    rows += [(str(r.start), str(r.searched), r.said, "yes" if r.proved else "no", f"{r.examined:,}",
              f"{r.seconds:.1f}") for r in results]
    lines = ["line", *(grouped_jumps(r.line, r.numbers) for r in results)]
    return "\n".join(f"{row}  {line}" for row, line in zip(aligned(rows).splitlines(), lines, strict=True))


def moves_table(counted: ByMoves) -> str:
    """The positions of a run by the fewest moves reaching them."""
    rows = [("moves", "positions")]
    rows += [(str(moves), f"{positions:,}") for moves, positions in counted.by_moves.items()]
    rows.append(("total", f"{counted.positions:,}"))
    return ("positions by the fewest moves reaching them (a move: one or more jumps in a row by"
            " one peg)\n" + aligned(rows))


def grouped_jumps(jumps: tuple[Jump, ...], numbers: list[int]) -> str:
    """A line's jumps, a move's jumps joined (`4-2-1,1-3-6`), moves apart."""
    moves: list[list[str]] = []
    for jump, number in zip(jumps, numbers, strict=True):
        if len(moves) < number:
            moves.append([])
        moves[-1].append(str(jump))
    return " ".join(",".join(move) for move in moves) or "-"


def runs_table(rows: list[dict]) -> str:
    """One line per run: where, board, start, status, levels, states, megabytes, when made."""
    lines = [("run", "board", "start", "carries", "status", "levels", "states", "MB", "created")]
    for row in rows:
        if "board" not in row:  # damaged past reading its manifest
            lines.append((row["location"], "-", "-", "-", "damaged", "-", "-", "-", "-"))
            continue
        starts = ",".join(map(str, row["start"]))
        lines.append((row["location"], row["board"],
                      f"survey of {starts}" if row["kind"] == "survey" else starts,
                      row["carries"] or "-", _status(row), str(row["levels"]), f"{row['states']:,}",
                      f"{row['bytes'] / 1e6:,.1f}", row["created"]))
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join("  ".join(cell.ljust(width) if i < 5 else cell.rjust(width)
                               for i, (cell, width) in enumerate(zip(line, widths, strict=True)))
                     for line in lines)


def _status(row: dict) -> str:
    """A run's status, with its level in progress: "interrupted (level 7: pass 2 of 4 done)"."""
    note = row.get("in_progress")
    return f"{row['status']} ({note.split(',')[0]})" if note else row["status"]


def aligned(rows: list[tuple[str, ...]]) -> str:
    """Right-aligned columns, two spaces apart."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True))
                     for row in rows)


def bench_table(figures: list[Measurement]) -> str:
    """One row per board and engine: medians of wall and CPU seconds, states, rate, peak memory."""
    rows = [("board", "engine", "runs", "wall s", "CPU s", "states", "states/CPU-s", "peak MB")]
    rows += [(f.board, f.engine, str(f.repeats), f"{f.wall_seconds:.2f}",
              f"{f.cpu_seconds:.2f}" if f.whole else "-", f"{f.states:,}",
              f"{f.states_per_cpu_second:,.0f}" if f.whole else "-",
              f"{f.peak_mb:,.0f}" if f.whole else "-")
             for f in figures]
    return aligned(rows)


def compare_table(pairs: list[Pair], middle: dict) -> str:
    """pegsearch against the peer, pair by pair, then the medians; ratios are pegsearch / peer."""
    rows = [("pair", "ours wall s", "CPU s", "peak MB", "peer wall s", "CPU s", "peak MB",
             "wall ratio", "CPU ratio", "memory ratio")]

    def row(label: str, ours: dict, peer: dict, ratio: dict) -> tuple[str, ...]:
        return (label, *(f"{side[f]:,.2f}" if f != "peak_mb" else f"{side[f]:,.0f}"
                         for side in (ours, peer) for f in FIGURES),
                *(f"{ratio[f]:.2f}" for f in FIGURES))

    for index, pair in enumerate(pairs, 1):
        rows.append(row(str(index), asdict(pair.ours), asdict(pair.peer),
                        {f: pair.ratio(f) for f in FIGURES}))
    rows.append(row("median", middle["pegsearch"], middle["peer"], middle["ratio"]))
    return aligned(rows)


def boards_table(boards: list[Board]) -> str:
    """`pegsearch boards`: a shipped board a line, by every name it answers to."""
    rows = [("board", "grid", "holes", "jumps", "symmetries", "description")]
    rows += [(" ".join([b.name, *(f"(also {other})" for other in other_names(b.name))]), b.grid,
              str(b.holes), str(len(b.jumps)), str(len(b.symmetries)), b.description)
             for b in boards]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row[:5], widths, strict=True))
                     + "  " + row[5] for row in rows)


def estimate_table(found: Estimate) -> str:
    """`pegsearch estimate`'s table: per level, measured (m) or projected (p), and the totals, with
    what the figures rest on."""
    lines = [f"{found.board}, start: hole {', '.join(map(str, found.start))}: the whole search on"
             f" {found.cores} cores, --memory {readable(found.memory)}, --keep {found.keep}",
             f"{'level':>5} {'pegs':>4} {'states':>16}   {'reduce':<6} {'passes':>6}"
             f" {'CPU s':>10} {'wall s':>10} {'memory':>10} {'stored':>10}"]
    for level in found.levels:
        lines.append(f"{level.level:>5} {level.pegs:>4} {level.states:>16,} {'m' if level.measured else 'p'}"
                     f"  {level.reduce:<6} {level.passes:>6} {level.cpu_seconds:>10,.1f}"
                     f" {level.seconds:>10,.1f} {readable(level.memory_bytes):>10}"
                     f" {readable(level.stored_bytes):>10}")
    disk = "every level" if found.keep == "all" else "two levels at most"
    lines.append(f"total: {sum(level.states for level in found.levels):,} positions,"
                 f" {found.seconds / 3600:,.2f} h wall ({found.cpu_seconds / 3600:,.2f} CPU-hours),"
                 f" {readable(found.peak_memory_bytes)} peak memory, {readable(found.stored_bytes)}"
                 f" of disk ({disk})")
    lines += estimate_notes(found)
    return "\n".join(lines)


def gpu_estimate_lines(gpu: GpuEstimate | None) -> str:
    """`estimate --gpu`'s lines after the table: each bitmap level's passes on the GPU engine and
    its seconds, or that they are unmeasured (none is guessed)."""
    if gpu is None:
        return ""
    lines = [f"\n\non the GPU engine, --gpu-memory {readable(gpu.gpu_memory)}: seconds {gpu.calibration}",
             f"{'level':>5} {'bitmap':>10} {'passes':>6} {'wall s':>10}"]
    lines += [f"{level.level:>5} {readable(level.bitmap_bytes):>10} {level.passes:>6}"
              f" {'-' if level.seconds is None else f'{level.seconds:,.1f}':>10}" for level in gpu.levels]
    total = "unmeasured" if gpu.seconds is None else f"{gpu.seconds / 3600:,.2f} h wall"
    lines.append(f"bitmap levels on the GPU: {len(gpu.levels)}, {total}; the others as above")
    return "\n".join(lines)


def cluster_estimate_lines(cluster: ClusterEstimate | None) -> str:
    """`estimate --nodes`'s lines after the table: each level as the Spark engine makes it on the
    cluster, the totals, the settings that make the engine plan it so, and what the figures rest on."""
    if cluster is None:
        return ""
    from pegsearch.engines.cluster_costs import (  # loaded by the estimate itself
        JOB_SECONDS,
        LOST_SECONDS,
        NETWORK_BYTES,
        SHUFFLE_CHECKED,
        SPARK_COST,
    )

    lines = [f"\n\non Spark, {cluster.nodes} nodes of {cluster.cores} cores and {readable(cluster.memory)}"
             f" (a task may hold {readable(cluster.task_memory)}; levels from under"
             f" {cluster.driver_below:,} parents made in the driver):",
             f"{'level':>5} {'made':<7} {'map tasks':>9} {'reduce':>7} {'passes':>6} {'shuffle':>10}"
             f" {'node memory':>11} {'wall s':>10}"]
    lines += [f"{level.level:>5} {level.made:<7} {level.map_tasks:>9,} {level.reduce_tasks:>7,}"
              f" {level.passes:>6} {readable(level.shuffle_bytes):>10} {readable(level.node_memory):>11}"
              f" {level.seconds:>10,.1f}" for level in cluster.levels if level.level]
    settings = " ".join(f"--conf {key}={value}" for key, value in cluster.settings.items())
    lines += [f"on the cluster: {cluster.seconds / 3600:,.2f} h wall, {readable(cluster.shuffle_bytes)}"
              f" shuffled, {readable(cluster.peak_node_memory)} a node at the peak; a node lost in the"
              f" dearest pass costs up to {cluster.lost_node_seconds / 60:,.1f} min (the driver's"
              f" {LOST_SECONDS:g} s wait for a node that stops answering, then its share of the"
              " pass made again)",
              f"plans so under: {settings}",
              f"rests on: tasks and passes as the engine plans them (exact for measured levels);"
              f" shuffle bytes modelled ({SHUFFLE_CHECKED}); seconds"
              f" the local engine's at Spark's cost over it ({SPARK_COST['bitmap']:g}x a bitmap"
              f" level, {SPARK_COST['tables']:g}x a tables level, measured on local[2]),"
              f" {JOB_SECONDS:g} s a job, {NETWORK_BYTES * 8 / 1e9:g} Gbit/s a node assumed:"
              " rough, never measured on more than one machine"]
    return "\n".join(lines)


# Where an estimate's projection was checked against searches made whole, by what it follows (the
# run's own growth or not).
CHECKED = {False: "triangle-8 from its levels 0-12 and triangle-9 from its levels 0-12",
           True: "English from its levels 0-16 and the diamond's centre from its levels 0-15"}


def estimate_notes(found: Estimate) -> list[str]:
    """What an estimate rests on, what it assumes and how sure it is, a line each."""
    from pegsearch.engines.costs import (  # loaded by the estimate itself
        ONE_LEVEL_SPREAD,
        ROUGH_SPREAD,
        WRITTEN,
    )
    from pegsearch.engines.projection import OWN_GROWTH, TREND_LEVELS

    within = f"positions within about {found.projected_spread:.0%}"
    if found.reference == OWN_GROWTH:
        first = found.measured_levels - TREND_LEVELS
        follows = (f"the run's own growth (a level's growth falling as it fell over levels {first}-"
                   f"{found.measured_levels - 1}; {within} in all, higher if measured well before"
                   " the widest level)")
    elif found.projected_spread == ROUGH_SPREAD:
        follows = (f"{found.reference}'s shape, a board of another grid: rough (the diamond's centre"
                   " came out 2-5 times over a level); an estimate of a run measured past its"
                   " growth's steepest rise follows the run's own growth")
    else:
        follows = f"{found.reference}'s shape ({within})"
    source = (f"levels 0 to {found.measured_levels - 1} measured (m), the rest projected (p) from"
              f" {follows}" if found.reference else f"all {found.measured_levels} levels measured")
    rates = "; ".join(f"{us * 1000:.1f} CPU-ns a child made on {kind} levels (timed on"
                      f" {levels_named(found.timed_levels[kind])})" if found.timed_levels[kind] else
                      f"{kind} levels priced alike (none timed)" for kind, us in found.cpu_us.items())
    busy = "" if found.busy is None else f"; the run's threads were {found.busy:.0%} busy"
    low, high = found.seconds_range
    lines = [f"from: {source}" + (f"; {rates}, a position written {WRITTEN:g} children" if rates else "")
             + busy,
             f"assumes: an idle machine of {found.cores} cores, each as fast as the {found.cpu} that"
             " measured the run, every core busy (linear scaling: 57-87 % of it was measured at 16"
             " threads, so more cores may take up to 1.7 times longer)"]
    if high > low:
        alone = [kind for kind, levels in found.timed_levels.items() if len(levels) == 1]
        one = "".join(f", the {kind} rate timed on one level within {ONE_LEVEL_SPREAD:.0%}"
                      for kind in alone)
        lines.append(f"how sure: likely {low / 3600:,.2f} to {high / 3600:,.2f} h wall on such a"
                     f" machine (the timed levels' own rates around theirs together{one}, the"
                     f" projected positions within {found.projected_spread:.0%}); checked on"
                     f" {CHECKED[found.reference == OWN_GROWTH]} (docs/performance.md)")
    return lines

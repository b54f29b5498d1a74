"""What a whole search will cost on a machine (`pegsearch estimate`): per level the positions, the
passes at a memory bound, CPU and wall seconds on some cores, peak memory and stored bytes, and
how sure the total is.

For someone about to rent a machine, so every figure comes from a measurement where one exists
and says where it does not:

- positions: a run's measured levels; past them a projection (engines.projection), rough when it
  follows a reference of another grid than the board's.
- seconds: a level's work is its parents' children, made once a pass (each jump of a parent legal
  as in a random position of its pegs), and its positions written (drained, encoded, stored), each
  about WRITTEN children's worth. A position written comes from about seven children at
  triangle-8's level 12, the largest a run is usually measured to, and from twelve to seventeen
  past its peak: priced by the positions written alone, the levels after the peak look half as
  dear as they are. The rate, CPU-µs a unit, is the slope of a line through the run's largest
  measured levels (sizable ones only, their compiling apart: never a level of one position whose
  time is the compiler's), so a level's start-up is not priced into every unit; bitmap and tables
  levels apart (tables priced triangle-9's bitmap levels 1.7 times too dear a pass, so measuring
  a board whose later levels will be bitmaps goes on to its first bitmap level, while that is
  affordable). Wall seconds are CPU seconds spread over the cores (linear scaling, on an idle
  machine with cores as fast as the measuring one's): a lower bound, by up to 1.7 times at 16
  cores (a level ran at 57-87 % of it, docs/performance.md's Many cores).
- how sure: the timed levels' own rates spread around the line's, and the projected positions are
  within PROJECTION_SPREAD (ROUGH_SPREAD when rough): the estimate's range carries both.
- memory and passes: as the local engine plans them (a bitmap a core while it fits the bound,
  else one bitmap every core sets while that fits, else passes of a bitmap, each holding the
  partitions whose touched pages fit it, or hash tables for a sparse level), plus the process's
  own footprint.
- stored bytes: a part drained from a bitmap stores its positions' gaps, so its bytes a position
  grow with log2(1 / density); the run's last sizable level fixes the constant.

Checked by bench/estimate_check.py against a whole triangle-8 search made afterwards.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from math import ceil, log2
from pathlib import Path

from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine, fits_planes, fits_shared
from pegsearch.engines.projection import SIZABLE, Shape, projection
from pegsearch.errors import UsageError
from pegsearch.kernel.bitmap import KEEP_SHARE, prefer_bitmap
from pegsearch.store import PART_ROWS, Run

# How a level drops repeats, as its record's note starts (engines.local.choose_reduce).
KINDS = ("bitmap", "tables")
# A position written costs about this many children made: triangle-8's levels 14-16 on the AMD
# EPYC (2 cores) fit 13.4 CPU-ns a child and 23 a position written.
WRITTEN = 1.7
# The largest this many timed levels of a kind set its rate: the nearest in size to those priced.
TIMED_LEVELS = 3
# A level's work below this many CPU seconds is too short to time (the timer's and the threads'
# start-up would be most of it), unless it has TIMED_STATES positions or more: a fast machine
# makes english-33's level 14 (1,753,737) in under 0.2 s, and the start-up is still a few ms of it.
TIMED_SECONDS = 0.2
TIMED_STATES = 1_000_000
# `estimate BOARD` measures until this many levels are sizable and the last one's work took
# MEASURE_SECONDS of CPU, or the search ends.
MEASURE_LEVELS = 2
MEASURE_SECONDS = 5.0
# Where a board's later levels will be bitmaps and its measured ones are not (triangle-9's first
# is level 12), `estimate BOARD` measures on to the first bitmap level, unless that level is
# projected past this many positions: tables price a bitmap level 1.7 times too dear.
BITMAP_TIMED_STATES = 1 << 30
# A board of another grid than the references' is measured on until its own growth can be followed
# (engines.projection), while the next level is projected within this many positions: the diamond's
# centre to level 13 (13.4 M positions), Wiegleb's to level 14 (44.2 M), English's to level 15.
GROWTH_TIMED_STATES = 1 << 27
# The share of a bitmap's pages its children touch (the rest is mapped, never written): 83, 76 and
# 75 % of triangle-9's levels 13-15 (docs/scale.md), 71 % of level 16's first pass (4,572 of its
# 8,219 partitions in 12.75 GiB). A pass holds KEEP_SHARE of its arena in touched pages.
TOUCHED_SHARE = 0.75
# How far a rate timed on one level alone may be off, as a factor: triangle-9's levels 13-16 (docs/
# scale.md, --memory 20G) cost 1.00, 0.81, 0.75 and 1.07 times their estimate from its level 12.
ONE_LEVEL_SPREAD = 0.35
# How far the projected levels' positions may be off (triangle-8 from its levels 0-12 by skippy-xl's
# shape: within 10 % a level, 6 % in all; English and the diamond's centre by their own growth from
# their levels 0-15: within 7 % in all).
PROJECTION_SPREAD = 0.10
# The same, following a reference of another grid than the board's: the diamond's centre from
# triangle-8's shape came out 2-5 times over a level, so a level may hold a fifth of its projection.
ROUGH_SPREAD = 0.80
# What the process holds besides a level's tables or bitmaps: interpreter, compiled kernels,
# pyarrow, read-ahead chunks (triangle-8 to level 12 peaked at 596 MB with 144 MB of bitmaps).
BASE_BYTES = 450 << 20
# Bytes a position held in a hash table (a code and the table's slack).
TABLE_BYTES = 16
# The share of the memory bound a pass's bitmap or tables may take (the rest maps chunks).
ARENA_SHARE = 0.75
# A bitmap part's bytes a position: (log2(1 / density) + GAP_BITS) / 8 unless a run says otherwise.
GAP_BITS = 3.3


@dataclass(frozen=True)
class LevelCost:
    level: int
    pegs: int
    states: int
    measured: bool
    reduce: str  # "bitmap" or "tables", as the local engine would choose
    passes: int
    cpu_seconds: float
    seconds: float
    memory_bytes: int
    stored_bytes: int
    # The range its CPU seconds may fall in (a measured level's: its own).
    cpu_low: float
    cpu_high: float


@dataclass(frozen=True)
class Rate:
    """What a level made one way (bitmap or tables) costs on the measuring machine: CPU-µs a unit
    of work (a child made, a position written WRITTEN of them), the least and most of the timed
    levels' own rates as factors of it, those levels, and the gap bits its stored positions take
    beyond log2(1 / density)."""

    cpu_us: float
    low: float
    high: float
    levels: tuple[int, ...]  # none: the kind was not timed, and is priced as the other
    gap_bits: float


@dataclass(frozen=True)
class Estimate:
    board: str
    start: list[int]
    cores: int
    memory: int
    keep: str
    measured_levels: int
    reference: str | None  # what the projected levels follow: a board's shape, or OWN_GROWTH
    projected_spread: float  # how far the projected levels' positions may be off, as a share
    cpu: str  # the CPU whose speed the estimate assumes: the one that measured the run
    cpu_us: dict[str, float]  # CPU-µs a unit of work (a child made), by KINDS
    timed_levels: dict[str, list[int]]  # the levels each rate was timed on
    busy: float | None  # the share of its threads' time the run's levels kept busy (`busy`)
    levels: list[LevelCost]

    @property
    def cpu_seconds(self) -> float:
        return sum(level.cpu_seconds for level in self.levels)

    @property
    def seconds(self) -> float:
        return sum(level.seconds for level in self.levels)

    @property
    def seconds_range(self) -> tuple[float, float]:
        """The wall seconds the search likely takes on an idle machine, least and most. How busy
        the run kept its threads is not in it: measured on a machine shared with other work it
        says how loaded that machine was, not how the search scales (`busy` says it apart)."""
        return (sum(level.cpu_low for level in self.levels) / self.cores,
                sum(level.cpu_high for level in self.levels) / self.cores)

    @property
    def peak_memory_bytes(self) -> int:
        return max(level.memory_bytes for level in self.levels)

    @property
    def stored_bytes(self) -> int:
        """The disk the run needs: every level's parts, or with `--keep last` the most two
        consecutive levels hold (a level's parents stay until it is committed)."""
        sizes = [level.stored_bytes for level in self.levels]
        if self.keep == "all":
            return sum(sizes)
        return max(a + b for a, b in zip(sizes, [*sizes[1:], 0], strict=True))

    def document(self) -> dict:
        low, high = self.seconds_range
        return {**{key: value for key, value in asdict(self).items() if key != "levels"},
                # To the millisecond, as each level's: a small search's whole is well under 0.1 s.
                "seconds": round(self.seconds, 3), "cpu_seconds": round(self.cpu_seconds, 3),
                "seconds_range": [round(low, 3), round(high, 3)],
                "assumes": f"an idle machine of {self.cores} cores, each as fast as the {self.cpu}"
                           " that measured the run, every core busy (linear scaling)",
                "peak_memory_bytes": self.peak_memory_bytes, "stored_bytes": self.stored_bytes,
                "levels": [asdict(level) for level in self.levels]}


def estimate(run: Run, cores: int, memory: int, keep: str) -> Estimate:
    """The whole search of `run`'s board and start on `cores` cores within `memory` bytes, from the
    run's measured levels (those a run made by the local engine calibrate its speed)."""
    shape = Shape.of(run.spec)
    last = shape.start_pegs - 1
    measured = [record["states"] for record in run.levels]
    reference, projected, rough = projection(measured, shape, run.board.grid, last)
    states = measured + projected
    spread = ROUGH_SPREAD if rough else PROJECTION_SPREAD
    priced = [level for level in range(len(states)) if level and not _timed_here(run, level)]
    rates = _calibration(run, shape) if priced else {}
    levels = []
    for level, count in enumerate(states):
        pegs = shape.start_pegs - level
        ranks = shape.ranks(pegs)
        parents = states[level - 1] if level else 0
        bitmap = not run.carry and prefer_bitmap(count, ranks)
        need = ranks // 8 if bitmap else count * TABLE_BYTES
        planes = bitmap and fits_planes(need, cores, memory)
        shared = bitmap and fits_shared(need, memory)  # one bitmap, every core
        passes = 1 if planes or shared else _passes(need, bitmap, memory)
        held = need * cores if planes else need if shared else min(need, int(ARENA_SHARE * memory))
        drain = min(count, cores * PART_ROWS) * 16  # drained keys and their encoding, a core each
        record = run.levels[level] if level < len(run.levels) else None
        if level not in priced:
            cpu = low = high = work(run, record) if record is not None and level else 0.0
            passes = record.get("passes", passes) if record is not None else passes
        else:
            rate = rates["bitmap" if bitmap else "tables"]
            cpu = rate.cpu_us * units(shape, pegs, parents, passes, count) / 1e6
            off = spread if record is None else 0.0
            low, high = cpu * rate.low * (1 - off), cpu * rate.high * (1 + off)
        gap_bits = rates["bitmap" if bitmap else "tables"].gap_bits if rates else GAP_BITS
        levels.append(LevelCost(level, pegs, count, record is not None,
                                "bitmap" if bitmap else "tables", passes, round(cpu, 3),
                                round(cpu / cores, 3), BASE_BYTES + held + drain,
                                _stored(record, count, ranks, gap_bits), round(low, 3),
                                round(high, 3)))
    return Estimate(run.board.name, list(run.start), cores, memory, keep, len(run.levels),
                    reference, spread, run.manifest.get("compile_target", {}).get("cpu", "CPU"),
                    {kind: round(rate.cpu_us, 5) for kind, rate in rates.items()},
                    {kind: list(rate.levels) for kind, rate in rates.items()}, busy(run), levels)


def _passes(need: int, bitmap: bool, memory: int) -> int:
    """The passes of a level too large for one step, as the local engine makes them: hash tables
    fill the pass's arena (ARENA_SHARE of the bound); a bitmap pass maps more ranks than that and
    keeps the partitions whose touched pages fit KEEP_SHARE of it (kernel.bitmap.BitmapTables), so
    its passes go by the pages touched (TOUCHED_SHARE), not by its ranks."""
    arena = ARENA_SHARE * memory
    if bitmap:
        return max(1, ceil(need * TOUCHED_SHARE / (KEEP_SHARE * arena)))
    return max(1, ceil(need / arena))


def units(shape: Shape, pegs: int, parents: int, passes: int, written: int) -> float:
    """A level's work in children made: its parents' (of `pegs` + 1 pegs) children, made once
    a pass, and its positions written, WRITTEN children each."""
    return shape.children(pegs + 1, parents) * passes + WRITTEN * written


def work(run: Run, record: dict) -> float:
    """A measured level's CPU seconds, its compiling apart: the driver's record of them, else
    (runs made before it recorded them) its wall seconds on every thread the engine had."""
    if "cpu_seconds" in record:
        return max(0.0, record["cpu_seconds"] - record.get("compile_cpu_seconds", 0.0))
    waited = record.get("compile_seconds", 0.0)
    return max(0.0, record["seconds"] - waited) * int(run.manifest["options"].get("workers") or 1)


def _timed_here(run: Run, level: int) -> bool:
    """Whether `level` was made here by the local engine, so its own time is its cost."""
    return (level < len(run.levels) and run.levels[level].get("engine") == "local"
            and run.levels[level]["seconds"] > 0)


def measured(spec: SearchSpec, folder: Path, seconds: float = MEASURE_SECONDS) -> Run:
    """A run of `spec` into `folder` by the local engine, level by level until MEASURE_LEVELS
    levels are sizable and the last one's work (its compiling apart) took `seconds` of CPU, or the
    search ends: the levels and speed to estimate a board from (`estimate BOARD`, as `tune` measures
    rather than guesses). A first run compiles the kernels inside its first levels, so a time
    bound alone ended the measurement at a level of one position."""
    run = search(spec, folder, LocalEngine(), until=1)
    while run.status == "paused" and (not _measured_enough(run, seconds) or _bitmap_ahead(run)
                                      or _growth_ahead(run)):
        run = search(spec, folder, LocalEngine(), resume=True, until=len(run.levels))
    return run


def _bitmap_ahead(run: Run) -> bool:
    """Whether the run should go on to time a bitmap level: none is timed yet, a later level will
    be one, and every level up to the first such is projected within BITMAP_TIMED_STATES."""
    if run.carry or any(r.get("reduce", "tables").startswith("bitmap") and _timed(run, r)
                        for r in run.levels[1:]):
        return False
    shape = Shape.of(run.spec)
    measured = [record["states"] for record in run.levels]
    ahead = projection(measured, shape, run.board.grid, shape.start_pegs - 1).states
    for level, count in enumerate(ahead, start=len(measured)):
        if count > BITMAP_TIMED_STATES:
            return False
        if prefer_bitmap(count, shape.ranks(shape.start_pegs - level)):
            return True
    return False


def _growth_ahead(run: Run) -> bool:
    """Whether the run should go on until its own growth can be followed: its levels are projected
    roughly (a board of another grid than the references') and the next is projected within
    GROWTH_TIMED_STATES (the rough projection runs high, so this errs toward stopping)."""
    shape = Shape.of(run.spec)
    ahead = projection([record["states"] for record in run.levels], shape, run.board.grid,
                       shape.start_pegs - 1)
    return ahead.rough and ahead.states[0] <= GROWTH_TIMED_STATES


def _measured_enough(run: Run, seconds: float) -> bool:
    """Whether MEASURE_LEVELS levels are sizable and the last one's work took `seconds` of CPU
    (not of wall: a machine shared with other work would end the measurement at smaller levels)."""
    sizable = sum(record["states"] >= SIZABLE for record in run.levels)
    return sizable >= MEASURE_LEVELS and work(run, run.levels[-1]) >= seconds


def busy(run: Run) -> float | None:
    """The share of its threads' time the run's sizable local levels kept busy (recorded CPU
    seconds over wall seconds times threads), None when no level recorded its CPU seconds: below
    1, a level is partly serial or the machine was shared, and more cores scale worse than
    linearly."""
    levels = [r for r in run.levels if r.get("engine") == "local" and "cpu_seconds" in r
              and r["states"] >= SIZABLE and r["seconds"] > 0]
    threads = int(run.manifest["options"].get("workers") or 1)
    if not levels:
        return None
    return round(sum(r["cpu_seconds"] for r in levels) / sum(r["seconds"] * threads for r in levels), 3)


def _timed(run: Run, record: dict) -> bool:
    """Whether a level's time can set a rate: sizable, and its work long enough to time or its
    positions so many that the timer's and threads' start-up is a sliver of it."""
    return record["states"] >= SIZABLE and (work(run, record) >= TIMED_SECONDS
                                            or record["states"] >= TIMED_STATES)


def _calibration(run: Run, shape: Shape) -> dict[str, Rate]:
    """The rates of bitmap and of tables levels, each from the run's largest timed levels made
    that way by the local engine (a kind the run has not timed takes the other's). A run with no
    level large enough to time is refused: its seconds would be the compiler's and the threads'
    start-up, not the search's (a level of one position once priced triangle-8 at 14 M hours)."""
    made = [r for r in run.levels[1:] if r.get("engine") == "local" and r["seconds"] > 0]
    if not made:
        raise UsageError(f"{run.uri} has no level the local engine made to time: estimate from a"
                         " run made by `pegsearch run` (or name the board to measure one)")
    sizable = [r for r in made if r["states"] >= SIZABLE]
    timed = [r for r in sizable if _timed(run, r)]
    if not timed:
        largest = max(sizable or run.levels, key=lambda r: r["states"])
        short = (f"took {work(run, largest):.3f} s of CPU, under the {TIMED_SECONDS} s a level's"
                 f" time needs" if sizable else f"has {largest['states']:,} positions, under the"
                 f" {SIZABLE:,} a level's time needs")
        raise UsageError(f"{run.uri}'s levels are too small to time (the largest, level"
                         f" {largest['level']}, {short}): continue it to a larger level"
                         f" (`pegsearch run {run.board.name} --out {run.uri} --resume --until"
                         " LEVEL`), or name the board to measure one")
    rates = {}
    for kind in KINDS:
        mine = [r for r in timed if r.get("reduce", "tables").startswith(kind)][-TIMED_LEVELS:]
        if not mine:
            continue
        cost = [units(shape, r["pegs"], run.levels[r["level"] - 1]["states"], r.get("passes", 1),
                      r["states"]) for r in mine]
        spent = [work(run, r) for r in mine]
        per_unit, start_up = _line(cost, spent)
        own = [(cpu - start_up) / c / per_unit for cpu, c in zip(spent, cost, strict=True)]
        stored = [r for r in run.levels if r.get("reduce", "tables").startswith(kind)
                  and r["states"] >= 1 << 16 and _bytes(r)]
        gap_bits = GAP_BITS if not stored else (8 * _bytes(stored[-1]) / stored[-1]["states"]
                                                - log2(shape.ranks(stored[-1]["pegs"])
                                                       / stored[-1]["states"]))
        low, high = (min(own), max(own)) if len(mine) > 1 else \
            (1 - ONE_LEVEL_SPREAD, 1 + ONE_LEVEL_SPREAD)
        rates[kind] = Rate(per_unit * 1e6, low, high, tuple(r["level"] for r in mine), gap_bits)
    timed_kind = next(iter(rates.values()))
    return {kind: rates.get(kind) or replace(timed_kind, levels=()) for kind in KINDS}


def _line(cost: list[float], spent: list[float]) -> tuple[float, float]:
    """CPU seconds a unit of work, and a level's start-up (threads, its bitmaps' first pages, its
    parts' files): the least-squares line through the timed levels' units and CPU seconds. The
    start-up, 0.3-0.5 CPU-s a level on triangle-8, is a third of its level 10's seconds and a
    twentieth of level 12's: priced into the rate, it made the larger levels 20 % dearer than
    they are. It is nobody's cost past the timed levels (under 1 % of a search worth estimating),
    so a projected level is priced by the rate alone. With one level timed, or a line that does
    not rise, starts below 0 (the timer's noise) or starts above half the smallest level's
    seconds (no start-up: levels timed unlike one another, in passes or on a busier machine),
    the rate is their ratio."""
    if len(cost) >= 2:
        mean_cost, mean_spent = sum(cost) / len(cost), sum(spent) / len(spent)
        spread = sum((c - mean_cost) ** 2 for c in cost)
        if spread > 0:
            slope = sum((c - mean_cost) * (s - mean_spent) for c, s in zip(cost, spent, strict=True)) / spread
            start_up = mean_spent - slope * mean_cost
            if slope > 0 and 0 <= start_up <= min(spent) / 2:
                return slope, start_up
    return sum(spent) / sum(cost), 0.0


def _bytes(record: dict) -> int:
    """A level's stored bytes (its record says, or its parts', for runs made before)."""
    return record.get("bytes") or sum(entry.get("bytes", 0) for entry in record["files"])


def _stored(record: dict | None, states: int, ranks: int, gap_bits: float) -> int:
    """A level's stored bytes: measured, or `states` positions at the gap bits their density gives
    (at most 8 bytes, a position written whole)."""
    if record is not None:
        return _bytes(record)
    per_position = min(8.0, max(0.05, (log2(max(1.0, ranks / max(1, states))) + gap_bits) / 8))
    return int(states * per_position) + 2048 * max(1, states >> 22)  # and each part's footer

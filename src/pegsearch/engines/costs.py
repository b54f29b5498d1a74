"""What a whole search will cost on a machine (`pegsearch estimate`): per level the positions, the
passes at a memory bound, CPU and wall seconds on some cores, peak memory and stored bytes.

For someone about to rent a machine, so every figure comes from a measurement where one exists
and says where it does not:

- positions: a run's measured levels; past them a projection. A level's share of the positions it
  can hold (its pegs in the start's class, up to the symmetries signatures are taken under) rises
  level by level to 1 (every such position reached) and stays there; a larger board's share
  follows a smaller board's, shifted by a third of the holes it adds (triangle-9's measured levels
  12-16 follow triangle-8's at k - 3 within 10 %). The reference's share is raised to the power
  that meets the run's last sizable levels, so both reach 1 together (triangle-8's levels 13-33
  from skippy-xl's and its own levels 0-12: within 10 % each, 6 % in all).
- seconds: the local engine's time grows with what it writes and with the parents each extra pass
  reads again, so the run's own levels give the core-seconds of one such unit (a level's wall
  seconds times the threads that made it, bitmap and tables levels apart) and every level is
  priced at that rate; the CPU seconds the driver records say how busy those threads were. Wall
  seconds are those core-seconds spread over the cores: linear scaling, a lower bound (a level
  ran at 57-87 % of it on 16 cores, docs/performance.md's Many cores).
- memory and passes: as the local engine plans them (a bitmap a core while it fits the bound,
  else one bitmap every core sets while that fits, else passes of a bitmap, or hash tables for a
  sparse level), plus the process's own footprint.
- stored bytes: a part drained from a bitmap stores its positions' gaps, so its bytes a position
  grow with log2(1 / density); the run's last sizable level fixes the constant.

Checked by cluster/estimate_check.py against a whole triangle-8 search made afterwards.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from math import ceil, exp, log, log2
from pathlib import Path

from pegsearch.board.classes import invariants, kept_by
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine, fits_planes, fits_shared
from pegsearch.errors import UsageError
from pegsearch.kernel.bitmap import prefer_bitmap
from pegsearch.kernel.ranks import possible
from pegsearch.store import PART_ROWS, Run

# Complete searches from the apex, reduced by the board's symmetries (docs/scale.md, and skippy-xl
# as `pegsearch run skippy-xl` counts it): the shapes projected levels follow.
REFERENCES = {
    "skippy-xl": (1, 1, 4, 27, 175, 1058, 5373, 21971, 71489, 187144, 398665, 699272, 1021498,
                  1251698, 1292856, 1130883, 839814, 530465, 285019, 129504, 49375, 15869, 4209, 863,
                  153, 24),
    "triangle-8": (1, 1, 4, 27, 189, 1387, 9621, 59779, 324601, 1521312, 6109087, 20922581,
                   60889958, 150114902, 312378438, 546248430, 799484744, 979415769, 1011785508,
                   895487101, 692285663, 473991750, 288812322, 156462487, 75103702, 31780087,
                   11770296, 3782900, 1044536, 243880, 47144, 7452, 912, 78, 8),
}
# How a level drops repeats, as its record's note starts (engines.local.choose_reduce).
KINDS = ("bitmap", "tables")
# Levels this large calibrate speed and scale; smaller ones are mostly fixed costs.
SIZABLE = 100_000
# What the process holds besides a level's tables or bitmaps: interpreter, compiled kernels,
# pyarrow, read-ahead chunks (triangle-8 to level 12 peaked at 596 MB with 144 MB of bitmaps).
BASE_BYTES = 450 << 20
# Bytes a position held in a hash table (a code and the table's slack).
TABLE_BYTES = 16
# The share of the memory bound a pass's bitmap or tables may take (the rest maps chunks).
ARENA_SHARE = 0.75
# A level this slow ends the measurement `estimate BOARD` makes.
MEASURE_SECONDS = 2.0
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


@dataclass(frozen=True)
class Estimate:
    board: str
    start: list[int]
    cores: int
    memory: int
    keep: str
    measured_levels: int
    reference: str | None  # the board whose shape the projected levels follow
    cpu_us: dict[str, float]  # CPU-µs a position written (or a parent read again), by KINDS
    busy: float | None  # the share of its threads' time the run's levels kept busy (`busy`)
    levels: list[LevelCost]

    @property
    def cpu_seconds(self) -> float:
        return sum(level.cpu_seconds for level in self.levels)

    @property
    def seconds(self) -> float:
        return sum(level.seconds for level in self.levels)

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
        return {**{key: value for key, value in asdict(self).items() if key != "levels"},
                "seconds": round(self.seconds, 1), "cpu_seconds": round(self.cpu_seconds, 1),
                "peak_memory_bytes": self.peak_memory_bytes, "stored_bytes": self.stored_bytes,
                "levels": [asdict(level) for level in self.levels]}


def estimate(run: Run, cores: int, memory: int, keep: str) -> Estimate:
    """The whole search of `run`'s board and start on `cores` cores within `memory` bytes, from the
    run's measured levels (those a run made by the local engine calibrate its speed)."""
    shape = Shape.of(run.spec)
    last = shape.start_pegs - 1
    measured = [record["states"] for record in run.levels]
    reference = None if len(measured) > last or measured[-1] == 0 else _reference(shape.holes)
    states = measured + projected_states(measured, shape, reference, last)
    rates = _calibration(run, shape)
    levels = []
    for level, count in enumerate(states):
        pegs = shape.start_pegs - level
        ranks = shape.ranks(pegs)
        parents = states[level - 1] if level else 0
        bitmap = not run.carry and prefer_bitmap(count, ranks)
        rate = rates["bitmap" if bitmap else "tables"]
        need = ranks // 8 if bitmap else count * TABLE_BYTES
        planes = bitmap and fits_planes(need, cores, memory)
        shared = bitmap and fits_shared(need, memory)  # one bitmap, every core
        passes = 1 if planes or shared else max(1, ceil(need / (ARENA_SHARE * memory)))
        held = need * cores if planes else need if shared else min(need, int(ARENA_SHARE * memory))
        drain = min(count, cores * PART_ROWS) * 16  # drained keys and their encoding, a core each
        record = run.levels[level] if level < len(run.levels) else None
        if record is not None and record.get("engine") == "local" and record["seconds"] > 0:
            cpu, passes = _cpu(run, record), record.get("passes", passes)
        else:
            cpu = rate.cpu_us * (count + parents * (passes - 1)) / 1e6
        levels.append(LevelCost(level, pegs, count, record is not None,
                                "bitmap" if bitmap else "tables", passes, round(cpu, 3),
                                round(cpu / cores, 3), BASE_BYTES + held + drain,
                                _stored(record, count, ranks, rate.gap_bits)))
    return Estimate(run.board.name, list(run.start), cores, memory, keep, len(run.levels),
                    reference, {kind: round(rate.cpu_us, 4) for kind, rate in rates.items()},
                    busy(run), levels)


@dataclass(frozen=True)
class Shape:
    """How many positions a search's levels can hold: `ranks` of a level's pegs are the positions
    of the start's class (all positions when signatures may leave it), as the local engine's
    bitmaps span them; `capacity` the same up to the symmetries signatures are taken under."""

    holes: int
    start_pegs: int
    classes: int
    symmetries: int

    @classmethod
    def of(cls, spec: SearchSpec) -> Shape:
        board = spec.board
        basis = invariants(board)
        kept = kept_by(spec.signing, board.start_position(spec.start), basis)
        return cls(board.holes, board.holes - len(spec.start), 1 << len(basis) if kept else 1,
                   len(spec.signing))

    def ranks(self, pegs: int) -> int:
        return possible(self.holes, pegs, self.classes)

    def capacity(self, pegs: int) -> int:
        return max(1, self.ranks(pegs) // self.symmetries)


def _reference(holes: int) -> str:
    """The reference whose shape a board's projected levels follow: the largest smaller than the
    board (never the board's own counts: the projection is checked against them), else the
    smallest."""
    sizes = sorted((load_board(name).holes, name) for name in REFERENCES)
    fitting = [name for size, name in sizes if size < holes]
    return fitting[-1] if fitting else sizes[0][1]


def projected_states(measured: list[int], shape: Shape, reference: str | None, last: int) -> list[int]:
    """Positions of the levels after the measured ones, up to level `last`: the reference's share
    shifted by a third of the holes the board adds, raised to the power that meets the measured
    levels (a share of 1 stays 1: a saturated level holds every position it can)."""
    if reference is None:
        return []
    board = load_board(reference)
    theirs = Shape.of(SearchSpec.asked(board, None, "board", False, False))
    shares = [count / theirs.capacity(theirs.start_pegs - k)
              for k, count in enumerate(REFERENCES[reference])]

    def share(x: float) -> float:
        """The reference's share at level `x` (between levels: geometric interpolation)."""
        if x <= 0 or x >= len(shares) - 1:
            return shares[0] if x <= 0 else shares[-1]
        low, t = int(x), x - int(x)
        return exp(log(shares[low]) * (1 - t) + log(shares[low + 1]) * t)

    shift = (shape.holes - theirs.holes) / 3
    sizable = [k for k, count in enumerate(measured) if count >= SIZABLE
               and 0 < share(k - shift) < 1 and count < shape.capacity(shape.start_pegs - k)][-2:]
    power = sum(log(measured[k] / shape.capacity(shape.start_pegs - k)) / log(share(k - shift))
                for k in sizable) / len(sizable) if sizable else 1.0
    return [max(1, int(min(1.0, share(k - shift) ** power) * shape.capacity(shape.start_pegs - k)))
            for k in range(len(measured), last + 1)]


def measured(spec: SearchSpec, folder: Path, seconds: float = MEASURE_SECONDS) -> Run:
    """A run of `spec` into `folder` by the local engine, level by level until a level takes
    `seconds` or the search ends: the levels and speed to estimate a board from (`estimate BOARD`,
    as `tune` measures rather than guesses)."""
    run = search(spec, folder, LocalEngine(), until=1)
    while run.status == "paused" and run.levels[-1]["seconds"] < seconds:
        run = search(spec, folder, LocalEngine(), resume=True, until=len(run.levels))
    return run


def _cpu(run: Run, record: dict) -> float:
    """What a level took of the machine: its wall seconds on every thread the engine had. Not the
    CPU seconds the driver records (`cpu_seconds`): a level that keeps its threads half busy still
    holds the machine; `busy` says how much of it was used."""
    return record["seconds"] * int(run.manifest["options"].get("workers") or 1)


def busy(run: Run) -> float | None:
    """The share of its threads' time the run's sizable local levels kept busy (recorded CPU
    seconds over wall seconds times threads), None when no level recorded its CPU seconds: below
    1, a level is partly serial or the machine was shared, and more cores scale worse than
    linearly."""
    levels = [r for r in run.levels if r.get("engine") == "local" and "cpu_seconds" in r
              and r["states"] >= SIZABLE and r["seconds"] > 0]
    if not levels:
        return None
    return round(sum(r["cpu_seconds"] for r in levels) / sum(_cpu(run, r) for r in levels), 3)


@dataclass(frozen=True)
class Rate:
    """What a level made one way (bitmap or tables) costs on this machine: CPU-µs a unit of work
    (a position written, or a parent read again by an extra pass), and the gap bits its stored
    positions take beyond log2(1 / density)."""

    cpu_us: float
    gap_bits: float


def _calibration(run: Run, shape: Shape) -> dict[str, Rate]:
    """The rates of bitmap and of tables levels, each from the run's sizable levels made that way
    by the local engine (a kind the run has not made takes the other's: a bitmap level's costs
    less a position, so a board measured on its small table levels is priced high)."""
    made = [r for r in run.levels[1:] if r.get("engine") == "local" and r["seconds"] > 0]
    if not made:
        raise UsageError(f"{run.uri} has no level the local engine made to time: estimate from a"
                         " run made by `pegsearch run` (or name the board to measure one)")
    rates = {}
    for kind in KINDS:
        mine = [r for r in made if r.get("reduce", "tables").startswith(kind)]
        sizable = [r for r in mine if r["states"] >= SIZABLE] or mine
        if not sizable:
            continue
        units = sum(r["states"] + run.levels[r["level"] - 1]["states"] * (r.get("passes", 1) - 1)
                    for r in sizable)
        stored = [r for r in mine if r["states"] >= 1 << 16 and _bytes(r)]
        gap_bits = GAP_BITS if not stored else (8 * _bytes(stored[-1]) / stored[-1]["states"]
                                                - log2(shape.ranks(stored[-1]["pegs"])
                                                       / stored[-1]["states"]))
        rates[kind] = Rate(sum(_cpu(run, r) for r in sizable) / units * 1e6, gap_bits)
    return {kind: rates.get(kind) or next(iter(rates.values())) for kind in KINDS}


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


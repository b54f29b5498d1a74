"""The local engine: MapReduce on one machine, in process, on every core, within a memory budget.

Map and shuffle in one step: the compiled kernel expands a chunk of the parent level (streamed from
its part files) and writes each child straight into its hash partition's stretch
(kernel.expand.expand_routed). Reduce: every partition's hash table drops repeats, or sums path counts, as
the chunks arrive (kernel.reduce.HashTables), so only distinct positions are held, never every child. A level
whose distinct positions outgrow the budget is made in several passes over the parents, each
keeping its own range of partitions: the map is paid again, but nothing is spilled, so disk use is
the part files alone. Each pass ends by draining its partitions, sorted, into part files, written on
every core.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import cache
from queue import Full, Queue
from typing import TypeVar

import numpy as np

from pegsearch.engines import LevelProgress, no_progress
from pegsearch.engines.estimates import expected_states
from pegsearch.engines.reduce_choice import check_reduce, choose_reduce
from pegsearch.kernel.bitmap import BitmapTables, rank_space
from pegsearch.kernel.expand import Scratch, expand_into_bits, expand_routed
from pegsearch.kernel.ranks import LevelRanks
from pegsearch.kernel.reduce import MAX_PBITS, HashTables, Keyspace, Layout
from pegsearch.kernel.threads import WORKERS
from pegsearch.sizes import default_budget, parse_size
from pegsearch.store import PART_ROWS, LevelWriter, Location, Run

# The share of the budget for a chunk's routed children. Large chunks matter: a partition's table
# stays in cache only while it takes many children at once, so chunks should dwarf the tables.
MAPPING_SHARE = 4
# A generous guess at children per parent, as a fraction of the board's jumps, to turn that share
# into parents per chunk.
FANOUT_SHARE = 4
# Parents per chunk of a level made in one step (no routed children to hold): small, so the
# next chunk is read and decoded while this one is expanded.
ONE_STEP_CHUNK = 1 << 18
# Cores a thread reading parents keeps busy, and more: one reader decodes a chunk in about a
# twentieth of the time a core expands it, and one reader held 16 cores back by a third
# (docs/performance.md, Many cores).
CORES_A_READER = 8
# A bitmap pass maps up to this many times its budget of ranks: pages its children never reach
# cost nothing, and it gives up what outgrows the budget (kernel.bitmap.BitmapTables).
MAPPED = 8
# A shared one-step bitmap leaves this fraction of the budget (1/32) for the parents read and the
# parts written (its pages are mapped as its children reach them: a quarter of triangle-9 level
# 15's never are).
SHARED_RESERVE = 32
T = TypeVar("T")
# Below this many positions a pass writes a single part file.
SMALL_PART = 1 << 16


def balanced_edges(filled: np.ndarray, groups: int) -> list[int]:
    """Cut partitions holding `filled` positions each into at most `groups` runs of about equal
    rows, none empty: a part per run, each drained and written by its own thread. (Cut by
    partition count, a bitmap level's parts were lopsided: its positions crowd some rank ranges,
    and one thread wrote nearly all of a level while the other waited.)"""
    cumulative = np.cumsum(filled)
    total = int(cumulative[-1])
    edges = [0]
    for g in range(1, groups):
        cut = int(np.searchsorted(cumulative, total * g // groups, side="left")) + 1
        before = int(cumulative[edges[-1] - 1]) if edges[-1] else 0
        if cut < len(filled) and before < cumulative[cut - 1] < total:
            edges.append(cut)
    return [*edges, len(filled)]


# Freed blocks of at least this many bytes go back to the system at once (glibc's mallopt
# M_MMAP_THRESHOLD, -3). Left to itself glibc raises the threshold to the largest block freed so
# far (up to 32 MiB), so a level's arrays of a few MiB stay in the heap after use: English's peak
# was a fifth higher for it.
MMAP_THRESHOLD = 4 << 20
_M_MMAP_THRESHOLD = -3


@cache
def give_back_large_frees() -> None:
    """Fix glibc's threshold for memory given back when freed (nothing on another C library)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def fits_planes(bitmap_bytes: int, cores: int, budget: int) -> bool:
    """Whether a bitmap is made in one step with a plane a core within `budget` bytes."""
    return bitmap_bytes * cores <= budget


def fits_shared(bitmap_bytes: int, budget: int) -> bool:
    """Whether a bitmap is made in one step into one shared bitmap within `budget` bytes (less
    its reserve, SHARED_RESERVE)."""
    return bitmap_bytes <= budget - budget // SHARED_RESERVE


def least_partition_bits(workers: int) -> int:
    """At least four partitions per core, to keep the cores busy."""
    return min(MAX_PBITS, (4 * workers - 1).bit_length())


def level_layout(expected: int, workers: int, holes: int) -> Layout:
    """The level's partitions and tables: near the cache-sized aim, and at least four partitions
    per core (as far as a board of `holes` holes has signatures)."""
    return Layout.plan(expected, holes, least=least_partition_bits(workers))


@dataclass(frozen=True)
class LevelPlan:
    """How a level drops repeats: its keyspace, the bytes one partition takes, how a pass's
    partitions are made from partition `lo` on within a budget of bytes, the rank tables of a
    bitmap level, and a note for the manifest saying which was chosen and why."""

    space: Keyspace
    partitions: int
    partition_bytes: int
    make: Callable[[int, int], HashTables | BitmapTables]
    ranks: LevelRanks | None
    note: str

    @property
    def cut(self) -> dict:
        """How the level is cut into partitions, as a checkpoint records it: a resumed level adds
        passes to a checkpoint only when it would cut the level the same way."""
        return {"reduce": "bitmap" if self.ranks is not None else "tables",
                "nbits": self.space.nbits, "pbits": self.space.pbits, "partitions": self.partitions}


def prefetched(*sources: Iterator[T]) -> Iterator[T]:
    """The items of `sources`, each source read in a thread of its own while the caller works on
    what it was given.

    Reading and decoding a chunk of parents (pyarrow) and expanding it (the kernels) both release
    the interpreter, so reading ahead keeps the cores busy while the kernel waits for no one. One
    item a source is read ahead; one source's items come in its order, several sources' as they
    are ready (one reader decodes parents for about 20 cores: many cores need several). The
    readers stop when the caller does; the first failure is raised.
    """
    ahead: Queue = Queue(maxsize=len(sources))
    stop = threading.Event()

    def offer(entry: tuple[bool, object]) -> bool:
        """Hand `entry` over unless the caller has stopped; False when it has."""
        while not stop.is_set():
            with contextlib.suppress(Full):
                ahead.put(entry, timeout=0.1)
                return True
        return False

    def read(items: Iterator[T]) -> None:
        try:
            for item in items:
                if not offer((True, item)):
                    return
            offer((False, None))
        except BaseException as exc:  # handed to the caller, who raises it
            offer((False, exc))

    readers = [threading.Thread(target=read, args=(items,), name="pegsearch-read-ahead", daemon=True)
               for items in sources]
    for reader in readers:
        reader.start()
    try:
        reading = len(readers)
        while reading:
            more, item = ahead.get()
            if more:
                yield item
            elif item is not None:
                raise item
            else:
                reading -= 1
    finally:
        stop.set()
        for reader in readers:
            reader.join()


def reported(chunks: Iterator[tuple[np.ndarray, np.ndarray]], before: int, total: int,
             report: LevelProgress) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """`chunks`, each reported as taken: `before` parents done in earlier passes, of `total` so
    far (whether another pass follows is known only when this one ends)."""
    done = before
    for keys, values in chunks:
        yield keys, values
        done += len(keys)
        report(done, total)


class LocalEngine:
    """Computes each level in this process (the kernels on every core, a thread per part file)."""

    name = "local"
    def __init__(self, memory: str | int | None = None, chunk: int | None = None,
                 reduce: str = "auto") -> None:
        """`memory` is a size as written on the command line, or bytes (tests force many passes);
        `reduce` chooses how levels drop repeats: "auto" (a bitmap where a level is dense enough,
        see kernel.bitmap), or always "bitmap" or "tables" (a counted level always uses tables)."""
        self.reduce = check_reduce(reduce)
        give_back_large_frees()
        if memory is None:
            self.budget = default_budget()
        else:
            self.budget = memory if isinstance(memory, int) else parse_size(memory)
        self.chunk = chunk
        self.workers = WORKERS  # every core, or `run --threads N` (NUMBA_NUM_THREADS)
        self.passes = 0  # over the engine's life: passes over parent levels (one per level at best)
        # Kept from level to level: fresh memory costs a page fault per 4 KiB.
        self.scratch = Scratch()

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def options(self) -> dict:
        return {"memory": self.budget, "workers": self.workers, "reduce": self.reduce}

    def check_location(self, location: Location) -> None:
        return None  # parents are streamed from any store, parts written to it

    def next_level(self, run: Run, level: int, writer: LevelWriter,
                   report: LevelProgress = no_progress) -> None:
        tables = run.tables()
        parents = run.levels[level]["states"]
        plan = self.plan(run, level)
        parts = plan.partitions
        # A killed attempt's committed passes are kept: this one makes the partitions after them.
        lo, written = writer.resume_at(plan.cut), writer.parts
        # A bitmap level whose bitmap fits the budget once a core is made in one step, each core
        # setting its children's bits in its own plane (kernel.expand.expand_into_bits).
        planes = plan.ranks is not None and fits_planes((parts - lo) * plan.partition_bytes, WORKERS,
                                                        self.budget)
        writer.notes["reduce"] = plan.note
        if planes:
            writer.notes["planes"] = WORKERS
        # A routed child takes a code's bytes (and its value's when the run carries one), plus its
        # share of the stretches' bounds.
        slot_bytes = HashTables.slot_bytes(plan.space, run.carry)
        mapping = self.budget // MAPPING_SHARE
        fanout = max(1, len(run.board.jumps) // FANOUT_SHARE)
        routed_chunk = max(1 << 12, mapping // ((slot_bytes + 2) * fanout))
        arena = self.budget - mapping
        passes = 0
        with ThreadPoolExecutor(self.workers) as pool:
            while lo < parts:
                # The rest of a bitmap level that fits the budget once (not a plane a core) is made
                # in one step too, every core setting bits in one shared bitmap: a wide pass that
                # routed its children cost 1.6 times a pass of half the level a parent.
                shared = not planes and plan.ranks is not None and \
                    fits_shared((parts - lo) * plan.partition_bytes, self.budget)
                if planes:
                    held = BitmapTables(plan.space, lo, parts - lo, plan.ranks, WORKERS,
                                        self.scratch.take)
                elif shared:
                    held = BitmapTables(plan.space, lo, parts - lo, plan.ranks, shared=True)
                    writer.notes["shared"] = True
                else:
                    held = plan.make(lo, arena)
                one_step = planes or shared
                chunk = self.chunk or (ONE_STEP_CHUNK if one_step else routed_chunk)
                # Several readers for the one-step kernel's small chunks only: a routed chunk is
                # sized to the memory bound, and each reader holds one or two.
                readers = 1 + self.workers // CORES_A_READER if one_step else 1
                chunks = reported(prefetched(*(run.iter_level(level, chunk, with_values=True,
                                                              share=(r, readers))
                                               for r in range(readers))),
                                  passes * parents, (passes + 1) * parents, report)
                with contextlib.closing(chunks):  # the readers stopped now, not when the generator is freed
                    if one_step:
                        expand_into_bits(tables, (keys for keys, _ in chunks), held)
                        held.merge()
                    else:
                        for keys, values in chunks:
                            held.add(*expand_routed(tables, keys, values, run.carry, plan.space,
                                                    held.lo, held.hi, self.scratch, plan.ranks))
                written = self._write(held, writer, written, pool)
                lo, width = held.hi, held.hi - held.lo
                passes += 1
                self.passes += 1
                del held
                if lo < parts:  # a checkpoint: a kill from here on costs at most the next pass
                    writer.commit_pass(lo, writer.passes_done + 1 + -(-(parts - lo) // width),
                                       plan.cut)
        # The passes committed (in this attempt or a killed one) and the last: more than one when
        # the level outgrew --memory.
        writer.notes["passes"] = writer.passes_done + 1

    def plan(self, run: Run, level: int) -> LevelPlan:
        """How level `level + 1` drops repeats: a bitmap over ranks, or hash tables."""
        choice = choose_reduce(run, level, self.reduce)
        ranks = choice.ranks
        if ranks is not None:
            space = rank_space(ranks.count, least_partition_bits(self.workers), MAX_PBITS)
            parts, each = -(-ranks.count >> space.rbits), BitmapTables.partition_bytes(space)

            def bitmap(lo: int, arena: int) -> BitmapTables:
                # Sized by the pages its children touch, not by its ranks (see BitmapTables):
                # a pass maps up to MAPPED times its budget and keeps what fits.
                width = min(parts - lo, max(1, MAPPED * arena // each))
                return BitmapTables(space, lo, width, ranks, budget=arena)

            return LevelPlan(space, parts, each, bitmap, ranks, choice.note)
        layout = level_layout(expected_states(run, level), self.workers, run.board.holes)
        slot_bytes = HashTables.slot_bytes(layout.space, run.carry)
        each = (1 << layout.sbits) * slot_bytes
        return LevelPlan(layout.space, layout.space.partitions, each,
                         lambda lo, arena: layout.tables(run.carry, lo, min(
                             layout.space.partitions - lo, max(1, arena // each)), arena),
                         None, choice.note)

    def _write(self, held: HashTables | BitmapTables, writer: LevelWriter, written: int,
               pool: ThreadPoolExecutor) -> int:
        """Drain the pass's partitions into part files numbered from `written`; returns the next."""
        rows = int(held.filled.sum())
        if rows == 0:
            return written  # a pass whose partitions took no child (ranks no position has)
        groups = 1 if rows < SMALL_PART else max(self.workers, -(-rows // PART_ROWS))
        edges = balanced_edges(held.filled, groups)
        groups = len(edges) - 1

        def write(g: int) -> None:
            keys, values = held.drain(edges[g], edges[g + 1])
            writer.write(written + g, keys, values)

        # Every write ends before any failure is raised, so none lands after the level is discarded.
        writes = [pool.submit(write, g) for g in range(groups)]
        wait(writes)
        for done in writes:
            done.result()
        return written + groups

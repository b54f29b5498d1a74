"""A bitmap level as a Spark job: partitions that are contiguous ranges of ranks, blocks that are
bitmap slices, and no hash pass on either side.

A level dense enough for a bitmap (kernel.bitmap; the same choice as the local engine's) is cut
into the shuffle's partitions by rank: partition p is a contiguous range of the level's ranks, made
of the cache-sized slices the local engine uses. A map task expands its parent part with the shared
kernel, which sets the children's bits itself in a bitmap of the task's ranges, children of other
ranges dropped (kernel.expand.expand_into_bits: a plane a core, one on an executor, where Spark
runs a task a core), and sends one range block a range (blocks.encode_range). A reduce task ORs its
range's blocks into its slice of the bitmap and drains it by unranking, which gives its part's
positions sorted with no sort. A map task holds its ranges' bitmap (a bit per position the level
can hold); where the whole level's bitmap exceeds what a task may hold, the level is made in
several passes (`Ranges.per_pass` ranges each, as the local engine's passes within its budget):
one job a pass, each committed as a checkpoint, so a driver lost mid-level loses one pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pegsearch.engines.spark.blocks import encode_range, or_range
from pegsearch.engines.spark.job import BATCH_ROWS, Plan, written_part
from pegsearch.kernel.bitmap import BitmapTables, rank_space
from pegsearch.kernel.expand import expand_into_bits
from pegsearch.kernel.ranks import LevelRanks, level_ranks
from pegsearch.kernel.reduce import MAX_PBITS, Keyspace
from pegsearch.kernel.threads import WORKERS
from pegsearch.kernel.values import NO_VALUES, Carry
from pegsearch.store.parts import iter_parts

# The share of a task's memory a map task's bitmap may take; the rest holds a batch's children.
BITMAP_SHARE = 0.75


@dataclass(frozen=True)
class Ranges:
    """How a bitmap level is cut: its ranking (the board's holes and invariants' basis, the level's
    pegs and class; each task rebuilds the tables), the cache-sized slices of its ranks (`space`,
    of which the first `used` hold ranks), the slices of one of the shuffle's partitions, and how
    many partitions a map task covers in one pass over its part."""

    holes: int
    basis: tuple[int, ...]
    pegs: int
    home: int
    space: Keyspace
    used: int
    slices: int
    per_pass: int

    @classmethod
    def plan(cls, ranks: LevelRanks, partitions: int, memory: int) -> Ranges:
        """The ranges of the level `ranks` ranks, about `partitions` of them (fewer for a level too
        small to cut so finely), for tasks that may hold `memory` bytes."""
        space = rank_space(ranks.count, (partitions - 1).bit_length(), MAX_PBITS)
        used = -(-ranks.count >> space.rbits)
        slices = -(-used // partitions)
        range_bytes = BitmapTables.partition_bytes(space) * slices
        per_pass = max(1, int(memory * BITMAP_SHARE) // range_bytes)
        tables = ranks.tables
        return cls(tables.holes, tables.basis, ranks.pegs, ranks.home, space, used, slices, per_pass)

    @property
    def partitions(self) -> int:
        """The shuffle's partitions: one a range."""
        return -(-self.used // self.slices)

    @property
    def passes(self) -> int:
        """Passes over the parents: jobs of `per_pass` ranges each."""
        return -(-self.partitions // self.per_pass)

    @property
    def cut(self) -> dict:
        """How the level is cut, as a checkpoint records it (Run.commit_pass)."""
        return {"reduce": "rank ranges", "nbits": self.space.nbits, "pbits": self.space.pbits,
                "partitions": self.partitions, "slices": self.slices}

    def slices_of(self, first: int, last: int) -> tuple[int, int]:
        """The slices of ranges ``[first, last)``: the first, and how many."""
        return first * self.slices, min(last * self.slices, self.used) - first * self.slices

    def ranks(self) -> LevelRanks:
        return level_ranks(self.holes, self.basis, self.pegs, self.home)

    def note(self) -> str:
        """For the manifest: how the level's ranks were cut."""
        passes = "" if self.passes == 1 else f", in {self.passes} passes (a job each)"
        return f"{self.partitions} rank ranges of {self.slices << self.space.rbits:,} ranks{passes}"


def map_ranges(plan: Plan, ranges: Ranges, first: int, last: int,
               entries: Iterator[dict]) -> Iterator[tuple[int, bytes]]:
    """A map task of one pass of a bitmap level: its parent parts expanded with the shared kernel
    into a bitmap of ranges ``[first, last)``, then one range block a range that received a child,
    keyed by its offset in the pass (the pass's shuffle partition)."""
    ranks = ranges.ranks()
    folder = plan.folder(plan.level)
    where = f"level {plan.level} of {plan.uri}"
    slices = ranges.slices
    for entry in entries:
        held = BitmapTables(ranges.space, *ranges.slices_of(first, last), ranks, WORKERS)
        expand_into_bits(plan.tables, (parents for parents, _ in iter_parts(
            folder, [entry], BATCH_ROWS, Carry.NOTHING, where)), held)
        held.merge()
        for partition in range(first, last):
            begin = (partition - first) * slices
            end = min(begin + slices, held.width)
            count = int(held.filled[begin:end].sum())
            if count:
                yield partition - first, encode_range(held.words(begin, end), count)
        del held


def reduce_ranges(plan: Plan, ranges: Ranges, first: int, offset: int,
                  pairs: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, dict, dict]]:
    """A reduce task of a bitmap level: range ``first + offset``'s blocks ORed into its slice of the
    bitmap, drained sorted by unranking, and written as one part file (see job.written_part)."""
    partition = first + offset
    held = BitmapTables(ranges.space, *ranges.slices_of(partition, partition + 1), ranges.ranks())
    for _, block in pairs:
        or_range(block, held.bits)
    held.recount()
    keys, _ = held.drain(0, held.width)
    yield from written_part(plan, partition, keys, NO_VALUES)

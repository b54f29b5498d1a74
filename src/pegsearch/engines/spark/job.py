"""One level as a Spark job of two stages over a few large values: the tasks and what they share.

- map: one task per parent part. It reads the part from the run's store itself (checked against
  the manifest), expands it with the shared kernel routed to the level's partitions, drops repeats
  (merging the values positions carry) in each partition with the reduce's hash tables, and emits
  one block per partition (sorted positions as varint gaps, zstd; see blocks.py);
- the shuffle moves those blocks by partition;
- reduce: one task per partition merges its blocks with the same tables and writes its part file
  straight into the store under a name unique to the attempt, and returns the part's entry.
A bitmap level's tasks are in `ranges`. The functions here run on executors: they take everything
from a `Plan` and the store.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pegsearch.engines.spark.blocks import Combiner, encode_block, merge_blocks
from pegsearch.errors import PathCountOverflow
from pegsearch.kernel.backward import parents_reaching
from pegsearch.kernel.members import Members
from pegsearch.kernel.path_counts import LIMIT
from pegsearch.kernel.reduce import Keyspace
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.values import Carry
from pegsearch.store import DamagedLevel, Location, level_name
from pegsearch.store.parts import iter_parts, new_attempt, part_name, write_part

if TYPE_CHECKING:  # a hint only: the tasks run without importing pyspark, so they are reused anywhere
    from pyspark.broadcast import Broadcast

# Parents a map task expands at a time: about 1 M parents make about 10 M children, some
# 100-200 MB in the Python worker at the peak.
BATCH_ROWS = 1 << 20
# How a task names a path-count overflow to the driver (the text is all that crosses the JVM).
OVERFLOW = "pegsearch-path-count-overflow-in-"


@dataclass(frozen=True)
class Plan:
    """What every task of one level's job needs: where the run is, which level it reads, the
    kernel's tables, what positions carry, the partitions (``2**pbits``) of the shuffle, what
    the parts it writes say of themselves, and the positions the level is expected to hold."""

    uri: str
    level: int
    tables: BoardTables
    carry: Carry
    pbits: int
    metadata: dict[str, str] | None = None
    expected: int = 1
    parents: int = 1

    def combined(self, rows: int) -> int:
        """Distinct children expected of a map task's `rows` parents, to size its combiner's
        tables once rather than grow them: its share of the level's, doubled, since parents
        split by hash reach most of the level each (two map tasks each reached 91 % of triangle-9's
        level 12), and never more than the level."""
        return max(1, min(self.expected, 2 * rows * self.expected // max(1, self.parents)))

    def folder(self, level: int) -> Location:
        return Location.parse(self.uri) / level_name(level)

    @property
    def space(self) -> Keyspace:
        """The shuffle's partitions of the children's signatures."""
        return Keyspace(self.tables.holes, self.pbits)


def by_partition(partition: int) -> int:
    return partition


def map_task(plan: Plan, entries: Iterator[dict]) -> Iterator[tuple[int, bytes]]:
    """A map task: its parent parts, read from the store and checked, expanded with the shared
    kernel; the children routed to the level's partitions and deduplicated in each (the combiner),
    then one block per partition, for the shuffle."""
    folder = plan.folder(plan.level)
    where = f"level {plan.level} of {plan.uri}"
    for entry in entries:
        combiner = Combiner(plan.tables, plan.pbits, plan.carry, plan.combined(entry["rows"]))
        for parents, values in iter_parts(folder, [entry], BATCH_ROWS, plan.carry, where):
            try:
                combiner.add(parents, values)
            except PathCountOverflow:
                raise PathCountOverflow(f"{OVERFLOW}map") from None
        yield from combiner.blocks()


def reduce_task(plan: Plan, partition: int,
                 pairs: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, dict, dict]]:
    """A reduce task: its partition's blocks from every map task merged (repeats dropped, values
    merged) and written as one part file (see written_part)."""
    try:
        keys, values = merge_blocks([block for _, block in pairs], plan.carry, plan.space,
                                    partition)
    except PathCountOverflow:
        raise PathCountOverflow(f"{OVERFLOW}reduce") from None
    yield from written_part(plan, partition, keys, values)


def written_part(plan: Plan, partition: int, keys: np.ndarray,
                 values: np.ndarray) -> Iterator[tuple[int, dict, dict]]:
    """A reduce task's positions (sorted, distinct) written as its part, under a name unique to this
    attempt, straight into the store: the part's manifest entry and the summary of its values,
    for the driver, which alone commits it. Nothing for a partition without positions."""
    if len(keys):
        name = part_name(partition, new_attempt())
        entry = write_part(plan.folder(plan.level + 1), name, keys, plan.carry, values, plan.metadata)
        yield partition, entry, plan.carry.summary(values)


def winnable_task(plan: Plan, shared: Broadcast, entries: Iterator[dict]) -> Iterator[bytes]:
    """A task's share of the semi-join: the parents of its parts that reach `shared`, as blocks."""
    folder = plan.folder(plan.level)
    members = Members(shared.value)  # built once for the task's parts
    for entry in entries:
        for parents, _ in iter_parts(folder, [entry], BATCH_ROWS, Carry.NOTHING,
                                     f"level {plan.level} of {plan.uri}"):
            yield encode_block(np.sort(parents_reaching(plan.tables, parents, members)))


def task_error(exc: Exception, level: int) -> Exception:
    """A failed job's error as the user should see it: a path count too large, or a damaged part
    (named by the task that found it), in one line; anything else as it came."""
    text = str(exc)
    if f"{OVERFLOW}map" in text:
        return _overflow(level, "in a map task")
    if f"{OVERFLOW}reduce" in text:
        return _overflow(level, "in a reduce task")
    damaged = re.search(rf"{DamagedLevel.__name__}: (.+)", text)
    if damaged:
        return DamagedLevel(damaged[1].strip())
    return exc


def _overflow(level: int, where: str) -> PathCountOverflow:
    """The error for a level whose path counts do not fit the decimal(38, 0) column."""
    return PathCountOverflow(f"level {level}: a path count exceeds {LIMIT:.3e}, the largest a"
                             f" level stores ({where})")

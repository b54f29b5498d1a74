"""How many reduce partitions a level's Spark job gets: from the parents (to use every core) and
from what a reduce task may hold (so a big level's partitions fit the executors' memory).

A reduce task holds its partition's positions several times over while it merges: the decoded
blocks (a key word and the value's two words a position), the hash table's slots at 70 % load and
the radix sort's second copy, about REDUCE_FACTOR times a position's words. What a task may hold is
its executor's memory shared by the executor's task slots: `spark.executor.memory` (or
`spark.executor.pyspark.memory`, which bounds the Python workers where the kernel runs) over
`spark.executor.cores`; on `local[N]`, the driver's memory over N when it is set, else the local
engine's default budget over N. `spark.pegsearch.task.memory` says it outright. A level too large
for as many partitions as the shuffle allows is refused before its job, in one line naming the
setting. A bitmap level's reduce tasks also share its bitmap, and its map tasks hold as much of
it as fits (see ranges).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pegsearch.errors import UsageError
from pegsearch.kernel.values import Carry
from pegsearch.sizes import default_budget
from pegsearch.words import readable

# Parents a reduce partition gets at most before another is added (then one per core): a small
# level is one task, a big one spreads over every core.
TASK_ROWS = 1 << 15
REDUCE_FACTOR = 4
# At most 65,536 reduce partitions: past that, scheduling the tasks costs more than they save.
MAX_SHUFFLE_BITS = 16
TASK_MEMORY = "spark.pegsearch.task.memory"
_SIZE = re.compile(r"\s*(\d+)\s*([kmgt]?)b?\s*", re.IGNORECASE)


def spark_bytes(text: str, setting: str) -> int:
    """A Spark memory size ('512m', '8g', '2048': MiB when bare) as bytes; one line if it is not."""
    match = _SIZE.fullmatch(str(text))
    if not match:
        raise UsageError(f"{setting}={text}: not a size; write it like 512m or 8g")
    scale = {"": 1 << 20, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[match[2].lower()]
    return int(match[1]) * scale


def task_memory(conf: dict[str, str], local_cores: int | None) -> int:
    """The bytes one task may hold, from the session's settings (`local_cores`: N of local[N],
    None on a cluster)."""
    if TASK_MEMORY in conf:
        return spark_bytes(conf[TASK_MEMORY], TASK_MEMORY)
    key = "spark.executor.pyspark.memory" if "spark.executor.pyspark.memory" in conf else (
        "spark.driver.memory" if local_cores else "spark.executor.memory")
    if local_cores and key not in conf:
        # On one machine with nothing said, the local engine's budget: its tasks' Python workers
        # live outside the JVM, so the JVM's default 1g says nothing of what they may hold.
        return default_budget() // local_cores
    memory = spark_bytes(conf.get(key, "1g"), key)
    slots = local_cores or int(conf.get("spark.executor.cores", "1"))
    return memory // max(1, slots)


@dataclass(frozen=True)
class Shuffle:
    """A level's reduce partitions (``2**bits``) and why: what a task may hold and how many
    positions that is."""

    bits: int
    expected: int
    fits: int
    memory: int

    def note(self) -> str:
        return (f"{1 << self.bits} reduce partitions: about {self.expected:,} positions expected, at"
                f" most {self.fits:,} a task in {readable(self.memory)}")


def shuffle_for(level: int, parents: int, expected: int, holes: int, cores: int, memory: int,
                carry: Carry, bitmap_bytes: int = 0) -> Shuffle:
    """The reduce partitions of level `level` (made from `parents`, expected to hold `expected`
    positions) on `cores` task slots whose tasks may hold `memory` bytes each. Never more
    partitions than a board of `holes` holes has signatures (see kernel.reduce.Keyspace). A
    bitmap level's `bitmap_bytes` are shared by its reduce tasks too: at most half a task's
    memory each, beside its positions."""
    fits = max(1, memory // (REDUCE_FACTOR * 8 * (3 if carry else 1)))
    wanted = max(min(cores, -(-parents // TASK_ROWS)), -(-expected // fits),
                 -(-bitmap_bytes // max(1, memory // 2)), 1)
    bits = (wanted - 1).bit_length()
    most = min(holes, MAX_SHUFFLE_BITS)
    if bits > most:
        raise UsageError(f"level {level}: about {expected:,} positions need {wanted:,} reduce"
                         f" partitions of at most {fits:,} (a task may hold {readable(memory)}),"
                         f" more than the {1 << most:,} a level may have; give the tasks more"
                         f" memory: spark.executor.memory (over spark.executor.cores), or"
                         f" {TASK_MEMORY}")
    return Shuffle(bits, expected, fits, memory)

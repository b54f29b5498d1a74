"""What a whole search costs on a cluster of nodes (`pegsearch estimate BOARD --nodes N --cores C
--memory M`, cores and memory a node): per level the Spark engine's tasks and passes, its shuffle
bytes, a node's memory and the wall seconds, and what a node lost mid-level costs.

Three parts of unlike certainty:

- **tasks and passes** are the engine's own arithmetic, planned as it will plan them: a level made
  from fewer than `driver_below` parents is made in the driver; any other has a map task a part of
  its parents (the parts the level before was written in), and its reduce partitions or rank
  ranges and passes from spark.sizing and spark.ranges, at the task memory the plan names (the
  settings it prints, `spark.pegsearch.task.memory` among them, make the engine plan exactly so).
  Exact where the levels' positions are (measured levels), as projected elsewhere.
- **shuffle bytes** are modelled: a map task sends each position its parents reach once, and a
  position `k` children reach (k its children over its positions) is reached by a task holding
  1 / T of the parents with chance 1 - exp(-k / T), by RANGED_SENT tasks at most where the
  parents are rank ranges; each sent position costs bytes by its kind and density (varint gaps,
  zstd: GAP_BITS, BLOCK_BYTES), calibrated on Spark's event log of triangle-8's levels
  (SHUFFLE_CHECKED says how far they were off).
- **seconds** are the one-machine estimate's CPU seconds (engines.costs: the local engine's rate),
  Spark's own cost over them (SPARK_COST, measured on `local[2]`), spread over the slots the
  level's tasks can fill, plus each job's fixed cost and the shuffle over an assumed network:
  rough, and never measured on more than one machine (several nodes on this 2-core machine share
  its cores: no speed claim).

Only the Spark engine is priced; mrjob's Hadoop Streaming jobs plan their tasks otherwise.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from math import ceil, exp, log2

from pegsearch.engines.costs import BASE_BYTES, WRITTEN, Estimate, LevelCost
from pegsearch.engines.estimates import expected_after
from pegsearch.engines.local import SMALL_PART
from pegsearch.engines.projection import Shape
from pegsearch.engines.reduce_choice import level_classes
from pegsearch.engines.spark.ranges import Ranges
from pegsearch.engines.spark.sizing import REDUCE_FACTOR, TASK_MEMORY, shuffle_for
from pegsearch.errors import UsageError
from pegsearch.kernel.bitmap import BitmapTables, prefer_bitmap
from pegsearch.kernel.ranks import level_ranks
from pegsearch.store import PART_ROWS, Run
from pegsearch.words import readable

# What a node holds before its executor: a DataNode and a NodeManager, 345 MB resident on the
# 3-node test cluster (cluster/hadoop/README.md).
NODE_DAEMONS = 345 << 20
# The executor's JVM (`spark.executor.memory`): it moves blocks, never positions, so 1 GiB does.
EXECUTOR_JVM = 1 << 30
# A Spark job's fixed cost, however small its level (cluster/spark.md: 0.18-0.4 s on local[2]).
JOB_SECONDS = 0.4
# Spark's seconds over the local engine's for a level made each way (cluster/spark.md, triangle-9's
# levels 10-12 on local[2]: 0.90-0.98 for a bitmap level, 2.5-3.0 for a tables level).
SPARK_COST = {"bitmap": 1.0, "tables": 3.0}
# Bytes a node sends a second (10 Gbit/s): assumed, not measured (every node here is one machine).
NETWORK_BYTES = 1.25e9
# Parents cut in rank ranges (a bitmap level's parts) reach nearby ranks: a position is sent by
# about RANGED_SENT of their map tasks at most, not as many as a random cut's (1.8-1.9 of the 8
# tasks of triangle-9's level 13, bench/range_blocks.py in cluster/spark.md).
RANGED_SENT = 1.9
# What a position a map task sends costs in its block: in a bitmap level's range blocks (varint
# gaps, zstd) log2(1 / density) + GAP_BITS bits, the density the task's positions' share of the
# level's ranks (triangle-8's levels 9-12 on local[2]: 1.1-3.5 bits, -2.1 to -3.1 beyond the log;
# triangle-9's level 12, 0.68 bytes a position made, is 0.64 so); a tables level's BLOCK_BYTES
# (triangle-8's levels 5-8: 0.6-1.5); and BLOCK_HEADER a block, a map task sending one a
# partition. Over triangle-8's levels 3-12 on local[2] the model gave 0.6-1.6 times the bytes
# Spark's event log counted (0.9-1.4 times over its bitmap levels 9-12):
GAP_BITS = -2.4
BLOCK_BYTES = 1.0
BLOCK_HEADER = 100
SHUFFLE_CHECKED = "0.6-1.6 times Spark's own count over triangle-8's levels 3-12"
# How long the driver takes to give up on a node that stops answering (`spark.network.timeout`,
# 120 s by default); a node killed outright is seen at once (its connections drop).
LOST_SECONDS = 120.0


@dataclass(frozen=True)
class ClusterLevel:
    level: int
    pegs: int
    states: int
    made: str  # "driver" (the local engine in the driver), "bitmap" or "tables" (a Spark job)
    map_tasks: int
    reduce_tasks: int
    passes: int
    shuffle_bytes: int
    node_memory: int  # the most one node holds while the level runs
    seconds: float


@dataclass(frozen=True)
class ClusterEstimate:
    board: str
    start: list[int]
    nodes: int
    cores: int  # a node's
    memory: int  # a node's
    task_memory: int
    driver_below: int
    levels: list[ClusterLevel]

    @property
    def seconds(self) -> float:
        return sum(level.seconds for level in self.levels)

    @property
    def shuffle_bytes(self) -> int:
        return sum(level.shuffle_bytes for level in self.levels)

    @property
    def peak_node_memory(self) -> int:
        return max(level.node_memory for level in self.levels)

    @property
    def settings(self) -> dict[str, str]:
        """The Spark settings under which the engine plans the levels as this estimate does."""
        return {"spark.executor.instances": str(self.nodes), "spark.executor.cores": str(self.cores),
                "spark.executor.memory": f"{EXECUTOR_JVM >> 20}m",
                TASK_MEMORY: f"{self.task_memory >> 20}m"}

    @property
    def lost_node_seconds(self) -> float:
        """What a node lost in the dearest level costs at most: the driver's wait for a node that
        stopped answering, and its share of one pass made again on the other nodes (each pass is
        a job whose parts are committed, so an earlier pass's work is kept)."""
        dearest = max(self.levels, key=lambda level: level.seconds / level.passes)
        if self.nodes == 1 or dearest.made == "driver":
            return LOST_SECONDS
        return LOST_SECONDS + dearest.seconds / dearest.passes / (self.nodes - 1)

    def document(self) -> dict:
        return {**asdict(self), "seconds": round(self.seconds, 3), "shuffle_bytes": self.shuffle_bytes,
                "peak_node_memory": self.peak_node_memory, "settings": self.settings,
                "lost_node_seconds": round(self.lost_node_seconds, 1)}


def cluster_task_memory(nodes: int, cores: int, memory: int) -> int:
    """What one task may hold on a node of `cores` cores and `memory` bytes: what its daemons, its
    executor's JVM and a Python worker a core (interpreter, kernels, pyarrow) leave, a core's share.
    One line if the cluster has no node or that leaves a task too little."""
    if nodes < 1:
        raise UsageError(f"--nodes {nodes}: give the cluster's nodes, 1 or more")
    left = memory - NODE_DAEMONS - EXECUTOR_JVM - cores * BASE_BYTES
    if left < cores << 26:  # under 64 MiB a task
        raise UsageError(f"--memory {readable(memory)} a node leaves its {cores} tasks"
                         f" {readable(max(0, left))} beside the node's daemons"
                         f" ({readable(NODE_DAEMONS)}), the executor ({readable(EXECUTOR_JVM)}) and"
                         f" a Python worker a core ({readable(BASE_BYTES)}): give each node more"
                         " --memory or fewer --cores")
    return left // cores


@dataclass(frozen=True)
class LevelPlan:
    """How the Spark engine will make a level: in the driver or as a job of `kind` ("bitmap" or
    "tables"), its map and reduce tasks, its passes (a job each), and what a task holds at most."""

    level: int
    made: str
    map_tasks: int
    reduce_tasks: int
    passes: int
    held: int
    ranged: bool = False  # its parents' parts are rank ranges (the level before was a bitmap)


def spark_plan(run: Run, counts: list[int], slots: int, cores: int, task: int,
               driver_below: int) -> list[LevelPlan]:
    """The Spark engine's plan of a search of `run`'s board and start whose levels hold `counts`
    positions, on `slots` task slots whose tasks may hold `task` bytes, the driver on `cores`
    cores: each level planned as the engine will, from the guess it will make of its positions
    (engines.estimates.expected_after) and the parts the level before it was written in."""
    shape = Shape.of(run.spec)
    basis, home = level_classes(run)
    plans, parts, ranged = [LevelPlan(0, "driver", 0, 0, 1, 0)], 1, False
    for level in range(1, len(counts)):
        parents, pegs = counts[level - 1], shape.start_pegs - level
        if parents < driver_below:
            plans.append(LevelPlan(level, "driver", 0, 0, 1, 0))
            parts, ranged = _local_parts(counts[level], cores), False
            continue
        expected = expected_after(counts[:level], len(run.board.jumps))
        ranks = shape.ranks(pegs)
        bitmap = not run.carry and prefer_bitmap(expected, ranks)
        shuffle = shuffle_for(level, parents, expected, run.board.holes, slots, task, run.carry,
                              ranks // 8 if bitmap else 0)
        if bitmap:
            ranges = Ranges.plan(level_ranks(run.board.holes, basis, pegs, home), 1 << shuffle.bits,
                                 shuffle.memory)
            range_bytes = BitmapTables.partition_bytes(ranges.space) * ranges.slices
            plan = LevelPlan(level, "bitmap", parts, ranges.partitions, ranges.passes,
                             range_bytes * min(ranges.per_pass, ranges.partitions), ranged)
        else:
            reduce_tasks = 1 << shuffle.bits
            plan = LevelPlan(level, "tables", parts, reduce_tasks, 1, -(-expected // reduce_tasks)
                             * REDUCE_FACTOR * 8 * (3 if run.carry else 1), ranged)
        plans.append(plan)
        parts = min(plan.reduce_tasks, counts[level])  # a part a partition that took a position
        ranged = bitmap
    return plans


def cluster_estimate(run: Run, found: Estimate, nodes: int, cores: int, memory: int,
                     driver_below: int) -> ClusterEstimate:
    """The Spark engine's plan and costs for the search `found` estimates (of `run`'s board and
    start, on one node of `cores` cores and `memory` bytes) on `nodes` such nodes."""
    task = cluster_task_memory(nodes, cores, memory)
    counts = [cost.states for cost in found.levels]
    plans = spark_plan(run, counts, nodes * cores, cores, task, driver_below)
    shape = Shape.of(run.spec)
    levels = [_priced(shape, plan, cost, counts, nodes, cores)
              for plan, cost in zip(plans, found.levels, strict=True)]
    return ClusterEstimate(found.board, found.start, nodes, cores, memory, task, driver_below, levels)


def _priced(shape: Shape, plan: LevelPlan, cost: LevelCost, counts: list[int], nodes: int,
            cores: int) -> ClusterLevel:
    """A planned level's shuffle, a node's memory and its seconds on the cluster."""
    if plan.made == "driver":
        return ClusterLevel(cost.level, cost.pegs, cost.states, "driver", 0, 0, cost.passes, 0,
                            cost.memory_bytes, cost.seconds)
    children = shape.children(cost.pegs + 1, counts[cost.level - 1])
    shuffled = shuffle_bytes(shape, plan, counts)
    # The one-machine CPU seconds, made again for Spark's passes, at Spark's cost over them.
    mapped, written = children * plan.passes, WRITTEN * cost.states
    cpu = cost.cpu_seconds * (mapped + written) / max(1.0, children * cost.passes + written)
    cpu *= SPARK_COST[plan.made]
    map_share = mapped / max(1.0, mapped + written)
    slots = nodes * cores
    seconds = (JOB_SECONDS * plan.passes + cpu * map_share / min(slots, plan.map_tasks)
               + cpu * (1 - map_share) / min(slots, plan.reduce_tasks)
               + shuffled * (nodes - 1) / nodes / (nodes * NETWORK_BYTES))
    node_memory = NODE_DAEMONS + EXECUTOR_JVM + cores * (BASE_BYTES + plan.held)
    return ClusterLevel(cost.level, cost.pegs, cost.states, plan.made, plan.map_tasks,
                        plan.reduce_tasks, plan.passes, shuffled, node_memory, round(seconds, 3))


def shuffle_bytes(shape: Shape, plan: LevelPlan, counts: list[int]) -> int:
    """The bytes a planned Spark level's map tasks send (see the module notes): each position its
    parents reach, once over all its passes (a pass sends only its own ranges' blocks)."""
    if plan.made == "driver":
        return 0
    states = counts[plan.level]
    children = shape.children(shape.start_pegs - plan.level + 1, counts[plan.level - 1])
    sent = plan.map_tasks * (1 - exp(-children / max(1, states) / plan.map_tasks))
    if plan.ranged:
        sent = min(sent, RANGED_SENT)
    density = sent / plan.map_tasks * states / shape.ranks(shape.start_pegs - plan.level)
    blocks = plan.map_tasks * plan.reduce_tasks * BLOCK_HEADER
    return blocks + int(sent * states * _sent_bytes(plan.made == "bitmap", density))


def _sent_bytes(bitmap: bool, density: float) -> float:
    """What a position a map task sends costs in its blocks, its positions `density` of the
    level's ranks (see GAP_BITS)."""
    if not bitmap:
        return BLOCK_BYTES
    return max(1.0, log2(1 / max(density, 1e-12)) + GAP_BITS) / 8


def _local_parts(states: int, cores: int) -> int:
    """The parts the local engine writes a level of `states` positions in, in one pass on `cores`
    threads (the driver's): one if small, else a core each or PART_ROWS each (LocalEngine._write)."""
    return 1 if states < SMALL_PART else max(cores, ceil(states / PART_ROWS))

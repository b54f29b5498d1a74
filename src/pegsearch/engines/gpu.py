"""The GPU engine: the local engine, with each bitmap level's children set on an NVIDIA GPU.

A bitmap level is one random bit set a child in a bitmap of GiBs: bound by memory, which a GPU has
ten to twenty times faster than a CPU's. Here the level's bitmap (or a pass's range of its ranks)
lives in the GPU's memory; the parents are read and decoded on the host's cores as on the local
engine, sent to the GPU a chunk at a time, and the kernel (kernel.cuda_bitmap) sets their
children's bits. The bitmap comes back a slice at a time, and the local engine's own drain turns
it into sorted part files on every core: the same parts, digests and manifest as a local run.

Levels whose positions are held in hash tables stay on the CPU, as the local engine makes them:
levels too small or too sparse for a bitmap, and every level of a run carrying path counts or
fewest moves (a value a position). Each level's record names the device that made it. A level
whose bitmap outgrows `--gpu-memory` is made in passes over its parents, each a checkpoint, as the
local engine's passes; one that finds the GPU's memory short halves its passes' width.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from importlib.util import find_spec

import numpy as np

from pegsearch.engines import LevelProgress, no_progress
from pegsearch.engines.local import CORES_A_READER, LevelPlan, LocalEngine, prefetched, reported
from pegsearch.errors import InputError, UsageError, one_line
from pegsearch.kernel.bitmap import BitmapTables
from pegsearch.sizes import parse_size
from pegsearch.store import LevelWriter, Run
from pegsearch.words import readable

# The share of the GPU's free memory a run takes when --gpu-memory is not given.
GPU_SHARE = 0.9
# The memory the simulator says it has is infinite: a bound to plan passes by instead.
SIMULATED_MEMORY = 1 << 30
# Parents sent to the GPU at a time (32 MiB): a kernel's launch is then a few µs in milliseconds.
GPU_CHUNK = 1 << 22
INSTALL = "install it with pip install 'pegsearch[gpu]', or use --engine local"


@dataclass(frozen=True)
class Gpu:
    """The GPU a run uses: its name and memory (free and total bytes; infinite, simulated)."""

    name: str
    free: float
    total: float


def reach_gpu() -> Gpu:
    """The GPU this process can use, or one line saying why there is none: numba-cuda missing,
    no CUDA runtime or driver, or no GPU. numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) is one."""
    from numba.core import config

    if not config.ENABLE_CUDASIM and find_spec("numba_cuda") is None:
        raise UsageError(f"the gpu engine needs the package 'numba-cuda': {INSTALL}")
    try:
        from numba import cuda

        from pegsearch.kernel import cuda_bitmap  # noqa: F401  (compiles nothing until a launch)

        found = cuda.is_available()
    except Exception as exc:  # numba-cuda raises its own errors where a CUDA library is missing
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise UsageError(f"the gpu engine found no CUDA runtime ({one_line(first)[:200]}): install"
                         " the CUDA toolkit or numba-cuda[cu12], or use --engine local") from None
    if not found:
        raise UsageError("the gpu engine found no NVIDIA GPU or driver (`nvidia-smi` lists none here):"
                         " run it where one is, or use --engine local")
    if config.ENABLE_CUDASIM:
        return Gpu("simulator", math.inf, math.inf)
    context = cuda.current_context()
    free, total = context.get_memory_info()
    name = context.device.name
    return Gpu(name.decode() if isinstance(name, bytes) else str(name), free, total)


def gpu_budget(given: str | int | None, gpu: Gpu) -> int:
    """The device bytes a run may take: `given` (a size as written, or bytes: tests force passes),
    at most the GPU's; by default GPU_SHARE of its free memory."""
    if given is None:
        return int(gpu.free * GPU_SHARE) if math.isfinite(gpu.free) else SIMULATED_MEMORY
    if isinstance(given, int):
        return given
    size = parse_size(given, here=False, field="gpu_memory")
    if size > gpu.total:
        raise InputError("{gpu_memory} {text}: more than this GPU's {has:.1f} GiB; give at most {most}G",
                         text=given, has=gpu.total / 2**30, most=int(gpu.total) >> 30)
    return size


class GpuEngine(LocalEngine):
    """The local engine with its bitmap levels' children set on a GPU (numba-cuda)."""

    name = "gpu"

    def __init__(self, memory: str | int | None = None, chunk: int | None = None,
                 reduce: str = "auto", gpu_memory: str | int | None = None) -> None:
        """`memory` bounds the host's share (parents read, parts written) as on the local engine,
        `gpu_memory` the GPU's (its bitmap, a chunk of parents, the tables); `chunk`: parents
        sent to the GPU at a time."""
        self.gpu = reach_gpu()
        super().__init__(memory, chunk, reduce)
        self.gpu_budget = gpu_budget(gpu_memory, self.gpu)
        self._board: tuple[object, object] | None = None  # (the run's tables, their device copy)
        self._bits = None  # the device bitmap, kept from pass to pass and level to level

    def options(self) -> dict:
        return {**super().options(), "gpu_memory": self.gpu_budget, "gpu": self.gpu.name}

    def next_level(self, run: Run, level: int, writer: LevelWriter,
                   report: LevelProgress = no_progress) -> None:
        plan = self.plan(run, level)
        if plan.ranks is None:  # tables (the reduce note says why): the local engine's step,
            # recorded as the local engine's, so `estimate` times it as one
            writer.notes.update(engine=LocalEngine.name, device="cpu")
            super().next_level(run, level, writer, report)
            return
        from numba import cuda

        from pegsearch.kernel.cuda_bitmap import DeviceRanks, DeviceTables, set_bits

        tables = run.tables()
        if self._board is None or self._board[0] is not tables:
            self._board = (tables, DeviceTables.of(tables))
        board, ranks = self._board[1], DeviceRanks.of(plan.ranks)
        parents, parts, each = run.levels[level]["states"], plan.partitions, plan.partition_bytes
        lo, written = writer.resume_at(plan.cut), writer.parts
        writer.notes.update(reduce=plan.note, device=self.gpu.name)
        chunk = self.chunk or GPU_CHUNK
        room = self.gpu_budget - board.nbytes - ranks.nbytes - 8 * chunk
        width = max(1, room // each)
        clock: Counter[str] = Counter()  # seconds by step: copies, kernel, parts
        children = cuda.to_device(np.zeros(1, dtype=np.int64))
        passes = 0
        with ThreadPoolExecutor(self.workers) as pool:
            while lo < parts:
                bits, width = self._bitmap(min(width, parts - lo), each // 8, level)
                base = lo << plan.space.rbits
                # Several readers, as on the local engine: one decodes parents for about 8 cores.
                readers = 1 + self.workers // CORES_A_READER
                chunks = reported(prefetched(*(run.iter_level(level, chunk, share=(r, readers))
                                               for r in range(readers))),
                                  passes * parents, (passes + 1) * parents, report)
                with closing(chunks):  # the readers stopped now, not when the generator is freed
                    for keys, _ in chunks:
                        began = time.perf_counter()
                        on_gpu = cuda.to_device(keys)
                        copied = time.perf_counter()
                        set_bits(board, ranks, on_gpu, base, bits, children)
                        cuda.synchronize()
                        clock["copies"] += copied - began
                        clock["kernel"] += time.perf_counter() - copied
                written = self._drain(bits, plan, lo, width, writer, written, pool, clock)
                lo += width
                passes += 1
                self.passes += 1
                if lo < parts:  # a checkpoint, as on the local engine
                    writer.commit_pass(lo, writer.passes_done + 1 + -(-(parts - lo) // width), plan.cut)
        writer.notes["passes"] = writer.passes_done + 1
        writer.notes["children"] = int(children.copy_to_host()[0])  # made, over every pass
        for step, seconds in clock.items():
            writer.notes[f"gpu_{step}_seconds"] = round(seconds, 3)

    def _bitmap(self, width: int, words_each: int, level: int) -> tuple[object, int]:
        """A zeroed device bitmap of `width` partitions (the one kept, when large enough), and
        the width it holds: halved while the GPU's memory is short, down to one partition."""
        from pegsearch.kernel.cuda_bitmap import clear, zeros

        while True:
            words = width * words_each
            try:
                if self._bits is None or len(self._bits) < words:
                    self._bits = None  # freed before the larger one is asked for
                    self._bits = zeros(words)
                    return self._bits, width
                bits = self._bits[:words]
                clear(bits)
                return bits, width
            except Exception as exc:
                if "OUT_OF_MEMORY" not in str(exc).upper():
                    raise
                if width == 1:
                    raise UsageError(f"level {level + 1}: the GPU has no room for one partition's"
                                     f" {readable(8 * words)}; continue the run with --resume and a"
                                     " smaller --gpu-memory, or --engine local") from None
                width //= 2

    def _drain(self, bits: object, plan: LevelPlan, lo: int, width: int, writer: LevelWriter,
               written: int, pool: ThreadPoolExecutor, clock: Counter[str]) -> int:
        """Bring a pass's bitmap back a slice (at most the host's budget) at a time and write its
        positions as the local engine does; returns the next part's number."""
        words_each = plan.partition_bytes // 8
        most = max(1, self.budget // plan.partition_bytes)
        for first in range(0, width, most):
            last = min(width, first + most)
            began = time.perf_counter()
            held = BitmapTables(plan.space, lo + first, last - first, plan.ranks, memory=self.scratch.take)
            bits[first * words_each:last * words_each].copy_to_host(held.bits)
            copied = time.perf_counter()
            held.recount()
            written = self._write(held, writer, written, pool)
            clock["copies"] += copied - began
            clock["parts"] += time.perf_counter() - copied
        return written

"""What a search's bitmap levels will cost on the GPU engine (`pegsearch estimate --gpu`).

Two parts, of unlike certainty. The passes are arithmetic: a bitmap level takes as many passes
over its parents as its bitmap's bytes (a bit a rank of its class) exceed the GPU's share
(`--gpu-memory`; by default 90 % of an 80 GB H100's 81,559 MiB). The seconds come from a GPU run's
own levels, priced as the CPU estimate prices a level (engines.costs.units: its parents' children
once a pass, its positions written) at the wall seconds a unit the GPU run's largest levels took,
its host's reading and writing included. No GPU has run the engine yet (docs/performance.md, The
GPU engine), so there is no measured default: without a GPU run the seconds are said unmeasured,
never guessed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from math import ceil

from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.costs import TIMED_LEVELS, Estimate, units
from pegsearch.engines.gpu import GPU_CHUNK
from pegsearch.engines.projection import SIZABLE, Shape
from pegsearch.errors import UsageError
from pegsearch.sizes import parse_size
from pegsearch.store import MANIFEST, Location, Run

# The GPU's share a run takes by default (engines.gpu.GPU_SHARE) of an H100's memory as nvidia-smi
# reports it (81,559 MiB on the device machine here, 2026-11-13).
DEFAULT_GPU_MEMORY = int(0.9 * 81_559 * 2**20)
UNMEASURED = ("unmeasured: no GPU run to calibrate from and none measured to ship (bench/gpu.sh"
              " makes one on an H100 or H200: give it as --gpu GPU-RUN)")


@dataclass(frozen=True)
class GpuLevel:
    level: int
    bitmap_bytes: int
    passes: int
    seconds: float | None  # None: unmeasured


@dataclass(frozen=True)
class GpuEstimate:
    gpu_memory: int
    calibration: str  # where the seconds come from, or that they are unmeasured
    us_a_unit: float | None  # wall µs a unit of work (engines.costs.units) on the calibrating GPU
    levels: list[GpuLevel]

    @property
    def seconds(self) -> float | None:
        """The bitmap levels' seconds on the GPU, None when unmeasured."""
        if self.us_a_unit is None:
            return None
        return sum(level.seconds or 0.0 for level in self.levels)

    def document(self) -> dict:
        return {**asdict(self), "seconds": self.seconds}


def gpu_estimate(found: Estimate, target: str, gpu_run: str, gpu_memory: str | int | None) -> GpuEstimate:
    """The GPU engine's passes and seconds for the bitmap levels of `found`, the estimate of
    `target` (a run or a board); the seconds are calibrated on `gpu_run`'s levels a GPU made (a
    run, or "": `target`'s own), the GPU's other searches' speed applying to this one as the CPU
    estimate's does; `gpu_memory` as written on the command line, or bytes (tests force passes)."""
    budget = gpu_memory if isinstance(gpu_memory, int) else DEFAULT_GPU_MEMORY if gpu_memory is None \
        else parse_size(gpu_memory, False, "gpu_memory")
    estimated, run = _run(target), _run(gpu_run or target)
    shape = Shape.of(estimated.spec if estimated else SearchSpec.asked(load_board(target), None, "board",
                                                                        False, False))
    timed = [r for r in (run.levels[1:] if run else []) if r.get("device", "cpu") != "cpu"
             and r["states"] >= SIZABLE and r["seconds"] > 0][-TIMED_LEVELS:]
    rate, calibration = None, UNMEASURED
    if gpu_run and run is None:
        raise UsageError(f"--gpu {gpu_run}: no run there to calibrate the GPU's seconds from")
    if timed:
        own = Shape.of(run.spec)
        cost = sum(units(own, r["pegs"], run.levels[r["level"] - 1]["states"], r.get("passes", 1),
                         r["states"]) for r in timed)
        rate = sum(r["seconds"] for r in timed) / cost * 1e6
        calibration = (f"measured on {timed[-1]['device']}: levels"
                       f" {', '.join(str(r['level']) for r in timed)} of {run.uri},"
                       f" {rate * 1e3:.3f} wall ns a unit, host included")
    levels = []
    for cost in found.levels:
        if cost.reduce != "bitmap" or not cost.level:
            continue
        bitmap = shape.ranks(cost.pegs) // 8
        passes = max(1, ceil(bitmap / max(1, budget - 8 * GPU_CHUNK)))  # less a chunk of parents
        parents = found.levels[cost.level - 1].states
        seconds = None if rate is None else round(rate * units(shape, cost.pegs, parents, passes,
                                                               cost.states) / 1e6, 3)
        levels.append(GpuLevel(cost.level, bitmap, passes, seconds))
    return GpuEstimate(budget, calibration, rate, levels)


def _run(where: str) -> Run | None:
    """The run at `where`, or None where there is none (a board's name)."""
    return Run.open(where) if Location.parse(where).is_file(MANIFEST) else None

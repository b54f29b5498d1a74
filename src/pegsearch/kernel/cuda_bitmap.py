"""A bitmap level's map and reduce on an NVIDIA GPU: the CPU's one-step kernel, a CUDA thread a parent.

The CPU makes a bitmap level in one step (kernel.expand.expand_into_bits): each parent's images
once, its legal jumps 64 at a time, each child's signature (its least image) and rank
(kernel.ranks), and the child's bit set in the level's bitmap. Here the bitmap (or a pass's range
of it) lives in the GPU's memory and every thread does that for the parents it takes, setting bits
by an atomic OR: one random word of GiBs a child, a memory-bound step that the GPU's bandwidth and
tens of thousands of threads in flight suit.

One source for both: a parent's images (`parent_images`) and a word of its jumps' children ranked
(`ranked_children`) are CPU functions in kernel.expand, made of the CPU kernel's own, and
numba-cuda compiles a CPU function a kernel calls as a device function; the kernel sets the bits
by CUDA's atomic OR. Those two are calls rather than inlined, and use no intrinsic (numba-cuda 0.30
inlines a callee with its caller's module's names, and cannot type numba's intrinsics: the CPU
kernel's count of trailing zeros, its vector minimum and its atomic OR); no prefetch, as the GPU
hides a miss with other threads.

Under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, how the tests run without a GPU) a kernel is
Python and its arrays are wrappers: the two CPU functions are then called compiled, for the CPU, on the
arrays they wrap (`_on_device`), so the simulated kernel sets the same bits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np
from numba import cuda
from numba.core import config

from pegsearch.kernel.expand import parent_images, ranked_children
from pegsearch.kernel.ranks import LevelRanks
from pegsearch.kernel.tables import ROW, BoardTables

# numpy 2.5 removed np.row_stack (an alias of np.vstack since 2.0), which numba-cuda 0.30 still
# overloads as it loads its CUDA target at a kernel's first compile: on an H200 with numpy 2.5.2
# every GPU level failed with "module 'numpy' has no attribute 'row_stack'" (2026-12-04). The alias
# back, where it is gone, lets numba-cuda load; nothing else of numpy is touched.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

# The most images a position has: a kernel's scratch row is a constant size, and the largest group
# (a hexagon's 12 symmetries) is padded to 16 (kernel.tables.padded).
MOST_IMAGES = 2 * ROW
# Threads a block, and blocks a multiprocessor kept in flight: enough warps to hide the misses.
THREADS = 256
BLOCKS_AN_SM = 32
# The simulator runs a block's threads as Python threads, started anew at every launch: a few.
SIMULATED_THREADS = 4
_SIX = np.uint64(6)
_LOW_SIX = np.uint64(63)
_ONE = np.uint64(1)


def simulated() -> bool:
    """Whether CUDA kernels run in numba's simulator (NUMBA_ENABLE_CUDASIM=1) rather than on a GPU."""
    return bool(config.ENABLE_CUDASIM)


def _on_device(function: Callable) -> Callable:
    """`function` as a kernel calls it: itself on a GPU; under the simulator, the compiled CPU
    function on the arrays the simulator's wrappers hold (numba cannot type the wrappers)."""
    if not simulated():
        return function

    def call(*args: object) -> object:
        return function(*(arg._item._ary if hasattr(arg, "_item") else arg for arg in args))

    return call


_images_of = _on_device(parent_images)
_ranked = _on_device(ranked_children)


@cuda.jit(cache=True)  # compiled once a machine, not in every process's first GPU level
def _set_bits(parents, need, flip, flip_images, byte_images, counts, targets, shifts, masks,
              low_ranks, top, base, span, bits, children):
    """Each thread takes every `gridsize`-th parent: its images once, then a word of jumps at a
    time the ranks of its children in the bitmap's range, each bit set by an atomic OR; at the
    end it adds the children it made to children[0] (one atomic add a thread: the bytes a child
    moves are what the kernel's speed is measured against)."""
    images = cuda.local.array(MOST_IMAGES, numba.uint64)
    ranks = cuda.local.array(64, numba.uint64)
    made = 0
    for i in range(cuda.grid(1), parents.shape[0], cuda.gridsize(1)):
        p = parents[i]
        _images_of(p, byte_images, images)
        for word in range(need.shape[0] // 64):
            kept, count = _ranked(p, word, need, flip, flip_images, images, counts, targets, shifts,
                                  masks, low_ranks, top, base, span, ranks)
            made += count
            for k in range(kept):
                at = ranks[k]
                cuda.atomic.or_(bits, np.int64(at >> _SIX), _ONE << (at & _LOW_SIX))
    cuda.atomic.add(children, 0, made)


@cuda.jit(cache=True)
def _clear(words):
    """Zero a bitmap on the device (a pass's bitmap is reused from pass to pass)."""
    for i in range(cuda.grid(1), words.shape[0], cuda.gridsize(1)):
        words[i] = 0


@dataclass(frozen=True)
class DeviceTables:
    """A board's jump and symmetry tables in the GPU's memory, sent once a run."""

    need: object
    flip: object
    flip_images: object
    byte_images: object

    @classmethod
    def of(cls, tables: BoardTables) -> DeviceTables:
        if tables.byte_images.shape[2] > MOST_IMAGES:
            raise ValueError(f"a GPU kernel takes at most {MOST_IMAGES} images a position, not"
                             f" {tables.byte_images.shape[2]}")
        need, flip = tables.jump_words
        return cls(cuda.to_device(need), cuda.to_device(flip), cuda.to_device(tables.flip_images),
                   cuda.to_device(tables.byte_images))

    @property
    def nbytes(self) -> int:
        return sum(array.nbytes for array in (self.need, self.flip, self.flip_images, self.byte_images))


@dataclass(frozen=True)
class DeviceRanks:
    """A level's rank tables in the GPU's memory (LevelRanks.args), sent once a level."""

    arrays: tuple
    top: np.uint64

    @classmethod
    def of(cls, ranks: LevelRanks) -> DeviceRanks:
        counts, targets, shifts, masks, low_ranks, top = ranks.args
        # An empty array has no device memory to point at: one word stands in (never read, as a
        # one-chunk rank reads no targets).
        targets = targets if len(targets) else np.zeros(1, dtype=np.int64)
        return cls(tuple(cuda.to_device(np.ascontiguousarray(array))
                         for array in (counts, targets, shifts, masks, low_ranks)), top)

    @property
    def nbytes(self) -> int:
        return sum(array.nbytes for array in self.arrays)


def launch(items: int) -> tuple[int, int]:
    """Blocks and threads a block for a kernel over `items`: a thread an item, grid-stride past
    what the GPU keeps in flight; in the simulator, one block of a few threads."""
    if simulated():
        return 1, SIMULATED_THREADS
    most = cuda.get_current_device().MULTIPROCESSOR_COUNT * BLOCKS_AN_SM
    return max(1, min(most, -(-items // THREADS))), THREADS


def zeros(words: int) -> object:
    """A zeroed device array of `words` 64-bit words."""
    bits = cuda.device_array(words, dtype=np.uint64)
    clear(bits)
    return bits


def clear(bits: object) -> None:
    """Zero a device bitmap."""
    _clear[launch(len(bits))](bits)


def set_bits(board: DeviceTables, ranks: DeviceRanks, parents: object, base: int, bits: object,
             children: object) -> None:
    """Set the bits of the ranks of the children of `parents` (a device array) in `bits`, a
    device bitmap of the ranks from `base` on; children ranked outside it are dropped, and every
    child is counted into children[0] (a device array of one int64). Returns once the kernel is
    queued (`cuda.synchronize` waits for it)."""
    counts, targets, shifts, masks, low_ranks = ranks.arrays
    _set_bits[launch(len(parents))](
        parents, board.need, board.flip, board.flip_images, board.byte_images, counts, targets,
        shifts, masks, low_ranks, ranks.top, np.uint64(base), np.uint64(64 * len(bits)), bits,
        children)

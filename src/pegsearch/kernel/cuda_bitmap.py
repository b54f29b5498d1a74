"""A bitmap level's map and reduce on an NVIDIA GPU: the CPU's one-step kernel, a CUDA thread a parent.

The CPU makes a bitmap level in one step (kernel.expand.expand_into_bits): each parent's images
once, its legal jumps 64 at a time, each child's signature (its least image) and rank
(kernel.ranks), and the child's bit set in the level's bitmap. Here the bitmap (or a pass's range
of it) lives in the GPU's memory and every thread does that for the parents it takes, setting bits
by an atomic OR: one random word of GiBs a child, a memory-bound step that the GPU's bandwidth and
tens of thousands of threads in flight suit.

One source for both: a parent's step (`set_children_bits`) is a CPU function made of the CPU
kernel's own (kernel.expand, kernel.ranks, kernel.atomic), and numba-cuda compiles a CPU function
that a kernel calls as a device function. Two choices differ from the CPU's loop: a child's least
image is the plain loop (`_least_and_frame`), as the CPU's vector intrinsic (kernel.lanes) has no
GPU lowering; and no prefetch, as the GPU hides a miss with other threads.

Under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, how the tests run without a GPU) a kernel is
Python and its arrays are wrappers: the parent's step is then called compiled, for the CPU, on the
arrays they wrap (`_on_device`), so the simulated kernel sets the same bits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np
from numba import cuda
from numba.core import config

from pegsearch.kernel.atomic import atomic_or
from pegsearch.kernel.expand import _images, _least_and_frame, _legal_pair, _next_jump
from pegsearch.kernel.ranks import LOW_MASK, LevelRanks, rank_chunks
from pegsearch.kernel.tables import ROW, BoardTables

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


@numba.njit(cache=True, nogil=True)
def set_children_bits(p, need, flip, flip_images, byte_images, counts, targets, shifts, masks,
                      low_ranks, top, base, span, images, bits):
    """Set the bit of each child of position p whose rank r is in ``[base, base + span)``, bit
    ``r - base`` of `bits`, atomically (threads share the bitmap); returns how many children p
    has. `images` is the caller's scratch row; the rank tables are LevelRanks.args, as the CPU
    kernel takes them."""
    made = 0
    _images(p, byte_images, images)
    one_chunk = shifts.shape[0] == 1
    for pair in range(-(-need.shape[0] // 128)):
        low, high, legal = _legal_pair(p, need, flip, pair)
        made += legal
        for _ in range(legal):
            jump, low, high = _next_jump(low, high, pair)
            key = _least_and_frame(images, flip_images, jump)[0]
            if one_chunk:
                rank = counts[key >> top] + low_ranks[key & LOW_MASK]
            else:
                rank = rank_chunks(key, counts, targets, shifts, masks, low_ranks)
            if rank >= base and rank - base < span:
                at = rank - base
                atomic_or(bits, at >> _SIX, _ONE << (at & _LOW_SIX))
    return made


def _on_device(function: Callable) -> Callable:
    """`function` as a kernel calls it: itself on a GPU; under the simulator, the compiled CPU
    function on the arrays the simulator's wrappers hold (numba cannot type the wrappers)."""
    if not simulated():
        return function

    def call(*args: object) -> object:
        return function(*(arg._item._ary if hasattr(arg, "_item") else arg for arg in args))

    return call


_step = _on_device(set_children_bits)


@cuda.jit
def _set_bits(parents, need, flip, flip_images, byte_images, counts, targets, shifts, masks,
              low_ranks, top, base, span, bits, children):
    """Each thread takes every `gridsize`-th parent and sets its children's bits, then adds the
    children it made to children[0] (one atomic add a thread: the bytes a child moves are what
    the kernel's speed is measured against)."""
    images = cuda.local.array(MOST_IMAGES, numba.uint64)
    made = 0
    for i in range(cuda.grid(1), parents.shape[0], cuda.gridsize(1)):
        made += _step(parents[i], need, flip, flip_images, byte_images, counts, targets, shifts,
                      masks, low_ranks, top, base, span, images, bits)
    cuda.atomic.add(children, 0, made)


@cuda.jit
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

"""The map kernel: every child of a batch of positions, keyed by its signature.

This is the one piece of search logic every engine runs (in process, in a Spark Python worker, in an
mrjob mapper), so engines can differ only in how they move positions, never in what a level holds.
The loops are compiled with numba and spread over the cores; arrays go in and arrays come out, with
no Python object per position.
"""

from __future__ import annotations

from collections.abc import Iterable

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from pegsearch.kernel.atomic import atomic_or
from pegsearch.kernel.bitmap import BitmapTables
from pegsearch.kernel.lanes import least_of_lanes
from pegsearch.kernel.prefetch import prefetch_to_write
from pegsearch.kernel.ranks import LOW_MASK, LevelRanks, pop_lowest, popcount, rank_all, rank_chunks
from pegsearch.kernel.reduce import Keyspace, code_of, one_table, partition_of
from pegsearch.kernel.tables import ROW, BoardTables
from pegsearch.kernel.threads import WORKERS, slice_start, spread, stream
from pegsearch.kernel.values import Carry

_BYTE = np.uint64(0xFF)
_EIGHT = np.uint64(8)
_SIX = np.uint64(6)
_LOW_SIX = np.uint64(63)
# What the routed kernel gets for a level keyed by signature, not rank (see LevelRanks.args).
NO_RANKS = (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64),
            np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint16), np.uint64(0))


@numba.njit(cache=True, nogil=True, inline="always")
def _fill_images(position, byte_images, images, symmetries):
    """Every image of a position into images[:symmetries]: a table row per byte of the position,
    holding that byte's image under every symmetry side by side (see BoardTables)."""
    for g in range(symmetries):
        images[g] = byte_images[0, position & _BYTE, g]
    rest = position
    for byte in range(1, byte_images.shape[0]):
        rest >>= _EIGHT
        for g in range(symmetries):
            images[g] |= byte_images[byte, rest & _BYTE, g]


@numba.njit(cache=True, nogil=True, inline="always")
def _images(position, byte_images, images):
    """`_fill_images`, its row length a constant where it is ROW (see kernel.tables.ROW)."""
    if byte_images.shape[2] == ROW:
        _fill_images(position, byte_images, images, ROW)
    else:
        _fill_images(position, byte_images, images, byte_images.shape[2])


@numba.njit(cache=True, nogil=True, inline="always")
def _least(images, flip_images, j):
    """The signature of the child jump j makes from a parent whose images are `images`.

    A symmetry is linear over XOR, so the image of child ``p ^ flip[j]`` under g is
    ``image_g(p) ^ image_g(flip[j])``: a parent's images are made once, then every child costs
    one XOR and one comparison per symmetry, a row of ROW at a time in vector instructions
    (kernel.lanes)."""
    symmetries = flip_images.shape[1]
    if symmetries % ROW:  # not in rows: the identity alone (a raw search)
        best = images[0] ^ flip_images[j, 0]
        for g in range(1, symmetries):
            best = min(best, images[g] ^ flip_images[j, g])
        return best
    if symmetries == ROW:  # a constant row length: the row's offset is a shift
        return least_of_lanes(images, 0, flip_images, j * ROW)
    best = least_of_lanes(images, 0, flip_images, j * symmetries)
    for start in range(ROW, symmetries, ROW):
        best = min(best, least_of_lanes(images, start, flip_images, j * symmetries + start))
    return best


@numba.njit(cache=True, nogil=True, inline="always")
def _signature(position, byte_images, images):
    """The least image of a position (`images`: scratch, a row of the board's images)."""
    _images(position, byte_images, images)
    best = images[0]
    for g in range(1, byte_images.shape[2]):
        best = min(best, images[g])
    return best


@numba.njit(cache=True, nogil=True, inline="always")
def _legal(p, need, flip):
    """How many jumps are legal in position p (see `_legal_jumps` for the test)."""
    count = 0
    for j in range(need.shape[0]):
        count += (p & flip[j]) == need[j]
    return count


@numba.njit(cache=True, nogil=True, inline="always")
def legal_word(p, need, flip, word):
    """Bit t set when jump ``64 * word + t`` is legal in position p; 0 past the last word.

    A jump is legal when its three holes read peg, peg, empty: ``p & flip == need``, one AND and
    one comparison. The tables are padded to words of 64 jumps (BoardTables.jump_words), so a
    word's tests are made without a branch, in a few vector instructions."""
    bits = np.uint64(0)
    if word < need.shape[0] // 64:
        base = 64 * word
        for t in range(64):
            bits |= np.uint64((p & flip[base + t]) == need[base + t]) << np.uint64(t)
    return bits


@numba.njit(cache=True, nogil=True, inline="always")
def _legal_pair(p, need, flip, pair):
    """The legal jumps of words ``2 * pair`` and ``2 * pair + 1``, and how many they are: the
    callers read a pair's jumps off in one loop of known length with `_next_jump`, so a parent
    costs one mispredicted loop exit a pair, where a loop a word cost one a word (English has
    76 jumps: two words, one pair)."""
    low = legal_word(p, need, flip, 2 * pair)
    high = legal_word(p, need, flip, 2 * pair + 1)
    return low, high, popcount(low) + popcount(high)


@numba.njit(cache=True, nogil=True, inline="always")
def _next_jump(low, high, pair):
    """The lowest legal jump of a pair of words, and the pair without it, chosen without a
    branch."""
    in_low = low != 0
    word = low if in_low else high
    jump = 128 * pair + np.int64(trailing_zeros(word)) + (0 if in_low else 64)
    rest = word & (word - np.uint64(1))
    return jump, (rest if in_low else low), (high if in_low else rest)


@numba.njit(cache=True, nogil=True, inline="always")
def _legal_jumps(p, need, flip, legal):
    """List position p's legal jumps into `legal`; returns how many."""
    count = 0
    for pair in range(-(-need.shape[0] // 128)):
        low, high, legal_here = _legal_pair(p, need, flip, pair)
        for _ in range(legal_here):
            legal[count], low, high = _next_jump(low, high, pair)
            count += 1
    return count


@numba.njit(cache=True, nogil=True)
def parent_images(p, byte_images, images):
    """Every image of position p into `images`: `_images` as a call, for the GPU kernel
    (kernel.cuda_bitmap). numba-cuda compiles a CPU function a kernel calls as a device function,
    but it inlines one written inline="always" with the names of the caller's module."""
    _images(p, byte_images, images)


@numba.njit(cache=True, nogil=True)
def ranked_children(p, word, need, flip, flip_images, images, counts, targets, shifts, masks, low_ranks,
                    top, base, span, out):
    """The GPU kernel's step (kernel.cuda_bitmap): the children of position p by the jumps of word
    `word` (`legal_word`), each child's rank (LevelRanks.args) less `base` into `out` where it is
    below `base + span`; returns how many were kept and how many made. `images` holds p's images
    (`parent_images`). Written without intrinsics (`pop_lowest` for `_next_jump`'s count of
    trailing zeros, the plain least image for kernel.lanes'), which numba-cuda cannot compile."""
    legal = legal_word(p, need, flip, word)
    made = popcount(legal)
    kept = 0
    while legal:
        offset, legal = pop_lowest(legal)
        key = _least_and_frame(images, flip_images, 64 * word + np.int64(offset))[0]
        if shifts.shape[0] == 1:
            rank = counts[key >> top] + low_ranks[key & LOW_MASK]
        else:
            rank = rank_chunks(key, counts, targets, shifts, masks, low_ranks)
        if rank >= base and rank - base < span:
            out[kept] = rank - base
            kept += 1
    return kept, made


@numba.njit(cache=True, nogil=True, inline="always")
def _children_of(p, need, flip, flip_images, byte_images, images, out, k):
    """Write the signatures of position p's children into out[k:]; returns how many.
    `images` is the caller's scratch array (one per thread). The jumps' loop is written out
    here and in `_expand_into_bits`, not shared through a list of legal jumps: a list written
    and read back cost a quarter more a child."""
    _images(p, byte_images, images)
    made = k
    for pair in range(-(-need.shape[0] // 128)):
        low, high, legal = _legal_pair(p, need, flip, pair)
        for _ in range(legal):
            jump, low, high = _next_jump(low, high, pair)
            out[made] = _least(images, flip_images, jump)
            made += 1
    return made - k


@numba.njit(cache=True, nogil=True, inline="always")
def _moved_children_of(p, value, tables, legal, images, out, moved, k):
    """`_children_of` for a fewest-moves level: also writes each child's value into moved[k:].

    A child costs its parent's moves, plus one unless the jumping peg is one the parent's last
    move may have ended with (`value[0]`, in the parent's frame, which is the jump's frame). Its
    last peg stands on the landing hole, carried into the child's signature's frame by every
    symmetry that makes that signature (several when the signature is symmetric).
    """
    need, flip, flip_images, byte_images, leave, landing_images = tables
    count = _legal_jumps(p, need, flip, legal)
    _images(p, byte_images, images)
    for t in range(count):
        j = legal[t]
        best = images[0] ^ flip_images[j, 0]
        last = landing_images[j, 0]
        for g in range(1, byte_images.shape[2]):
            candidate = images[g] ^ flip_images[j, g]
            if candidate < best:
                best, last = candidate, landing_images[j, g]
            elif candidate == best:
                last |= landing_images[j, g]
        out[k + t] = best
        moved[k + t, 0] = last
        moved[k + t, 1] = value[1] + ((value[0] & leave[j]) == 0)
    return count


@numba.njit(cache=True, nogil=True)
def _children(positions, offsets, need, flip, flip_images, byte_images, out, first, step):
    """The children's signatures of slice `first` of `step` of the positions, in parent order."""
    images = np.empty(byte_images.shape[2], dtype=np.uint64)
    n = positions.shape[0]
    for i in range(slice_start(n, first, step), slice_start(n, first + 1, step)):
        _children_of(positions[i], need, flip, flip_images, byte_images, images, out, offsets[i])


@numba.njit(cache=True, nogil=True)
def _block_fanout(positions, need, flip, size, counts, first, step):
    """Children of slice `first` of `step` of the blocks of `size` parents, into counts[b + 1]."""
    n, blocks = positions.shape[0], counts.shape[0] - 1
    for b in range(slice_start(blocks, first, step), slice_start(blocks, first + 1, step)):
        total = 0
        for i in range(b * size, min(n, (b + 1) * size)):
            total += _legal(positions[i], need, flip)
        counts[b + 1] = total


@numba.njit(cache=True, nogil=True)
def _expand_routed(positions, values, carry, offsets, size, tables, rank_by, space, lo, hi, out,
                   out_values, bounds, most, first, step):
    """Children of slice `first` of `step` of the blocks of parents, grouped by partition.

    Block b's children land in ``out[offsets[b]:offsets[b + 1]]`` as codes (kernel.reduce.Keyspace),
    partition ``lo + q``'s share at ``bounds[b, q]:bounds[b, q + 1]``; children of partitions
    outside ``[lo, hi)`` are dropped.
    A block's children are first made into a scratch array (in cache, `most` long, made once per
    call and reused by its blocks), then counted and placed. A path count is its parent's; a
    fewest-moves value is made with the child (`_moved_children_of`).
    """
    need, flip, flip_images, byte_images = tables[:4]
    n, blocks, width = positions.shape[0], offsets.shape[0] - 1, hi - lo
    counted = values.shape[0] > 0
    moving = carry == Carry.MOVES
    ranked = rank_by[0].shape[0] > 0
    images = np.empty(byte_images.shape[2], dtype=np.uint64)
    legal = np.empty(need.shape[0], dtype=np.int64)
    scratch = np.empty(most, dtype=np.uint64)
    parent = np.empty(most if counted and not moving else 0, dtype=np.int64)
    moved = np.empty((most if moving else 0, 2), dtype=np.uint64)
    cursor = np.empty(width + 1, dtype=np.int64)
    for b in range(slice_start(blocks, first, step), slice_start(blocks, first + 1, step)):
        made = 0
        for i in range(b * size, min(n, (b + 1) * size)):
            if moving:
                count = _moved_children_of(positions[i], values[i], tables, legal, images, scratch,
                                           moved, made)
            else:
                count = _children_of(positions[i], need, flip, flip_images, byte_images, images,
                                     scratch, made)
                if counted:
                    parent[made:made + count] = i
            made += count
        if ranked:  # a bitmap level: children are keyed by their rank
            rank_all(scratch, made, rank_by)
        cursor[:] = 0
        for t in range(made):
            q = partition_of(scratch[t], space) - lo
            if 0 <= q < width:
                cursor[q + 1] += 1
        cursor[0] = offsets[b]
        for q in range(width):
            cursor[q + 1] += cursor[q]
        bounds[b, :] = cursor
        for t in range(made):
            q = partition_of(scratch[t], space) - lo
            if 0 <= q < width:
                out[cursor[q]] = code_of(scratch[t], space)
                if moving:
                    out_values[cursor[q], 0] = moved[t, 0]
                    out_values[cursor[q], 1] = moved[t, 1]
                elif counted:
                    out_values[cursor[q], 0] = values[parent[t], 0]
                    out_values[cursor[q], 1] = values[parent[t], 1]
                cursor[q] += 1


@numba.njit(cache=True, nogil=True)
def _signatures(positions, byte_images, out, first, step):
    images = np.empty(byte_images.shape[2], dtype=np.uint64)
    n = positions.shape[0]
    for i in range(slice_start(n, first, step), slice_start(n, first + 1, step)):
        out[i] = _signature(positions[i], byte_images, images)


def signatures(tables: BoardTables, positions: np.ndarray) -> np.ndarray:
    """Signatures of positions (the compiled twin of `BoardTables.signatures`, which tests compare)."""
    positions = np.ascontiguousarray(positions, dtype=np.uint64)
    out = np.empty(positions.shape[0], dtype=np.uint64)
    spread(_signatures, len(positions), positions, tables.byte_images, out)
    return out


def expand(tables: BoardTables, positions: np.ndarray,
           backwards: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Children of `positions` as signatures, unsorted and with repeats, plus each parent's fanout;
    `backwards`, their parents instead (jumps played backwards: `BoardTables.unjump_words`).

    Children appear in parent order: the first ``fanout[0]`` belong to ``positions[0]`` and so on, so
    a value carried by each parent (a path count) is spread over its children with ``np.repeat``.
    """
    positions = np.ascontiguousarray(positions, dtype=np.uint64)
    offsets = np.zeros(positions.shape[0] + 1, dtype=np.int64)
    need, flip = tables.unjump_words if backwards else tables.jump_words
    spread(_block_fanout, len(positions), positions, need, flip, 1, offsets)
    counts = offsets[1:].copy()  # blocks of one parent: each parent's fanout
    np.cumsum(offsets, out=offsets)
    children = np.empty(offsets[-1], dtype=np.uint64)
    spread(_children, len(positions), positions, offsets, need, flip, tables.flip_images,
           tables.byte_images, children)
    return children, counts


class Scratch:
    """Memory reused from one kernel call to the next (fresh memory costs a page fault per 4 KiB,
    a few ns a child), and from level to level: routed children, or a bitmap's planes."""

    def __init__(self) -> None:
        self.words = np.empty(0, dtype=np.uint64)

    def take(self, count: int) -> np.ndarray:
        """`count` uint64 words, the same memory as last time when it is large enough."""
        if len(self.words) < count:
            self.words = np.empty(count + count // 4, dtype=np.uint64)
        return self.words[:count]


# Parents per block of the routed kernel: its children (a few thousand) fit a core's cache. Wide
# passes take larger blocks, so a (block, partition) stretch holds a few children, not a fraction.
BLOCK = 512
# Children between asking for a child's bitmap word and setting its bit (a power of two): enough
# to cover a miss to memory with the next children's work.
AHEAD = 16


def expand_routed(tables: BoardTables, positions: np.ndarray, values: np.ndarray, carry: Carry,
                  space: Keyspace, lo: int, hi: int, scratch: Scratch | None = None,
                  ranks: LevelRanks | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Children of `positions` routed to partitions ``[lo, hi)`` of `space`, for `HashTables.add`.

    The map and the shuffle in one pass over the parents: each block of parents makes its children
    in cache and writes their codes straight into their partitions' stretches, with the value each
    child carries (`carry`: its parent's path count, or its fewest moves, made from its parent's
    `values`; `values` is ``(0, 2)`` when nothing is carried). Returns codes, their values, and the
    bounds of every (block, partition) stretch.

    With `ranks`, children are keyed by their rank among the positions the level can hold (a
    bitmap level, see kernel.ranks; `space` is then a keyspace of ranks) instead of their signature.

    The children live in `scratch` when given (valid until its next use): a caller that expands
    many chunks reuses one, which spares the kernel the page faults of fresh memory.
    """
    positions = np.ascontiguousarray(positions, dtype=np.uint64)
    size = max(BLOCK, 2 * (hi - lo))
    blocks = -(-len(positions) // size)
    offsets = np.zeros(blocks + 1, dtype=np.int64)
    need, flip = tables.jump_words
    spread(_block_fanout, blocks, positions, need, flip, size, offsets)
    most = int(offsets.max())
    np.cumsum(offsets, out=offsets)
    made = int(offsets[-1])
    code_words = -(-made * np.dtype(space.dtype).itemsize // 8)
    value_words = 2 * made if carry else 0
    into = (scratch or Scratch()).take(code_words + value_words)
    out = into[:code_words].view(space.dtype)[:made]
    out_values = into[code_words:].reshape(-1, 2)
    bounds = np.zeros((blocks, hi - lo + 1), dtype=np.int64)
    kernel_tables = (need, flip, tables.flip_images, tables.byte_images, tables.leave,
                     tables.landing_images)
    spread(_expand_routed, blocks, positions, np.ascontiguousarray(values, dtype=np.uint64),
           int(carry), offsets, size, kernel_tables, NO_RANKS if ranks is None else ranks.args,
           space.args, lo, hi, out, out_values, bounds, most)
    return out, out_values, bounds


@numba.njit(cache=True, nogil=True)
def _expand_into_bits(positions, need, flip, flip_images, byte_images, ranking, base, bits, others,
                      shared, worker):
    """Set the bits of the ranks of the children of the positions, in `bits` for worker 0 and
    in others[worker - 1] for another: each core its own plane, so no two write one word. The
    planes hold the ranks from `base` on; a child ranked outside them is dropped (a rank below
    `base` wraps round to far above).

    `shared`: every call sets its bits in `bits` (a bitmap too wide for a plane a core), by an
    atomic OR.

    No array is bound inside the loop: a one-chunk rank is written out in place and a longer one
    is a call, chosen by a value fixed before the loop. An inlined helper taking the rank tables
    bound them again for every child, and LLVM's znver3 and znver4 models hoisted the reference
    counts numba adds for that out of reach of numba's pruning: ten atomic calls a child, twice
    the time of the same loop compiled for haswell (see kernel.ranks.rank_chunks, kernel.target).

    A wide plane is GiBs, and each child's word a miss to memory: its word is asked for
    (kernel.prefetch) and its bit set AHEAD children later, so the misses overlap."""
    counts, targets, shifts, masks, low_ranks, top = ranking
    images = np.empty(byte_images.shape[2], dtype=np.uint64)
    plane = bits if worker == 0 or shared else others[worker - 1]
    span = np.uint64(64 * bits.shape[0])
    one_chunk = shifts.shape[0] == 1
    ahead = np.empty(AHEAD, dtype=np.uint64)  # ranks whose words were asked for, set AHEAD later
    asked = 0
    for p in positions:
        _images(p, byte_images, images)
        for pair in range(-(-need.shape[0] // 128)):
            low, high, legal = _legal_pair(p, need, flip, pair)
            for _ in range(legal):
                jump, low, high = _next_jump(low, high, pair)
                key = _least(images, flip_images, jump)
                if one_chunk:
                    rank = counts[key >> top] + low_ranks[key & LOW_MASK] - base
                else:
                    rank = rank_chunks(key, counts, targets, shifts, masks, low_ranks) - base
                if rank < span:
                    prefetch_to_write(plane, rank >> _SIX)
                    slot = asked & (AHEAD - 1)
                    if asked >= AHEAD:
                        _set_bit(plane, ahead[slot], shared)
                    ahead[slot] = rank
                    asked += 1
    for k in range(max(0, asked - AHEAD), asked):
        _set_bit(plane, ahead[k & (AHEAD - 1)], shared)


@numba.njit(cache=True, nogil=True, inline="always")
def _set_bit(plane, rank, shared):
    """Set bit `rank` of `plane`, atomically where cores share it."""
    word, mask = rank >> _SIX, np.uint64(1) << (rank & _LOW_SIX)
    if shared:
        atomic_or(plane, word, mask)
    else:
        plane[word] |= mask


def expand_into_bits(tables: BoardTables, chunks: Iterable[np.ndarray], held: BitmapTables) -> None:
    """The map and the reduce of a bitmap level in one step, into `held`, a bitmap of a range of
    the level's ranks (the whole level, or a pass's or a Spark map task's share): no child is
    written to memory or routed, which costs more than making it (see `expand_routed`).

    Each core takes a chunk of parents as soon as it is free (kernel.threads.stream). With a plane
    for every core (WORKERS), it sets its children's bits in its own plane, merged when the level
    or pass ends (`BitmapTables.merge`); a `shared` bitmap (too wide for a plane a core) is set by
    every core at once, atomically. Children outside the range are dropped."""
    if not held.shared and len(held.others) < WORKERS - 1:
        raise ValueError("expand_into_bits needs a plane per core, or a shared bitmap")
    stream(_expand_chunk_into_bits, chunks, tables, held)


def _expand_chunk_into_bits(positions: np.ndarray, tables: BoardTables, held: BitmapTables,
                            worker: int) -> None:
    _expand_into_bits(np.ascontiguousarray(positions, dtype=np.uint64), *tables.jump_words,
                      tables.flip_images, tables.byte_images, held.ranks.args,
                      np.uint64(held.lo << held.space.rbits), held.bits, held.others, held.shared,
                      worker)


def expand_distinct(tables: BoardTables, positions: np.ndarray, values: np.ndarray,
                    carry: Carry) -> tuple[np.ndarray, np.ndarray]:
    """The distinct children of a batch, sorted, with their values merged: map and combine in one
    call, for engines that hand the kernel one batch at a time (the mrjob mapper)."""
    space = Keyspace(tables.holes, 0)
    return one_table(space, 0, carry, *expand_routed(tables, positions, values, carry, space, 0, 1))


@numba.njit(cache=True, nogil=True, inline="always")
def image_of(position, byte_images, g):
    """The image of `position` under symmetry g alone."""
    image = np.uint64(0)
    rest = position
    for byte in range(byte_images.shape[0]):
        image |= byte_images[byte, rest & _BYTE, g]
        rest >>= _EIGHT
    return image


@numba.njit(cache=True, nogil=True, inline="always")
def _least_and_frame(images, flip_images, j):
    """The signature of the child jump j makes from a parent whose images are `images`, and the
    symmetry that makes it (the first, where several do): the frame its kept values are in."""
    best = images[0] ^ flip_images[j, 0]
    by = 0
    for g in range(1, flip_images.shape[1]):
        candidate = images[g] ^ flip_images[j, g]
        if candidate < best:
            best, by = candidate, g
    return best, by

"""The board tables: a board's jumps and symmetries as the arrays the compiled kernels read.

A position is an unsigned 64-bit integer, bit ``i - 1`` set when hole ``i`` holds a peg (stored as
int64 in Parquet, the same bits). The signature of a position is the smallest of its images under the
board's symmetry group; it is computed a byte at a time from lookup tables, so a symmetry costs one
table read per 8 holes rather than one operation per hole, and the images of one byte value under
every symmetry sit side by side (one cache line for the 8 of a square board): a position's images
all at once are one line read per 8 holes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pegsearch.board.geometry import Board

# Positions whose images `BoardTables.signatures` makes at once (16 K: 1 MiB of images).
SIGNING = 1 << 14


@dataclass(frozen=True)
class BoardTables:
    """The arrays the map kernel needs for one board: jump masks and symmetry byte tables.

    `byte_images[b, v, g]` is the image under symmetry g of byte value v placed in byte b of a position;
    OR-ing the images of all bytes gives the image of the position. With the identity alone as the
    group (a raw search), the signature is the position itself.
    """

    holes: int
    need: np.ndarray  # uint64 per jump: the start and over holes, which must hold pegs
    leave: np.ndarray  # uint64 per jump: the start hole, which the jumping peg leaves
    free: np.ndarray  # uint64 per jump: the hole jumped into, which must be empty
    flip: np.ndarray  # uint64 per jump: start | over | to, XOR-ed to make the jump
    byte_images: np.ndarray  # uint64 [bytes, 256, symmetries]

    @cached_property
    def jump_words(self) -> tuple[np.ndarray, np.ndarray]:
        """`need` and `flip` padded to whole words of 64 jumps, the padding never legal (no peg
        in no hole is 1): the kernel tests 64 jumps at once into a word of legal-jump bits."""
        words = -(-len(self.need) // 64) * 64
        need = np.ones(words, dtype=np.uint64)
        flip = np.zeros(words, dtype=np.uint64)
        need[:len(self.need)], flip[:len(self.flip)] = self.need, self.flip
        return need, flip

    @cached_property
    def unjump_words(self) -> tuple[np.ndarray, np.ndarray]:
        """`jump_words` for jumps played backwards: legal where the landing hole has a peg and
        the start and over holes none (``p & flip == free``), flipping the same three holes, so
        the kernel's children of a position are then the positions one jump before it."""
        need, flip = self.jump_words
        free = need.copy()  # the padding stays never legal
        free[:len(self.free)] = self.free
        return free, flip

    @cached_property
    def landing_images(self) -> np.ndarray:
        """uint64 [jumps, symmetries]: the image of each jump's landing hole under each symmetry,
        so a fewest-moves child says where its last peg stands in its signature's frame."""
        return np.ascontiguousarray(self.images(self.free))

    @cached_property
    def flip_images(self) -> np.ndarray:
        """uint64 [jumps, symmetries]: the image of each jump's flip mask under each symmetry."""
        return np.ascontiguousarray(np.stack([self.images(np.array([f], np.uint64))[0]
                                              for f in self.flip]))

    @cached_property
    def inverses(self) -> np.ndarray:
        """int64 [symmetries]: for each symmetry g, a symmetry undoing it (the group holds every
        inverse), so a set of holes in a signature's frame is carried back to the position's."""
        holes = np.array([1 << hole for hole in range(self.holes)], dtype=np.uint64)
        moved = self.images(holes)  # [hole, g]: the hole's image under g
        count = moved.shape[1]
        return np.array([next(h for h in range(count)
                              if np.array_equal(self.images(moved[:, g])[:, h], holes))
                         for g in range(count)], dtype=np.int64)

    def images(self, positions: np.ndarray) -> np.ndarray:
        """uint64 [positions, symmetries]: every image of every position."""
        positions = np.asarray(positions, dtype=np.uint64)
        out = np.zeros((positions.shape[0], self.byte_images.shape[2]), dtype=np.uint64)
        for byte, lookup in enumerate(self.byte_images):
            out |= lookup[(positions >> np.uint64(8 * byte)) & np.uint64(0xFF)]
        return out

    @classmethod
    def for_board(cls, board: Board, group: tuple[tuple[int, ...], ...] | None = None) -> BoardTables:
        """The board tables for `group`, a tuple of hole permutations (default: the board's whole group)."""
        bit = [np.uint64(1) << np.uint64(h - 1) for h in range(1, board.holes + 1)]
        need = np.array([bit[j.start - 1] | bit[j.over - 1] for j in board.jumps], dtype=np.uint64)
        leave = np.array([bit[j.start - 1] for j in board.jumps], dtype=np.uint64)
        free = np.array([bit[j.to - 1] for j in board.jumps], dtype=np.uint64)
        group = padded(board.symmetries if group is None else group)
        nbytes = (board.holes + 7) // 8
        byte_images = np.zeros((nbytes, 256, len(group)), dtype=np.uint64)
        values = np.arange(256, dtype=np.uint64)
        for g, perm in enumerate(group):
            for hole, image in enumerate(perm):
                byte, offset = divmod(hole, 8)
                present = (values >> np.uint64(offset)) & np.uint64(1)
                byte_images[byte, :, g] |= present << np.uint64(image)
        return cls(board.holes, need, leave, free, need | free, byte_images)

    def signatures(self, positions: np.ndarray) -> np.ndarray:
        """Signatures of an array of positions (vectorised over positions, looped over symmetries),
        SIGNING positions at a time: their images stay in the cache (four times as fast on a
        level of millions as all the images at once, which also took 64 bytes a position)."""
        positions = np.asarray(positions, dtype=np.uint64)
        out = np.empty(len(positions), dtype=np.uint64)
        for first in range(0, len(positions), SIGNING):
            out[first:first + SIGNING] = self.images(positions[first:first + SIGNING]).min(axis=1)
        return out


# The kernels' images come in rows of this many (a square board's whole group): a row is one
# vector of eight words, so a child's least image takes a few vector instructions (kernel.lanes).
ROW = 8


def padded(group: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """`group` with its first symmetry repeated up to a whole number of ROWs (a repeated image
    changes no least image); the identity alone (a raw search) stays one image."""
    if len(group) == 1:
        return group
    return group + (group[0],) * (-len(group) % ROW)

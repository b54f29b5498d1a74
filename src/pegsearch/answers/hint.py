"""A hint for a player: from this position, can the game still be won, and which jumps keep it so.

A position is looked up, never read with its level whole: its signature in the kept winnable set of
its level and its children's in the next level's (sets kept once per run, see answers.winnable),
and in the level itself only when it is not winnable (every winnable position is reachable), each
by reading one row group of one part (store.lookup).

Exactness. A run stores one position per class under the symmetries its signatures are taken under,
so a stored signature says that the position or one of its images is reachable: exactly the
position itself when those symmetries all fix the start. On a run reduced by more, a position of
another position class than the start's is known unreachable all the same (no jump changes a class,
see board.classes); one of the start's class is reachable or an image of one. Winnable to one peg
anywhere is the same for every image, so exact. Winnable to one peg on hole F is exact when the
symmetries keep F where it is; else the sets say "on F or a hole symmetric to it", and a line of
play is followed through them to decide F itself.

Solutions and moves left. The sets of a `--count-paths` run keep each position's solutions (the
jump sequences from it down to the finish, see answers.winnable), those of a `--fewest-moves` run
its fewest moves left: a hint then says how many the position has and how many each jump leaves,
where the finish is exact (a finishing hole some symmetry moves would need them per hole, which
one signature cannot carry).
"""

from __future__ import annotations

import re

import numpy as np

from pegsearch.answers.shapes import Hint, HintJump
from pegsearch.answers.winnable import kept_sets
from pegsearch.board.classes import class_of, invariants
from pegsearch.board.geometry import EMPTY, PEG, Board, Jump, legal_jumps
from pegsearch.board.numbers import DIGITS, is_digits, shown, whole
from pegsearch.board.pictures import holes_with_pegs, render
from pegsearch.board.symmetry import image_of_position, orbit
from pegsearch.errors import InputError, NotFound
from pegsearch.kernel.path_counts import as_int
from pegsearch.kernel.tables import BoardTables
from pegsearch.kernel.values import Carry
from pegsearch.store import Run
from pegsearch.store.lookup import Lookups
from pegsearch.store.sets import EVERY_HOLE, set_folder, set_parts

LOOKUPS = Lookups()  # the process's open parts and row groups, shared by its hints
# Holes of at most DIGITS digits 0-9 (a longer number is no hole, and past 4,300 digits not read).
JUMP = re.compile(rf"(\d{{1,{DIGITS}}})-(\d{{1,{DIGITS}}})-(\d{{1,{DIGITS}}})", re.ASCII)


def read_position(board: Board, start: tuple[int, ...], text: str) -> int:
    """A position as a player writes it: the holes with pegs (`2,3,5`), a picture as `positions`
    prints it (o a peg, . an empty hole), or jumps played from the start, the holes `start` empty
    (`5-9-14,...`). Numbers are ASCII digits only: another script's digits (Arabic-Indic) are refused,
    not read as holes."""
    text = text.strip()
    if not text:
        raise InputError("position is empty: give the holes with pegs (2,3,5), a picture, or"
                         " jumps from the start (5-9-14,...)")
    if PEG in text or EMPTY in text:
        return _from_picture(board, text)
    pieces = [piece.strip() for piece in text.split(",")]
    if played(text):
        return _from_jumps(board, start, pieces)
    if not all(is_digits(piece) for piece in pieces):
        raise InputError("position {text!r}: give the holes with pegs as numbers (2,3,5), a"
                         " picture, or jumps from the start (5-9-14,...)", text=shown(text))
    holes = [board.hole_of(whole(piece, "position"), "position") for piece in pieces]
    twice = sorted({hole for hole in holes if holes.count(hole) > 1})
    if twice:
        raise InputError("position {text!r}: hole {twice} is named more than once; name each hole"
                         " with a peg once", text=shown(text), twice=", ".join(map(str, twice)))
    return sum(1 << (hole - 1) for hole in holes)


def played(text: str) -> bool:
    """Whether a position is written as jumps from the start (which prove it reachable): a dash
    between two holes. A leading one is no jump: `-2,3` is a hole that cannot be (it was read as
    jump 1, "-2", said to be no legal jump)."""
    return PEG not in text and EMPTY not in text and any(
        "-" in piece.strip()[1:] for piece in text.split(","))


def _from_picture(board: Board, text: str) -> int:
    """A picture read row by row, left to right, as `render` draws the holes."""
    marks = [mark for mark in text if not mark.isspace()]
    if set(marks) - {PEG, EMPTY} or len(marks) != board.holes:
        raise InputError("position: a picture of {name} has {holes} holes, each {peg} (a peg) or"
                         " {empty} (empty), as `pegsearch positions` draws them (see {board})",
                         board.name, name=board.name, holes=board.holes, peg=PEG, empty=EMPTY)
    order = sorted(range(board.holes), key=lambda hole: board.cells[hole][::-1])
    position = sum(1 << hole for hole, mark in zip(order, marks, strict=True) if mark == PEG)
    if not position:  # no jump ever leaves a board empty: no game is at such a position
        raise InputError("position: the picture has no peg; a position holds at least one peg"
                         " ({peg}), as `pegsearch positions` draws them", peg=PEG)
    return position


def _from_jumps(board: Board, start: tuple[int, ...], pieces: list[str]) -> int:
    """The position after jumps played from the start, each checked legal in turn."""
    position = board.start_position(start)
    for number, piece in enumerate(pieces, start=1):
        found = JUMP.fullmatch(piece)
        legal = dict(legal_jumps(board, position))
        jump = Jump(*map(int, found.groups())) if found else None
        if jump not in legal:
            raise InputError("position: jump {number} ({piece}) is not a legal jump there; each"
                             " is FROM-OVER-TO with FROM and OVER holding pegs and TO empty (see"
                             " {board})", board.name, number=number, piece=shown(piece))
        position = legal[jump]
    return position


def hint(run: Run, position: int, finish: int | None = None, from_start: bool = False) -> Hint:
    """What a player asks of `position`: whether the run reaches it, whether it can still be won
    (down to one peg, on `finish` when given), and each legal jump with whether it keeps it so.
    `from_start`: the position was written as jumps from the start (see `played`), so it is
    reachable itself, not only one of its images."""
    board = run.board
    if finish is not None:
        board.hole_of(finish, "finish")
    pegs = position.bit_count()
    level = board.holes - len(run.start) - pegs
    if not 0 <= level < len(run.levels):
        raise _unreachable(run, position, f"positions with {pegs} pegs are not in it")
    start = board.start_position(run.start)
    basis = invariants(board)
    if class_of(position, basis) != class_of(start, basis):
        raise _unreachable(run, position, "it lies in another position class than the start (no"
                           " jump changes a position's class)")
    tables = run.tables()
    moves = legal_jumps(board, position)
    held = np.array([position, *(child for _, child in moves)], dtype=np.uint64)
    images = tables.images(held)
    signs, frames = images.min(axis=1), images.argmin(axis=1)
    kept_sets(run, EVERY_HOLE)  # walked back and kept by the first hint that needs them
    found, ends = _look_up(run, EVERY_HOLE, level, signs[:1], Carry.FINISHES)
    if not found[0] and not _in_level(run, level, signs[:1])[0]:
        raise _unreachable(run, position, f"level {level} does not hold it")
    after, child_ends = _look_up(run, EVERY_HOLE, level + 1, signs[1:], Carry.FINISHES)
    # A set of holes in a signature's frame, brought back to the position's (kernel.tables).
    back = tables.inverses[frames]
    moved = tables.images(np.concatenate([ends, child_ends])[:, 0])[np.arange(len(held)), back]
    ends = [set(holes_with_pegs(int(holes))) for holes in moved]
    reaches = [bool(hit) and (finish is None or finish in holes)
               for hit, holes in zip([found[0], *after], ends, strict=True)]
    winnable, keeps = reaches[0], np.array(reaches[1:], dtype=bool)
    # Solutions or moves left are kept per signature, so per finishing hole only where the
    # symmetries keep that hole (see the module notes).
    exact_finish = finish is None or orbit(run.spec.signing, finish) == (finish,)
    carry = run.carry if exact_finish else Carry.NOTHING
    values, after_values = np.zeros((1, 2), dtype=np.uint64), np.zeros((len(moves), 2), dtype=np.uint64)
    if carry:
        kept_sets(run, finish)
        values = _look_up(run, finish, level, signs[:1], carry)[1]
        after_values = _look_up(run, finish, level + 1, signs[1:], carry)[1]
    fixed = from_start or all(image_of_position(perm, start) == start for perm in run.spec.signing)
    paths, fewest = carry is Carry.PATHS, carry is Carry.MOVES and winnable
    jumps = tuple(HintJump(str(jump), bool(good), holes_with_pegs(child),
                           solutions=as_int(left) if paths else None,
                           moves_left=_moves_after(tables, jump, int(frame), left)
                           if fewest and good else None)
                  for (jump, child), good, frame, left in zip(moves, keeps, frames[1:], after_values,
                                                              strict=True))
    return Hint(board.name, holes_with_pegs(position), render(board, position), pegs, finish,
                reachable=True, exact=fixed, winnable=winnable,
                finishes=sorted(ends[0]) if found[0] else [], jumps=jumps, level=level,
                solutions=as_int(values[0]) if paths else None,
                moves_left=int(values[0, 1]) if fewest else None,
                note=None if fixed else ("reachable from the start or from one of its images under"
                                         " the run's symmetries: the run is reduced by symmetries"
                                         " that move the start"))


def _moves_after(tables: BoardTables, jump: Jump, frame: int, left: np.ndarray) -> int:
    """The fewest moves left after `jump`, its peg free to go on: the child's kept moves, one
    fewer when the landing hole, seen in the frame of the child's signature (symmetry `frame`
    makes it), is one of the holes whose peg may begin them (kept row `left`: [holes, moves])."""
    landing = int(tables.images(np.array([1 << (jump.to - 1)], dtype=np.uint64))[0, frame])
    return int(left[1]) - bool(int(left[0]) & landing)


def _look_up(run: Run, finish: int | None, level: int, signs: np.ndarray,
             carry: Carry) -> tuple[np.ndarray, np.ndarray]:
    """Whether each signature is in the kept winnable set of `level`, and the values `carry`
    names of each (its solutions, or its moves left; zeros for one not in the set)."""
    found = np.zeros(len(signs), dtype=bool)
    values = np.zeros((len(signs) if carry else 0, 2), dtype=np.uint64)
    if level >= len(run.levels):
        return found, values
    folder = set_folder(run, finish, level)
    where = f"the winnable set of {run.where(level)}"
    for index, sign in enumerate(signs.tolist()):
        parts = set_parts(run, finish, level, sign)
        if parts:
            hit, held = LOOKUPS.find(folder, parts, signs[index:index + 1], where, carry)
            found[index] = hit[0]
            values[index:index + 1] = held
    return found, values


def _in_level(run: Run, level: int, signs: np.ndarray) -> np.ndarray:
    return LOOKUPS.contains(run.level_folder(level), run.levels[level]["files"], signs,
                            run.where(level))


def _unreachable(run: Run, position: int, why: str) -> NotFound:
    start = ", ".join(map(str, run.start))
    return NotFound(f"the position with pegs on {', '.join(map(str, holes_with_pegs(position)))}"
                    f" is not reachable from the start of {run.uri} (hole {start} empty): {why};"
                    " a hint is for a position the run reaches")

"""Hints by the solver for the Play page: one solver for the whole service, its answers kept.

Every hint request runs on a worker thread of its own; they share one `Solver` (its tables, per
board and goal, are what a second player is answered from at once) and a bounded memory of whole
hint documents, kept only once every verdict in them is decided: an undecided one is asked again,
when the tables may settle it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from pegsearch.answers.by_solver import hint_by_solver
from pegsearch.answers.solver import Solver
from pegsearch.board.geometry import Board

HINT_SECONDS = 3.0  # the solver's bound on one hint, unless the request asks for another
MAX_HINT_SECONDS = 60.0
# Goals whose tables are kept (one peg anywhere, or on a hole, per board), each a quarter of the
# solver's memory: with a 64th each, triangle-9's dead table was full after some twenty hints and
# forgot proofs it needed again (52 of 60 hints decided within 5 s, against 57 with a quarter).
HINT_GOALS = 4
KEPT = 4096  # hint documents kept


class Hints:
    """The service's hints by the solver, and the decided ones kept."""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver
        self.kept: OrderedDict[tuple[str, int, int | None, bool], dict] = OrderedDict()
        self.lock = threading.Lock()

    def answer(self, board: Board, position: int, finish: int | None, seconds: float,
               from_start: bool) -> dict:
        key = (board.digest, position, finish, from_start)
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        document = hint_by_solver(board, position, finish, seconds, self.solver, from_start)
        if _decided(document):
            with self.lock:
                self.kept[key] = document
                while len(self.kept) > KEPT:
                    self.kept.popitem(last=False)
        return document


def _decided(document: dict) -> bool:
    return document["winnable"] is not None and not document["finishes_undecided"] and \
        all(jump["winnable"] is not None for jump in document["jumps"])

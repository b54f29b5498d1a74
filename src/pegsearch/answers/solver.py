"""The solver: one question about play answered depth-first, for boards no stored run covers.

A question is a position and a goal: one peg anywhere, or one peg on a hole. The answer is won
(with a line of play, replayed here jump by jump before it is given), lost (proved: by the position
classes, by a pagoda function, or by a search that tried every jump) or undecided (a bound reached,
named). The search is the depth-first kernel (kernel.depth_first); what is kept between questions
is each goal's dead and won tables, so a second question about the same goal, a player's next hint
or another start of a survey, begins with what the first proved.

Symmetry: the tables of the goal "one peg anywhere" are keyed by signatures under the board's
whole group (a position and its images are won or lost together); those of "one peg on hole F"
under the symmetries that keep F. Position classes: no jump changes a position's class, so the
goal holes are those whose one-peg position shares the question's class; a goal with none is lost
at once.

Single vacancy to single peg: the game from a board full but hole S to one peg on F is the game
from full but F to one peg on S played backwards (each position's complement, the same jumps in
reverse order), so such a question is searched both ways at once, turn about with doubling budgets,
and the easier side answers both; unless a symmetry swaps S and F, which makes it its own reverse.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from pegsearch.board.classes import class_of, invariants
from pegsearch.board.geometry import Board, Jump, legal_jumps
from pegsearch.board.numbers import is_decimal, shown
from pegsearch.board.pagoda import Pagoda, pagoda_against, pagodas, pagodas_of_play
from pegsearch.board.symmetry import image_of_jump
from pegsearch.errors import InputError
from pegsearch.interrupts import check
from pegsearch.kernel.compiling import clock
from pegsearch.kernel.depth_first import LOST, RUNNING, WON, Goal, Search, holds, keep, new_table
from pegsearch.kernel.endgame import endgame
from pegsearch.kernel.jump_order import restart_spread, spread
from pegsearch.kernel.members import Members
from pegsearch.kernel.tables import BoardTables
from pegsearch.sizes import default_budget, parse_size

WON_WORD, LOST_WORD, UNDECIDED = "won", "lost", "undecided"
# Positions examined between looks at the clock (a few milliseconds of search).
STEP = 1 << 14
# A question's searches (`Question.go`'s lanes): two orders of the jumps on the same tables.
LANES = (0, 1)
# The first turn, in seconds, of each side of a question searched both ways.
FIRST_TURN = 0.02
# The seconds a question is searched before the pagoda functions fitted to its play are made
# (`Solver._turn_about`): most questions are decided sooner, and the fitting takes some seconds on a
# board of 40 holes.
UNFITTED = 10.0
# A won table's share of a goal's memory: it holds lines of play, not every position tried; and
# at most WON_MOST slots (2 MiB), since every child a search makes is looked up in it once it
# holds a line: a 64 MiB one, out of the cache, took a fifth of triangle-9's search speed.
WON_SHARE = 16
WON_MOST = 1 << 18
# The slots of the tables of the search that compiles the walk (`Question.warm`).
WARM_SLOTS = 1 << 10
# The bytes of one table slot (a signature).
SLOT = 8
# A goal's endgame (kernel.endgame) is made once its searches have examined ENDGAME_AFTER
# positions (a second or two: the easy questions of a survey never pay for one), of at most a share
# of the goal's slots and at most ENDGAME_MOST keys (about 0.1 s a million to make). On
# triangle-9 it decided 22 of 24 hard questions in 46 s, against 19 in 61 s without.
ENDGAME_AFTER = 2_000_000
ENDGAME_SHARE = 4
ENDGAME_MOST = 2_000_000
# Positions the second search of a question examines in the shortest of its runs (`_restart`):
# tried 20 K and 100 K on 7 hard triangle-9 questions, 20 K solved more of them sooner.
RESTART_UNIT = 20_000


@dataclass(frozen=True)
class Answer:
    """A question's answer: `outcome` won, lost or undecided; `line` the jumps that win (won);
    `how` the proof (lost: `class`, `pagoda` or `search`) or the bound reached (undecided: `time`);
    `examined` the positions the search visited; `pagoda` the function of a `pagoda` proof, for
    anyone to check."""

    outcome: str
    position: int
    finish: int | None
    line: tuple[Jump, ...] = ()
    how: str = ""
    examined: int = 0
    seconds: float = 0.0
    pagoda: Pagoda | None = None

    @property
    def won(self) -> bool:
        return self.outcome == WON_WORD

    @property
    def decided(self) -> bool:
        return self.outcome != UNDECIDED

    @property
    def last(self) -> int:
        """The hole of the last peg of a won line."""
        return self.end.bit_length()

    @property
    def end(self) -> int:
        position = self.position
        for jump in self.line:
            position ^= (1 << (jump.start - 1)) | (1 << (jump.over - 1)) | (1 << (jump.to - 1))
        return position


@dataclass
class Tables:
    """One goal's dead and won tables and, once its searches have examined `examined` >=
    ENDGAME_AFTER positions, its endgame (every winnable position of up to `few` pegs, see
    kernel.endgame), kept between questions."""

    dead: np.ndarray
    won: np.ndarray
    endgame: Members | None = None
    few: int = 0
    examined: int = 0
    making: bool = False  # the endgame is being made (`Solver._searched`)
    lines: int = 0  # the positions of the lines kept in `won` since it was last emptied

    @property
    def any_won(self) -> bool:
        """Whether a line is kept in `won` (`Search.any_won`): every line has a position, and an
        emptied table keeps the newest."""
        return self.lines > 0

    def kept_line(self, keys: np.ndarray) -> None:
        """A search won, keeping its line's signatures `keys` in `won`. Once the lines fill half
        its slots it is emptied but for this line: the oldest lines (most likely another
        player's game) are the least asked for again, and a full table would keep them (its keys
        of the most pegs) over the new."""
        self.lines += len(keys)
        if 2 * self.lines > len(self.won):
            self.won[:] = 0
            for key in keys:
                keep(self.won, key)
            self.lines = len(keys)


class Stopped(Exception):
    """The one who asked stopped waiting (a client that hung up): the searches ended early and no
    answer is made, so an abandoned question does not keep cores to its bound."""


def stopped(stop: threading.Event | None) -> bool:
    return stop is not None and stop.is_set()


class Solver:
    """Answers questions on boards, keeping the tables of up to `goals` goals in `memory` bytes
    (the least recently asked goal's tables go first); `memory` as the command line writes it
    (2G), or bytes, default the local engine's."""

    def __init__(self, memory: str | int | None = None, goals: int = 1,
                 endgame_after: int = ENDGAME_AFTER) -> None:
        if memory is None:
            memory = default_budget()
        elif isinstance(memory, str):
            memory = parse_size(memory)
        self.goals = goals
        self.endgame_after = endgame_after  # positions a goal is searched before its endgame is made
        slots = max(1 << 12, memory // goals // SLOT)
        self.slots = 1 << (slots.bit_length() - 1)
        self.tables: OrderedDict[tuple[str, int | None], Tables] = OrderedDict()
        self.lock = threading.Lock()  # the service asks from many threads

    def answer(self, board: Board, position: int, finish: int | None, seconds: float,
               dual: bool = True, stop: threading.Event | None = None) -> Answer:
        """Can `position` be played down to one peg (on `finish` when given)? First a pagoda
        function fitted to the position by linear programming (one program, a few milliseconds:
        for a survey's pair or a solve; a hint's many questions skip it), then searched for at
        most `seconds` (undecided at once when `stop` is set); `dual`: a single vacancy to a single
        hole is searched both ways (module notes)."""
        began = clock()
        goal = goal_holes(board, position, finish)
        against = pagoda_against(board, position, goal) if goal else None  # one program, first
        if against is not None:
            return Answer(LOST_WORD, position, finish, how="pagoda", pagoda=against)
        vacancy = ((1 << board.holes) - 1) ^ position
        start = vacancy.bit_length()
        if not (dual and finish is not None and vacancy.bit_count() == 1 and goal
                and not _swapped(board, start, finish)):
            return self._turn_about(board, [(position, finish)], began + seconds, stop)[0]
        reverse = ((1 << board.holes) - 1) ^ (1 << (finish - 1))
        forward, backward = self._turn_about(board, [(position, finish), (reverse, start)],
                                             began + seconds, stop)
        return both_ways(board, forward, backward)

    def ask(self, board: Board, position: int, finish: int | None,
            fitted: tuple[Pagoda, ...] = ()) -> Question:
        """A question to search for a while, and again later where it left off (`Question.go`),
        with pagoda functions `fitted` to its play (`_turn_about`) beside its goal's."""
        return Question(self, board, position, finish, fitted)

    def finishes(self, board: Board, position: int, holes: tuple[int, ...], seconds: float,
                 enough: threading.Event | None = None, least: float = 0.0,
                 stop: threading.Event | None = None
                 ) -> tuple[dict[int, tuple[Jump, ...]], tuple[int, ...]]:
        """Which of `holes` the last peg can end on from `position`: a line to each found, and
        those not decided in `seconds` (the rest are proved out of reach), or once `enough` is
        set and `least` seconds have passed, or at once when `stop` is set. One search seeks them
        all, dropping each hole as a line reaches it; its tables are its own (module notes)."""
        began = clock()
        deadline = began + seconds
        lines: dict[int, tuple[Jump, ...]] = {}
        goal = tuple(hole for hole in goal_holes(board, position, None) if hole in holes)
        if not goal:
            return lines, ()
        fixing = board.stabilizer(position)  # its finishing holes are a set they keep
        compiled = _compiled(board, BoardTables.for_board(board, fixing), goal, spread(board))
        search = Search(compiled, new_table(self.slots // WON_SHARE), new_table(1 << 10), board.holes)
        ended = search.begin(position)
        while ended != LOST and clock() < deadline and not stopped(stop) and not (
                enough is not None and enough.is_set() and clock() >= began + least):
            if ended == WON:
                line = tuple(board.jumps[j] for j in search.line())
                hole = replayed(board, Answer(WON_WORD, position, None, line)).last
                for perm in fixing:  # the line's images under the symmetries keeping the position
                    image = perm[hole - 1] + 1
                    lines.setdefault(image, tuple(image_of_jump(perm, jump) for jump in line))
                    search.without(image)
                if not int(search.mask):
                    break
            check()
            ended = search.go(STEP)
        open_ = () if ended == LOST else tuple(h for h in goal if h not in lines)
        return dict(sorted(lines.items())), open_

    def _turn_about(self, board: Board, sides: list[tuple[int, int | None]], deadline: float,
                  stop: threading.Event | None = None) -> list[Answer]:
        """Questions (position, finish) searched turn about, each turn twice as long, until one
        is decided or `deadline` passes; an answer each. Those still open after UNFITTED seconds
        are asked again with the pagoda functions fitted to their play (board.pagoda.
        pagodas_of_play: some seconds of linear programs, counted in the bound; a hint's many
        questions, each searched for a fraction of a second, go without): the fresh searches begin
        on the same tables, with what the first proved dead. A question with no goal hole is lost
        by its class in the first turn, so every one fitted has a goal."""
        began = clock()
        asked = [self.ask(board, position, finish) for position, finish in sides]
        before = [Answer(UNDECIDED, position, finish) for position, finish in sides]
        slice_ = FIRST_TURN
        while True:
            answers = [question.go(min(slice_, max(0.0, deadline - clock())), stop=stop)
                       for question in asked]
            if any(answer.decided for answer in answers) or clock() >= deadline \
                    or stopped(stop):
                break
            if not any(question.fitted for question in asked) and _since(began) >= UNFITTED:
                before = answers
                asked = [self.ask(board, position, finish, pagodas_of_play(
                    board, position, goal_holes(board, position, finish))) for position, finish in sides]
            slice_ *= 2
        return [replace(answer, examined=answer.examined + earlier.examined,
                        seconds=answer.seconds + earlier.seconds)
                for answer, earlier in zip(answers, before, strict=True)]

    def _answer(self, board: Board, search: Search, ended: int, position: int, finish: int | None,
                seconds: float) -> Answer:
        examined = int(search.counts[0])
        if ended == RUNNING:
            return Answer(UNDECIDED, position, finish, how="time", examined=examined, seconds=seconds)
        if ended == LOST:  # a root no pagoda function allows is lost before it is examined
            return Answer(LOST_WORD, position, finish, how="search" if examined else "pagoda",
                          examined=examined, seconds=seconds)
        line = tuple(board.jumps[j] for j in search.line())
        return replayed(board, Answer(WON_WORD, position, finish, line, examined=examined,
                                       seconds=seconds))

    def _kept(self, board: Board, finish: int | None) -> Tables:
        """The kept tables of a goal (made when first asked)."""
        key = (board.digest, finish)
        with self.lock:
            if key not in self.tables:
                while len(self.tables) >= self.goals:
                    self.tables.popitem(last=False)
                self.tables[key] = Tables(new_table(self.slots),
                                          new_table(min(WON_MOST, self.slots // WON_SHARE)))
            self.tables.move_to_end(key)
            return self.tables[key]

    def _searched(self, board: Board, finish: int | None, kept: Tables, examined: int) -> None:
        """Count `examined` more positions searched for a goal; past ENDGAME_AFTER, start making
        its endgame on a thread of its own (once), the searches going on without it meanwhile:
        made under the lock, it stopped every search for its 3 s on triangle-9 (a service's
        first hints, a command's one hint). Not a daemon (a daemon thread stopped at exit inside
        the kernel aborted the process, exit 134, after a command's answer was printed): it
        stops itself, between chunks, once the main thread has ended, so a command does not wait
        seconds at exit for an endgame it will not use."""
        with self.lock:
            kept.examined += examined
            if kept.making or kept.endgame is not None or kept.examined < self.endgame_after:
                return
            kept.making = True
        threading.Thread(target=self._make_endgame, args=(board, finish, kept),
                         name="pegsearch-endgame").start()

    def _make_endgame(self, board: Board, finish: int | None, kept: Tables) -> None:
        every = (1 << board.holes) - 1 if finish is None else 1 << (finish - 1)
        found = endgame(goal_tables(board, finish), every,
                        min(ENDGAME_MOST, self.slots // ENDGAME_SHARE), threading.main_thread().is_alive)
        if found is None:  # the process is ending
            return
        made, few = found
        with self.lock:
            kept.few = few  # before the set: a search given the set reads `few` with it
            kept.endgame = made


class Question:
    """One question being searched: `go` searches on for a while and says where it stands, so a
    hint can share its time among several, each resumed where it stopped."""

    def __init__(self, solver: Solver, board: Board, position: int, finish: int | None,
                 fitted: tuple[Pagoda, ...] = ()) -> None:
        self.solver, self.board, self.position, self.finish = solver, board, position, finish
        self.fitted = fitted
        self.seconds = 0.0
        goal = goal_holes(board, position, finish)
        # Two searches on the same tables, turn about: jumps that draw the pegs in first, and
        # jumps that strand no peg first. Each order has positions the other is slow on (by
        # millions of positions); what either proves dead, the other skips. Every pagoda function
        # holds for the goal whatever the position, so searches with other functions (another
        # question's fitted ones) share its tables soundly.
        self.kept = solver._kept(board, finish)
        self.searches = [Search(compiled_goal(board, goal, finish, drawn_in, fitted), self.kept.dead,
                                self.kept.won, board.holes, any_won=self.kept.any_won)
                         for drawn_in in (True, False)] if goal else []
        self._with_endgame()
        self.ended = [search.begin(position) for search in self.searches] or [LOST]
        self.noted = False  # a won search's line counted in the goal's won table
        self.lock = threading.Lock()  # each lane may be searched on a core of its own
        self._note_won()
        self.examined = 0
        # The position's signature under the goal's group, as the dead table keys it.
        self.key = self.searches[0].stack.images[0].min() if self.searches else None
        # The second search restarts (`_restart`): positions examined by its runs before this one,
        # the runs so far, and the positions this one may examine; the orders' noise is drawn
        # from the position, so an answer is the same every time it is asked.
        self.retired, self.runs, self.budget = 0, 1, RESTART_UNIT
        self.turn = 0  # the search to go on next
        self.noise = np.random.default_rng(position)

    def go(self, seconds: float, lane: int | None = None, stop: threading.Event | None = None) -> Answer:
        """Search on for at most `seconds` (none once decided, nor once `stop` is set: a step
        of STEP positions, a few milliseconds, at most after); the answer so far. Both searches
        turn about, or only search `lane` (one of LANES): a caller may search the two lanes on
        two cores at once, as a hint does with its hardest question, since the searches share
        only the goal's tables (whose writes lose a key at worst, never make a wrong one). A
        position another question proved lost meanwhile (its signature in the goal's dead table:
        a hint's position searched beside its children) is lost here too, at once."""
        began = clock()
        while RUNNING in self.ended and WON not in self.ended and LOST not in self.ended \
                and clock() < began + seconds and not stopped(stop):
            check()
            turn = self.turn if lane is None else lane
            if holds(self.kept.dead, self.key):
                self.ended[turn] = LOST
                break
            self.ended[turn] = self.searches[turn].go(STEP)
            if turn == 1 and self.ended[1] == RUNNING and self.searches[1].counts[0] >= self.budget:
                self._restart()
            if lane is None:
                self.turn = 1 - turn  # turn about across calls too: a hint's slices are a step or two
            self._counted()
        self._note_won()
        with self.lock:
            self.seconds += _since(began)
        if not self.searches:
            return Answer(LOST_WORD, self.position, self.finish, how="class")
        decided = next((i for i, ended in enumerate(self.ended) if ended != RUNNING), 0)
        examined = self._examined()
        answer = self.solver._answer(self.board, self.searches[decided], self.ended[decided],
                                     self.position, self.finish, self.seconds)
        return Answer(answer.outcome, answer.position, answer.finish, answer.line, answer.how,
                      examined, answer.seconds)

    def warm(self) -> None:
        """Compile the walk now, on a search of its own (numba compiles it on its first call, up
        to a minute with a fresh cache): a caller starts its clock after this, so a player's
        bound is spent searching, never compiling (a fresh server's first triangle-5 hint came
        back undecided "after 2 positions", its 3 s spent so)."""
        if self.searches:
            search = Search(self.searches[0].goal, new_table(WARM_SLOTS), new_table(WARM_SLOTS),
                            self.board.holes)
            search.begin(self.position)
            search.go(1)  # a root decided at once returns at once, compiled all the same

    def _note_won(self) -> None:
        """A search that won kept its line in the goal's won table (`Tables.kept_line`, once):
        later searches look there."""
        with self.lock:  # both lanes may have ended
            if WON not in self.ended or self.noted:
                return
            self.noted = True
            with self.solver.lock:
                self.kept.kept_line(self.searches[self.ended.index(WON)].line_keys())

    def _examined(self) -> int:
        return self.retired + sum(int(search.counts[0]) for search in self.searches)

    def _restart(self) -> None:
        """Begin the second search again, its jumps in the first's order with each jump's score
        shifted by noise (kernel.jump_order: up to the spread's deviation and, every other run, a
        few stranded pegs, so a jump scored a stranded peg behind is sometimes tried first): a
        depth-first search's time to a win is heavy-tailed, one order lost for millions of
        positions in a subtree another never enters, so short runs in many orders find most wins
        sooner than one long run (a child of a won triangle-9 position: 18 M positions in the
        first order, 40 K in restarts). A
        run ends after Luby's sequence of budgets (1, 1, 2, 1, 1, 2, 4, ... times RESTART_UNIT);
        what it proved dead stays in the goal's table, so no run repeats another's proofs, and
        one that tries every jump proves a loss as surely as the first."""
        base = self.searches[0].goal
        wide = self.runs % 2 == 1  # every other run (jump_order.restart_spread)
        search = Search(base._replace(spread=restart_spread(base.spread, self.noise, wide)), self.kept.dead,
                        self.kept.won, self.board.holes, any_won=self.kept.any_won)
        with self.lock:  # the other lane may be counting the positions examined
            self.retired += int(self.searches[1].counts[0])
            self.searches[1] = search
            self._with_endgame()
        self.ended[1] = search.begin(self.position)
        self.runs += 1
        self.budget = luby(self.runs) * RESTART_UNIT

    def _counted(self) -> None:
        """Count the positions examined since last asked towards the goal's endgame, and search
        on with the endgame once it is made."""
        with self.lock:
            examined = self._examined()
            self.solver._searched(self.board, self.finish, self.kept, examined - self.examined)
            self.examined = examined
            self._with_endgame()

    def _with_endgame(self) -> None:
        """Give the searches the goal's endgame, where it has one."""
        if self.kept.endgame is not None:
            for search in self.searches:
                search.endgame, search.few = self.kept.endgame, self.kept.few


def both_ways(board: Board, forward: Answer, backward: Answer) -> Answer:
    """A single vacancy's question answered from its two searches (`Solver.answer`): the forward
    one's answer, or where it is open the reverse one's, decided: its line played backwards and
    checked, or its proof of loss, which is the forward game's (the two games' solutions are each
    other's reversed). A reverse pagoda proof carries over with its weights: a jump's condition
    holds both ways, and the reverse start (every hole but the finish) weighing less than one peg
    on the start means the forward start weighs less than one peg on the finish, its threshold
    here, so the proof is checked as any other. The reverse side proved lost first once the
    functions fitted to play made such proofs (a diamond-41 survey pair): its empty line,
    "played", ended nowhere near the goal."""
    answer = forward
    if not forward.decided and backward.decided:
        pagoda = backward.pagoda and Pagoda(backward.pagoda.weights,
                                            backward.pagoda.weights[forward.finish - 1])
        answer = Answer(backward.outcome, forward.position, forward.finish,
                        tuple(reversed(backward.line)), backward.how, pagoda=pagoda)
        if answer.won:
            answer = replayed(board, answer)
    return replace(answer, examined=forward.examined + backward.examined,
                   seconds=forward.seconds + backward.seconds)


def _swapped(board: Board, start: int, finish: int) -> bool:
    """Whether a symmetry of the board swaps `start` and `finish` (or they are one hole): the
    single vacancy at `start` to one peg on `finish` is then its own reverse, up to that symmetry
    (the 41-hole diamond's top corner to its bottom one), and searching it both ways would search
    one question twice, on two goals' tables, at half the speed each."""
    return any(perm[start - 1] == finish - 1 and perm[finish - 1] == start - 1
               for perm in board.symmetries)


def luby(run: int) -> int:
    """Term `run` (from 1) of Luby's sequence 1, 1, 2, 1, 1, 2, 4, 1, ...: restart budgets whose
    total is within a log factor of the best fixed budget's, whatever the distribution of the
    time to a win (Luby, Sinclair and Zuckerman, 1993)."""
    bits = run.bit_length()
    while run != (1 << bits) - 1:  # past the last whole block: the sequence begins again
        run -= (1 << (bits - 1)) - 1
        bits = run.bit_length()
    return 1 << (bits - 1)


def goal_holes(board: Board, position: int, finish: int | None) -> tuple[int, ...]:
    """The holes the last peg may end on: `finish` (or every hole) where its one-peg position has
    the class of `position`."""
    basis = invariants(board)
    home = class_of(position, basis)
    holes = range(1, board.holes + 1) if finish is None else (board.hole_of(finish, "finish"),)
    return tuple(hole for hole in holes if class_of(1 << (hole - 1), basis) == home)


@cache
def goal_tables(board: Board, finish: int | None) -> BoardTables:
    """The board's tables under the group that keeps a goal: the whole group for one peg
    anywhere, the symmetries keeping `finish` for one peg on it."""
    group = board.symmetries if finish is None else \
        tuple(perm for perm in board.symmetries if perm[finish - 1] == finish - 1)
    return BoardTables.for_board(board, group)


@cache
def compiled_goal(board: Board, goal: tuple[int, ...], finish: int | None, drawn_in: bool,
                  fitted: tuple[Pagoda, ...] = ()) -> Goal:
    """The kernel's form of a goal: tables under the group that keeps it, its pagoda functions
    and those `fitted` to a question, and its jumps scored by how they spread the pegs
    (`drawn_in`) or not at all."""
    scores = spread(board, finish) if drawn_in else [0] * len(board.jumps)
    return _compiled(board, goal_tables(board, finish), goal, scores, fitted)


def _compiled(board: Board, tables: BoardTables, goal: tuple[int, ...], scores: list[int],
              fitted: tuple[Pagoda, ...] = ()) -> Goal:
    """The goal `goal` (its holes) for the walk on `tables`, with the goal's pagoda functions and
    those `fitted` to a question, and each jump's score."""
    mask = sum(1 << (hole - 1) for hole in goal)
    found = [(pagoda.weights, pagoda.threshold) for pagoda in pagodas(board, goal) + fitted]
    return Goal.compiled(tables, mask, list(range(len(board.jumps))), found, scores)


def replayed(board: Board, answer: Answer) -> Answer:
    """`answer`, after its line is played from its position: every jump legal, one peg left on a
    goal hole. A line that fails is a bug, never an answer."""
    position = answer.position
    for jump in answer.line:
        legal = dict(legal_jumps(board, position))
        if jump not in legal:
            raise AssertionError(f"the solver's line from {answer.position} plays {jump}, not legal")
        position = legal[jump]
    goal = goal_holes(board, answer.position, answer.finish)
    if position.bit_count() != 1 or position.bit_length() not in goal:
        raise AssertionError(f"the solver's line from {answer.position} does not end on the goal")
    return answer


def _since(began: float) -> float:
    return clock() - began


def time_bound(text: str | float, decimal: bool = False) -> float:
    """A time bound in seconds as the user gave it, checked: a positive, finite number, in digits
    0-9 (Python's float reads other scripts' digits: `seconds=٢` was 2); with `decimal`, written
    as digits with at most a decimal point (the service's rule for every number: no sign, space,
    exponent or underscore)."""
    written = not isinstance(text, str) or (is_decimal(text) if decimal else text.isascii())
    try:
        seconds = float(text) if written else float("nan")
    except (TypeError, ValueError):
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise InputError("{seconds} {text}: not a time bound; give a number of seconds above 0,"
                         " such as 10 or 0.5", text=shown(str(text)))
    return seconds


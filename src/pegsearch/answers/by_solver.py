"""Solutions, hints and surveys answered by the solver, in the documents a stored run answers with.

A board whose search does not fit (or a run not yet complete) has no levels to read; the solver
(answers.solver) answers the same questions one at a time instead. The documents are the run's
own (`solution_document`, `hint`, `Survey`), with `"by": "depth-first"` and what the
solver adds: each answer's outcome (won, lost, undecided), how a loss was proved or which bound
stopped it, and the positions it examined. So the service, the Play page and scripts read both.

What it proves and what it only finds: a won answer carries a line of play, replayed before it is
given; lost is a proof (position classes, a pagoda function, or every line tried); undecided is
neither, and says so.
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from pegsearch.answers.fewest_solver import fewest_moves
from pegsearch.answers.records import (
    RECORD,
    SearchRecord,
    never_one_peg,
    recorded_loss,
    settled_by_records,
    start_proof,
)
from pegsearch.answers.settled import WHOLE, settled
from pegsearch.answers.shapes import BY, Found, Hint, HintJump, Solution, steps
from pegsearch.answers.solver import (
    LANES,
    LOST_WORD,
    UNDECIDED,
    WON_WORD,
    Answer,
    Question,
    Solver,
    Stopped,
    goal_holes,
    stopped,
)
from pegsearch.answers.survey import StartResult
from pegsearch.board.geometry import Board, Jump, legal_jumps
from pegsearch.board.pictures import holes_with_pegs, render
from pegsearch.board.symmetry import Permutation, hole_classes, image_of_hole, image_of_jump
from pegsearch.kernel.compiling import clock
from pegsearch.kernel.threads import WORKERS
from pegsearch.store import Run

# A hint's share of its time for the finishing holes (searched beside the jumps, on another core,
# where the position is known won soon enough; else after them, and the rest decides the jumps),
# and the first slice each of its questions is searched for.
FINISHES_SHARE = 0.15
# The least share the finishing holes searched beside the jumps get when the jumps are decided
# sooner: a player waits for the jumps, and an early position's holes are seldom all settled in
# its whole share (a won triangle-9 position 10-20 jumps in leaves 6-14 open).
FINISHES_LEAST = 0.05
# The most seconds a hint's answer waits for its finishing holes once its jumps are decided: the
# shares above are of the bound, and a bound of 1e12 s held a triangle-9 hint whose every jump was
# decided in a second for ever (60 s: 4.3 s); the holes not settled by then are named undecided.
FINISHES_WAIT = 1.0
# The share the position is asked alone first: lost, and so is every jump from it (random play
# reaches lost positions soonest, and each child's proof would repeat a part of its parent's).
ITSELF_FIRST = 0.4
FIRST_SLICE = 0.01
# How each proof of a loss reads.
PROOFS = {"class": "the position classes rule it out (no jump changes a position's class)",
          "pagoda": "a pagoda function rules it out (the position weighs less than the goal)",
          "search": "every line of play was tried",
          WHOLE: "the whole search from the start (every position it can reach, kept as a run) never"
                 " reaches it",
          RECORD: "the whole search from the start never reaches it"}


def why(board: Board, answer: Answer) -> str:
    """One sentence on an answer that is not won: the proof, or the bound that stopped it (a
    pagoda function's, with what the position and the goal weigh; the classes', with the holes
    they allow, which are not each reachable)."""
    if answer.outcome == LOST_WORD and answer.how == "class":
        allowed = ", ".join(map(str, goal_holes(board, answer.position, None))) or "none"
        return (f"proved: {PROOFS['class']}; the position classes allow one peg on {allowed}"
                f" (see `pegsearch show {board.name}`)")
    if answer.outcome == LOST_WORD and answer.pagoda is not None:
        return (f"proved: {PROOFS['pagoda']}: it weighs {answer.pagoda.weight(answer.position)},"
                f" one peg on a goal hole at least {answer.pagoda.threshold} (each hole's weight"
                " given: no jump's landing hole weighs more than its other two together)")
    if answer.outcome == LOST_WORD and answer.how == RECORD:
        return f"proved: {PROOFS[RECORD]}: {start_proof(board, answer.position)}"
    if answer.outcome == LOST_WORD:
        return f"proved: {PROOFS[answer.how]}"
    return (f"undecided: the time bound was reached after {answer.examined:,} positions; give it"
            " more time (--seconds)")


def solution_by_solver(board: Board, start: tuple[int, ...], finish: int | None, seconds: float,
                       solver: Solver) -> Solution:
    """`documents.solution_document`'s answer for a board's start, found by the solver: one
    solution, or why there is none (proved) or none yet (undecided)."""
    position = _start_checked(board, start, finish)
    answer = solver.answer(board, position, finish, seconds)
    positions = _positions(board, position, answer.line)
    goal = "one peg" if finish is None else f"one peg on hole {finish}"
    note = "" if answer.won else f"{goal} from this start: {why(board, answer)}"
    return Solution(answer.won, note, finish, False, steps(answer.line), positions, board,
                    Found(tuple(start), answer.outcome, answer.how, answer.examined, answer.seconds,
                          pagoda=answer.pagoda))


def fewest_by_solver(board: Board, start: tuple[int, ...], finish: int | None, seconds: float,
                     solver: Solver) -> Solution:
    """The line with the fewest moves from a board's start, by the solver (answers.fewest_solver):
    proved fewest, or the best found within `seconds` with the bound not closed, said in its note."""
    position = _start_checked(board, start, finish)
    found = fewest_moves(board, position, finish, seconds, solver)
    positions = _positions(board, position, found.line)
    goal = "one peg" if finish is None else f"one peg on hole {finish}"
    if found.outcome == LOST_WORD:
        note = f"{goal} from this start: {why(board, Answer(LOST_WORD, position, finish, how=found.how))}"
    elif not found.line:
        note = (f"{goal} from this start: undecided: no line found within the time bound, and none"
                f" has fewer than {found.at_least} moves; give it more time (--seconds)")
    elif not found.proved:
        note = (f"the fewest moves are not proved: the best line found has {found.moves}, and no"
                f" solution has fewer than {found.at_least} (proved); give it more time (--seconds)")
    else:
        note = ""
    return Solution(bool(found.line), note, finish, found.proved and bool(found.line),
                    steps(found.line), positions, board,
                    Found(tuple(start), found.outcome, found.how, found.examined, found.seconds,
                          found.at_least))


def _start_checked(board: Board, start: tuple[int, ...], finish: int | None) -> int:
    """The start's position, its finishing hole checked on the board. One the position classes
    rule out is not refused: that is a proof of no solution, answered as any other proof is."""
    if finish is not None:
        board.hole_of(finish, "finish")
    return board.start_position(start)


def _positions(board: Board, position: int, line: tuple[Jump, ...]) -> tuple[int, ...]:
    """The position before a line's first jump and after each."""
    positions = [position]
    for jump in line:
        positions.append(dict(legal_jumps(board, positions[-1]))[jump])
    return tuple(positions)


def hint_by_solver(board: Board, position: int, finish: int | None, seconds: float,
                   solver: Solver, from_start: bool = False, stop: threading.Event | None = None
                   ) -> Hint:
    """`hint.hint`'s answer for any position of a board, by the solver: whether it can still be
    won, each legal jump won, lost or undecided, and the holes the last peg can still reach.

    The position is asked alone first (lost: so is every jump); then it and each child share the
    time left (see `_shared`): a won line puts its positions in the goal's won table, so the
    child it begins with follows at once, and wins each jump it plays later, played first
    (`_transposed`); the position proved lost meanwhile loses with every jump (`_settled`). The
    finishing holes no won line ended on get a share of the time of their own: on another core,
    beside the jumps, once the position is won (or a finish is asked for), else after them (a
    position not won by then has none to seek: the jumps take that share too), at most
    FINISHES_WAIT seconds once the jumps are decided.

    The clock starts once the goal's tables are made and the walk is compiled (`Question.warm`):
    what a first hint waits for is not the player's bound. `stop` set (the asker is gone) ends
    every search within a step and raises `Stopped`."""
    if finish is not None:
        board.hole_of(finish, "finish")
    pegs = position.bit_count()
    moves = legal_jumps(board, position)
    question = solver.ask(board, position, finish)
    question.warm()
    began = clock()
    waited = min(seconds * FINISHES_LEAST, FINISHES_WAIT)
    itself = _shared([question], began + seconds * ITSELF_FIRST, lambda found: found, stop)[0]
    itself = itself if itself.decided else recorded_loss(board, position, finish) or itself
    with ThreadPoolExecutor(1, thread_name_prefix="pegsearch-finishes") as pool:
        # Known to matter now (most won positions are won within the first slices): the
        # finishing holes are searched on another core while the jumps are, which then take
        # the whole bound; else they get their share after the jumps.
        beside, jumps_done = None, threading.Event()
        if itself.won or finish is not None:
            known = {itself.last} if itself.won else set()
            beside = pool.submit(solver.finishes, board, position,
                                 _other_holes(board, position, known), seconds * FINISHES_SHARE,
                                 jumps_done, waited, stop)
        deadline = began + seconds * (1 if beside else 1 - FINISHES_SHARE)
        if itself.outcome == LOST_WORD:  # no child to ask
            answers = _settled(moves, [itself] + [Answer(UNDECIDED, child, finish)
                                                  for _, child in moves])
        else:
            asked = [question, *(solver.ask(board, child, finish) for _, child in moves)]
            settle = partial(_settled, moves)
            answers = _shared(asked, deadline, settle, stop)
            if beside is None and not answers[0].won:  # no finishing holes to search: their share too
                answers = _shared(asked, began + seconds, settle, stop)
        itself, after = answers[0], answers[1:]
        ends = {answer.last for answer in answers if answer.won}  # each a possible finish
        if not itself.decided and moves and all(answer.outcome == LOST_WORD for answer in after):
            itself = Answer(LOST_WORD, position, finish, how="search")
        jumps_done.set()  # the finishes beside end too, once they have had their least
        if beside is not None:
            more, open_ = beside.result()
        elif itself.won:  # won in the jumps' time: its finishing holes get their share now
            more, open_ = solver.finishes(board, position, _other_holes(board, position, ends),
                                          min(seconds * FINISHES_SHARE, FINISHES_WAIT), stop=stop)
        elif itself.decided:  # lost: no hole is left to finish on
            more, open_ = {}, ()
        else:  # undecided: every hole the classes allow is, too (a list the same every time)
            more, open_ = {}, _other_holes(board, position, ends)
    if stopped(stop):
        raise Stopped
    jumps = tuple(HintJump(str(jump), _verdict(answer.outcome), holes_with_pegs(child),
                           outcome=answer.outcome)
                  for (jump, child), answer in zip(moves, after, strict=True))
    stuck = not moves and itself.outcome == LOST_WORD and itself.how != "class"
    return Hint(board.name, holes_with_pegs(position), render(board, position), pegs, finish,
                reachable=True if from_start else None, exact=True,
                winnable=_verdict(itself.outcome), finishes=sorted(ends | set(more)), jumps=jumps,
                level=board.holes - len(board.empty) - pegs if from_start else None, by=BY,
                outcome=itself.outcome,
                finishes_undecided=[hole for hole in open_ if hole not in ends],
                note=None if itself.won else "no jump is left" if stuck else why(board, itself))


def open_starts(board: Board, records: tuple[SearchRecord, ...] | None = None) -> dict:
    """The holes whose single vacancy the position classes leave a one-peg finish and no shipped
    record proves never reaches one (a start outside them can never be won, whatever is played:
    diamond-41's drawn start; hexagon-19's every start, by its whole searches), so a face can
    offer the starts that can be played to the end. `records`: those to use (default shipped)."""
    starts = [hole for hole in range(1, board.holes + 1)
              if goal_holes(board, board.start_position((hole,)), None)
              and not never_one_peg(board, hole, records)]
    return {"board": board.name, "starts": starts,
            "note": "single empty holes from which one peg is not ruled out by the position classes"
                    " or by a whole search shipped as a record (`pegsearch records`)"}


def _other_holes(board: Board, position: int, ends: set[int]) -> tuple[int, ...]:
    """The holes the classes let the last peg end on from `position`, but for `ends` (known)."""
    return tuple(hole for hole in goal_holes(board, position, None) if hole not in ends)


def _shared(asked: list[Question], deadline: float,
            settle: Callable[[list[Answer]], list[Answer]],
            stop: threading.Event | None = None) -> list[Answer]:
    """The questions' answers, each searched in turn for a slice that doubles each time, until
    all are decided or `deadline` passes: an easy one is answered within the first slices, and
    the time left goes to the hard ones, each resumed where it stopped. Every core searches (the
    kernels release the interpreter), each taking the undecided lane of a question (its searches
    in two orders, `Question.go`) of shortest slice that no other is searching: a hint's hard
    jumps are a few, often one, and one core left them half the time. `settle` decides what it
    can from the answers so far whenever one is decided; `stop` set ends it within a step."""
    answers = settle([question.go(0) for question in asked])
    lock = threading.Lock()
    waiting = [(FIRST_SLICE, index, lane) for index in range(len(asked)) for lane in LANES]  # a heap

    def search() -> None:
        nonlocal answers
        while True:
            with lock:
                while waiting and answers[waiting[0][1]].decided:
                    heapq.heappop(waiting)
                if not waiting or clock() >= deadline or stopped(stop):
                    return
                slice_, index, lane = heapq.heappop(waiting)
            try:
                answer = asked[index].go(min(slice_, max(0.0, deadline - clock())), lane,
                                         stop)
            except BaseException:  # a signal, say: the others stop after their slice
                with lock:
                    waiting.clear()
                raise
            with lock:
                if not answers[index].decided:  # else settled meanwhile by another's answer
                    answers[index] = answer
                    if answer.decided:
                        answers = settle(answers)
                if not answer.decided:
                    heapq.heappush(waiting, (2 * slice_, index, lane))

    cores = max(1, min(WORKERS, len(asked) * len(LANES)))
    with ThreadPoolExecutor(cores, thread_name_prefix="pegsearch-hint") as pool:
        for searching in [pool.submit(search) for _ in range(cores)]:
            searching.result()
    return answers


def _settled(moves: list[tuple[Jump, int]], answers: list[Answer]) -> list[Answer]:
    """A hint's answers (the position's, then each jump's) with what the decided ones decide: a
    lost position loses with every jump (each child's lines are some of its lines); a won line
    wins the jumps it plays later (`_transposed`)."""
    if answers[0].outcome == LOST_WORD:  # proved as the position was (classes, pagoda, search)
        return [answers[0]] + [answer if answer.decided else
                               Answer(LOST_WORD, answer.position, answer.finish, how=answers[0].how,
                                      examined=answer.examined, seconds=answer.seconds)
                               for answer in answers[1:]]
    return _transposed(moves, answers)


def _transposed(moves: list[tuple[Jump, int]], answers: list[Answer]) -> list[Answer]:
    """A hint's answers (the position's, then each jump's) with the jumps won by another order of
    a line already found: a jump that a winning line from the position plays later, played first,
    the rest in their order, wins too wherever every jump stays legal (it ends where that line
    ended). Solutions share most of their jumps, so most winning jumps are found so, not searched."""
    itself, after = answers[0], list(answers[1:])
    lines = [itself.line] if itself.won else []
    lines += [(jump, *answer.line) for (jump, _), answer in zip(moves, after, strict=True) if answer.won]
    for index, ((jump, child), answer) in enumerate(zip(moves, after, strict=True)):
        for line in lines if not answer.decided else ():
            if jump in line:
                rest = line[:line.index(jump)] + line[line.index(jump) + 1:]
                if _plays(child, rest):
                    after[index] = Answer(WON_WORD, child, answer.finish, rest, examined=answer.examined,
                                          seconds=answer.seconds)
                    break
    if not itself.decided and lines:
        itself = Answer(WON_WORD, itself.position, itself.finish, lines[-1], examined=itself.examined,
                        seconds=itself.seconds)
    return [itself, *after]


def _plays(position: int, line: tuple[Jump, ...]) -> bool:
    """Whether every jump of `line` is legal in turn from `position`."""
    for jump in line:
        start, over, to = (1 << (hole - 1) for hole in (jump.start, jump.over, jump.to))
        if position & (start | over) != start | over or position & to:
            return False
        position ^= start | over | to
    return True


def _verdict(outcome: str) -> bool | None:
    return {WON_WORD: True, LOST_WORD: False}.get(outcome)


def survey_by_solver(board: Board, seconds: float, solver: Solver,
                     progress: Callable[[int, int, Answer], None] | None = None,
                     whole: Callable[[int], Run] | None = None) -> list[StartResult]:
    """Every single vacancy of `board` to one peg on every hole, by the solver: one start per
    class of holes, one finishing hole per class under the symmetries fixing that start, each
    decided in at most `seconds`, a pair a core at once (they share the solver's tables); every
    hole takes its class's answers through a symmetry. Stopped (a signal, a cancel), the pairs
    being searched end at their next step and those waiting never start: a survey of 70 pairs
    does not search on for an hour after its asker went away. With `whole` (a start's complete
    run), the pairs left undecided are then settled by their start's whole search
    (answers.settled)."""
    pairs = [(holes[0], finish) for holes in hole_classes(board)
             for finish in _finishes_up_to_symmetry(board, holes[0])]

    stop = threading.Event()

    def decided(pair: tuple[int, int]) -> Answer:
        answer = solver.answer(board, board.start_position((pair[0],)), pair[1], seconds, stop=stop)
        if progress:
            progress(*pair, answer)
        return answer

    with ThreadPoolExecutor(WORKERS, thread_name_prefix="pegsearch-survey") as pool:
        try:
            found = dict(zip(pairs, pool.map(decided, pairs), strict=True))
        except BaseException:
            stop.set()  # the pairs under way end at their next step (map cancels those waiting)
            raise
    found, recorded = settled_by_records(board, found)
    runs: dict[int, str] = {}
    if whole is not None:
        found, runs = settled(found, whole)
    results: dict[int, StartResult] = {}
    for holes in hole_classes(board):
        searched = holes[0]
        fixing = board.stabilizer(board.start_position((searched,)))
        answers: dict[int, tuple[Answer, Permutation]] = {}
        for finish in goal_holes(board, board.start_position((searched,)), None):
            asked = next(hole for (start, hole) in found if start == searched
                         and _carried(fixing, hole, finish))
            answers[finish] = (found[searched, asked], _carried(fixing, asked, finish))
        for hole in holes:
            perm = next(p for p in board.symmetries if image_of_hole(p, searched) == hole)
            results[hole] = _moved(hole, searched, answers, perm, runs.get(searched, ""),
                                   recorded[searched].proof() if searched in recorded else "")
    return [results[hole] for hole in sorted(results)]


def _finishes_up_to_symmetry(board: Board, start: int) -> list[int]:
    """The finishing holes the classes allow from a single vacancy at `start`, one of each class
    under the symmetries fixing that start (the least)."""
    position = board.start_position((start,))
    fixing = board.stabilizer(position)
    return sorted({min(image_of_hole(perm, hole) for perm in fixing)
                   for hole in goal_holes(board, position, None)})


def _carried(group: tuple[Permutation, ...], hole: int, to: int) -> Permutation | None:
    """A symmetry of `group` carrying `hole` onto `to`, if any."""
    return next((perm for perm in group if image_of_hole(perm, hole) == to), None)


def _moved(start: int, searched: int, answers: dict[int, tuple[Answer, Permutation]],
           perm: Permutation, run: str, record: str) -> StartResult:
    """The answers for `searched` carried by `perm` onto the start `start`: each finishing hole
    and its line through the symmetry that made it from its class's answer, then through `perm`;
    `run` the whole search that settled some of them (answers.settled), `record` the proof of
    the shipped record that did (answers.records), if any."""
    lines: dict[int, tuple[Jump, ...]] = {}
    lost: dict[int, str] = {}
    undecided: list[int] = []
    for finish, (answer, within) in answers.items():
        hole = image_of_hole(perm, finish)
        if answer.won:
            lines[hole] = tuple(image_of_jump(perm, image_of_jump(within, jump)) for jump in answer.line)
        elif answer.decided:
            lost[hole] = answer.how
        else:
            undecided.append(hole)
    finishes = tuple(sorted(lines))
    # One per pair searched, and one per whole search however many pairs it settled.
    asked = {answer.how if answer.how in (WHOLE, RECORD) else id(answer): answer
             for answer, _ in answers.values()}
    examined = sum(answer.examined for answer in asked.values())
    return StartResult(start, searched, bool(finishes), finishes, examined, None, run,
                       lines={hole: lines[hole] for hole in finishes},
                       lost=dict(sorted(lost.items())), undecided=tuple(sorted(undecided)),
                       record=record)


"""The depth-first solver against the whole search: its verdicts against stored winnable sets, its
surveys against today's surveys and the published pair counts, its lines replayed by a geometry
written here, and its pagoda functions checked jump by jump; and the faces that ask it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pegsearch.answers.by_solver import _settled, _transposed
from pegsearch.answers.hint import read_position
from pegsearch.answers.solver import LANES, LOST_WORD, UNDECIDED, WON_WORD, Answer, Solver, both_ways, luby
from pegsearch.answers.winnable import targets, winnable_sets
from pegsearch.board.files import load_board
from pegsearch.board.geometry import Board, legal_jumps
from pegsearch.board.pagoda import pagoda_against, pagodas, pagodas_of_play
from pegsearch.kernel.depth_first import new_table
from pegsearch.kernel.jump_order import STRANDED
from tests.answers.test_survey import (
    check_every_hole_is_its_class_carried_by_symmetry,
    solvable_pair_classes,
    survey_json,
)
from tests.helpers import assert_one_line_error, cell, local_run, pegsearch
from tests.helpers.order import plain_scores

AGREEMENT = Path(__file__).parents[2] / "bench" / "solver_agreement.py"


def replayed(side: int, start: set[int], jumps: list[str]) -> set[int]:
    """Play `jumps` (FROM-OVER-TO) on a triangle of `side` from the pegs `start`, each checked
    legal by rows and columns; the pegs left."""
    pegs = set(start)
    for text in jumps:
        a, b, c = map(int, text.split("-"))
        (ra, ca), (rb, cb), (rc, cc) = cell(a), cell(b), cell(c)
        step = (rb - ra, cb - ca)
        assert step in {(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)}, text
        assert (rc - rb, cc - cb) == step and 0 <= cc <= rc < side, text
        assert a in pegs and b in pegs and c not in pegs, text
        pegs = (pegs - {a, b}) | {c}
    return pegs


def test_verdicts_equal_the_winnable_sets_on_random_positions(tmp_path: Path) -> None:
    """bench/solver_agreement.py on triangles 5 and 6: random stored positions of every level,
    both outcomes, one peg anywhere and on a hole: no difference, none undecided."""
    result = subprocess.run([sys.executable, str(AGREEMENT), "--boards", "triangle-5", "triangle-6",
                             "--positions", "400", "--work", str(tmp_path)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    for board in ("triangle-5", "triangle-6"):
        [line] = [line for line in result.stdout.splitlines() if line.startswith(f"{board}:")]
        assert "400 positions checked" in line and "0 undecided; 0 differences" in line
        assert " won 0," not in line and " lost 0;" not in line


def test_verdicts_through_the_endgame_equal_the_winnable_sets(tmp_path: Path) -> None:
    """The same on triangle-6 with each goal's endgame started at its first step (it then holds
    most of the board's positions): a position looked up equals one searched by the whole search."""
    result = subprocess.run([sys.executable, str(AGREEMENT), "--boards", "triangle-6", "--positions",
                             "400", "--endgame-after", "0", "--work", str(tmp_path)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "400 positions checked" in result.stdout and "0 undecided; 0 differences" in result.stdout


def test_a_line_found_wins_each_jump_it_plays_later_when_played_first() -> None:
    """A hint's children won by another order of a line from their parent, at each position of
    an English solution: each such line is legal jump by jump and ends where the parent's ended;
    a jump the line never plays is left undecided."""
    board = load_board("english-33")
    position = board.start_position()
    line = Solver(goals=2).answer(board, position, None, 60).line
    transposed = 0
    for played in range(len(line) - 1):
        won = Answer(WON_WORD, position, None, line[played:])
        moves = legal_jumps(board, position)
        found = _transposed(moves, [won, *(Answer(UNDECIDED, child, None) for _, child in moves)])
        for (jump, child), answer in zip(moves, found[1:], strict=True):
            assert answer.won or not answer.decided
            if jump not in won.line:
                assert not answer.decided
            elif answer.won:
                pegs = child
                for step in answer.line:
                    pegs = dict(legal_jumps(board, pegs))[step]  # KeyError: not legal
                assert pegs == won.end
                transposed += jump != line[played]
        position = dict(moves)[line[played]]
    assert transposed >= 10  # solutions share most of their jumps


def lost_english_position(seed: int) -> int:
    """A position of English, some random jumps from its start, that the solver proves lost after
    searching at least a thousand positions."""
    board, chosen = load_board("english-33"), random.Random(seed)
    while True:
        position = board.start_position()
        for _ in range(chosen.randint(4, 12)):
            position = chosen.choice(legal_jumps(board, position))[1]
        answer = Solver(goals=1).answer(board, position, None, 60, dual=False)
        if answer.outcome == LOST_WORD and answer.how == "search" and answer.examined >= 1000:
            return position


def test_a_position_proved_lost_loses_with_every_jump_not_yet_decided() -> None:
    """A hint's position proved lost (by a pagoda function here) decides each jump from it lost by
    the same proof; a jump already decided keeps its own answer."""
    board = load_board("english-33")
    position = lost_english_position(3)
    moves = legal_jumps(board, position)
    assert len(moves) >= 2
    asked = [Answer(UNDECIDED, position, None),
             Answer(LOST_WORD, moves[0][1], None, how="search", examined=7),
             *(Answer(UNDECIDED, child, None) for _, child in moves[1:])]
    assert _settled(moves, asked) == asked  # nothing decides the rest yet
    asked[0] = Answer(LOST_WORD, position, None, how="pagoda")
    settled = _settled(moves, asked)
    assert settled[1] == asked[1]
    assert [(a.outcome, a.how, a.position) for a in settled[2:]] == \
        [(LOST_WORD, "pagoda", child) for _, child in moves[1:]]


def test_a_question_stops_once_another_proves_its_position_lost() -> None:
    """Two questions about one lost position on one solver's tables: once the second proves it,
    the first answers lost without examining another position."""
    board = load_board("english-33")
    position = lost_english_position(5)
    solver = Solver(goals=1, endgame_after=10**12)
    waiting, proving = solver.ask(board, position, None), solver.ask(board, position, None)
    before = waiting.go(0)
    assert not before.decided and before.examined <= 2  # its roots, put on its stacks
    proved = proving.go(60)
    assert proved.outcome == LOST_WORD and proved.examined >= 1000
    answer = waiting.go(60)
    assert (answer.outcome, answer.how, answer.examined) == (LOST_WORD, "search", before.examined)


@pytest.mark.parametrize("seed", [5, 7, None])
def test_a_questions_two_lanes_searched_on_two_cores_at_once_agree(seed: int | None) -> None:
    """A question's two searches run on two threads at once over the same tables, as a hint runs
    its hardest question: both threads end with the answer the turn-about search gives (lost
    positions proved by search, and the English start won), never one won and one lost."""
    board = load_board("english-33")
    position = board.start_position() if seed is None else lost_english_position(seed)
    alone = Solver(goals=1).ask(board, position, None).go(60)
    question = Solver(goals=1).ask(board, position, None)
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda lane: question.go(60, lane), LANES))
    assert alone.decided and alone.won == (seed is None)
    assert [answer.outcome for answer in answers] == [alone.outcome] * 2


def test_a_won_table_half_filled_by_lines_is_emptied_and_answers_stay_right() -> None:
    """Every jump along an English solution (from its fourth position: the first ones' children
    take seconds to decide) asked of a solver whose won table has 512 slots:
    the lines kept fill half of it and it is emptied (the oldest lines go, so the new ones are
    kept), its keys never more than the positions of the lines counted since; every verdict
    equals that of a solver whose table never fills, and every won line replays (the solver
    replays each before giving it)."""
    board = load_board("english-33")
    small, large = Solver(goals=1), Solver(goals=1)
    kept = small._kept(board, None)
    kept.won = new_table(512)
    position = board.start_position()
    line = small.answer(board, position, None, 60).line
    lines, emptied = kept.lines, 0
    for played, jump in enumerate(line):
        for _, child in legal_jumps(board, position) if played >= 3 else ():
            answer = small.answer(board, child, None, 60)
            assert answer.decided and answer.outcome == large.answer(board, child, None, 60).outcome
            emptied += kept.lines < lines
            lines = kept.lines
            assert int((kept.won != 0).sum()) <= kept.lines <= len(kept.won) // 2
        position = dict(legal_jumps(board, position))[jump]
    assert emptied >= 1


def test_a_process_whose_endgame_is_being_made_stops_it_and_exits_cleanly() -> None:
    """The endgame is made on a thread of its own; a command ends as soon as its answer is out.
    A daemon thread stopped at exit inside the kernel aborted the process (exit 134, now and
    then), and waiting for the endgame kept a command seconds after its answer: the thread stops
    itself once the main thread has ended, cut short by the time the exit handlers run."""
    script = """if True:
        import atexit
        from pegsearch.answers.solver import Solver
        from pegsearch.board.files import load_board
        board = load_board("triangle-9")
        solver = Solver(goals=1, endgame_after=0)  # made once the first step is counted
        solver.ask(board, board.start_position(), None).go(0.05)
        kept = next(iter(solver.tables.values()))
        atexit.register(lambda: print("made" if kept.endgame is not None else "cut short"))
    """
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "cut short"


def test_luby_sequence() -> None:
    assert [luby(run) for run in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


def test_a_restart_may_try_first_a_jump_a_stranded_peg_behind_the_best() -> None:
    """Every other restart's noise reaches past a stranded peg's cost (RESTART_NOISE): with noise
    within the spread alone (28 on triangle-9, a stranded peg 30), no restart's first jump was ever
    one that the first order scored a stranded peg or more behind its best, and the wins that begin
    so were found about as late in every order. The runs between keep within the spread: with the
    wide noise alone, diamond-41's survey won no pair (20 with the narrow noise)."""
    board = load_board("triangle-9")
    position = read_position(board, board.empty, "6-3-1,13-9-6,4-8-13")
    score = plain_scores(board, position)
    question = Solver(goals=1, endgame_after=10**12).ask(board, position, None)
    firsts: dict[bool, list[int]] = {True: [], False: []}
    for _ in range(30):
        wide = question.runs % 2 == 1
        question._restart()
        restarted = question.searches[1]
        firsts[wide].append(score[int(restarted.goal.order[restarted.stack.jumps[0, 0]])])
    assert max(firsts[True]) >= min(score.values()) + STRANDED
    assert max(firsts[False]) < min(score.values()) + STRANDED


def test_restarts_find_a_win_the_first_order_is_lost_for_millions_of_positions() -> None:
    """A triangle-9 position 11 jumps in, won: the drawn-in order alone examined 18 M positions
    before its win; the question's second search, restarted in other orders, wins within a few
    hundred thousand (the line is replayed by the solver before it is given)."""
    board = load_board("triangle-9")
    position = read_position(board, board.empty, "6-3-1,15-10-6,8-5-3,28-21-15,19-20-21,9-14-20,"
                             "21-20-19,34-27-21,36-35-34,12-13-14,15-14-13")
    question = Solver(goals=1, endgame_after=10**12).ask(board, position, None)
    answer = question.go(60)
    assert answer.won and question.runs > 1
    assert answer.examined < 3_000_000


@pytest.mark.slow
def test_verdicts_equal_the_english_winnable_sets(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(AGREEMENT), "--boards", "english-33",
                             "--positions", "200", "--work", str(tmp_path)],
                            capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "200 positions checked" in result.stdout and "0 differences" in result.stdout


def test_every_position_a_run_says_lost_is_lost_and_won_ones_replay(tmp_path: Path) -> None:
    """English from the centre, to one peg in the centre, for positions of the stored levels: the
    solver's won lines replay to the centre, and it says lost exactly where the sets do."""
    run = local_run("english-33", tmp_path / "run")
    sets = dict(winnable_sets(run, targets(run, 17)))
    board, solver, chosen = run.board, Solver(goals=2), random.Random(7)
    for level in (8, 14, 20, 26):
        stored = run.read_level(level).tolist()
        for position in chosen.sample(stored, 40):
            answer = solver.answer(board, position, 17, 30)
            assert answer.won == (position in set(sets[level].tolist()))
            if answer.won:
                assert answer.end == 1 << 16


@pytest.mark.parametrize("board", ["triangle-5", "triangle-6"])
def test_the_solver_survey_equals_the_searched_survey(published: dict, tmp_path: Path,
                                                      board: str) -> None:
    """`survey --depth-first` and the survey by searches agree on every start and finishing hole;
    each pair's line replays (by rows and columns) to its finishing hole; the pairs up to symmetry
    are OEIS A130516's."""
    side = int(board.split("-")[1])
    searched = survey_json(board, tmp_path / "searched")
    solved = survey_json(board, tmp_path / "solved", "--depth-first", "--seconds", "30")
    assert solved["by"] == "depth-first" and searched["by"] == "breadth-first"
    assert [(s["start"], s["finishes"]) for s in solved["starts"]] == \
        [(s["start"], s["finishes"]) for s in searched["starts"]]
    check_every_hole_is_its_class_carried_by_symmetry({**solved, "starts": [
        {**s, "states": 0} for s in solved["starts"]]}, side)
    assert solvable_pair_classes(solved, side) == published["triangle_solvable_pairs"]["by_side"][str(side)]
    holes = set(range(1, side * (side + 1) // 2 + 1))
    for start in solved["starts"]:
        assert not start["undecided"]
        for finish, line in start["lines"].items():
            assert replayed(side, holes - {start["start"]}, line.split(",")) == {int(finish)}


def test_pairs_the_solver_leaves_undecided_are_settled_by_their_starts_whole_search(
        published: dict, tmp_path: Path) -> None:
    """Issue 63, item 1: a pair no bound decides is decided by its start's whole search. At a bound
    this short the solver decides no pair of triangle-5; `--whole-search` searches each start
    whole into the survey's folder: no pair is left undecided, the finishes are the searched
    survey's (a second engine) and Bell's pairs (A130516), the won lines replay by rows and
    columns, and the pairs no line reaches are proved lost by the kept run."""
    out = tmp_path / "settled"
    document = survey_json("triangle-5", out, "--depth-first", "--seconds", "0.0001", "--whole-search")
    searched = survey_json("triangle-5", tmp_path / "searched")
    assert [(s["start"], s["finishes"]) for s in document["starts"]] == \
        [(s["start"], s["finishes"]) for s in searched["starts"]]
    assert solvable_pair_classes(document, 5) == published["triangle_solvable_pairs"]["by_side"]["5"]
    holes = set(range(1, 16))
    proofs = []
    for start in document["starts"]:
        assert not start["undecided"]
        run = out / f"start-{start['searched']:02d}"
        assert start["whole_search"] == str(run) and (run / "manifest.json").is_file()
        for finish, line in start["lines"].items():
            assert replayed(5, holes - {start["start"]}, line.split(",")) == {int(finish)}
        assert not set(map(int, start["lost"])) & set(start["finishes"])
        proofs += start["lost"].values()
    assert "whole search" in proofs and set(proofs) <= {"class", "pagoda", "search", "whole search"}
    assert pegsearch("verify", str(out / "start-01")).returncode == 0


def test_triangle_9_is_solved_from_its_corner_and_the_line_replays() -> None:
    result = pegsearch("solve", "triangle-9", "--json")
    assert result.returncode == 0, result.stderr
    assert "answered by the depth-first solver (triangle-9 is a board, not a run)" in result.stderr
    document = json.loads(result.stdout)
    assert document["by"] == "depth-first" and document["solved"] and document["outcome"] == "won"
    jumps = [f"{j['from']}-{j['over']}-{j['to']}" for j in document["jumps"]]
    assert len(jumps) == 43
    assert replayed(9, set(range(2, 46)), jumps) == set(document["positions"][-1])


def test_a_finish_the_classes_rule_out_is_a_proof_and_bad_bounds_are_one_line() -> None:
    ruled_out = pegsearch("solve", "triangle-9", "--finish", "2")
    assert ruled_out.returncode == 0, ruled_out.stderr
    assert "one peg on hole 2 from this start: proved: the position classes rule it out" \
        in ruled_out.stdout
    for bound in ("0", "-1", "soon", "nan", "inf"):
        assert_one_line_error(pegsearch("solve", "triangle-9", "--seconds", bound),
                              "not a time bound")
    assert_one_line_error(pegsearch("hint", "wiegleb-45", "46"), "hole 46 does not exist")
    assert_one_line_error(pegsearch("hint", "triangle-9", "1-2-3"), "is not a legal jump there")
    assert_one_line_error(pegsearch("solve", "triangle-9", "--start", "50"), "hole 50 does not exist")
    # every hole empty: `run` refused it, `solve` said the position classes rule it out, exit 0
    assert_one_line_error(pegsearch("solve", "triangle-9", "--start", *map(str, range(1, 46))),
                          "the start leaves no peg on triangle-9")


def test_skippy_xl_from_its_corner_is_proved_lost_by_the_position_classes() -> None:
    result = pegsearch("solve", "skippy-xl", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert not document["solved"] and document["outcome"] == "lost" and document["how"] == "class"


def test_a_hint_on_a_board_marks_each_jump_and_the_finishes() -> None:
    """A hint on wiegleb-45 after two jumps from its start: each jump won, lost or undecided (three
    decided ones asked again by a solver with tables of its own), the finishing holes possible;
    the text form, on an English position it decides in moments."""
    result = pegsearch("hint", "wiegleb-45", "8-14-23,16-15-14", "--json", "--seconds", "10")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["by"] == "depth-first" and document["level"] == 2
    assert document["winnable"] is True and document["finishes"]
    assert {jump["outcome"] for jump in document["jumps"]} <= {"won", "lost", "undecided"}
    board, solver = load_board("wiegleb-45"), Solver(goals=2)
    decided = [jump for jump in document["jumps"] if jump["outcome"] != "undecided"]
    assert decided
    for jump in decided[:3]:  # asked again by a solver of the test's own, with its own tables
        position = sum(1 << (h - 1) for h in jump["position"])
        assert solver.answer(board, position, None, 60).outcome == jump["outcome"]
    text = pegsearch("hint", "english-33", "5-10-17", "--seconds", "20")  # decided in moments
    assert "the last peg can still end on" in text.stdout and "keeps it winnable" in text.stdout


def never_grows(board: Board, w: Sequence[int]) -> bool:
    """Whether weights `w` (hole h's at h - 1) are a pagoda function's: on every jump line of the
    board, the landing hole weighs no more than the other two together."""
    return all(w[j.to - 1] <= w[j.start - 1] + w[j.over - 1] for j in board.jumps)


@pytest.mark.parametrize("board", ["english-33", "triangle-9", "wiegleb-45", "diamond-41"])
def test_pagoda_functions_never_grow_by_a_jump(board: str) -> None:
    """Each function's inequality checked on every jump line, by the board's jumps; its
    threshold is the least goal weight."""
    loaded = load_board(board)
    for goal in [(1,), (loaded.holes // 2,), tuple(range(1, loaded.holes + 1, 3))]:
        found = pagodas(loaded, goal)
        assert found
        for pagoda in found:
            w = pagoda.weights
            assert never_grows(loaded, w)
            assert min(w[h - 1] for h in goal) == pagoda.threshold > 0


def test_a_loss_by_a_pagoda_function_shows_the_function_to_check() -> None:
    """`solve diamond-41 --start 7 --finish 13`: lost by a pagoda function, whose weights the JSON
    gives and the text draws; checked here on every jump of the board, the start weighed again."""
    document = json.loads(pegsearch("solve", "diamond-41", "--start", "7", "--finish", "13",
                                    "--json").stdout)
    assert (document["outcome"], document["how"]) == (LOST_WORD, "pagoda")
    proof, board = document["pagoda"], load_board("diamond-41")
    w = proof["weights"]
    assert never_grows(board, w)
    weighs = sum(w) - w[7 - 1]  # every hole but 7 holds a peg
    assert proof["position_weighs"] == weighs < w[13 - 1] == proof["goal_weighs_at_least"]
    text = pegsearch("solve", "diamond-41", "--start", "7", "--finish", "13").stdout
    assert f"it weighs {weighs}, one peg on a goal hole at least {w[12]}" in text
    rows = [line.split() for line in text.splitlines()]
    assert [str(x) for x in w[16:25]] in rows  # the drawing's middle row: holes 17-25


def test_a_pair_whose_reverse_is_proved_lost_first_is_lost() -> None:
    """A single vacancy's pair is searched both ways; where the reverse game (vacancy at the
    finish, one peg on the start) is proved lost while the forward one is open, the pair is lost
    by that search, with no line: triangle-5's (5, 1), whose reverse (1, 5) a search proves lost.
    (It "played" the reverse's empty line and failed its own check, ending a diamond-41 survey.)"""
    board = load_board("triangle-5")
    full = (1 << board.holes) - 1
    reverse = Solver("64M").answer(board, full ^ 1, 5, 30, dual=False)
    assert (reverse.outcome, reverse.how) == (LOST_WORD, "search")
    forward = Answer(UNDECIDED, board.start_position((5,)), 1, examined=7, seconds=0.5)
    answer = both_ways(board, forward, reverse)
    assert (answer.outcome, answer.how, answer.line) == (LOST_WORD, "search", ())
    assert (answer.position, answer.finish) == (forward.position, 1)
    assert answer.examined == 7 + reverse.examined
    assert Solver("64M").answer(board, forward.position, 1, 30).outcome == LOST_WORD  # both ways


def test_a_reverse_pagoda_proof_carries_its_weights_checked_in_the_forward_game() -> None:
    """The reverse side's proof by a pagoda function came out as `pagoda` with no function to
    check. The diamond's (7, 13): its reverse (every hole but 13 to one peg on 7) is ruled out by
    a pagoda function; carried over, the same weights must rule out the forward game, checked
    here jump by jump and by the forward start's own weight against one peg on 13."""
    board = load_board("diamond-41")
    full = (1 << board.holes) - 1
    reverse = Solver("64M").answer(board, full ^ (1 << 12), 7, 30, dual=False)
    assert (reverse.outcome, reverse.how) == (LOST_WORD, "pagoda")
    forward = Answer(UNDECIDED, board.start_position((7,)), 13, how="time")
    answer = both_ways(board, forward, reverse)
    assert (answer.outcome, answer.how) == (LOST_WORD, "pagoda") and answer.pagoda is not None
    w = answer.pagoda.weights
    assert all(w[j.to - 1] <= w[j.start - 1] + w[j.over - 1] for j in board.jumps)
    assert sum(w) - w[7 - 1] < w[13 - 1] == answer.pagoda.threshold


def play_from_the_top(board_name: str, jumps: int) -> tuple[int, int]:
    """The 41-hole diamond from its top corner to its bottom one (a pair the survey left undecided
    at 60 s): the start, and a position `jumps` jumps into its play, each jump drawn (seed 7) among
    those that no pagoda function fitted to the child alone rules out."""
    board, draw = load_board(board_name), random.Random(7)
    start = position = board.start_position((1,))
    for _ in range(jumps):
        position = draw.choice([child for _, child in legal_jumps(board, position)
                                if pagoda_against(board, child, (41,)) is None])
    return start, position


def test_pagoda_functions_fitted_to_play_hold_and_rule_out_what_the_goals_do_not() -> None:
    """The functions fitted to the diamond's play from the top corner (weights below zero
    allowed): each is a pagoda function, checked jump by jump in integers, weighs the start at
    least the goal (else the root's own program had ruled it out); together they rule out over a
    third of the positions six jumps in, where the goal's twelve rule out none."""
    board = load_board("diamond-41")
    start, _ = play_from_the_top("diamond-41", 0)
    fitted, fixed = pagodas_of_play(board, start, (41,)), pagodas(board, (41,))
    assert fitted and any(min(pagoda.weights) < 0 for pagoda in fitted)
    for pagoda in fitted:
        w = pagoda.weights
        assert never_grows(board, w)
        assert pagoda.threshold == w[40] and not pagoda.rules_out(start)
    level = {start}
    for _ in range(6):
        level = {child for position in level for _, child in legal_jumps(board, position)}
    assert not any(pagoda.rules_out(position) for position in level for pagoda in fixed)
    out = sum(any(pagoda.rules_out(position) for pagoda in fitted) for position in level)
    assert out > len(level) / 3, (out, len(level))


def test_a_loss_is_proved_in_far_fewer_positions_with_the_fitted_functions() -> None:
    """A position 14 jumps into the diamond's top-to-bottom play that no single pagoda function
    rules out: proved lost by search both with and without the functions fitted to the start's
    play, with them in a tenth of the positions or fewer (a fiftieth in the trial that chose it)."""
    board = load_board("diamond-41")
    start, position = play_from_the_top("diamond-41", 14)
    fitted = pagodas_of_play(board, start, (41,))
    plain = Solver("256M").ask(board, position, 41).go(120)
    helped = Solver("256M").ask(board, position, 41, fitted).go(120)
    assert (plain.outcome, plain.how) == (helped.outcome, helped.how) == (LOST_WORD, "search")
    assert helped.examined * 10 <= plain.examined, (helped.examined, plain.examined)


@pytest.mark.slow
@pytest.mark.parametrize("side", [8, 9, 10])
def test_the_solver_survey_of_triangles_8_to_10_finds_every_published_pair(published: dict,
                                                                           tmp_path: Path,
                                                                           side: int) -> None:
    """Every (start, finish) pair of triangles 8 to 10 decided by the solver, none undecided, the
    solvable ones up to symmetry OEIS A130516's 80, 125 and 108 (every pair the classes allow), each
    line replayed by rows and columns."""
    document = survey_json(f"triangle-{side}", tmp_path / "survey", "--depth-first")
    assert document["by"] == "depth-first"
    holes = set(range(1, side * (side + 1) // 2 + 1))
    for start in document["starts"]:
        assert not start["undecided"], start["start"]
        for finish, line in start["lines"].items():
            assert replayed(side, holes - {start["start"]}, line.split(",")) == {int(finish)}
    assert solvable_pair_classes(document, side) == published["triangle_solvable_pairs"]["by_side"][str(side)]

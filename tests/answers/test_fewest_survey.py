"""Bell's table by the solver (answers.fewest_survey): every start's fewest moves to one peg equal
the survey by whole searches' and OEIS A127500's least, each line replaying with the moves it
claims; a time bound too small for a proof says so and how to decide it; the command line and
the service answer it. (triangle-8 and triangle-9: docs/lab/2026-11-solver.md, minutes a start.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pegsearch.answers.door import fewest_survey_solver
from pegsearch.answers.fewest_survey import fewest_survey
from pegsearch.answers.survey import survey
from pegsearch.board.files import load_board
from pegsearch.board.geometry import Jump
from pegsearch.engines.local import LocalEngine
from tests.answers.test_fewest_moves import assert_plays
from tests.helpers import pegsearch

MEMORY = 1 << 26


@pytest.mark.parametrize("side", [5, 6])
def test_every_starts_fewest_moves_equal_the_whole_searches_and_a127500(side: int, published: dict,
                                                                         tmp_path: Path) -> None:
    board = load_board(f"triangle-{side}")
    searched = {r.start: r.fewest_moves for r in survey(board, tmp_path, LocalEngine, fewest_moves=True)}
    surveyed = fewest_survey(board, 60, fewest_survey_solver(MEMORY))
    assert {r.start: r.moves for r in surveyed.results} == searched
    for result in surveyed.results:
        assert result.proved and result.at_least == result.moves, result
        assert_plays(board, result.start, result.line, None, result.moves)
    least = published["triangle_shortest_solution_moves"]["by_side"][str(side)]
    best = sorted(start for start, moves in searched.items() if moves == least)
    assert surveyed.fewest == least and surveyed.proved
    assert surveyed.verdict == (f"the fewest moves to one peg from a single vacancy: {least}"
                                f" (from holes {', '.join(map(str, best))}), proved")


def test_survey_fewest_moves_by_the_solver_on_the_command_line() -> None:
    """`--depth-first --fewest-moves` answers (it was refused): per start its moves, proved, bound
    and line, which replays; the text's table and verdict say the same."""
    board = load_board("triangle-5")
    result = pegsearch("survey", "triangle-5", "--fewest-moves", "--depth-first", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["fewest_moves"] == 9 and document["proved"] is True
    assert document["fewest_moves_starts"] == [4, 6, 13]
    assert len(document["starts"]) == board.holes
    for start in document["starts"]:
        assert start["proved"] and start["moves"] == start["at_least"], start
        line = tuple(Jump(*map(int, jump.split("-"))) for jump in start["line"].split(","))
        assert_plays(board, start["start"], line, None, start["moves"])
        assert start["finishes"] == [line[-1].to]
    text = pegsearch("survey", "triangle-5", "--fewest-moves", "--depth-first")
    assert text.returncode == 0, text.stderr
    rows = {line.split()[0]: line.split() for line in text.stdout.splitlines() if line[:5].strip().isdigit()}
    assert rows["4"][1:4] == ["4", "9", "yes"] and rows["1"][1:4] == ["1", "10", "yes"]
    assert text.stdout.splitlines()[-1] == ("the fewest moves to one peg from a single vacancy: 9"
                                            " (from holes 4, 6, 13), proved")


def test_a_time_bound_too_small_says_not_proved_and_names_seconds() -> None:
    """wiegleb-45 (45 holes) is surveyed by the solver without --depth-first; in a fifth of a
    second a start proves nothing near its fewest moves: the verdict says not proved, which starts
    are open, and the command (with --seconds) that gives them more time."""
    result = pegsearch("survey", "wiegleb-45", "--fewest-moves", "--seconds", "0.2")
    assert result.returncode == 0, result.stderr
    assert "45 holes: a search of every start would take hours" in result.stderr
    verdict = result.stdout.splitlines()[-1]
    assert ", not proved: starts 1, 2, 4, 5, 7, 8," in verdict
    assert "and the holes symmetric to them may need as few as" in verdict
    assert verdict.endswith("decide them with `pegsearch survey wiegleb-45 --fewest-moves --seconds 2`")
    assert " no " in next(line for line in result.stdout.splitlines() if line.split()[:1] == ["1"])


def test_survey_fewest_moves_by_the_solver_refuses_whole_search_and_path_counts() -> None:
    for options, fragment in ((("--whole-search",), "--whole-search settles the solver's pairs"),
                              (("--count-paths",), "drop --count-paths")):
        result = pegsearch("survey", "triangle-5", "--fewest-moves", "--depth-first", *options)
        assert result.returncode == 2 and fragment in result.stderr, result.stderr
        assert "Traceback" not in result.stderr

"""The typed answers and the service's schema say the same: every field a solution's, a hint's or
a run's counts' document has (read from a run, or found by the solver) is in `schema.Solution`,
`schema.Hint` or `schema.RunDocument`, and every field the schema names is one a document has. A
field added in one place only fails here, not in a client."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pegsearch.answers.documents import counts_answer, moves_counts, run_counts, winnable_answer
from pegsearch.answers.door import asked, board_solver, hint_of, solution_of, solution_solver
from pegsearch.answers.shapes import InProgress
from pegsearch.board.files import load_board
from pegsearch.service import schema
from tests.helpers import local_run


def test_a_solutions_document_has_exactly_the_schemas_fields(tmp_path: Path) -> None:
    read = solution_of(asked(local_run("triangle-5", tmp_path / "run", (1,))), None, 5.0,
                       solution_solver()).as_document()
    found = solution_of(asked(load_board("triangle-5"), [1]), None, 5.0,
                        solution_solver()).as_document()
    assert read["solved"] and found["solved"] and "by" not in read and found["by"] == "depth-first"
    assert set(found) == set(schema.Solution.model_fields)
    required = {name for name, field in schema.Solution.model_fields.items() if field.is_required()}
    assert required <= set(read) <= set(schema.Solution.model_fields)
    assert set(found) - set(read) == set(schema.Solution.model_fields) - required
    board = schema.Board.model_fields
    assert set(read["board"]) == set(board) == set(found["board"])


def test_a_hints_document_has_only_the_schemas_fields(tmp_path: Path) -> None:
    """A hint read from a run, and one by the solver: each has every field the schema requires
    and none it does not name, its jumps likewise; together they have every field the schema
    names but the counting runs' (solutions, moves left: tests/answers/test_hint.py) and a note,
    which a position won from a start its run's symmetries keep does not get."""
    run = asked(local_run("triangle-5", tmp_path / "run", (1,)))
    board = asked(load_board("triangle-5"), [1])
    position = board.board.start_position((1,))
    read = hint_of(run, position, None, 5.0, board_solver(run.board)).as_document()
    found = hint_of(board, position, None, 5.0, board_solver(board.board), True).as_document()
    assert read["winnable"] and found["winnable"] and "by" not in read and found["by"] == "depth-first"
    fields = schema.Hint.model_fields
    required = {name for name, field in fields.items() if field.is_required()}
    for document in (read, found):
        assert required <= set(document) <= set(fields)
        for jump in document["jumps"]:
            assert set(jump) <= set(schema.HintJump.model_fields)
    assert set(read) | set(found) == set(fields) - {"solutions", "moves_left", "note"}


def test_a_runs_counts_have_exactly_the_schemas_fields(tmp_path: Path) -> None:
    """A run's counts (with winnable positions, where the last peg stands, paths or fewest moves)
    name only fields `schema.RunDocument` and its parts name, and every one they require; what the
    schema names beyond them is a survey's or the service's own. The moves table likewise."""
    paths = local_run("triangle-5", tmp_path / "paths", (1,), count_paths=True)
    moves = local_run("triangle-5", tmp_path / "moves", (1,), fewest_moves=True)
    documents = [counts_answer(paths, winnable=True).as_document(),
                 counts_answer(moves).as_document(), run_counts(paths, answers=False).as_document()]
    fields = schema.RunDocument.model_fields
    required = {name for name, field in fields.items() if field.is_required()}
    for document in documents:
        assert required <= set(document) <= set(fields)
        for level in document["levels"]:
            assert set(level) <= set(schema.Level.model_fields)
        for finish in document.get("finishes", []):
            assert set(finish) <= set(schema.Finish.model_fields)
    assert set(fields) - set().union(*documents) == {
        "in_progress", "settings", "by", "starts", "solvable_starts", "fewest_moves_starts", "error"}
    # `nodes` only where a cluster lost or got back a node (tests/engines/test_hadoop_nodes.py).
    assert set().union(*(level for d in documents for level in d["levels"])) == \
        set(schema.Level.model_fields) - {"nodes"}
    assert {f.name for f in dataclasses.fields(InProgress)} == set(schema.InProgress.model_fields)
    assert documents[0]["levels"][0]["winnable"] == 1 and documents[1]["moves"] == 10
    counted = moves_counts(moves).as_document()
    assert set(counted) == set(schema.MovesCount.model_fields)
    assert counted["positions"] == sum(level["states"] for level in documents[1]["levels"])
    kept = winnable_answer(paths)  # kept by the counts with winnable positions above
    assert not kept.walked and list(kept.states) == [level["winnable"] for level in documents[0]["levels"]]
    assert kept.as_document()["levels"][0]["states"] == 1 and kept.stored > 0

"""The typed answers and the service's schema say the same: every field a solution's or a hint's
document has (read from a run, or found by the solver) is in `schema.Solution` or `schema.Hint`,
and every field the schema names is one a document has. A field added in one place only fails
here, not in a client."""

from __future__ import annotations

from pathlib import Path

from pegsearch.answers.door import asked, board_solver, hint_of, solution_of, solution_solver
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

"""The typed answers and the service's schema say the same: every field a solution's document has
(read from a run, or found by the solver) is in `schema.Solution`, and every field the schema
names is one a document has. A field added in one place only fails here, not in a client."""

from __future__ import annotations

from pathlib import Path

from pegsearch.answers.door import asked, solution_of, solution_solver
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

"""The command line and the service give the same answers: the same searches submitted through
`pegsearch ... --json` and a real `pegsearch serve` give the same documents, field for field.

Both faces call `pegsearch.answers`; this is the check that neither keeps a copy of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import pegsearch
from tests.helpers.serving import Server

# What both faces must say alike about a search (the service adds only what it alone knows: id,
# queue status, settings).
SEARCH_FIELDS = ("board", "holes", "symmetries", "start", "reduced", "symmetry", "count_paths",
                 "status", "levels", "verdict", "solvable", "finishes_exact_per_hole", "finishes")
SEARCHES = [
    ("triangle-5", ["--start", "1"], {"start": [1]}),  # reduced: finishing holes by class
    ("triangle-5", ["--start", "4", "--symmetry", "start", "--count-paths"],
     {"start": [4], "symmetry": "start", "count_paths": True}),  # exact per hole, with paths
    ("triangle-6", ["--raw"], {"symmetry": "none"}),
    ("hexagon-19", [], {}),  # one peg is not reachable from the centre
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Server:
    started = Server(tmp_path_factory.mktemp("agree") / "runs", "--jobs", "2")
    yield started
    started.stop()


def cli_json(*args: str) -> dict:
    result = pegsearch(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(("board", "flags", "request_body"), SEARCHES,
                         ids=["reduced", "by-start-paths", "raw", "unsolvable"])
def test_a_search_and_its_counts_are_the_same_from_both_faces(
        server: Server, tmp_path: Path, board: str, flags: list[str], request_body: dict) -> None:
    out = tmp_path / "run"
    from_cli = cli_json("run", board, *flags, "--out", str(out))
    search_id = server.submit({"board": board, **request_body})
    from_service = server.wait(search_id)
    for field in SEARCH_FIELDS:
        assert from_service.get(field) == from_cli.get(field), field
    assert from_cli["status"] == "complete" and from_cli["levels"] and from_cli["verdict"]

    winnable_cli = cli_json("counts", str(out), "--winnable")
    winnable_service = server.get(f"/api/searches/{search_id}/counts?winnable=true")
    for field in SEARCH_FIELDS:
        assert winnable_service.get(field) == winnable_cli.get(field), field
    column = [level["winnable"] for level in winnable_cli["levels"]]
    assert column[0] == (1 if winnable_cli["solvable"] else 0) and len(column) == len(from_cli["levels"])


def test_a_survey_is_the_same_from_both_faces(server: Server, tmp_path: Path) -> None:
    from_cli = cli_json("survey", "triangle-5", "--count-paths", "--out", str(tmp_path / "survey"))
    search_id = server.submit({"board": "triangle-5", "survey": True, "count_paths": True})
    from_service = server.wait(search_id)
    for field in ("board", "holes", "starts", "solvable_starts", "verdict"):
        assert from_service[field] == from_cli[field], field
    assert [row["start"] for row in from_cli["starts"]] == list(range(1, 16))
    assert from_cli["solvable_starts"] == sum(row["solvable"] for row in from_cli["starts"]) > 0


def test_a_survey_by_the_solver_is_the_same_from_both_faces(server: Server) -> None:
    """`survey --depth-first` and a service survey with `depth_first` both ask the solver every
    (start, finish) pair (`answers.door` decides, for a board past 40 holes without being asked):
    the same verdict, pair for pair, and each refuses path counts in its own words."""
    from_cli = cli_json("survey", "triangle-5", "--depth-first")
    search_id = server.submit({"board": "triangle-5", "survey": True, "depth_first": True})
    from_service = server.wait(search_id)
    assert from_service["status"] == "complete" and from_service["by"] == from_cli["by"] == "depth-first"
    for field in ("board", "holes", "solvable_starts", "verdict"):
        assert from_service[field] == from_cli[field], field
    fields = ("start", "searched", "solvable", "finishes", "undecided")
    assert [{f: row[f] for f in fields} for row in from_service["starts"]] == \
        [{f: row[f] for f in fields} for row in from_cli["starts"]]
    assert from_cli["solvable_starts"] == sum(row["solvable"] for row in from_cli["starts"]) > 0
    refused = pegsearch("survey", "triangle-5", "--depth-first", "--count-paths")
    status, answer = server.json("POST", "/api/searches", {"board": "triangle-5", "survey": True,
                                                           "depth_first": True, "count_paths": True})
    assert refused.returncode == 2 and status == 400
    assert refused.stderr.strip().replace("--depth-first", "depth_first").replace(
        "--count-paths", "count_paths").replace("--fewest-moves", "fewest_moves") == \
        f"pegsearch: error: {answer['error']}"


def test_refusals_are_the_same_line_from_both_faces(server: Server, tmp_path: Path) -> None:
    """A request that is wrong the same way is refused with the same line (exit 2, HTTP 400),
    each face naming the field and where to look in its own words."""
    words = (("--start", "start"), ("`pegsearch show triangle-5`", "GET /api/boards/triangle-5"))
    for flags, body in ((["--start", "99"], {"start": [99]}),
                        (["--start", *map(str, range(1, 16))], {"start": list(range(1, 16))})):
        result = pegsearch("run", "triangle-5", *flags, "--out", str(tmp_path / "never"))
        status, answer = server.json("POST", "/api/searches", {"board": "triangle-5", **body})
        assert result.returncode == 2 and status == 400
        said = result.stderr.strip()
        assert "--start" in said
        for cli_word, api_word in words:
            said = said.replace(cli_word, api_word)
        assert said == f"pegsearch: error: {answer['error']}"
    assert not (tmp_path / "never").exists()


def test_a_search_not_complete_is_answered_by_the_solver_alike(server: Server) -> None:
    """A run stopped at level 5: `pegsearch hint` and `solve` answer it by the depth-first solver
    (`answers.door` decides), and so do the service's hint and solution of the same search, which
    answered 409 for a solution before."""
    out = Path(server.root) / "stopped-t6"
    assert pegsearch("run", "triangle-6", "--until", "5", "--out", str(out)).returncode == 0
    played = "4-2-1"  # one jump from triangle-6's start (hole 1 empty)
    hint_cli = cli_json("hint", str(out), played, "--seconds", "30")  # ample for the jumps
    hint_service = server.get(f"/api/searches/{out.name}/hint?position={played}&seconds=30")
    verdicts = {field: hint_cli[field] for field in ("by", "winnable", "position", "pegs")}
    assert verdicts == {field: hint_service[field] for field in verdicts}
    assert {j["jump"]: j["winnable"] for j in hint_cli["jumps"]} == \
        {j["jump"]: j["winnable"] for j in hint_service["jumps"]}
    assert hint_cli["by"] == "depth-first" and hint_cli["winnable"] is not None
    # The finishing holes get at most a second once the jumps are decided (by_solver.FINISHES_WAIT):
    # on a loaded machine one side decided [10, 13] of the 7 the other did, the rest said undecided.
    # What either proved, the other has proved or left undecided; nothing is both won and not.
    for one, other in ((hint_cli, hint_service), (hint_service, hint_cli)):
        assert set(one["finishes"]) <= set(other["finishes"]) | set(other["finishes_undecided"])
        assert not set(one["finishes"]) & set(one["finishes_undecided"])
    assert hint_cli["finishes"] or hint_service["finishes"]

    solved_cli = cli_json("solve", str(out), "--seconds", "30")
    solved_service = server.get(f"/api/searches/{out.name}/solution?seconds=30")
    fields = ("by", "solved", "outcome", "finish", "start", "board", "fewest_moves")
    assert {field: solved_cli[field] for field in fields} == \
        {field: solved_service[field] for field in fields}
    assert solved_cli["solved"] and len(solved_cli["jumps"]) == len(solved_service["jumps"]) == 21 - 2

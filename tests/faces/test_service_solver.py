"""Hints by the depth-first solver over HTTP, from a real `pegsearch serve`: any shipped board,
no search needed; the same answers as the command line's; bad requests in one line."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.helpers import pegsearch
from tests.helpers.serving import Server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("solver") / "runs")
    yield started
    started.stop()


def test_a_board_hint_is_the_command_lines_and_kept_for_the_next_player(server: Server) -> None:
    """triangle-9 after three jumps: every jump marked, its verdicts the CLI's (both by the
    solver); asked again, the same document at once (kept once decided)."""
    path = "/api/boards/triangle-9/hint?position=4-2-1,6-5-4,13-9-6&seconds=30"
    first = server.get(path)
    assert first["by"] == "depth-first" and first["level"] == 3 and first["reachable"] is True
    assert first["winnable"] is True and all(j["winnable"] is not None for j in first["jumps"])
    cli = pegsearch("hint", "triangle-9", "4-2-1,6-5-4,13-9-6", "--json", "--seconds", "30")
    assert cli.returncode == 0, cli.stderr
    document = json.loads(cli.stdout)
    assert [(j["jump"], j["winnable"]) for j in document["jumps"]] == \
        [(j["jump"], j["winnable"]) for j in first["jumps"]]
    if not first["finishes_undecided"]:
        assert server.get(path) == first


def test_a_finish_and_a_lost_position_are_answered(server: Server) -> None:
    """One peg on hole 2 is ruled out by the classes at once; two pegs apart are lost."""
    ruled_out = server.get("/api/boards/triangle-9/hint?position=1&finish=2")
    assert ruled_out["winnable"] is False and "position classes" in ruled_out["note"]
    apart = server.get("/api/boards/english-33/hint?position=1,33")
    assert apart["winnable"] is False and apart["jumps"] == [] and apart["note"] == "no jump is left"


@pytest.mark.parametrize(("query", "status", "fragment"), [
    ("/api/boards/triangle-9/hint?position=1,2,99", 400, "hole 99 does not exist"),
    ("/api/boards/triangle-9/hint?position=1-2-3", 400, "is not a legal jump there"),
    ("/api/boards/triangle-9/hint?position=1,2&seconds=0", 400, "not a time bound"),
    ("/api/boards/triangle-9/hint?position=1,2&seconds=soon", 400, "not a time bound"),
    ("/api/boards/triangle-9/hint?position=1,2&seconds=3600", 400, "at most 60"),
    ("/api/boards/triangle-99/hint?position=1", 404, "unknown board"),
])
def test_bad_board_hints_are_one_line(server: Server, query: str, status: int, fragment: str) -> None:
    got, document = server.json("GET", query)
    assert got == status and fragment in document["error"] and "\n" not in document["error"]




def test_a_survey_past_40_holes_is_the_solvers_and_a_cancel_ends_it_at_once(server: Server) -> None:
    """A survey of wiegleb-45 (45 holes: no search per start fits) is asked of the solver pair by
    pair without being told to, as the command line does, and refuses path counts; cancelled while
    its pairs are searched (each may take a minute), its worker ends within seconds, not pairs."""
    status, refused = server.json("POST", "/api/searches", {"board": "wiegleb-45", "survey": True,
                                                            "count_paths": True})
    assert status == 400 and "count_paths needs a search per start" in refused["error"]
    search_id = server.submit({"board": "wiegleb-45", "survey": True})
    assert server.wait(search_id, until=("running",))["by"] == "depth-first"
    time.sleep(3)  # its first pairs under way
    asked = time.monotonic()
    assert server.json("POST", f"/api/searches/{search_id}/cancel")[0] == 200
    ended = server.wait(search_id, until=("interrupted",), timeout=60)
    assert time.monotonic() - asked < 20 and ended["kind"] == "survey" and "starts" not in ended


def test_a_survey_of_fewest_moves_by_the_solver_is_the_command_lines(server: Server) -> None:
    """`survey` with `fewest_moves` and `depth_first` (refused before) is Bell's table by the
    solver, as `pegsearch survey --fewest-moves --depth-first` gives it: each start's moves proved,
    the least A127500's 9."""
    search_id = server.submit({"board": "triangle-5", "survey": True, "fewest_moves": True,
                               "depth_first": True})
    surveyed = server.wait(search_id)
    assert surveyed["by"] == "depth-first" and surveyed["fewest_moves"] == 9
    assert surveyed["fewest_moves_starts"] == [4, 6, 13]
    cli = json.loads(pegsearch("survey", "triangle-5", "--fewest-moves", "--depth-first", "--json").stdout)
    assert [(s["start"], s["moves"], s["proved"]) for s in surveyed["starts"]] == \
        [(s["start"], s["moves"], True) for s in cli["starts"]]
    assert surveyed["verdict"] == cli["verdict"]

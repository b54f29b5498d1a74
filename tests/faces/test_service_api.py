"""The search service's HTTP API, against a real `pegsearch serve` process on 127.0.0.1."""

from __future__ import annotations

import http.client
import io
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pegsearch.board.files import load_board
from pegsearch.board.geometry import legal_jumps
from pegsearch.store import Run
from tests.helpers import pegsearch, stopped_inside_a_level
from tests.helpers.serving import Server, free_ports

SKIPPY_TOTAL = 7_937_410  # reduced states of skippy-xl from the apex, as `pegsearch run` finds them


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Server:
    root = tmp_path_factory.mktemp("service") / "runs"
    started = Server(root, "--jobs", "2")
    yield started
    started.stop()


@pytest.fixture(scope="module")
def corner(server: Server) -> str:
    """A finished raw search of triangle-5 from the corner, counting paths."""
    search_id = server.submit({"board": "triangle-5", "start": [1], "symmetry": "none", "count_paths": True})
    server.wait(search_id)
    return search_id


@pytest.mark.parametrize("hole", ["1", "2", "4", "5"])
def test_triangle_5_raw_levels_are_the_published_ones(server: Server, published: dict, hole: str) -> None:
    status, answer = server.json("POST", "/api/searches",
                                 {"board": "triangle-5", "start": [int(hole)], "symmetry": "none"})
    assert status == 202 and set(answer) >= {"id", "status"}
    document = server.wait(answer["id"])
    figures = published["triangle5_raw_per_level"]
    expected = next(v for k, v in figures.items() if k.startswith(f"start_hole_{hole}_"))
    assert [level["states"] for level in document["levels"]] == expected
    assert sum(expected) == figures["totals"][hole]
    assert [level["level"] for level in document["levels"]] == list(range(len(expected)))
    assert [level["pegs"] for level in document["levels"]] == [14 - k for k in range(len(expected))]
    assert document["reduced"] is False and document["start"] == [int(hole)]


def test_boards_are_listed_with_pictures(server: Server) -> None:
    boards = {board["name"]: board for board in server.get("/api/boards")}
    assert {"triangle-5", "skippy-xl", "english-33"} <= set(boards)
    english = boards["english-33"]
    assert (english["holes"], english["jumps"], english["symmetries"], english["empty"]) == (33, 76, 8, [17])
    assert len(english["cells"]) == 33
    assert "o o o . o o o" in english["start_picture"]
    assert server.get("/api/boards/triangle-5")["picture"].splitlines()[0].strip() == "1"


def test_triangle_7_is_skippy_xl(server: Server) -> None:
    """skippy-xl's other name (issue 81, item 6) is taken as the command line takes it."""
    assert server.get("/api/boards/triangle-7")["name"] == "skippy-xl"
    hint = server.get("/api/boards/triangle-7/hint?position=4-2-1&seconds=5")
    assert hint["board"] == "skippy-xl" and hint["pegs"] == 26
    search_id = server.submit({"board": "triangle-7"})  # accepted, then cancelled: its board named
    assert server.json("POST", f"/api/searches/{search_id}/cancel")[0] == 200
    assert server.wait(search_id, ("interrupted", "complete"))["board"] == "skippy-xl"


def test_paths_counts_winnable_and_a_solution(server: Server, corner: str, published: dict) -> None:
    document = server.get(f"/api/searches/{corner}")
    assert document["status"] == "complete" and document["solvable"] is True
    solutions = published["triangle5_solutions"]
    assert document["levels"][-1]["paths"] == solutions["by_start_hole"]["1"]
    per_hole = {str(f["hole"]): f["paths"] for f in document["finishes"]}
    assert per_hole == solutions["corner_start_by_final_hole"]
    counts = server.get(f"/api/searches/{corner}/counts?winnable=true")
    winnable = [level["winnable"] for level in counts["levels"]]
    states = [level["states"] for level in counts["levels"]]
    assert winnable[0] == 1 and winnable[-1] == 4
    assert all(w <= n for w, n in zip(winnable, states, strict=True)) and winnable != states
    line = server.get(f"/api/searches/{corner}/solution?finish=13")
    assert line["solved"] is True and len(line["jumps"]) == 13
    assert line["positions"][-1] == [13] and len(line["pictures"]) == 14
    board = load_board("triangle-5")
    position = board.start_position((1,))
    for jump, after in zip(line["jumps"], line["positions"][1:], strict=True):
        moves = {(j.start, j.over, j.to): child for j, child in legal_jumps(board, position)}
        position = moves[(jump["from"], jump["over"], jump["to"])]
        assert [h for h in range(1, 16) if position >> (h - 1) & 1] == after


def test_a_hint_is_the_command_lines_and_refuses_in_one_line(server: Server, corner: str) -> None:
    """GET .../hint answers what `pegsearch hint --json` prints for the stored run, keeps the
    winnable sets on the first ask, and refuses an unreachable or foreign position (404, 400)."""
    hint = server.get(f"/api/searches/{corner}/hint?position=4-2-1,6-5-4&finish=13")
    cli = pegsearch("hint", str(_root(server) / corner), "4-2-1,6-5-4", "--finish", "13", "--json")
    assert cli.returncode == 0, cli.stderr
    assert {**json.loads(cli.stdout), "location": None} == {**hint, "location": None}
    assert hint["position"] == [1, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15] and hint["winnable"]
    assert any(not jump["winnable"] for jump in hint["jumps"])
    manifest = json.loads((_root(server) / corner / "manifest.json").read_text())
    assert "hole-13" in manifest["winnable"]
    for position, status, reason in (("1,2,3,4", 404, "is not reachable from the start"),
                                     ("1,99", 400, "hole 99 does not exist on triangle-5")):
        code, answer = server.json("GET", f"/api/searches/{corner}/hint?position={position}")
        assert code == status and reason in answer["error"] and "\n" not in answer["error"]
        assert str(_root(server)) not in answer["error"]
    assert "/api/searches/{search_id}/hint" in server.get("/api/openapi.json")["paths"]


def test_a_level_downloads_as_its_parquet_parts(server: Server, corner: str, tmp_path: Path) -> None:
    listing = server.get(f"/api/searches/{corner}/levels/2")
    assert listing["states"] == 8 and listing["parts"]
    rows = []
    for part in listing["parts"]:
        status, data = server.request("GET", part["url"])
        assert status == 200 and data[:4] == b"PAR1"
        rows += pq.read_table(io.BytesIO(data)).column("position").to_pylist()
    run = Run.open(_root(server) / corner)
    assert sorted(r & (2**64 - 1) for r in rows) == sorted(int(p) for p in run.read_level(2))


def test_a_cli_run_in_the_root_is_listed_and_answers(server: Server) -> None:
    result = pegsearch("run", "triangle-5", "--start", "5", "--out", str(_root(server) / "made-by-the-cli"))
    assert result.returncode == 0, result.stderr
    listed = {row["id"]: row for row in server.get("/api/searches")}
    assert listed["made-by-the-cli"]["status"] == "complete"
    assert listed["made-by-the-cli"]["states"] == sum(r["states"] for r in Run.open(
        _root(server) / "made-by-the-cli").levels)
    assert server.get("/api/searches/made-by-the-cli/solution")["solved"] is True


def test_a_damaged_stored_run_is_a_state_answered_and_hides_its_paths(server: Server) -> None:
    """A truncated part: the search answers `damaged` with the reason and the levels before it;
    its answers are refused as a state of the run (409), never as the server's fault (5xx)."""
    root = _root(server)
    assert pegsearch("run", "triangle-5", "--out", str(root / "damaged-here")).returncode == 0
    part = next((root / "damaged-here" / "level-004").glob("part-*.parquet"))
    part.write_bytes(part.read_bytes()[:-7])
    for route in ("solution", "counts", "hint?position=1,2"):
        status, answer = server.json("GET", f"/api/searches/damaged-here/{route}")
        assert status == 409 and "the run is damaged" in answer["error"]
        assert "level 4 of damaged-here: part" in answer["error"] and str(root) not in answer["error"]
    document = server.get("/api/searches/damaged-here")
    assert document["status"] == "damaged" and "level 4 of damaged-here" in document["error"]
    # One rule everywhere: the listing, the search and `pegsearch runs` all say damaged.
    listed = {row["id"]: row for row in server.get("/api/searches")}
    assert listed["damaged-here"]["status"] == "damaged"
    rows = json.loads(pegsearch("runs", str(root), "--json").stdout)["runs"]
    assert {row["location"].rsplit("/", 1)[-1]: row["status"] for row in rows}["damaged-here"] == \
        "damaged"
    assert [level["level"] for level in document["levels"]] == [0, 1, 2, 3]
    assert str(root) not in document["error"] and "verdict" not in document
    assert server.json("DELETE", "/api/searches/damaged-here")[0] == 200  # and deletable
    assert not (root / "damaged-here").exists()


def test_a_run_whose_manifest_is_garbled_is_listed_damaged_and_deletable(server: Server) -> None:
    """It answered 400 (as if the request were wrong) and left the listing."""
    root = _root(server)
    assert pegsearch("run", "triangle-5", "--out", str(root / "garbled")).returncode == 0
    (root / "garbled" / "manifest.json").write_text('{"format": 1, "board')
    status, document = server.json("GET", "/api/searches/garbled")
    assert status == 200 and document["status"] == "damaged" and document["levels"] == []
    assert document["error"].startswith("garbled/manifest.json: damaged manifest (not JSON")
    listed = {row["id"]: row for row in server.get("/api/searches")}
    assert listed["garbled"]["status"] == "damaged"
    for route in ("hint?position=1,2", "counts", "solution"):  # the run's state, as for a cut part
        status, answer = server.json("GET", f"/api/searches/garbled/{route}")
        assert status == 409 and "damaged manifest" in answer["error"], (route, answer)
    assert pegsearch("runs", str(root), "--json").returncode == 0
    assert server.json("DELETE", "/api/searches/garbled")[0] == 200
    assert not (root / "garbled").exists()


def test_counts_of_an_unfinished_search_are_the_levels_made_so_far(server: Server) -> None:
    """The command line prints them with a note; the service refused them (409)."""
    root = _root(server)
    paused = pegsearch("run", "triangle-5", "--until", "4", "--out", str(root / "half-made"))
    assert paused.returncode == 0
    cli = json.loads(pegsearch("counts", str(root / "half-made"), "--json").stdout)
    counted = server.get("/api/searches/half-made/counts")
    assert counted["levels"] == cli["levels"] and len(counted["levels"]) == 5
    assert counted["status"] != "complete" and "verdict" not in counted
    status, refused = server.json("GET", "/api/searches/half-made/counts?winnable=true")
    assert status == 409 and "winnable positions need a complete run" in refused["error"]


def test_delete_removes_the_run(server: Server) -> None:
    search_id = server.submit({"board": "triangle-5", "start": [4]})
    server.wait(search_id)
    status, answer = server.json("DELETE", f"/api/searches/{search_id}")
    assert status == 200 and answer["deleted"] is True
    assert not (_root(server) / search_id).exists()
    assert server.request("GET", f"/api/searches/{search_id}")[0] == 404


def test_an_uploaded_board_file_is_searched(server: Server) -> None:
    text = (Path(__file__).parents[2] / "boards" / "triangle-5.toml").read_text()
    text = text.replace('name = "triangle-5"', 'name = "my ../../triangle"')
    status, board = server.json("POST", "/api/boards/check", {"board_file": text})
    assert status == 200 and board["holes"] == 15
    search_id = server.submit({"board_file": text, "start": [2], "symmetry": "none"})
    assert "/" not in search_id and ".." not in search_id
    document = server.wait(search_id)
    assert document["board"] == "my ../../triangle"
    assert sum(level["states"] for level in document["levels"]) == 2377  # raw, from hole 2


def test_a_search_that_cannot_run_fails_with_one_line_and_can_be_retried(server: Server) -> None:
    folder = _root(server) / "foreign-engine"
    assert pegsearch("run", "triangle-5", "--out", str(folder)).returncode == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest.update(engine="abacus", status="interrupted", levels=manifest["levels"][:3])
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert server.get("/api/searches/foreign-engine")["status"] == "interrupted"
    status, answer = server.json("POST", "/api/searches/foreign-engine/resume")
    assert status == 202 and answer["status"] == "queued"
    document = server.wait("foreign-engine", ("failed",))
    assert document["error"].startswith("unknown engine 'abacus'") and "\n" not in document["error"]
    assert len(document["levels"]) == 3
    assert server.json("POST", "/api/searches/foreign-engine/resume")[0] == 202  # failed can be retried
    assert server.wait("foreign-engine", ("failed",))["error"] == document["error"]


def test_a_search_without_a_run_still_draws_its_board(tmp_path: Path) -> None:
    """A queued search has no run yet: its board is drawn from its record, not answered 404
    (Schemathesis found it: created, then not found)."""
    server = Server(tmp_path / "runs", "--jobs", "1")
    try:
        running = server.submit({"board": "skippy-xl", "settings": {"memory": "64M"}})
        queued = server.submit({"board": "triangle-6", "start": [4]})
        assert server.get(f"/api/searches/{queued}")["status"] == "queued"
        board = server.get(f"/api/searches/{queued}/board")
        assert board["name"] == "triangle-6" and board["holes"] == 21
        for search_id in (queued, running):
            assert server.json("POST", f"/api/searches/{search_id}/cancel")[0] == 200
    finally:
        server.stop()


def test_a_survey_answers_every_start_hole(server: Server, published: dict) -> None:
    status, answer = server.json("POST", "/api/searches",
                                 {"board": "triangle-5", "survey": True, "count_paths": True})
    assert status == 202 and answer["id"].startswith("survey-triangle-5-paths-")
    document = server.wait(answer["id"])
    assert document["kind"] == "survey" and [s["start"] for s in document["starts"]] == list(range(1, 16))
    solutions = {str(s["start"]): s["solutions"] for s in document["starts"]}
    expected = published["triangle5_solutions"]["by_start_hole"]
    assert {hole: solutions[hole] for hole in expected} == expected
    assert all(s["solvable"] for s in document["starts"])
    assert document["verdict"] == "one peg is reachable from 15 of 15 start holes"
    status, refusal = server.json("GET", f"/api/searches/{answer['id']}/solution")
    assert status == 400 and "is a survey" in refusal["error"]


def test_fewest_moves_levels_solution_and_counts_by_moves(server: Server, published: dict) -> None:
    status, answer = server.json("POST", "/api/searches", {"board": "triangle-5", "start": [4],
                                                           "symmetry": "start", "fewest_moves": True})
    assert status == 202 and "-moves-" in answer["id"]
    document = server.wait(answer["id"])
    assert document["fewest_moves"] is True and document["moves"] == 9
    assert "in 9 moves at fewest" in document["verdict"]
    assert [level["moves"] for level in document["levels"]][:3] == [0, 1, 2]
    assert {f["hole"]: f["moves"] for f in document["finishes"]} == {3: 10, 4: 9, 9: 10, 12: 10, 15: 9}
    line = server.get(f"/api/searches/{answer['id']}/solution?finish=15")
    assert line["solved"] and line["fewest_moves"] and line["moves"] == 9
    assert [jump["move"] for jump in line["jumps"]][-1] == 9 and line["positions"][-1] == [15]
    by_moves = server.get(f"/api/searches/{answer['id']}/counts?by_moves=true")
    assert by_moves["positions"] == sum(level["states"] for level in document["levels"])
    assert by_moves["by_moves"][0] == {"moves": 0, "positions": 1}
    survey_id = server.submit({"board": "triangle-6", "survey": True, "fewest_moves": True})
    surveyed = server.wait(survey_id)
    assert surveyed["fewest_moves"] == published["triangle_shortest_solution_moves"]["by_side"]["6"]
    assert all(s["fewest_moves"] == min(s["moves_by_finish"].values()) for s in surveyed["starts"])


BAD_BOARD = 'name = "x"\ngrid = "triangle"\nlayout = """\n  .\n o x\n"""\n'
BAD_REQUESTS = [
    ("POST", "/api/searches", {"board": "no-such-board"}, 400, "unknown board 'no-such-board'"),
    ("POST", "/api/searches", {"board": "/etc/passwd.toml"}, 400, "unknown board"),
    ("POST", "/api/searches", {"board": "triangle-5", "start": [16]}, 400, "hole 16 does not exist"),
    ("POST", "/api/searches", {"board": "triangle-5", "start": [0]}, 400, "hole 0 does not exist"),
    ("POST", "/api/searches", {"board_file": BAD_BOARD}, 400, "unexpected 'x' in layout"),
    ("POST", "/api/searches", {"board_file": "name = [unclosed"}, 400, "not valid TOML"),
    ("POST", "/api/searches", {"board_file": "o" * 20_000}, 413, "larger than 16 KiB"),
    ("POST", "/api/searches", '{"board_file": "' + "o" * 100_000 + '"}', 413, "larger than 64 KiB"),
    ("POST", "/api/searches", {"board": "triangle-5", "engine": "hadoop"}, 400, "unknown engine"),
    ("POST", "/api/searches", {"board": "triangle-5", "symmetry": "some"}, 400, "symmetry"),
    ("POST", "/api/searches", {"board": "triangle-5", "settings": {"mrjob_conf": "/etc/passwd"}}, 400,
     "not accepted"),
    ("POST", "/api/searches", {"board": "triangle-5", "surprise": 1}, 400, "surprise"),
    ("POST", "/api/searches", {"board": "triangle-5", "settings": {"memory": 5}}, 400, "too small"),
    ("POST", "/api/searches", {"board": "triangle-5", "engine": "spark",
                               "settings": {"driver_below": "few"}}, 400, "give a whole number of parents"),
    ("POST", "/api/searches", {"board": "triangle-5", "engine": "spark",
                               "settings": {"driver_below": "5"}}, 400, "give a whole number of parents"),
    ("POST", "/api/searches", {"board": "triangle-5", "engine": "mrjob",
                               "settings": {"batch_size": "5"}}, 400, "give a whole number of positions"),
    ("POST", "/api/searches", {"board": "triangle-5", "count_paths": True, "fewest_moves": True}, 400,
     "cannot be combined"),
    ("POST", "/api/searches", "{not json", 400, "not valid JSON"),
    ("POST", "/api/searches", {}, 400, "give either 'board'"),
    ("POST", "/api/searches", {"board": "triangle-5", "survey": True, "start": [1]}, 400, "drop 'start'"),
    ("GET", "/api/searches/..", None, 404, "no search"),
    ("GET", "/api/searches/..%2F..%2Fetc%2Fpasswd", None, 404, ""),
    ("GET", "/api/searches/%2Fetc%2Fpasswd/solution", None, 404, ""),
    ("GET", "/api/searches/runs.manifest.json", None, 404, "no search"),
    ("GET", "/api/searches/.pegsearch-service", None, 404, "no search"),
    ("GET", "/api/searches/no-such-search/events", None, 404, "no search"),
    ("DELETE", "/api/searches/nothing-here", None, 404, "no search"),
    ("GET", "/api/boards/..%2Fboards%2Ftriangle-5", None, 404, ""),
    ("GET", "/api/boards/nope", None, 404, "unknown board"),
]


@pytest.mark.parametrize(("method", "path", "body", "status", "reason"), BAD_REQUESTS)
def test_bad_requests_get_a_4xx_and_one_line(server: Server, method: str, path: str, body: object,
                                            status: int, reason: str) -> None:
    answered, data = server.request(method, path, body)
    assert answered == status, data
    text = data.decode()
    assert "\n" not in text.strip() and "Traceback" not in text
    assert reason in json.loads(text)["error"]


def test_a_chunked_body_is_limited_as_it_arrives(server: Server) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    chunks = (b'{"board_file": "' if i == 0 else b"o" * 8192 for i in range(12))
    connection.request("POST", "/api/searches", body=chunks, encode_chunked=True,
                       headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    assert response.status == 413
    assert "larger than 64 KiB" in json.loads(response.read())["error"]
    connection.close()


def test_asking_for_answers_or_levels_too_early_is_refused(server: Server, corner: str) -> None:
    assert server.request("GET", f"/api/searches/{corner}/levels/99")[0] == 404
    assert server.request("GET", f"/api/searches/{corner}/levels/0/parts/7")[0] == 404
    assert server.request("POST", f"/api/searches/{corner}/cancel")[0] == 409
    assert server.request("POST", f"/api/searches/{corner}/resume")[0] == 409
    status, answer = server.json("GET", f"/api/searches/{corner}/solution?finish=99")
    assert status == 400 and "hole 99 does not exist" in answer["error"]


def test_a_non_loopback_bind_without_a_token_is_refused() -> None:
    result = subprocess.run([sys.executable, "-m", "pegsearch", "serve", "--host", "0.0.0.0",
                             "--port", str(free_ports(1)[0])], capture_output=True, text=True, timeout=60,
                            env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "without a token" in result.stderr


def test_with_a_token_every_api_request_carries_it(tmp_path: Path) -> None:
    guarded = Server(tmp_path / "runs", token="s3cret-token")
    try:
        for token, status in (("", 401), ("wrong", 401), ("s3cret-token", 200)):
            answered, data = guarded.request("GET", "/api/boards", token=token)
            assert answered == status
            if status == 401:
                assert "token" in json.loads(data)["error"] and b"\n" not in data.strip()
        answered, _ = guarded.request("POST", "/api/searches", {"board": "triangle-5"}, token="")
        assert answered == 401
        assert guarded.request("GET", "/api/openapi.json", token="")[0] == 401
        answered, page = guarded.request("GET", "/", token="")  # the dashboard asks for the token itself
        assert answered == 200 and b"pegsearch" in page
    finally:
        guarded.stop()
    assert "Traceback" not in guarded.log.read_text()


def uninterrupted_levels(folder: Path, *options: str) -> list[int]:
    """The per-level counts of skippy-xl from an uninterrupted `pegsearch run`."""
    result = pegsearch("run", "skippy-xl", "--out", str(folder / "run"), "--json", *options)
    assert result.returncode == 0, result.stderr
    return [level["states"] for level in json.loads(result.stdout)["levels"]]


@pytest.fixture(scope="module")
def skippy_levels(tmp_path_factory: pytest.TempPathFactory) -> list[int]:
    return uninterrupted_levels(tmp_path_factory.mktemp("skippy"))


@pytest.fixture(scope="module")
def skippy_raw_levels(tmp_path_factory: pytest.TempPathFactory) -> list[int]:
    """Without symmetry reduction: the searches a test stops mid-way are raw, whose levels after
    the eighth take seconds (the reduced search's take about one in all, less than a cancel may
    need to arrive on a fast machine)."""
    return uninterrupted_levels(tmp_path_factory.mktemp("skippy-raw"), "--raw")


@pytest.mark.slow
def test_skippy_xl_progress_streams_to_completion(server: Server, skippy_levels: list[int]) -> None:
    search_id = server.submit({"board": "skippy-xl"})
    events = list(server.events(search_id))
    levels = [data for kind, data in events if kind == "level"]
    statuses = [data["status"] for kind, data in events if kind == "status"]
    assert [level["level"] for level in levels] == list(range(26))
    assert [level["states"] for level in levels] == skippy_levels
    assert sum(skippy_levels) == SKIPPY_TOTAL
    assert statuses[-1] == "complete" and set(statuses) <= {"queued", "running", "complete"}
    assert events[-1][1]["verdict"].startswith("one peg is not reachable: the fewest pegs reachable is 2")
    assert server.get(f"/api/searches/{search_id}")["levels"][-1] == {"level": 25, "pegs": 2, "states": 24,
                                                                      "engine": "local"}


@pytest.mark.slow
def test_progress_inside_a_level_streams_before_the_level(server: Server) -> None:
    """english-33 without symmetry reduction takes seconds a level from level 13 on, however fast
    the engine: `progress` events arrive while a level is made, for the level after the last one
    sent, and rise to their total (the previous level's states, once per pass). One made before any
    work says what the level plans (done 0, the positions and disk it expects)."""
    search_id = server.submit({"board": "english-33", "symmetry": "none", "settings": {"memory": "128M"}})
    events = list(server.events(search_id, timeout=900))
    assert events[-1] == ("status", events[-1][1]) and events[-1][1]["status"] == "complete"
    states = {}
    progress: dict[int, list[dict]] = {}
    for kind, data in events:
        if kind == "level":
            states[data["level"]] = data["states"]
        elif kind == "progress":
            assert data["level"] == len(states), "progress is for the level being made"
            assert data["pegs"] == 32 - data["level"]
            if data["done"] == 0:
                assert data["expected"] > 0 and data["disk"] > 0, "a plan says what it expects"
            else:
                assert 0 < data["done"] <= data["total"]
                progress.setdefault(data["level"], []).append(data)
    assert len(progress) >= 5
    for level, seen in progress.items():
        assert seen[-1]["total"] % states[level - 1] == 0
        assert [p["done"] for p in seen] == sorted(p["done"] for p in seen)


@pytest.mark.slow
def test_cancel_keeps_the_levels_and_resume_finishes(server: Server,
                                                     skippy_raw_levels: list[int]) -> None:
    search_id = server.submit({"board": "skippy-xl", "symmetry": "none", "settings": {"memory": "256M"}})
    server.wait(search_id, ("running",), levels=8)
    assert server.get(f"/api/searches/{search_id}")["settings"] == {"memory": "256M"}
    status, answer = server.json("POST", f"/api/searches/{search_id}/cancel")
    assert status == 200 and answer["status"] in ("cancelling", "interrupted")
    document = server.wait(search_id, ("interrupted",))
    kept = len(document["levels"])
    assert 8 <= kept < 26
    _until(lambda: Run.open(_root(server) / search_id).status == "interrupted")
    time.sleep(1)
    assert len(server.get(f"/api/searches/{search_id}")["levels"]) == kept  # nothing runs any more
    status, answer = server.json("POST", f"/api/searches/{search_id}/resume")
    assert status == 202 and answer["status"] == "queued"
    document = server.wait(search_id)
    assert [level["states"] for level in document["levels"]] == skippy_raw_levels


@pytest.mark.slow
@pytest.mark.parametrize("ending", ["kill", "stop"])
def test_a_restarted_server_resumes_what_a_crash_or_a_stop_interrupted(
        tmp_path: Path, skippy_raw_levels: list[int], ending: str) -> None:
    root = tmp_path / "runs"
    first = Server(root)
    search_id = first.submit({"board": "skippy-xl", "symmetry": "none", "settings": {"memory": "256M"}})
    waiting = first.submit({"board": "triangle-5", "symmetry": "none"})
    first.wait(search_id, ("running",), levels=8)
    assert first.get(f"/api/searches/{waiting}")["status"] == "queued"  # one at a time, in order
    getattr(first, ending)()  # SIGKILL (a crash) or SIGTERM (a service manager stopping it)
    run = root / search_id
    _until(lambda: Run.open(run).status == "interrupted")  # an orphaned worker stops itself
    before = Run.open(run).levels
    assert len(before) < 26
    second = Server(root)
    try:
        assert second.get(f"/api/searches/{search_id}")["status"] in ("queued", "running")
        document = second.wait(search_id)
        assert [level["states"] for level in document["levels"]] == skippy_raw_levels
        assert Run.open(run).levels[:len(before)] == before  # resumed, not started again
        assert second.wait(waiting)["levels"][-1]["states"] == 4  # the queued one ran too
    finally:
        second.stop()


def _root(server: Server) -> Path:
    return Path(server.process.args[server.process.args.index("--runs") + 1])


def _until(condition: object, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.1)


def test_a_port_in_use_is_refused_before_announcing(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "pegsearch", "serve", "--port", str(port),
                                 "--runs", str(tmp_path / "runs")], capture_output=True, text=True,
                                timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"pegsearch: error: cannot listen on 127.0.0.1:{port} (Address already in use): choose"
        " another --port or stop what holds it"]
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("body", "says"), [
    ({"board": "triangle-5", "settings": {"memory": "-5G"}}, "settings.memory -5G: not a size"),
    ({"board": "triangle-5", "count_paths": True, "fewest_moves": True},
     "count_paths and fewest_moves cannot be combined"),
    ({"board": "triangle-5", "start": [16]},
     "start 16: hole 16 does not exist on triangle-5; holes are numbered 1 to 15 (see GET"
     " /api/boards/triangle-5)"),
    ({"board": "triangle-5", "settings": {"runner": "inline"}},
     "settings.runner does not apply to the local engine"),
])
def test_refusals_name_the_json_field_not_the_command_lines_option(server: Server, body: dict,
                                                                   says: str) -> None:
    """The service answered in the command line's words (--memory, `pegsearch show`)."""
    status, answer = server.json("POST", "/api/searches", body)
    assert status == 400 and answer["error"].startswith(says), answer
    assert "--" not in answer["error"] and "pegsearch show" not in answer["error"]


def test_a_finishing_hole_refused_by_its_query_field(server: Server) -> None:
    search_id = server.submit({"board": "triangle-5"})
    server.wait(search_id)
    status, answer = server.json("GET", f"/api/searches/{search_id}/solution?finish=99")
    assert status == 400 and answer["error"].startswith("finish 99: hole 99 does not exist"), answer


def test_a_survey_made_on_the_command_line_is_a_search_of_the_service(server: Server) -> None:
    """Its folder had no record the service could read: 404, and missing from the list."""
    root = _root(server)
    made = pegsearch("survey", "triangle-5", "--json", "--out", str(root / "survey-by-the-cli"))
    assert made.returncode == 0, made.stderr
    cli = json.loads(made.stdout)
    document = server.get("/api/searches/survey-by-the-cli")
    assert document["kind"] == "survey" and document["status"] == "complete"
    assert document["board"] == "triangle-5" and document["engine"] == "local"
    assert document["starts"] == cli["starts"] and document["verdict"] == cli["verdict"]
    listed = {row["id"]: row for row in server.get("/api/searches")}
    assert listed["survey-by-the-cli"]["kind"] == "survey"
    assert "start-01" not in listed  # its start runs are inside it, not searches of their own
    status, refused = server.json("GET", "/api/searches/survey-by-the-cli/solution")
    assert status == 400 and "is a survey" in refused["error"]


def test_a_level_in_progress_shows_its_passes(server: Server) -> None:
    """A search stopped inside a level made in passes: the service says how far its committed
    passes go, as `runs` and `counts --json` do."""
    root = _root(server)
    checkpoint = stopped_inside_a_level(root / "in-passes")
    note = f"level {checkpoint['level']}: pass 2 of {checkpoint['passes']} done"
    document = server.get("/api/searches/in-passes")
    assert document["in_progress"]["note"].startswith(note)
    assert document["in_progress"]["states"] == checkpoint["states"] > 0
    assert {row["id"]: row for row in server.get("/api/searches")}["in-passes"]["in_progress"] \
        .startswith(note)
    assert note in pegsearch("runs", str(root)).stdout
    cli = json.loads(pegsearch("counts", str(root / "in-passes"), "--json").stdout)
    assert cli["in_progress"] == document["in_progress"]

"""What one request may leave in a real `pegsearch serve`'s state folder never takes the service
down for everyone (issue 79, item 1): a board name holding a control character is refused at
submit, and a record that cannot be read is listed as damaged and can be deleted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.serving import Server

# A record a server before the check accepted: its board's name holds a NUL, which every reader
# of the record then failed on (GET /api/searches answered 400 to every client, across restarts).
NUL_RECORD = {"id": "x-y-h1-20261202-051430-c4ee01",
              "board": {"name": "x\u0000y", "description": "", "grid": "square",
                        "layout": ". o o o\n"},
              "start": [1], "symmetry": "board", "count_paths": False, "engine": "local",
              "settings": {}, "submitted": 1796188470264212703, "wanted": True,
              "error": "search x-y-h1-20261202-051430-c4ee01 (board): not valid TOML: Illegal"
                       " character '\\x00' (at line 1, column 10)",
              "survey": False, "fewest_moves": False, "keep": "all", "depth_first": False}
CUT_SHORT = "cut-short-h1-20261202-051431-0a0a0a"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server started on a state folder holding a record with a NUL in its board's name and
    one cut short (as a full disk leaves it)."""
    root = tmp_path_factory.mktemp("records") / "runs"
    records = root / ".pegsearch-service" / "records"
    records.mkdir(parents=True)
    (records / f"{NUL_RECORD['id']}.json").write_text(json.dumps(NUL_RECORD))
    (records / f"{CUT_SHORT}.json").write_text('{"id": "cut-short-h1-20261202-051431-0a0a0a", "bo')
    started = Server(root)
    yield started
    started.stop()


def _board_file(name: str, description: str = "") -> str:
    """A board file's text with `name` and `description` written as TOML escapes."""
    def escaped(text: str) -> str:
        return "".join(char if char.isprintable() else f"\\u{ord(char):04x}" for char in text)

    return (f'name = "{escaped(name)}"\ndescription = "{escaped(description)}"\ngrid = "square"\n'
            'layout = """\n. o o o\n"""\n')


@pytest.mark.parametrize("char", ["\u0000", "\u0001", "\u0007", "\u007f", "\r", "\u001b"])
@pytest.mark.parametrize("key", ["name", "description"])
def test_a_control_character_in_a_name_or_description_is_refused_at_submit(
        server: Server, key: str, char: str) -> None:
    """It was accepted (202), and the search's record then broke every listing."""
    fields = {"name": f"x{char}y"} if key == "name" else {"name": "x", "description": f"a{char}b"}
    status, answer = server.json("POST", "/api/searches", {"board_file": _board_file(**fields)})
    assert status == 400, answer
    line = answer["error"]
    assert "\n" not in line and f"U+{ord(char):04X}" in line and f"'{key}'" in line
    assert line.startswith("uploaded board file line") and "printable characters" in line
    status, _ = server.json("POST", "/api/boards/check", {"board_file": _board_file(**fields)})
    assert status == 400
    status, rows = server.json("GET", "/api/searches")
    assert status == 200, rows


def test_a_description_may_run_over_lines(server: Server) -> None:
    status, answer = server.json("POST", "/api/boards/check",
                                 {"board_file": _board_file("x", "one line\nand\tanother")})
    assert status == 200, answer


def test_records_that_cannot_be_read_are_listed_as_damaged(server: Server) -> None:
    status, rows = server.json("GET", "/api/searches")
    assert status == 200, rows  # was 400 for every client
    listed = {row["id"]: row["status"] for row in rows}
    assert listed.get(NUL_RECORD["id"]) == "damaged" and listed.get(CUT_SHORT) == "damaged"
    for search_id in (NUL_RECORD["id"], CUT_SHORT):
        document = server.get(f"/api/searches/{search_id}")
        assert document["status"] == "damaged", document
        assert "cannot be read" in document["error"] and "delete the search" in document["error"]
        status, answer = server.json("GET", f"/api/searches/{search_id}/counts")
        assert status == 409, answer  # a state of the search, not a bad request
        status, answer = server.json("POST", f"/api/searches/{search_id}/resume")
        assert status == 409, answer


def test_a_record_that_cannot_be_read_can_be_deleted(server: Server) -> None:
    for search_id in (NUL_RECORD["id"], CUT_SHORT):
        status, answer = server.json("DELETE", f"/api/searches/{search_id}")
        assert status == 200, answer
        status, _ = server.json("GET", f"/api/searches/{search_id}")
        assert status == 404
    records = Path(str(server.root)) / ".pegsearch-service" / "records"
    assert not list(records.glob("*.json"))
    assert all(row["id"] not in (NUL_RECORD["id"], CUT_SHORT) for row in server.get("/api/searches"))

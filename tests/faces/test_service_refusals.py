"""What an operator's clients may send a real `pegsearch serve` and be refused in one JSON line:
numbers of thousands of digits, other scripts' digits, repeated start holes, headers sent a byte a
second, requests h11 cannot read; and the words the refusals use (issue 55, items 2, 3, 6, 7)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.helpers import assert_one_line_error, pegsearch
from tests.helpers.serving import Server

LONG = "9" * 5000  # past Python's 4,300 digits: int() raised ValueError, answered 500
ARABIC_FIVE, ARABIC_TWO = "\u0665", "\u0662"  # Arabic-Indic digits, which int() and float() read


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("refusals") / "runs")
    yield started
    started.stop()


@pytest.fixture(scope="module")
def complete(server: Server) -> str:
    """A complete triangle-5 search, whose hint route reads positions too."""
    search_id = server.submit({"board": "triangle-5", "start": [1]})
    server.wait(search_id)
    return search_id


def refused(server: Server, method: str, path: str, body: dict | None = None) -> str:
    status, document = server.json(method, path, body)
    assert status == 400, (status, document)
    assert set(document) == {"error"} and "\n" not in document["error"]
    assert len(document["error"]) < 400  # what the client sent is cut short, not echoed whole
    return document["error"]


def board_file(holes: str) -> str:
    return f'name = "long"\ngrid = "triangle"\nholes = {holes}\nlayout = """\n  .\n o o\n"""\n'


def test_numbers_of_thousands_of_digits_are_400(server: Server, complete: str) -> None:
    """Seven answers were 500: positions, jumps, a memory setting and a board file's number."""
    for route in ("/api/boards/triangle-5/hint", f"/api/searches/{complete}/hint"):
        assert "digits" in refused(server, "GET", f"{route}?position={LONG}")
        assert "is not a legal jump" in refused(server, "GET", f"{route}?position={LONG}-2-4")
        assert "digits" in refused(server, "GET", f"{route}?position=2,{LONG},3")
    memory = refused(server, "POST", "/api/searches",
                     {"board": "triangle-5", "settings": {"memory": "9" * 310}})
    assert memory.startswith("settings.memory 999") and "not a size" in memory
    assert "digits" in refused(server, "POST", "/api/searches", {"board_file": board_file(LONG)})
    assert "digits" in refused(server, "POST", "/api/boards/check", {"board_file": board_file(LONG)})


def test_digits_of_other_scripts_and_repeated_start_holes_are_refused(server: Server) -> None:
    """One rule for every number: positions refused Arabic-Indic digits and repeated holes, while a
    time bound read an Arabic-Indic two as 2 and a start took [1, 1] and 10,000 ones."""
    assert "not a time bound" in refused(server, "GET", "/api/boards/triangle-5/hint?position=2,3,5,6"
                                                        "&seconds=%D9%A2")
    assert "not a whole number" in refused(server, "GET", "/api/boards/triangle-5/hint?position=2,3,5,6"
                                                          "&finish=%D9%A2")
    for start in ([1, 1], [1] * 10_000):
        assert "hole 1 is named more than once" in refused(
            server, "POST", "/api/searches", {"board": "triangle-5", "start": start})


@pytest.mark.parametrize("written", ["+1", "%201", "1%20", "1_0", "-0", "0x1"])
def test_numbers_in_paths_and_queries_are_digits_0_9_only(server: Server, complete: str,
                                                          written: str) -> None:
    """`levels/+1` and `levels/%201` answered level 1, and `finish=1_0` was hole 10 (issue 79,
    item 6)."""
    shown = written.replace("%20", " ")
    expected = f"'{shown}': not a whole number; write it with the digits 0-9"
    base = f"/api/searches/{complete}/levels"
    assert refused(server, "GET", f"{base}/{written}") == f"level {expected}"
    assert refused(server, "GET", f"{base}/1/parts/{written}") == f"index {expected}"
    assert refused(server, "GET", f"/api/searches/{complete}/counts?finish={quote(shown)}") == \
        f"finish {expected}"
    assert server.get(f"{base}/1")["level"] == 1  # as written with the digits, it is answered


@pytest.mark.parametrize("written", ["%201", "1%20", "1_0", "1e-300", "1e1", "+1", "0x10", "inf",
                                     "1.", ".5", "0." + "0" * 300 + "1"])
def test_seconds_are_digits_0_9_with_a_decimal_point_only(server: Server, written: str) -> None:
    """`seconds=" 1"` and `seconds=1e-300` were taken, and `seconds=1_0` as 10 (issue 79, item 6)."""
    line = refused(server, "GET", f"/api/boards/triangle-5/hint?position=2,3,5,6&seconds={written}")
    assert line.startswith("seconds ") and "not a time bound" in line and "such as 10 or 0.5" in line


def test_the_command_line_follows_the_same_rule() -> None:
    assert_one_line_error(pegsearch("run", "triangle-5", "--start", ARABIC_FIVE), "not a whole number")
    assert_one_line_error(pegsearch("solve", "triangle-5", "--start", "1", "1"),
                          "hole 1 is named more than once")
    assert_one_line_error(pegsearch("hint", "triangle-5", "2,3,5,6", "--seconds", ARABIC_TWO),
                          "not a time bound")


def test_refusals_speak_the_services_words(server: Server) -> None:
    """Not the framework's: "query.position: Field required", "query.finish: Input should be a
    valid integer"."""
    assert refused(server, "GET", "/api/boards/triangle-5/hint") == "position is required"
    assert refused(server, "GET", "/api/boards/triangle-5/hint?position=2,3,5,6&finish=x") == \
        "finish 'x': not a whole number; write it with the digits 0-9"


def test_what_the_description_allows_of_a_position_and_a_finish_is_what_is_answered(
        server: Server, complete: str) -> None:
    """`?position=` (empty) and `finish=0` were allowed by the OpenAPI document and refused by the
    routes: the document now asks for a position of one character or more and a hole from 1, and
    the refusals say so in the service's words (issue 64, item 6)."""
    described = server.get("/api/openapi.json")["paths"]
    for path in ("/api/boards/{name}/hint", "/api/searches/{search_id}/hint"):
        given = {p["name"]: p["schema"] for p in described[path]["get"]["parameters"]}
        assert given["position"]["minLength"] == 1
        assert given["finish"]["anyOf"][0]["minimum"] == 1
    for path in ("/api/searches/{search_id}/counts", "/api/searches/{search_id}/solution"):
        given = {p["name"]: p["schema"] for p in described[path]["get"]["parameters"]}
        assert given["finish"]["anyOf"][0]["minimum"] == 1
    assert refused(server, "GET", "/api/boards/triangle-5/hint?position=") == \
        "position is empty: give a value"
    assert refused(server, "GET", f"/api/searches/{complete}/counts?finish=0&by_moves=true") == \
        "finish '0': give a number of at least 1"


def test_a_memory_beyond_the_server_tells_nothing_of_its_memory(server: Server) -> None:
    """`"memory": "99999T"` answered "more than this machine's 23.5 GiB of memory; give at most
    23G": a fact of the host told to any client."""
    said = refused(server, "POST", "/api/searches",
                   {"board": "triangle-5", "settings": {"memory": "99999T"}})
    assert said == "settings.memory 99999T: more than the server's memory; give less"


@pytest.mark.parametrize(("body", "says"), [
    ({"start": []}, "start: give at least 1"),  # was "List should have at least 1 item after validation"
    ({"symmetry": None}, "symmetry null: use one of 'board', 'start' or 'none'"),  # was 'None'
    ({"settings": {"memory": None}}, "settings.memory: give a string"),  # was settings.memory.str
])
def test_a_body_the_validator_refuses_is_refused_in_the_services_words(server: Server, body: dict,
                                                                       says: str) -> None:
    assert refused(server, "POST", "/api/searches", {"board": "triangle-5", **body}) == says


def test_a_server_without_a_token_lists_no_401(server: Server) -> None:
    """Every operation listed 401 on a server that asks for no token."""
    described = server.get("/api/openapi.json")
    operations = [op for path in described["paths"].values() for op in path.values()]
    assert all("401" not in op["responses"] and "408" in op["responses"] for op in operations)


def raw_answer(server: Server, request: bytes) -> bytes:
    """What the server answers to these bytes, sent in one write, until it closes."""
    answer = b""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        connection.sendall(request)
        try:
            while chunk := connection.recv(65536):
                answer += chunk
        except ConnectionResetError:  # the rest of the request unread when the server closed
            pass
    return answer


def test_headers_over_16_kib_in_one_write_are_400_as_in_pieces(server: Server) -> None:
    """A 20 KB header sent whole was answered 200 (h11 counts only an incomplete request's bytes);
    sent in 1 KB pieces it was 400."""
    answer = raw_answer(server, b"GET /api/boards HTTP/1.1\r\nHost: test\r\nX-Long: "
                        + b"a" * 20_000 + b"\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert raw_answer(server, b"GET /api/boards HTTP/1.1\r\nHost: test\r\nX-Long: "
                      + b"a" * 10_000 + b"\r\nConnection: close\r\n\r\n").startswith(b"HTTP/1.1 200")


def test_a_parameter_given_twice_is_refused(server: Server, complete: str) -> None:
    """The last `position=` or `finish=` of several was taken without a word."""
    assert refused(server, "GET", "/api/boards/triangle-5/hint?position=2,3,5,6&position=4"
                   ) == "the query gives position= more than once: give it once"
    assert refused(server, "GET", f"/api/searches/{complete}/solution?finish=13&finish=1"
                   ) == "the query gives finish= more than once: give it once"


@pytest.mark.slow
def test_a_body_that_never_comes_is_cut_off(server: Server) -> None:
    """`Content-Length: 1000`, then one byte: the connection was still open after 240 s (500 such,
    508 file descriptors). Now 408 and closed within the body's bound (10 s)."""
    began = time.monotonic()
    answer = raw_answer(server, b"POST /api/searches HTTP/1.1\r\nHost: test\r\ncontent-type:"
                        b" application/json\r\nContent-Length: 1000\r\n\r\n{")
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert "body took over 10 s" in json.loads(answer.partition(b"\r\n\r\n")[2])["error"]
    assert time.monotonic() - began < 20
    assert server.get("/api/boards")  # still serving


def test_a_request_too_long_to_read_is_a_json_400(server: Server) -> None:
    """A URL of 200 KB: uvicorn answered text/plain "Invalid HTTP request received."."""
    answer = raw_answer(server, f"GET /api/boards?x={'1' * 200_000} HTTP/1.1\r\nHost: test\r\n\r\n"
                        .encode())
    head, _, body = answer.decode().partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 400") and "content-type: application/json" in head.lower()
    assert "not a valid HTTP/1.1 request" in json.loads(body)["error"]


def test_delete_says_it_may_answer_409(server: Server) -> None:
    operation = server.get("/api/openapi.json")["paths"]["/api/searches/{search_id}"]["delete"]
    assert "409" in operation["responses"]


@pytest.mark.slow
def test_headers_sent_a_byte_a_second_are_cut_off(server: Server, tmp_path: Path) -> None:
    """20 connections sending their headers a byte a second: each answered 408 and closed within
    the header bound (they were open after 90 s)."""
    request = b"GET /api/boards HTTP/1.1\r\nHost: test\r\nX-Slow: " + b"a" * 60 + b"\r\n\r\n"
    slow = [socket.create_connection(("127.0.0.1", server.port), timeout=30) for _ in range(20)]
    began = time.monotonic()
    closed: set[int] = set()
    answers: list[bytes] = []
    for byte in request:
        for index, connection in enumerate(slow):
            if index in closed:
                continue
            try:
                connection.sendall(bytes([byte]))
                connection.setblocking(False)
                try:
                    got = connection.recv(4096)
                except BlockingIOError:
                    got = None
                connection.setblocking(True)
            except OSError:
                got = b""
            if got is not None:
                answers.append(got)
                closed.add(index)
        if len(closed) == len(slow):
            break
        time.sleep(1)
    assert len(closed) == 20 and time.monotonic() - began < 20
    assert all(answer.startswith(b"HTTP/1.1 408") for answer in answers if answer)
    for connection in slow:
        connection.close()
    assert server.get("/api/boards")  # still serving

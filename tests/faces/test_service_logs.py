"""The log of a real `pegsearch serve --log-format json`, as an operator ships it (issue 79,
item 10): one JSON object a line, a line per request with its id, route, status, duration and
search, and the request id echoed in the answer's X-Request-ID header."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator

import pytest

from tests.helpers.cluster import wait_until
from tests.helpers.serving import Server

TOKEN = "log-token"
FRESH = re.compile(r"[0-9a-f]{32}")


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("logs") / "runs", "--log-format", "json", token=TOKEN)
    yield started
    started.stop()


def ask(server: Server, method: str, path: str, request_id: str | None = None,
        token: str = TOKEN, body: dict | None = None) -> tuple[int, str, bytes]:
    """One request: its status, the X-Request-ID it was answered with, and its body."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if request_id is not None:
        headers["X-Request-ID"] = request_id
    if body is not None:
        headers["Content-Type"] = "application/json"
    connection.request(method, path, body=json.dumps(body) if body is not None else None,
                       headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, response.getheader("X-Request-ID"), data


def lines(server: Server) -> list[dict]:
    """Every line of the server's log, each of which must be a JSON object."""
    return [json.loads(line) for line in server.log.read_text().splitlines() if line.strip()]


def line_of(server: Server, request_id: str) -> dict:
    """The request's line in the log, once written."""
    wait_until(lambda: any(line.get("request_id") == request_id and "status" in line
                           for line in lines(server)), 30, f"the line of request {request_id}")
    return next(line for line in lines(server)
                if line.get("request_id") == request_id and "status" in line)


def test_a_clients_request_id_is_echoed_and_logged(logged: Server) -> None:
    status, echoed, _ = ask(logged, "GET", "/api/boards/triangle-5", "lb-7f3a-0001")
    assert (status, echoed) == (200, "lb-7f3a-0001")
    line = line_of(logged, "lb-7f3a-0001")
    assert line["route"] == "/api/boards/{name}" and line["path"] == "/api/boards/triangle-5"
    assert line["status"] == 200 and line["method"] == "GET" and line["level"] == "info"
    assert isinstance(line["duration"], float) and line["duration"] >= 0
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"])
    assert "search_id" not in line


@pytest.mark.parametrize("given", [None, "", "has space", "x" * 200, "quote\"d", "\u00e9t\u00e9"])
def test_a_missing_or_insane_request_id_is_replaced_by_a_fresh_one(logged: Server,
                                                                   given: str | None) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", logged.port, timeout=60)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if given is not None:
        headers["X-Request-ID"] = given.encode() if not given.isascii() else given
    connection.request("GET", "/healthz", headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    echoed = response.getheader("X-Request-ID")
    assert response.status == 200 and FRESH.fullmatch(echoed), echoed
    assert line_of(logged, echoed)["route"] == "/healthz"


def test_a_search_is_named_in_the_lines_of_its_requests(logged: Server) -> None:
    status, submitted, body = ask(logged, "POST", "/api/searches", "submit-1",
                                  body={"board": "triangle-5", "start": [1]})
    assert status == 202 and submitted == "submit-1"
    search_id = json.loads(body)["id"]
    line = line_of(logged, "submit-1")
    assert (line["route"], line["status"], line["search_id"]) == ("/api/searches", 202, search_id)
    assert ask(logged, "GET", f"/api/searches/{search_id}", "read-1")[0] == 200
    line = line_of(logged, "read-1")
    assert (line["route"], line["search_id"]) == ("/api/searches/{search_id}", search_id)


def test_refusals_have_their_id_and_line_too(logged: Server) -> None:
    status, echoed, _ = ask(logged, "GET", "/api/searches", "no-token-1", token="")
    assert (status, echoed) == (401, "no-token-1")
    assert line_of(logged, "no-token-1")["status"] == 401
    status, echoed, _ = ask(logged, "GET", "/no/such/route", "nowhere-1")
    assert (status, echoed) == (404, "nowhere-1")
    line = line_of(logged, "nowhere-1")
    assert line["status"] == 404 and line.get("route") is None


def test_every_line_of_the_log_is_a_json_object(logged: Server) -> None:
    ask(logged, "GET", "/api/boards", "last-1")
    line_of(logged, "last-1")
    every = lines(logged)  # json.loads of each: a line that is not JSON fails here
    assert all({"time", "level", "logger", "message"} <= set(line) for line in every)
    assert any(line["message"].startswith("pegsearch serve: http://") for line in every)


def test_the_text_log_echoes_request_ids_too(server: Server) -> None:
    status, echoed, _ = ask(server, "GET", "/api/boards/triangle-5", "text-1", token="")
    assert (status, echoed) == (200, "text-1")
    assert "text-1" not in server.log.read_text()  # the text log stays warnings and errors

"""What an operator meets in front of `pegsearch serve`: uptime checks with HEAD, the favicon, the
bearer scheme in any case, idle connections closed, and a run being written answered 503."""

from __future__ import annotations

import fcntl
import http.client
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import pegsearch
from tests.helpers.serving import Server

TOKEN = "operator-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("operators") / "runs", token=TOKEN)
    yield started
    started.stop()


def _raw(server: Server, method: str, path: str,
         authorization: str | None = None) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"Authorization": authorization} if authorization is not None else {}
    connection.request(method, path, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def test_head_of_the_dashboard_and_the_favicon_answer_without_an_error(server: Server) -> None:
    assert _raw(server, "HEAD", "/").status == 200  # was 405: uptime checks use HEAD
    assert _raw(server, "GET", "/favicon.ico").status == 204  # was a 404 in every page's console


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_the_bearer_scheme_is_read_in_any_case(server: Server, scheme: str) -> None:
    assert _raw(server, "GET", "/api/boards", f"{scheme} {TOKEN}").status == 200
    assert _raw(server, "GET", "/api/boards", f"{scheme} wrong").status == 401
    assert _raw(server, "GET", "/api/boards", f"Basic {TOKEN}").status == 401


def test_connections_that_send_nothing_are_closed(server: Server) -> None:
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=20) for _ in range(20)]
    began = time.monotonic()
    for connection in idle:
        assert connection.recv(1) == b""  # closed by the server (a timeout would raise)
        connection.close()
    assert time.monotonic() - began < 15
    assert _raw(server, "GET", "/api/boards", f"Bearer {TOKEN}").status == 200  # still serving


def test_a_hint_while_the_run_is_being_written_is_503_with_retry_after(server: Server) -> None:
    """The first hint keeps its run's winnable sets under the run's writer lock; any other hint
    meanwhile was refused as a bad request (400). Here the lock is held from outside."""
    root = Path(server.process.args[server.process.args.index("--runs") + 1])
    assert pegsearch("run", "triangle-5", "--out", str(root / "held")).returncode == 0
    with open(root / "held" / ".lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        lock.truncate(0)  # as a writer does: its own line only
        lock.write("pegsearch process 4711 on somewhere\n")
        lock.flush()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        connection.request("GET", "/api/searches/held/hint?position=2,3,4,5,6,7,8,9,10,11,12,13,14,15",
                           headers={"Authorization": f"Bearer {TOKEN}"})
        response = connection.getresponse()
        body = response.read().decode()
        assert response.status == 503, body
        assert response.getheader("Retry-After") == "5"
        assert "is being written by another process; ask again once it is done" in body
        assert "4711" not in body and "somewhere" not in body  # busy, not who (issue 79, item 6)
    status, answer = server.json("GET", "/api/searches/held/hint?position=2,3,4,5,6,7,8,9,10,11,12,13,14,15")
    assert status == 200, answer  # once the writer is done

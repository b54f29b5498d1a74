"""A load balancer's or Kubernetes's probes of a real `pegsearch serve` (issue 79, item 8):
GET /healthz (alive) and GET /readyz (its runs root writable, its state readable), without a
token, saying nothing a client could use."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers.serving import Server

TOKEN = "probe-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("health") / "runs", token=TOKEN)
    yield started
    started.stop()


def probe(server: Server, path: str, method: str = "GET") -> tuple[int, dict | None]:
    """The probe's status and JSON answer, asked as a probe asks: no token."""
    status, data = server.request(method, path, token="")
    return status, json.loads(data) if data else None


@contextmanager
def replaced_by_a_file(folder: Path) -> Iterator[None]:
    """`folder` moved aside and a plain file in its place (a disk gone, a mount lost), whoever the
    tests run as (root writes where permissions say no)."""
    aside = folder.with_name(folder.name + "-aside")
    folder.rename(aside)
    folder.write_text("not a folder\n")
    try:
        yield
    finally:
        folder.unlink()
        aside.rename(folder)


def test_healthz_and_readyz_answer_without_a_token(server: Server) -> None:
    assert probe(server, "/healthz") == (200, {"status": "alive"})
    assert probe(server, "/readyz") == (200, {"status": "ready"})
    for path in ("/healthz", "/readyz"):
        assert probe(server, path, "HEAD") == (200, None)
    assert server.request("GET", "/api/searches", token="")[0] == 401  # the API still needs it
    root = Path(str(server.root))
    assert not [path.name for path in root.iterdir() if path.name.startswith(".pegsearch-ready")]


def test_readyz_is_503_with_the_reason_while_the_runs_folder_cannot_be_written(server: Server) -> None:
    root = Path(str(server.root))
    with replaced_by_a_file(root):
        status, answer = probe(server, "/readyz")
        assert status == 503, answer
        assert answer["error"].startswith("not ready: the runs folder cannot be written (")
        assert str(root.parent) not in answer["error"]  # nothing of where the server keeps runs
        assert probe(server, "/healthz")[0] == 200  # alive: a restart would not mend the disk
    assert probe(server, "/readyz") == (200, {"status": "ready"})
    assert "not ready: the runs folder cannot be written" in server.log.read_text()


def test_readyz_is_503_while_the_state_folder_cannot_be_read(server: Server) -> None:
    records = Path(str(server.root)) / ".pegsearch-service" / "records"
    with replaced_by_a_file(records):
        status, answer = probe(server, "/readyz")
        assert status == 503, answer
        assert answer["error"] == ("not ready: the state folder cannot be read (NotADirectoryError);"
                                   " see the server's log")
    assert probe(server, "/readyz") == (200, {"status": "ready"})


def test_the_probes_are_not_part_of_the_api_description(server: Server) -> None:
    status, data = server.request("GET", "/api/openapi.json")
    assert status == 200
    paths = json.loads(data)["paths"]
    assert "/healthz" not in paths and "/readyz" not in paths


def test_a_probe_on_a_kept_alive_connection_is_answered_each_time(server: Server) -> None:
    """A load balancer keeps its connection open between probes."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    for _ in range(3):
        connection.request("GET", "/readyz")
        response = connection.getresponse()
        assert response.status == 200 and json.loads(response.read()) == {"status": "ready"}
    connection.close()

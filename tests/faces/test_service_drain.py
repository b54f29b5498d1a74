"""A drain on SIGTERM, on a real `pegsearch serve` (issue 79, item 9): new work is refused 503 with
Retry-After while reads go on, the running search ends at its next checkpoint `interrupted` (a run
`pegsearch verify` passes), the server exits 0 within the bound, and the next server on the same
state resumes the search to its published counts; a second SIGTERM or SIGINT exits at once.

The drain is held where it can be looked at: the search's worker is stopped (SIGSTOP) when the
server is told to stop, so the drain waits for it (at most its share of the bound)."""

from __future__ import annotations

import http.client
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from pegsearch.service.drain import DRAIN, RETRY_AFTER, WORKERS
from pegsearch.store import Run
from tests.faces.test_service_hints import hard_positions
from tests.helpers import pegsearch
from tests.helpers.serving import Server

SLOW_SEARCH = {"board": "english-33", "symmetry": "none", "settings": {"memory": "256M"}}
QUEUED = {"board": "triangle-5", "symmetry": "none"}


def _held_drain(root: Path) -> tuple[Server, str, str, int]:
    """A server running the English board raw (a queued search behind it), its worker stopped,
    told to stop: the server's drain waits for the worker. Returns the server, the two searches
    and the worker's pid."""
    server = Server(root)
    search_id = server.submit(SLOW_SEARCH)
    queued = server.submit(QUEUED)
    server.wait(search_id, ("running",), levels=10)
    (worker,) = server.workers()
    os.kill(worker, signal.SIGSTOP)
    server.process.send_signal(signal.SIGTERM)
    return server, search_id, queued, worker


def _refused_while_draining(server: Server, search_id: str) -> None:
    deadline = time.monotonic() + 5
    while True:  # the signal may take a moment to be handled
        status, answer = server.json("POST", "/api/searches", QUEUED)
        if status == 503 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert status == 503, answer
    assert "shutting down" in answer["error"], answer


def _ended_well(root: Path, search_id: str) -> list[dict]:
    """The run the drained search left: interrupted, a run `pegsearch verify` passes; its levels."""
    run = Run.open(root / search_id)
    assert run.status == "interrupted"
    checked = pegsearch("verify", str(root / search_id))
    assert checked.returncode == 0 and checked.stdout.startswith("ok: "), (checked.stdout, checked.stderr)
    return run.levels


@pytest.mark.slow
def test_a_drain_refuses_new_work_interrupts_the_search_and_the_next_server_resumes_it(
        tmp_path: Path, published: dict) -> None:
    root = tmp_path / "runs"
    server, search_id, queued, worker = _held_drain(root)
    told = time.monotonic()
    try:
        _refused_while_draining(server, search_id)
        refused = server.request("POST", f"/api/searches/{queued}/resume")
        assert refused[0] == 503  # a resume is new work too
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        connection.request("POST", "/api/searches", body='{"board": "triangle-5"}',
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        connection.close()
        assert response.status == 503 and response.getheader("Retry-After") == str(RETRY_AFTER)
        assert server.get(f"/api/searches/{search_id}")["status"] == "running"  # reads go on
        assert server.get("/api/searches")
        status, _ = server.request("GET", "/readyz")
        assert status == 503  # a load balancer sends no more
        assert server.process.poll() is None  # still draining: its worker has not ended
    finally:
        os.kill(worker, signal.SIGCONT)  # the worker handles its SIGTERM: the next checkpoint
    assert server.process.wait(timeout=DRAIN + 5) == 0
    assert time.monotonic() - told < DRAIN
    before = _ended_well(root, search_id)
    assert 10 <= len(before) < 32
    second = Server(root)
    try:
        assert second.get(f"/api/searches/{search_id}")["status"] in ("queued", "running")
        document = second.wait(search_id)
        figures = published["english_centre_raw_per_level"]
        assert [level["states"] for level in document["levels"]] == figures["levels"]
        assert Run.open(root / search_id).levels[:len(before)] == before  # resumed, not again
        assert second.wait(queued)["levels"][-1]["states"] == 4  # the queued one ran too
    finally:
        second.stop()


@pytest.mark.parametrize("again", [signal.SIGTERM, signal.SIGINT])
def test_a_second_signal_exits_at_once_losing_nothing_committed(
        tmp_path: Path, again: signal.Signals) -> None:
    root = tmp_path / "runs"
    server, search_id, queued, worker = _held_drain(root)
    try:
        _refused_while_draining(server, search_id)
        server.process.send_signal(again)
        told = time.monotonic()
        assert server.process.wait(timeout=5) == 128 + again
        assert time.monotonic() - told < 2
    finally:
        os.kill(worker, signal.SIGCONT)
    deadline = time.monotonic() + 30
    while Run.open(root / search_id).status != "interrupted":  # the orphaned worker stops itself
        assert time.monotonic() < deadline
        time.sleep(0.1)
    _ended_well(root, search_id)
    second = Server(root)
    try:
        assert second.get(f"/api/searches/{search_id}")["status"] in ("queued", "running")
        assert second.get(f"/api/searches/{queued}")["status"] in ("queued", "running", "complete")
    finally:
        second.stop()


def _asked(server: Server, path: str) -> tuple[int, str | None, bytes]:
    """One GET: its status, its Retry-After and its body."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, response.getheader("Retry-After"), body


def test_a_drain_answers_the_requests_in_flight(tmp_path: Path) -> None:
    """Two hints at work when the server is told to stop: the one bounded at 2 s is answered
    (200), the one asked for 60 s, more than the drain has, is stopped and answered 503 with
    Retry-After; then the server exits 0, within the bound."""
    server = Server(tmp_path / "runs")
    try:
        server.get("/api/boards/wiegleb-45/hint?position=8-14-23&seconds=0.1")  # compiled
        answers: dict[str, tuple[int, str | None, bytes]] = {}

        def hint(name: str, jumps: str, seconds: int) -> None:
            answers[name] = _asked(server, f"/api/boards/wiegleb-45/hint?position={jumps}"
                                           f"&seconds={seconds}")

        asked = [threading.Thread(target=hint, args=(name, jumps, seconds)) for name, jumps, seconds
                 in zip(("short", "long"), hard_positions(2), (2, 60), strict=True)]
        for thread in asked:
            thread.start()
        time.sleep(0.5)
        server.process.send_signal(signal.SIGTERM)
        told = time.monotonic()
        for thread in asked:
            thread.join(timeout=DRAIN + 5)
        assert answers["short"][0] == 200, answers["short"]
        status, retry, body = answers["long"]
        assert (status, retry) == (503, str(RETRY_AFTER)), body
        assert b"the server is shutting down: this hint was stopped before its bound" in body
        assert WORKERS - 1 < time.monotonic() - told < DRAIN
        assert server.process.wait(timeout=DRAIN) == 0
        assert time.monotonic() - told < DRAIN
    finally:
        server.stop()

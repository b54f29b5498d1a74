"""A search being deleted on a real `pegsearch serve`, as every other request meets it (issue 79):
a second delete, a cancel or a resume is refused 409, one status for the one state, as
docs/service.md promises.

The delete is held where it can be looked at: its search's worker is stopped (SIGSTOP), so the
delete waits for it, and a part is taken away as the delete's removal of the folder would."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers.serving import Server

SLOW_SEARCH = {"board": "english-33", "symmetry": "none", "settings": {"memory": "256M"}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("deleting") / "runs")
    yield started
    started.stop()


@contextmanager
def being_deleted(server: Server) -> Iterator[str]:
    """A search with stored levels, being deleted: its worker stopped, a part of level 1 gone;
    the delete is answered 200 once the worker goes on (and stops, told to)."""
    search_id = server.submit(SLOW_SEARCH)
    server.wait(search_id, ("running",), levels=2)
    (worker,) = server.workers()
    os.kill(worker, signal.SIGSTOP)
    first: list[int] = []
    deleting = threading.Thread(
        target=lambda: first.append(server.request("DELETE", f"/api/searches/{search_id}")[0]))
    deleting.start()
    try:
        while server.get(f"/api/searches/{search_id}")["status"] != "deleting":
            pass
        next((Path(str(server.root)) / search_id / "level-001").glob("*.parquet")).unlink()
        yield search_id
    finally:
        os.kill(worker, signal.SIGCONT)
        deleting.join()
    assert first == [200]
    assert server.request("GET", f"/api/searches/{search_id}")[0] == 404


def test_a_delete_cancel_or_resume_of_a_search_being_deleted_is_409(server: Server) -> None:
    """Of 69 refused concurrent deletes, 14 were answered 404 "search ID is being deleted" and 55
    409 with the same text: the 404 when the route's reader found a part gone."""
    with being_deleted(server) as search_id:
        base = f"/api/searches/{search_id}"
        for method, path in (("DELETE", base), ("POST", f"{base}/cancel"),
                             ("POST", f"{base}/resume")):
            status, answer = server.json(method, path)
            error = answer["error"]
            assert status == 409 and ("deleting" in error or "being deleted" in error), \
                (method, path, status, answer)


READERS = ("", "/counts", "/levels/1", "/levels/1/parts/0", "/levels/0/parts/0", "/board",
           "/solution?seconds=1", "/hint?position=1&seconds=1")


def test_a_search_being_deleted_is_deleting_or_404_to_every_reader(server: Server) -> None:
    """Readers racing a delete were told 409 "part ... is missing; the run is damaged": 12 of 761
    `/counts` reads, and once `GET /api/searches/ID` itself (issue 79, item 2)."""
    with being_deleted(server) as search_id:
        for route in READERS:
            status, data = server.request("GET", f"/api/searches/{search_id}{route}")
            text = data.decode(errors="replace")
            assert status in (200, 404) and "damaged" not in text, (route, status, text)
            if status == 200 and route in ("", "/counts"):
                assert '"status":"deleting"' in text.replace(" ", ""), (route, text)
        rows = [row for row in server.get("/api/searches") if row["id"] == search_id]
        assert all(row["status"] == "deleting" for row in rows), rows

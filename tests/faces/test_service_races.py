"""Submit, cancel, resume and delete racing one another on a real `pegsearch serve` process: every
interleaving answers 2xx, 404 or 409, a delete is final, and cancel answers what is true."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import pegsearch, wait_for_levels
from tests.helpers.serving import Server

ROUNDS_SECONDS = 12.0  # how long the races go on (rounds of a second or two each)
ACCEPTED = {200, 202, 404, 409}
SLOW_SEARCH = {"board": "english-33", "symmetry": "none", "settings": {"memory": "256M"}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Server:
    started = Server(tmp_path_factory.mktemp("races") / "runs", "--jobs", "2")
    yield started
    started.stop()


def _race(server: Server, calls: list[tuple[str, str]]) -> list[tuple[str, int, object]]:
    """Make the calls at once, each on a thread of its own; returns (method, status, answer)."""
    answers: list[tuple[str, int, object]] = []
    barrier = threading.Barrier(len(calls))

    def call(method: str, path: str) -> None:
        barrier.wait()
        status, answer = server.json(method, path, SLOW_SEARCH if path == "/api/searches" else None)
        answers.append((f"{method} {path}", status, answer))

    threads = [threading.Thread(target=call, args=call_) for call_ in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_resume_cancel_and_delete_racing_never_fail_and_a_delete_is_final(server: Server,
                                                                        seed: int) -> None:
    root = Path(server.process.args[server.process.args.index("--runs") + 1])
    rounds, deleted_rounds, order = 0, 0, random.Random(seed)  # `--seed` replays the orders
    deadline = time.monotonic() + ROUNDS_SECONDS
    while time.monotonic() < deadline:
        rounds += 1
        search_id = server.submit(SLOW_SEARCH)
        base = f"/api/searches/{search_id}"
        if rounds % 2:  # half the rounds race on an interrupted search, half on a running one
            server.json("POST", f"{base}/cancel")
            server.wait(search_id, ("interrupted",), timeout=30)
        calls = [("POST", f"{base}/resume")] * 5 + [("DELETE", base)] * 3 \
            + [("POST", f"{base}/cancel")] * 3 + [("GET", base)] * 2
        order.shuffle(calls)
        answers = _race(server, calls)
        assert {status for _, status, _ in answers} <= ACCEPTED, answers
        if any(call.startswith("DELETE") and status == 200 for call, status, _ in answers):
            deleted_rounds += 1
            time.sleep(0.5)  # a resume that slipped through would have queued it again by now
            assert server.request("GET", base)[0] == 404, answers
            assert not (root / search_id).exists()
        else:
            assert server.json("DELETE", base)[0] == 200
    assert deleted_rounds == rounds  # three deletes each round: one of them removes it


def test_submits_racing_deletes_never_fail(server: Server, seed: int) -> None:
    """Submits make new ids (the request's name and the time), so they race with deletes of the
    search before and with its cancels (in an order drawn from `seed`)."""
    order = random.Random(seed)
    for _ in range(4):
        base = f"/api/searches/{server.submit(SLOW_SEARCH)}"
        calls = [("POST", "/api/searches")] * 3 + [("DELETE", base)] * 3 \
            + [("POST", f"{base}/cancel")] * 2 + [("POST", f"{base}/resume")] * 2
        order.shuffle(calls)
        answers = _race(server, calls)
        assert {status for _, status, _ in answers} <= ACCEPTED, answers
        for call, _, answer in answers:
            if call == "POST /api/searches":
                assert server.json("DELETE", f"/api/searches/{answer['id']}")[0] == 200


def test_cancel_answers_cancelling_then_the_search_is_interrupted(server: Server) -> None:
    search_id = server.submit(SLOW_SEARCH)
    server.wait(search_id, ("running",))
    status, answer = server.json("POST", f"/api/searches/{search_id}/cancel")
    assert status == 200 and answer["status"] in ("cancelling", "interrupted")  # as it ended
    assert server.get(f"/api/searches/{search_id}")["status"] in (answer["status"], "interrupted")
    status, again = server.json("POST", f"/api/searches/{search_id}/resume")
    assert status in (202, 409), again
    if status == 409:
        assert "cancelling" in again["error"]
        server.wait(search_id, ("interrupted",), timeout=30)
    status, answer = server.json("POST", f"/api/searches/{search_id}/cancel")
    assert (status, answer.get("status")) in ((409, None), (200, "interrupted"), (200, "cancelling"))
    assert server.json("DELETE", f"/api/searches/{search_id}")[0] == 200



def test_a_run_written_outside_the_service_is_running_until_its_writer_dies(server: Server) -> None:
    """A run the command line is making in the root is running (its writer holds the lock): the
    service can neither cancel nor delete it; killed with kill -9, it is interrupted at once
    (its manifest still says running) and can be resumed or deleted."""
    root = Path(server.process.args[server.process.args.index("--runs") + 1])
    writer = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", "english-33", "--raw",
                               "--out", str(root / "outside")], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_for_levels(root / "outside", 2)
        assert server.get("/api/searches/outside")["status"] == "running"
        for method, path in (("POST", "/api/searches/outside/cancel"), ("DELETE", "/api/searches/outside")):
            status, answer = server.json(method, path)
            assert status == 409 and "a process outside this service" in answer["error"], answer
    finally:
        writer.kill()
        writer.wait()
    assert json.loads((root / "outside" / "manifest.json").read_text())["status"] == "running"
    assert server.get("/api/searches/outside")["status"] == "interrupted"
    assert server.json("DELETE", "/api/searches/outside")[0] == 200


def test_a_run_read_while_its_folder_is_removed_is_404_not_damaged(tmp_path: Path) -> None:
    """The service's own views over a real run, stopped where the races caught them: its folder
    half removed by a delete under way (Jobs.delete holds the id as `deleting` meanwhile). A
    reader then said 200 `damaged` ("is not a pegsearch run", 5 in some 19,000 reads), and a
    resume was refused 400; now both are 404."""
    from pegsearch.errors import NotFound
    from pegsearch.service.jobs import Jobs
    from pegsearch.service.views import Searches
    from pegsearch.store import Location

    root = tmp_path / "runs"
    assert pegsearch("run", "triangle-5", "--out", str(root / "s1")).returncode == 0
    jobs = Jobs(Location.parse(str(root)), tmp_path / "state", 1)
    searches = Searches(Location.parse(str(root)), jobs)
    assert searches.document("s1")["status"] == "complete"
    jobs.deleting.add("s1")  # as Jobs.delete does while it removes the folder
    next((root / "s1" / "level-003").glob("*.parquet")).unlink()
    with pytest.raises(NotFound, match="being deleted"):
        searches.document("s1")
    (root / "s1" / "manifest.json").unlink()
    for read in (searches.find, searches.document):
        with pytest.raises(NotFound):
            read("s1")
    jobs.deleting.discard("s1")  # the delete done: the id is no search
    with pytest.raises(NotFound):
        searches.document("s1")

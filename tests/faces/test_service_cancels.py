"""Cancels on a real `pegsearch serve`, exact (issue 79, items 3 and 4): a search cancelled while
it makes level 0 leaves a run `pegsearch verify` passes, and a cancel either wins or says it came
too late."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import pegsearch
from tests.helpers.serving import Server

ROUNDS = 4  # 3 of 4 cancels sent the moment level-000/ appeared left it unlisted
SEARCH = {"board": "english-33", "symmetry": "none", "settings": {"memory": "256M"}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("cancels") / "runs")
    yield started
    started.stop()


def _when_level_0_appears(folder: Path, seconds: float = 120) -> None:
    """Return the moment the worker has made `folder`'s level-000/ (before it is committed)."""
    deadline = time.monotonic() + seconds
    while not (folder / "level-000").exists():
        assert time.monotonic() < deadline, f"{folder.name}: no level-000/ after {seconds} s"
        time.sleep(0.001)


def test_a_cancel_during_level_0_leaves_a_run_verify_passes(server: Server) -> None:
    root = Path(str(server.root))
    for _ in range(ROUNDS):
        search_id = server.submit(SEARCH)
        _when_level_0_appears(root / search_id)
        status, answer = server.json("POST", f"/api/searches/{search_id}/cancel")
        assert status == 200, answer
        server.wait(search_id, ("interrupted",), timeout=60)
        checked = pegsearch("verify", str(root / search_id))
        assert checked.returncode == 0 and checked.stdout.startswith("ok: "), \
            (search_id, checked.stdout, checked.stderr)
        assert "not listed" not in checked.stdout


def _when_complete(manifest: Path, seconds: float = 120) -> None:
    """Return the moment the worker has written its run complete (it has not exited yet)."""
    deadline = time.monotonic() + seconds
    while '"status": "complete"' not in (manifest.read_text() if manifest.exists() else ""):
        assert time.monotonic() < deadline, f"{manifest.parent.name}: not complete after {seconds} s"
        time.sleep(0.001)


def test_a_cancel_that_comes_too_late_says_so(server: Server) -> None:
    """A cancel was answered 200 `cancelling` and the search then ended `complete` (triangle-6,
    3.0 s after submit): here the cancel comes once the worker has written its run complete."""
    root = Path(str(server.root))
    for _ in range(3):
        search_id = server.submit({"board": "triangle-5", "start": [1]})
        _when_complete(root / search_id / "manifest.json")
        status, answer = server.json("POST", f"/api/searches/{search_id}/cancel")
        assert status == 409, answer
        assert answer["error"] == (f"search {search_id} was complete before the cancel reached"
                                   " it: nothing was stopped")
        assert server.get(f"/api/searches/{search_id}")["status"] == "complete"


def test_a_cancel_answered_200_is_never_followed_by_complete(server: Server) -> None:
    """Cancels sent as a small search runs, a little later each round: each either wins (the
    search ends interrupted) or is refused 409, and then the search is complete."""
    for round_ in range(6):
        search_id = server.submit({"board": "triangle-6", "start": [1]})
        server.wait(search_id, ("running", "complete"))
        time.sleep(0.1 * round_)
        status, answer = server.json("POST", f"/api/searches/{search_id}/cancel")
        assert status in (200, 409), answer
        ended = server.wait(search_id, ("interrupted", "complete"), timeout=120)["status"]
        assert ended == ("interrupted" if status == 200 else "complete"), (status, answer, ended)

"""A search's state as a real `pegsearch serve` words it while its worker writes, is cancelled or
is killed: one word for one state, the CLI's (issue 55, items 4 and 5)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.helpers import pegsearch
from tests.helpers.cluster import wait_until
from tests.helpers.serving import Server

pytestmark = pytest.mark.slow


def running(server: Server, levels: int) -> tuple[str, int]:
    """A skippy-xl search running with at least `levels` levels, and its worker's pid."""
    search_id = server.submit({"board": "skippy-xl", "start": [1], "settings": {"memory": "64M"}})
    server.wait(search_id, ("running",), levels=levels)
    workers = server.workers()
    assert len(workers) == 1, workers
    return search_id, workers[0]


def test_a_worker_killed_with_kill_9_is_interrupted_as_the_cli_says(server: Server, tmp_path: Path) -> None:
    """The API said failed (exit code -9) where `pegsearch runs` said interrupted; and the run's
    own manifest, what every other reader of the folder sees, still said running."""
    search_id, worker = running(server, 3)
    os.kill(worker, signal.SIGKILL)
    document = server.wait(search_id, ("interrupted", "failed"), timeout=60)
    assert document["status"] == "interrupted" and "error" not in document
    manifest = tmp_path / "runs" / search_id / "manifest.json"
    wait_until(lambda: json.loads(manifest.read_text())["status"] == "interrupted", 10,
               "the manifest to say interrupted")
    listed = pegsearch("runs", str(tmp_path / "runs"))
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if search_id in line)
    assert "interrupted" in row
    status, answer = server.json("POST", f"/api/searches/{search_id}/resume")
    assert status == 202, answer


def test_a_part_changing_under_a_running_writer_is_not_called_damage(server: Server,
                                                                      tmp_path: Path) -> None:
    """A cancelled search was called damaged now and then ("part ... is missing from level-008")
    while its worker, stopped inside a commit, put its manifest right; a reader meets a part
    missing while a writer is at work as the writer's, and says its status. Once no one writes,
    a part missing is damage."""
    search_id, _ = running(server, 4)
    part = next((tmp_path / "runs" / search_id / "level-002").glob("*.parquet"))
    aside = part.with_suffix(".aside")
    part.rename(aside)
    try:
        document = server.get(f"/api/searches/{search_id}")
        assert document["status"] == "running" and len(document["levels"]) == 2
        assert [row["status"] for row in server.get("/api/searches")] == ["running"]
    finally:
        aside.rename(part)
    status, _ = server.json("POST", f"/api/searches/{search_id}/cancel")
    assert status == 200
    seen = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "interrupted" not in seen:
        seen.add(server.get(f"/api/searches/{search_id}")["status"])
        time.sleep(0.02)
    assert seen <= {"running", "cancelling", "interrupted"} and "interrupted" in seen
    part.rename(aside)  # no one writes now: damage is damage
    assert server.get(f"/api/searches/{search_id}")["status"] == "damaged"

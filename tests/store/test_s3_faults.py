"""The object store's faults: a real S3-compatible server (SeaweedFS on 127.0.0.1) stopped in the
middle of a search and started again. Requests the store does not answer are made again, the pauses
doubling, for the store's patience: an outage shorter than that is ridden through; a longer one
ends the search in one line, resumable, with nothing committed half. Either way the run ends equal,
digest for digest, to the same search on local disk."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import levels_stored, pegsearch
from tests.helpers.s3_server import BUCKET, SeaweedFS
from tests.helpers.store_server import reached

BOARD = "english-33"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeaweedFS]:
    """A server of this module's own: stopping it must not fail the other S3 tests."""
    with reached(SeaweedFS(tmp_path_factory.mktemp("seaweedfs"))) as server:
        yield server


def search_then_stop_store(store: SeaweedFS, uri: str, after: int, down: float,
                           patience: float | None = None) -> subprocess.CompletedProcess:
    """Start the search, stop the store once `after` levels are committed, start it again `down`
    seconds later (it then takes some seconds more to answer), and wait for the search's end."""
    environment = dict(os.environ)
    if patience is not None:
        environment["PEGSEARCH_STORE_PATIENCE"] = str(patience)
    search = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", BOARD, "--out", uri],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=environment)
    try:
        deadline = time.monotonic() + 120
        while levels_stored(uri) < after and search.poll() is None:
            assert time.monotonic() < deadline, "the search did not reach its level"
            time.sleep(0.05)
        assert search.poll() is None, "the search ended before the store was stopped"
        store.stop()
        time.sleep(down)
        store.start()
        out, err = search.communicate(timeout=600)
    finally:
        if store.server is None:
            store.start()
        search.kill()
    return subprocess.CompletedProcess(search.args, search.returncode, out, err)


@pytest.mark.slow
@pytest.mark.parametrize(("after", "down"), [(6, 10)])
def test_a_store_restarted_mid_search_is_ridden_through(store: SeaweedFS, english_on_disk: Path, after: int,
                                                         down: float) -> None:
    uri = f"s3://{BUCKET}/restarted-{after}"
    ended = search_then_stop_store(store, uri, after, down)
    assert ended.returncode == 0, ended.stderr
    assert "Traceback" not in ended.stderr
    waited = [line for line in ended.stderr.splitlines() if "does not answer" in line]
    assert waited and waited[0].startswith(f"pegsearch: {uri}")  # the outage was met and waited out
    compared = pegsearch("verify", uri, "--against", str(english_on_disk))
    assert compared.returncode == 0, compared.stdout + compared.stderr


@pytest.mark.slow
def test_a_store_down_longer_than_its_patience_ends_in_one_line_and_resumes(store: SeaweedFS,
                                                                             english_on_disk: Path) -> None:
    uri = f"s3://{BUCKET}/gave-up"
    ended = search_then_stop_store(store, uri, 8, 25, patience=4)
    assert ended.returncode == 2
    lines = ended.stderr.strip().splitlines()
    assert "Traceback" not in ended.stderr and lines[-1].startswith("pegsearch: error: cannot ")
    assert "continue with --resume" in lines[-1]
    checked = pegsearch("verify", uri)  # the manifest and every part it lists are whole
    if checked.returncode:  # a part of the level being made was written before the store went down
        assert all("is not listed in the manifest" in line and "`--resume` removes it" in line
                   for line in checked.stdout.splitlines()), checked.stdout + checked.stderr
    resumed = pegsearch("run", BOARD, "--out", uri, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    compared = pegsearch("verify", uri, "--against", str(english_on_disk))
    assert compared.returncode == 0, compared.stdout + compared.stderr

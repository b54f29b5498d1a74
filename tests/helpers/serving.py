"""A real `pegsearch serve` process on a free port of 127.0.0.1, and plain HTTP to it (no test client)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

STARTUP = 30.0  # seconds a server may take to listen


def free_ports(count: int) -> list[int]:
    """`count` distinct ports free now: every probe is held open until all are chosen (closed one
    at a time, the kernel may hand the same port out twice: two daemons then race for it)."""
    with contextlib.ExitStack() as stack:
        probes = [stack.enter_context(socket.socket()) for _ in range(count)]
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]


class Server:
    """`pegsearch serve --runs ROOT` in a subprocess; stop it with `stop` (or `kill` for a crash).

    ROOT is a folder (the log goes beside it) or a store URI (give `logs`, a folder for the log);
    `env` replaces the environment the server starts with."""

    def __init__(self, root: Path | str, *options: str, token: str | None = None,
                 logs: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.port = free_ports(1)[0]
        self.root = root
        self.token = token
        environment = {k: v for k, v in (env or os.environ).items() if k != "PEGSEARCH_TOKEN"}
        command = [sys.executable, "-m", "pegsearch", "serve", "--runs", str(root),
                   "--port", str(self.port), *options]
        if token:
            command += ["--token", token]
        folder = logs or Path(root).parent
        self.log = folder / f"{Path(str(root)).name}-server-{self.port}.log"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log,
                                            env=environment)
        self._wait_listening()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start listening")

    def request(self, method: str, path: str, body: dict | str | bytes | None = None,
                token: str | None = None, timeout: float = 120) -> tuple[int, bytes]:
        """One request; the server's token is sent unless another one is given ("" sends none)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {}
        given = self.token if token is None else token
        if given:
            headers["Authorization"] = f"Bearer {given}"
        if isinstance(body, dict):
            body = json.dumps(body)
            headers["Content-Type"] = "application/json"
        elif body is not None:
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, data

    def json(self, method: str, path: str, body: dict | str | None = None,
             **options: object) -> tuple[int, object]:
        status, data = self.request(method, path, body, **options)
        return status, json.loads(data)

    def get(self, path: str) -> object:
        status, document = self.json("GET", path)
        assert status == 200, (path, status, document)
        return document

    def submit(self, request: dict) -> str:
        status, answer = self.json("POST", "/api/searches", request)
        assert status in (201, 202), answer
        return answer["id"]

    def wait(self, search_id: str, until: tuple[str, ...] = ("complete",), timeout: float = 300,
             levels: int = 0) -> dict:
        """Poll a search until its status is in `until` and it has at least `levels` levels."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            document = self.get(f"/api/searches/{search_id}")
            if document["status"] in until and len(document["levels"]) >= levels:
                return document
            if document["status"] == "failed":
                raise AssertionError(f"search failed: {document.get('error')}")
            time.sleep(0.1)
        raise AssertionError(f"search {search_id} still {document['status']} after {timeout} s")

    def events(self, search_id: str, timeout: float = 300) -> Iterator[tuple[str, dict]]:
        """The server-sent events of a search, as (kind, data), until the server ends the stream."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        connection.request("GET", f"/api/searches/{search_id}/events", headers=headers)
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("Content-Type").startswith("text/event-stream")
        kind = None
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                yield kind, json.loads(line.removeprefix("data: "))
        connection.close()

    def workers(self) -> list[int]:
        """The pids of the server's worker processes (its children, one a running search)."""
        pid = self.process.pid
        return [int(child) for task in os.listdir(f"/proc/{pid}/task")
                for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]

    def stop(self) -> int:
        """A clean stop (SIGTERM, as a service manager does); returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)

    def kill(self) -> None:
        """A crash: the server dies at once and its workers are left to notice."""
        self.process.kill()
        self.process.wait(timeout=60)

"""Abandoned hints against a real `pegsearch serve`: does the server stay fast?

    python bench/abandoned_hints.py [--hints 45] [--seconds 60] [--board wiegleb-45] [--leave 1]

Starts a server on a free port over a temporary runs root (two small searches in it, so the
listing has rows), sends `--hints` solver hints each asking for `--seconds`, every one from a
different position (none answered from the kept documents), hangs up on each after `--leave`
seconds, and then prints: how each hint was answered before its client left (503s), the server's
threads, its CPU use over the next 3 s (cores), and the time of `GET /api/searches` (5 tries).
Issue 55's figure before the hints' pool: 95-129 threads and a listing of 28.2 s.
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from pegsearch.board.files import load_board
from pegsearch.board.geometry import legal_jumps
from tests.helpers.serving import Server


def positions(board_name: str, count: int) -> list[str]:
    """`count` different positions two and three jumps from the board's start, as jumps."""
    board = load_board(board_name)
    found: list[str] = []
    start = board.start_position()
    for first, after in legal_jumps(board, start):
        for second, later in legal_jumps(board, after):
            found.append(f"{first},{second}")
            for third, _ in legal_jumps(board, later):
                found.append(f"{first},{second},{third}")
    if len(found) < count:
        raise SystemExit(f"{board_name} has only {len(found)} such positions")
    return found[:count]


def abandon(port: int, path: str, leave: float) -> str:
    """Send one request, wait `leave` seconds for an answer, and hang up: what came back, if any."""
    with socket.create_connection(("127.0.0.1", port), timeout=leave) as connection:
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        try:
            status = connection.recv(64).split(b" ")[1].decode()
        except (TimeoutError, IndexError):
            status = "left"
    return status


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hints", type=int, default=45)
    parser.add_argument("--seconds", default="60")
    parser.add_argument("--board", default="wiegleb-45")
    parser.add_argument("--leave", type=float, default=1.0, help="seconds before each client hangs up")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "runs")
        try:
            for start in (1, 4):
                server.wait(server.submit({"board": "triangle-5", "start": [start]}))
            paths = [f"/api/boards/{options.board}/hint?position={jumps}&seconds={options.seconds}"
                     for jumps in positions(options.board, options.hints)]
            began = time.monotonic()
            with ThreadPoolExecutor(len(paths)) as pool:
                answered = list(pool.map(lambda path: abandon(server.port, path, options.leave), paths))
            left = time.monotonic() - began
            pid = server.process.pid
            threads = len(os.listdir(f"/proc/{pid}/task"))
            before = cpu_seconds(pid)
            time.sleep(3)
            cores = (cpu_seconds(pid) - before) / 3
            timings = []
            for _ in range(5):
                connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
                asked = time.monotonic()
                connection.request("GET", "/api/searches")
                response = connection.getresponse()
                response.read()
                timings.append(time.monotonic() - asked)
                assert response.status == 200, response.status
                connection.close()
        finally:
            server.stop()
    counts = {status: answered.count(status) for status in sorted(set(answered))}
    print(f"{options.hints} hints of {options.seconds} s on {options.board}, each left after"
          f" {options.leave} s (all sent and left within {left:.1f} s): {counts}")
    print(f"then: {threads} server threads; {cores:.2f} cores used over the next 3 s")
    print(f"GET /api/searches: median {statistics.median(timings):.3f} s, most {max(timings):.3f} s"
          f" ({', '.join(f'{t:.3f}' for t in timings)})")


if __name__ == "__main__":
    main()

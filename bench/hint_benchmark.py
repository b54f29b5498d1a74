"""Time hints over HTTP: random reachable positions of a stored run asked of a real `pegsearch serve`.

    python bench/hint_benchmark.py [BOARD] [--samples 1000] [--seed 1] [--s3] [--keep DIR]
                                   [--levels FIRST LAST] [--every-finish] [--clients N]

Makes the run (`pegsearch run BOARD`) and its winnable sets (`pegsearch winnable`) under a runs
root, a local folder or, with `--s3`, a bucket of SeaweedFS started on 127.0.0.1 (the tests' S3
server), starts `pegsearch serve` on that root, and asks GET /api/searches/ID/hint for SAMPLES
positions drawn uniformly from every position the run stores (each a reachable one: the run keeps
one per symmetry class, and on English from the centre every symmetry fixes the start). One
keep-alive connection, one request at a time, as the Play page asks. The first request is timed
apart (it opens the run and its footers); the table gives the others' median, 90th and 99th
percentile and maximum, and the server's resident memory after them. With --every-finish, each
position is asked once for every hole of the board as its finish (`&finish=H`): the holes a
symmetry moves and those it keeps, each one lookup of the kept finishing holes (made, with the
sets, before the timing). With --clients N, N clients ask at once, each on its own keep-alive
connection, the positions dealt out among them: the table adds the hints answered a second.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pegsearch.board.pictures import holes_with_pegs  # noqa: E402
from pegsearch.store import Run  # noqa: E402
from tests.helpers.s3_server import BUCKET, seaweedfs  # noqa: E402
from tests.helpers.serving import Server  # noqa: E402

ID = "bench"


def pegsearch(*arguments: str, env: dict[str, str] | None = None) -> None:
    """One real command, its output discarded; a failure stops the benchmark with its stderr."""
    done = subprocess.run([sys.executable, "-m", "pegsearch", *arguments], env=env,
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"pegsearch {' '.join(arguments)} failed: {done.stderr.strip()}")


def sample_positions(location: str, count: int, seed: int,
                     chosen: tuple[int, int] | None = None) -> list[int]:
    """COUNT positions drawn uniformly (with replacement) from the run's stored levels (those from
    `chosen`'s first to its last, when given)."""
    run = Run.open(location)
    first, last = chosen or (0, len(run.levels) - 1)
    levels = [run.read_level(level["level"]) for level in run.levels if first <= level["level"] <= last]
    everything = np.concatenate(levels)
    picks = np.random.default_rng(seed).integers(0, len(everything), count)
    return [int(everything[i]) for i in picks]


def ask(connection: http.client.HTTPConnection, position: int,
        finish: int | None = None) -> tuple[float, dict]:
    """One hint request: its wall seconds and its document."""
    holes = ",".join(map(str, holes_with_pegs(position)))
    began = time.perf_counter()
    connection.request("GET", f"/api/searches/{ID}/hint?position={holes}"
                              + ("" if finish is None else f"&finish={finish}"))
    response = connection.getresponse()
    body = response.read()
    seconds = time.perf_counter() - began
    if response.status != 200:
        sys.exit(f"hint of {holes}: HTTP {response.status} {body[:200]!r}")
    return seconds, json.loads(body)


def resident_mb(pid: int) -> float:
    """The server's resident memory now, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("board", nargs="?", default="english-33")
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--s3", action="store_true", help="the runs root on a SeaweedFS bucket")
    parser.add_argument("--keep", type=Path, help="a folder for the run and logs (default: temporary)")
    parser.add_argument("--levels", type=int, nargs=2, metavar=("FIRST", "LAST"),
                        help="draw the positions from these levels only (e.g. 3 8: early in the game)")
    parser.add_argument("--every-finish", action="store_true",
                        help="ask each position once for every hole of the board as its finish")
    parser.add_argument("--clients", type=int, default=1,
                        help="clients asking at once, each on its own connection (default 1)")
    options = parser.parse_args()

    with ExitStack() as stack:
        folder = options.keep or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        folder.mkdir(parents=True, exist_ok=True)
        env = None
        if options.s3:
            weed = folder / "weed"
            weed.mkdir(exist_ok=True)
            env = {**os.environ, **stack.enter_context(seaweedfs(weed))}
            runs = f"s3://{BUCKET}/hint-bench"
        else:
            runs = str(folder / "runs")
        location = f"{runs}/{ID}"
        began = time.perf_counter()
        if not (folder / "runs" / ID / "manifest.json").exists():  # --keep: made once, asked again
            pegsearch("run", options.board, "--out", location, env=env)
        pegsearch("winnable", location, env=env)
        start = Run.open(location)
        first_position = start.board.start_position(start.start)
        pegsearch("hint", location, ",".join(map(str, holes_with_pegs(first_position))), env=env)
        print(f"{options.board}: run and winnable sets made in {time.perf_counter() - began:.1f} s"
              f" at {location}")
        if env:
            os.environ.update(env)
        positions = sample_positions(location, options.samples, options.seed, options.levels)

        server = Server(runs, "--jobs", "1", logs=folder, env=env)
        stack.callback(server.stop)
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        first, _ = ask(connection, positions[0])
        finishes = range(1, start.board.holes + 1) if options.every_finish else [None]

        def client(share: list[int]) -> tuple[list[float], int]:
            """One client's hints, one at a time on its own connection: their seconds, and how
            many were winnable."""
            mine = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            answered = [ask(mine, position, finish) for position in share for finish in finishes]
            return [seconds for seconds, _ in answered], sum(doc["winnable"] for _, doc in answered)

        shares = [positions[1 + index::options.clients] for index in range(options.clients)]
        began = time.perf_counter()
        with ThreadPoolExecutor(options.clients) as pool:
            results = list(pool.map(client, shares))
        wall = time.perf_counter() - began
        times = [seconds for share, _ in results for seconds in share]
        winnable = sum(count for _, count in results)
        times_ms = np.array(times) * 1000
        store = "S3 (SeaweedFS on 127.0.0.1)" if options.s3 else "local disk"
        asked = "every hole as the finish" if options.every_finish else "one peg anywhere"
        print(f"{len(times) + 1} hints over HTTP ({store}; {asked}),"
              f" {winnable} of the {len(times)} after the first winnable")
        print(f"  clients        {options.clients:8d}")
        print(f"  hints a second {len(times) / wall:8.1f}")
        print(f"  first request  {first * 1000:8.1f} ms")
        for name, value in (("median", statistics.median(times_ms)),
                            ("90th pct", np.percentile(times_ms, 90)),
                            ("99th pct", np.percentile(times_ms, 99)),
                            ("max", times_ms.max())):
            print(f"  {name:14} {value:8.1f} ms")
        print(f"  server resident after: {resident_mb(server.process.pid):.0f} MB")


if __name__ == "__main__":
    main()

"""Time how soon a Spark search submitted to the service starts: the server's first, then the others.

    python bench/service_spark_benchmark.py [BOARD] [--searches 5] [--master local[2]]

The server's kept Spark worker runs the later ones on the session it kept. Starts `pegsearch serve
--engine spark --master MASTER` (a real server on 127.0.0.1), submits SEARCHES raw searches of BOARD
one after another (each waits for the one before), every level a Spark job (`driver_below` 0), and
reports for each the seconds from the request to its level 1 being committed (its first Spark job
done) and to its end. The first pays for a JVM, a SparkContext and Python workers loading the
kernels; the others find them running.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.helpers.serving import Server  # noqa: E402


def timed_search(server: Server, board: str) -> tuple[float, float]:
    """Submit one search; the seconds to its first level made by a job, and to its end."""
    began = time.monotonic()
    search_id = server.submit({"board": board, "symmetry": "none", "settings": {"driver_below": 0}})
    first = None
    while True:
        document = server.get(f"/api/searches/{search_id}")
        if first is None and len(document["levels"]) >= 2:
            first = time.monotonic() - began
        if document["status"] in ("complete", "failed", "interrupted"):
            break
        time.sleep(0.02)
    if document["status"] != "complete":
        sys.exit(f"search {search_id} ended {document['status']}: {document.get('error')}")
    whole = time.monotonic() - began
    return (whole if first is None else first), whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("board", nargs="?", default="triangle-5")
    parser.add_argument("--searches", type=int, default=5)
    parser.add_argument("--master", default="local[2]")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "runs", "--engine", "spark", "--master", options.master)
        try:
            times = [timed_search(server, options.board) for _ in range(options.searches)]
        finally:
            server.stop()
    print(f"{options.board} on {options.master}, every level a Spark job: seconds from the request")
    print("search  to level 1  to the end")
    for number, (first, whole) in enumerate(times, start=1):
        print(f"{number:>6}  {first:10.2f}  {whole:10.2f}")
    later = times[1:]
    if later:
        print(f"later searches, median: {statistics.median(t for t, _ in later):.2f} s to level 1,"
              f" {statistics.median(w for _, w in later):.2f} s to the end")


if __name__ == "__main__":
    main()

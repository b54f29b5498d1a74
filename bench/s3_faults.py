"""The S3 gateway stopped mid-level and started again: trials of what a search makes of it.

    python bench/s3_faults.py [--trials 5] [--board english-33] [--down 10,20,30] [--folder DIR]

Starts SeaweedFS on 127.0.0.1 (`weed`, from the `tests` extra, must be on PATH), searches BOARD
on the local engine into s3://runs/trial-N, stops the server once a level drawn at random is
committed, starts it again after a pause from --down (it then takes its own seconds to answer),
and waits for the search. A search the retries carried through ends by itself; one that gave up
(an outage past PEGSEARCH_STORE_PATIENCE) is resumed with --resume. Each trial prints how the
search ended, whether it needed the resume, whether stderr held a traceback, and whether
`pegsearch verify --against` finds the run equal, digest for digest, to the same search on local
disk. Not a test: a benchmark to run and report (cluster/storage.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.helpers.s3_server import BUCKET, SeaweedFS


def levels_stored(uri: str) -> int:
    from pegsearch.store import MANIFEST, Location

    try:
        return len(json.loads(Location.parse(uri).read(MANIFEST))["levels"])
    except (OSError, ValueError):
        return 0


def pegsearch(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pegsearch", *args], capture_output=True, text=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--board", default="english-33")
    parser.add_argument("--down", default="10,20,30,10,30", help="seconds the server stays stopped")
    parser.add_argument("--folder", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    random.seed(args.seed)
    folder = args.folder or Path(tempfile.mkdtemp(prefix="pegsearch-s3-faults-"))
    (folder / "seaweedfs").mkdir(parents=True)
    local = folder / "local"
    pegsearch("run", args.board, "--out", str(local))
    deepest = len(json.loads((local / "manifest.json").read_text())["levels"]) - 2
    downs = [float(d) for d in args.down.split(",")]
    server = SeaweedFS(folder / "seaweedfs")
    server.start()
    os.environ.update(server.environment)
    try:
        for trial in range(1, args.trials + 1):
            uri, after = f"s3://{BUCKET}/trial-{trial}", random.randint(2, deepest)
            down = downs[(trial - 1) % len(downs)]
            began = time.monotonic()
            search = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", args.board, "--out", uri],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            while levels_stored(uri) < after and search.poll() is None:
                time.sleep(0.05)
            stopped = time.monotonic() - began
            server.stop()
            time.sleep(down)
            server.start()
            answered = time.monotonic() - began
            _, err = search.communicate()
            resumed = ""
            if search.returncode != 0:
                again = pegsearch("run", args.board, "--out", uri, "--resume")
                resumed = f"; --resume: exit {again.returncode}"
                err += again.stderr
            compared = pegsearch("verify", uri, "--against", str(local))
            print(f"trial {trial}: stopped after level {after} at {stopped:.1f} s, answering again at"
                  f" {answered:.1f} s ({answered - stopped:.1f} s out); the search's exit"
                  f" {search.returncode}{resumed}; traceback: {'yes' if 'Traceback' in err else 'no'};"
                  f" waited: {'yes' if 'does not answer' in err else 'no'};"
                  f" {'equal by digest' if compared.returncode == 0 else compared.stdout.strip()}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()

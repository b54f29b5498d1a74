"""kill -9 at random moments inside a level made in passes, then --resume: what a kill costs.

    python bench/kill_trials.py BASE BOARD LEVEL [--memory BYTES] [--trials 10] [--work DIR]

BASE is a run of BOARD paused before LEVEL (`pegsearch run BOARD --out BASE --until LEVEL-1`).
The searches run the driver in a Python process of their own at a budget of --memory bytes (the
command line takes 64M at least; a smaller budget makes a level of a minute take many passes:
triangle-8's level 13 at 16 MiB takes six). A copy of BASE is made to LEVEL uninterrupted (the
reference: the level's time T and its passes n); then, a trial at a time, another copy is started
to LEVEL, killed with SIGKILL at a moment drawn uniformly over the level's making, and resumed.
Each trial prints the passes its checkpoint kept and what the kill cost: the time run before it
plus the resume's, less the uninterrupted process's, against the bound T/n + start-up (the work
of the pass it was in, and a start), and whether `pegsearch verify --against` finds the resumed
run equal, digest for digest, to the reference. Start-up is timed as a resume that has nothing to
make. `pegsearch` must be on PATH (for `verify`). Not a test: a benchmark to run and report
(docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

# The search to level sys.argv[3] of board sys.argv[1] in run sys.argv[2], resumed, at a budget of
# sys.argv[4] bytes.
SEARCH = ("import sys\n"
          "from pegsearch.board.files import load_board\n"
          "from pegsearch.board.spec import SearchSpec\n"
          "from pegsearch.engines.driver import search\n"
          "from pegsearch.engines.local import LocalEngine\n"
          "board = load_board(sys.argv[1])\n"
          "search(SearchSpec(board, board.empty), sys.argv[2], LocalEngine(memory=int(sys.argv[4])),\n"
          "       resume=True, until=int(sys.argv[3]))\n")


def searching(board: str, run: Path, level: int, memory: int) -> list[str]:
    return [sys.executable, "-c", SEARCH, board, str(run), str(level), str(memory)]


def timed(command: list[str]) -> float:
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[3:])} failed: {done.stderr.strip()}")
    return time.perf_counter() - began


def manifest(run: Path) -> dict:
    return json.loads((run / "manifest.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("board")
    parser.add_argument("level", type=int)
    parser.add_argument("--memory", type=int, default=16 << 20)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--work", type=Path, default=Path("/tmp/pegsearch-kill-trials"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    random.seed(args.seed)
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    reference = args.work / "reference"
    shutil.copytree(args.base, reference)
    startup = timed(searching(args.board, reference, args.level - 1, args.memory))
    whole = timed(searching(args.board, reference, args.level, args.memory))
    record = manifest(reference)["levels"][args.level]
    level_seconds, passes = record["seconds"], record.get("passes", 1)
    bound = level_seconds / passes + startup
    print(f"reference: level {args.level} of {args.board} at {args.memory:,} bytes: {passes} passes,"
          f" {level_seconds:.1f} s in the level, {whole:.1f} s the process; start-up {startup:.1f} s;"
          f" bound for a resume T/n + start-up = {bound:.1f} s")
    costs = []
    for trial in range(1, args.trials + 1):
        run = args.work / f"trial-{trial}"
        shutil.copytree(args.base, run)
        moment = startup + random.uniform(0.02, 0.98) * level_seconds
        search = subprocess.Popen(searching(args.board, run, args.level, args.memory),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(moment)
        search.kill()
        search.wait()
        checkpoint = manifest(run).get("in_progress") or {}
        kept = checkpoint.get("passes_done", 0) if checkpoint.get("level") == args.level else 0
        seconds = timed(searching(args.board, run, args.level, args.memory))
        compared = subprocess.run(["pegsearch", "verify", str(run), "--against", str(reference)],
                                  capture_output=True, text=True)
        equal = compared.returncode == 0
        cost = moment + seconds - whole
        costs.append(cost)
        print(f"trial {trial:2}: killed at {moment:6.1f} s with {kept} of {passes} passes committed;"
              f" resume {seconds:6.1f} s; the kill cost {cost:6.1f} s ({cost / bound:.2f} of the"
              f" bound); {'equal by digest' if equal else 'DIFFERENT: ' + compared.stdout.strip()}")
        shutil.rmtree(run)
    print(f"what a kill cost: median {statistics.median(costs):.1f} s, most {max(costs):.1f} s;"
          f" bound {bound:.1f} s (T {level_seconds:.1f} s / {passes} passes + start-up {startup:.1f} s)")


if __name__ == "__main__":
    main()

"""`pegsearch estimate` checked, not trusted: triangle-8's estimate against the whole search.

    python bench/estimate_check.py [--work DIR] [--board triangle-8] [--until 12] [--reuse]

Triangle-8 estimated from its levels 0-12, then searched whole on the same machine, wall time, CPU
seconds and stored bytes compared (target: within 25 %). In DIR (default /tmp/estimate-check):
`pegsearch run BOARD --until UNTIL --out DIR/base` (kept and reused when it is there), `pegsearch
estimate DIR/base --json` (written to DIR/estimate.json), then `pegsearch run BOARD --out DIR/whole`
from scratch, timed. With --reuse a complete DIR/whole is not made again: its figures are read from
its manifest (levels' seconds and CPU seconds), so a changed estimate is checked against the same
search. Prints both sides (wall and CPU seconds, stored bytes, positions), the ratios, whether the
measured wall time fell in the estimate's range, the CPU model (lscpu), the compile target, and the
load average before and after (the estimate assumes an idle machine: on a shared one the wall time
stretches with the load, the CPU seconds much less, so read the CPU line there). Writes them to
DIR/check.json. Triangle-8 whole takes 7-20 minutes on 2 cores (52 minutes on 2 cores shared with
other work): run it once. Runs `python -m pegsearch` with this interpreter. Not a test: a benchmark
to run and report (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

TARGET = 0.25


def pegsearch(*args: str) -> str:
    """Run `pegsearch` and return its stdout (a failure stops the check with its own line)."""
    done = subprocess.run([sys.executable, "-m", "pegsearch", *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"pegsearch {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def children_cpu() -> float:
    """CPU seconds (user and system) of this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def cpu_model() -> str:
    lines = subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("Model name")), "?")


def whole_search(board: str, whole: Path, reuse: bool) -> tuple[float, float, str]:
    """The whole search's wall and CPU seconds and how they were measured: timed now, or read from
    a complete run's manifest with --reuse (its levels' seconds and CPU seconds, the process's
    start-up apart)."""
    manifest = whole / "manifest.json"
    if reuse and manifest.is_file() and json.loads(manifest.read_text())["status"] == "complete":
        levels = json.loads(manifest.read_text())["levels"]
        return (sum(level["seconds"] for level in levels),
                sum(level.get("cpu_seconds", 0.0) for level in levels), "its levels' records")
    shutil.rmtree(whole, ignore_errors=True)
    began, cpu_before = time.perf_counter(), children_cpu()
    pegsearch("run", board, "--out", str(whole))
    return time.perf_counter() - began, children_cpu() - cpu_before, "timed whole"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/estimate-check"))
    parser.add_argument("--board", default="triangle-8")
    parser.add_argument("--until", type=int, default=12)
    parser.add_argument("--reuse", action="store_true",
                        help="read a complete DIR/whole's figures instead of searching again")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    base, whole = args.work / "base", args.work / "whole"
    load_before = os.getloadavg()
    if not (base / "manifest.json").is_file():
        pegsearch("run", args.board, "--until", str(args.until), "--out", str(base))
    estimate = json.loads(pegsearch("estimate", str(base), "--json"))
    (args.work / "estimate.json").write_text(json.dumps(estimate, indent=1) + "\n")
    low, high = estimate["seconds_range"]
    print(f"estimated from levels 0-{args.until}: {estimate['seconds']:,.0f} s wall (likely"
          f" {low:,.0f}-{high:,.0f}), {estimate['cpu_seconds']:,.0f} CPU s,"
          f" {estimate['stored_bytes']:,} bytes stored; it assumes {estimate['assumes']}", flush=True)
    seconds, cpu, how = whole_search(args.board, whole, args.reuse)
    stored = folder_bytes(whole)
    manifest = json.loads((whole / "manifest.json").read_text())
    states = [level["states"] for level in manifest["levels"]]
    projected = [level["states"] for level in estimate["levels"]]
    result = {"cpu": cpu_model(), "compile_target": manifest.get("compile_target"),
              "load_before": load_before, "load_after": os.getloadavg(), "board": args.board,
              "until": args.until, "whole_measured_by": how,
              "estimated_seconds": estimate["seconds"], "estimated_range": [low, high],
              "measured_seconds": round(seconds, 1),
              "estimated_cpu_seconds": estimate["cpu_seconds"], "measured_cpu_seconds": round(cpu, 1),
              "estimated_stored_bytes": estimate["stored_bytes"], "measured_stored_bytes": stored,
              "estimated_positions": sum(projected), "measured_positions": sum(states)}
    (args.work / "check.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"CPU: {result['cpu']}; compile target: {(result['compile_target'] or {}).get('target')};"
          f" load average before {load_before[0]:.1f}, after {result['load_after'][0]:.1f}"
          f" ({os.cpu_count()} cores); the whole search's figures: {how}")
    for what, ours, real in (("wall seconds", estimate["seconds"], seconds),
                             ("CPU seconds", estimate["cpu_seconds"], cpu),
                             ("stored bytes", estimate["stored_bytes"], stored),
                             ("positions", sum(projected), sum(states))):
        ratio = ours / real
        verdict = "within" if abs(ratio - 1) <= TARGET else "OUTSIDE"
        print(f"{what}: estimated {ours:,.0f}, measured {real:,.0f}: {ratio:.2f}x ({verdict}"
              f" {TARGET:.0%})")
    print(f"the measured wall time is {'inside' if low <= seconds <= high else 'OUTSIDE'} the"
          f" estimate's range ({low:,.0f}-{high:,.0f} s)")


if __name__ == "__main__":
    main()

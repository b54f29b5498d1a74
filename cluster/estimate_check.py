"""`pegsearch estimate` checked, not trusted: triangle-8 estimated from its levels 0-12, then searched
whole on the same machine, wall time and stored bytes compared (target: within 25 %).

    python cluster/estimate_check.py [--work DIR] [--board triangle-8] [--until 12]

In DIR (default /tmp/estimate-check): `pegsearch run BOARD --until UNTIL --out DIR/base` (kept and
reused when it is there), `pegsearch estimate DIR/base --json` (the estimate is written to
DIR/estimate.json), then `pegsearch run BOARD --out DIR/whole` from scratch, timed, and its folder's
bytes summed. Prints both sides (wall and CPU seconds, stored bytes, positions), the ratios and the
CPU model (lscpu), and writes them to DIR/check.json. On a machine shared with other work the wall
time stretches with the load while the estimate (from the base run's levels) does not: compare CPU
seconds there, and make the base run under the same load. Triangle-8 whole takes 10-20 minutes on
2 cores: run it once. Runs `python -m pegsearch` with this interpreter. Not a test: a benchmark to
run and report (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/estimate-check"))
    parser.add_argument("--board", default="triangle-8")
    parser.add_argument("--until", type=int, default=12)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    base, whole = args.work / "base", args.work / "whole"
    if not (base / "manifest.json").is_file():
        pegsearch("run", args.board, "--until", str(args.until), "--out", str(base))
    estimate = json.loads(pegsearch("estimate", str(base), "--json"))
    (args.work / "estimate.json").write_text(json.dumps(estimate, indent=1) + "\n")
    print(f"estimated from levels 0-{args.until}: {estimate['seconds']:,.0f} s wall,"
          f" {estimate['stored_bytes']:,} bytes stored", flush=True)
    shutil.rmtree(whole, ignore_errors=True)
    began, cpu_before = time.perf_counter(), children_cpu()
    pegsearch("run", args.board, "--out", str(whole))
    seconds, cpu = time.perf_counter() - began, children_cpu() - cpu_before
    stored = folder_bytes(whole)
    manifest = json.loads((whole / "manifest.json").read_text())
    states = [level["states"] for level in manifest["levels"]]
    projected = [level["states"] for level in estimate["levels"]]
    result = {"cpu": cpu_model(), "board": args.board, "until": args.until,
              "estimated_seconds": estimate["seconds"], "measured_seconds": round(seconds, 1),
              "estimated_cpu_seconds": estimate["cpu_seconds"], "measured_cpu_seconds": round(cpu, 1),
              "estimated_stored_bytes": estimate["stored_bytes"], "measured_stored_bytes": stored,
              "estimated_positions": sum(projected), "measured_positions": sum(states)}
    (args.work / "check.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"CPU: {result['cpu']}")
    for what, ours, real in (("wall seconds", estimate["seconds"], seconds),
                             ("CPU seconds", estimate["cpu_seconds"], cpu),
                             ("stored bytes", estimate["stored_bytes"], stored),
                             ("positions", sum(projected), sum(states))):
        ratio = ours / real
        verdict = "within" if abs(ratio - 1) <= TARGET else "OUTSIDE"
        print(f"{what}: estimated {ours:,.0f}, measured {real:,.0f}: {ratio:.2f}x ({verdict}"
              f" {TARGET:.0%})")


if __name__ == "__main__":
    main()

"""The table bench/gpu.sh prints: the GPU engine's levels against the same machine's cores.

    python bench/gpu_table.py T8_GPU T8_CPU T9_GPU BANDWIDTH_GB_S

Read from the runs' manifests (a run not made, or not made whole, is said so): per level the
device that made it, positions, seconds, positions a second, passes, and the GPU's share of the
time (its kernel, the copies both ways, the parts: unranking, encoding and writing on the host's
cores); then the issue's targets: triangle-8 whole at least 10 times faster than its 16 cores, and
triangle-9's level 15 in under 30 s with the recorded digest. The kernel's speed is also said as
the bytes its children move a second against the card's measured copy bandwidth (BANDWIDTH_GB_S,
bytes read and written): a child is one 64-bit atomic OR on a random word, a 32-byte sector read
and written (BYTES_A_CHILD), which that ratio is the performance goal for.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BYTES_A_CHILD = 64
# triangle-9's level 15 as the local engine made it (cluster/triangle-9.md, 2026-11-26).
T9_LEVEL_15 = {"states": 17_441_071_871, "digest": "5a7d1412c25c3b40"}


def manifest(folder: str) -> dict | None:
    path = Path(folder) / "manifest.json"
    return json.loads(path.read_text()) if path.exists() else None


def level_rows(run: dict, bandwidth: float) -> list[str]:
    rows = ["| level | device | positions | seconds | positions/s | passes | kernel s | copies s |"
            " parts s | children | GB/s of children | of the copy bandwidth |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for record in run["levels"][1:]:
        seconds = record["seconds"]
        kernel = record.get("gpu_kernel_seconds")
        moved = record["children"] * BYTES_A_CHILD / kernel / 1e9 if kernel and "children" in record else None
        rows.append(" | ".join([
            f"| {record['level']}", record.get("device", "?"), f"{record['states']:,}", f"{seconds:.2f}",
            f"{record['states'] / seconds:,.0f}" if seconds else "-", str(record.get("passes", "-")),
            *(f"{record[key]:.2f}" if key in record else "-"
              for key in ("gpu_kernel_seconds", "gpu_copies_seconds", "gpu_parts_seconds")),
            f"{record['children']:,}" if "children" in record else "-",
            f"{moved:.1f}" if moved else "-",
            f"{moved / bandwidth:.1%}" if moved and bandwidth else "-"]) + " |")
    return rows


def total(run: dict | None) -> float | None:
    """A complete run's seconds, summed over its levels (start-up and compiling left out)."""
    if run is None or run["status"] != "complete":
        return None
    return sum(record["seconds"] for record in run["levels"])


def main(t8_gpu: str, t8_cpu: str, t9_gpu: str, bandwidth: str) -> None:
    copy = float(bandwidth) if bandwidth else 0.0
    gpu8, cpu8, gpu9 = manifest(t8_gpu), manifest(t8_cpu), manifest(t9_gpu)
    print(f"copy bandwidth measured: {copy:.0f} GB/s (device to device, bytes read and written)")
    for title, run in (("triangle-8 on the GPU", gpu8), ("triangle-9 on the GPU", gpu9)):
        print(f"\n### {title}: {'not made' if run is None else run['status']}\n")
        if run is not None:
            print("\n".join(level_rows(run, copy)))
    print("\n### Targets\n")
    fast, slow = total(gpu8), total(cpu8)
    if fast and slow:
        print(f"- triangle-8 whole: GPU {fast:.1f} s, 16 cores {slow:.1f} s: {slow / fast:.1f}x"
              f" (target at least 10x: {'met' if slow >= 10 * fast else 'not met'})")
    else:
        print(f"- triangle-8 whole: GPU {fast or 'not complete'}, 16 cores {slow or 'not complete'}")
    level = next((r for r in (gpu9 or {}).get("levels", []) if r["level"] == 15), None)
    if level is None:
        print("- triangle-9 level 15: not reached")
    else:
        same = level["digest"] == T9_LEVEL_15["digest"] and level["states"] == T9_LEVEL_15["states"]
        print(f"- triangle-9 level 15: {level['seconds']:.1f} s (target under 30 s:"
              f" {'met' if level['seconds'] < 30 else 'not met'}), {level['states']:,} positions,"
              f" digest {level['digest']} ({'equal to' if same else 'DIFFERENT from'} the recorded"
              f" {T9_LEVEL_15['digest']})")


if __name__ == "__main__":
    main(*(sys.argv[1:5] + [""] * (4 - len(sys.argv[1:5]))))

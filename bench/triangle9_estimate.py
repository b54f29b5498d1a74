"""`pegsearch estimate` for triangle-9, from the levels measured in stages, without their parts.

    python bench/triangle9_estimate.py [--measured 16] [-- ESTIMATE-OPTIONS...]

The levels are docs/lab/2026-11-scale.md's ("Triangle-9, in stages": AMD EPYC Zen 4, 2 cores, 2026-11-26).
The measured run's parts are not on this machine; its figures are. This makes a run of triangle-9
whose manifest records levels 0 to MEASURED as that run made them (positions, seconds, passes,
bytes), their parts dropped as `--keep last` drops them, then runs `pegsearch estimate` on it with
the options after `--` (e.g. `--cores 64 --memory 400G --keep last`). With MEASURED below 16 it
also compares the estimate of level 16 with its measured 7,890.0 s (2 cores, --memory 20G): give
`-- --cores 2 --memory 20G` for that. Levels 0-11 were timed together (14.8 s): the time is put on
level 11, the bytes (0.3 GB) shared by positions. The seconds are those of the CPU that measured
them, not of this machine. Runs `python -m pegsearch` with this interpreter. Not a test.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

EARLY = (1, 1, 4, 27, 197, 1581, 12630, 95201, 659078, 4116548, 22926203, 112939109)
# level: (positions, seconds, passes, stored bytes), docs/lab/2026-11-scale.md's table.
MEASURED = {12: (489_090_954, 26.8, 1, 520_000_000), 13: (1_851_894_835, 224.4, 2, 1_830_000_000),
            14: (6_103_106_659, 660.7, 2, 5_580_000_000), 15: (17_441_071_871, 1797.9, 1, 14_650_000_000),
            16: (43_089_577_677, 7890.0, 2, 33_090_000_000)}
EARLY_SECONDS, EARLY_BYTES = 14.8, 300_000_000


def pegsearch(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "pegsearch", *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"pegsearch {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def records(upto: int) -> list[dict]:
    """Levels 0 to `upto` as the measured run's manifest would record them, parts dropped."""
    levels = [(states, EARLY_SECONDS if k == len(EARLY) - 1 else 0.0, 1,
               EARLY_BYTES * states // sum(EARLY)) for k, states in enumerate(EARLY)]
    levels += [MEASURED[k] for k in sorted(MEASURED)]
    return [{"level": k, "pegs": 44 - k, "states": states, "files": [], "dropped": True,
             "digest": "0" * 16, "bytes": stored, "seconds": seconds, "engine": "local",
             "passes": passes, "reduce": "bitmap" if k >= 12 else "tables"}
            for k, (states, seconds, passes, stored) in enumerate(levels[:upto + 1])]


def main() -> None:
    argv = sys.argv[1:]
    options = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    upto = int(argv[argv.index("--measured") + 1]) if "--measured" in argv else 16
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "triangle-9"
        pegsearch("run", "triangle-9", "--until", "0", "--out", str(run))
        manifest = json.loads((run / "manifest.json").read_text())
        manifest["levels"] = records(upto)
        manifest["options"]["workers"] = 2
        (run / "manifest.json").write_text(json.dumps(manifest, indent=1))
        for part in (run / "level-000").iterdir():  # dropped, as the records say
            part.unlink()
        (run / "level-000").rmdir()
        print(pegsearch("estimate", str(run), *options), end="")
        if upto < 16:
            found = json.loads(pegsearch("estimate", str(run), "--json", *options))
            level = found["levels"][16]
            print(f"level 16 estimated from levels 0-{upto}: {level['states']:,} positions,"
                  f" {level['passes']} passes, {level['seconds']:,.0f} s on {found['cores']} cores;"
                  f" measured: {MEASURED[16][0]:,} positions, 2 passes, 7,890 s on 2 cores:"
                  f" {level['seconds'] / 7890:.2f}x")


if __name__ == "__main__":
    main()

"""The map's one step compiled for each of several targets on this machine, side by side.

    python bench/compile_targets.py [--rounds 5] MODEL[:FEATURES] ...

e.g. ``znver4 haswell x86-64-v3 icelake-server znver3: haswell: generic:`` — a model alone keeps
the host's features (what `pegsearch tune` compares); ``MODEL:`` takes the model's own features
(``znver3:`` is a Zen 3 build, AVX2 and no AVX-512, ``haswell:`` AVX2 alone); ``MODEL:+f,-g`` any
LLVM feature string. Each target compiles into a numba cache of its own (under the temporary
folder, kept between calls); all compile at once, then the probes (kernel.probe: CPU-ns a child,
one core, best of 7) are timed one at a time in rounds that alternate the targets, and the medians
are printed with the CPU.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from pegsearch.kernel.target import Probe, cpu_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="+", metavar="MODEL[:FEATURES]")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    caches = Path(tempfile.gettempdir()) / "pegsearch-compile-targets"
    probes = {}
    for name in options.targets:  # every target compiles at once, then each is timed alone
        model, given, features = name.partition(":")
        settings = {"NUMBA_CACHE_DIR": str(caches / name.replace("/", "_"))}
        if given:
            settings["NUMBA_CPU_FEATURES"] = features
        probes[name] = Probe(model, **settings)
    for probed in probes.values():
        probed.ready()
    timings: dict[str, list[float]] = {name: [] for name in options.targets}
    for _ in range(options.rounds):
        for name, probed in probes.items():
            timings[name].append(probed.time())
    for probed in probes.values():
        probed.close()
    print(f"{cpu_model()}: the map's one step, CPU-ns a child (median of {options.rounds})")
    for name, figures in sorted(timings.items(), key=lambda item: statistics.median(item[1])):
        model, given, features = name.partition(":")
        shown = f"{model} ({features or 'its own features'})" if given else f"{model} (host features)"
        rounds = " ".join(f"{f:.1f}" for f in figures)
        print(f"  {shown:<40} {statistics.median(figures):6.2f}   [{rounds}]")

if __name__ == "__main__":
    main()

"""Kernels compiled rather than loaded from numba's cache are said, even when the compile target
is not measured (issue 55: a fresh cache was a minute of silence), and their time is recorded apart
from the level's work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pegsearch.kernel.target import CHOSEN

SAID = "pegsearch: compiling the kernels this command needs for haswell"


def run(out: Path, cache: Path) -> subprocess.CompletedProcess:
    """`pegsearch run triangle-4` with numba's cache in `cache` and the compile target set (so it
    is never measured: only the kernels can compile), stderr a pipe."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", CHOSEN)}
    env.update(NUMBA_CACHE_DIR=str(cache), NUMBA_CPU_NAME="haswell")
    done = subprocess.run([sys.executable, "-m", "pegsearch", "run", "triangle-4", "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.slow
def test_kernels_compiled_into_a_fresh_cache_are_said_once_and_timed_apart(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = run(tmp_path / "first", cache)
    assert first.stderr.count(SAID) == 1, first.stderr
    assert first.stderr.startswith(SAID)  # before anything else: the wait is explained first
    levels = json.loads((tmp_path / "first" / "manifest.json").read_text())["levels"]
    compiled = [level for level in levels if "compile_seconds" in level]
    assert compiled and all(0 < level["compile_seconds"] <= level["seconds"]
                            and 0 < level["compile_cpu_seconds"] <= level["cpu_seconds"]
                            for level in compiled)

    again = run(tmp_path / "again", cache)
    assert "compiling" not in again.stderr, again.stderr
    levels = json.loads((tmp_path / "again" / "manifest.json").read_text())["levels"]
    assert not any("compile_seconds" in level for level in levels)

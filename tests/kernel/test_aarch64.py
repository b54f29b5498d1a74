"""The kernels on ARM64 (Graviton, Apple silicon): run under Debian's qemu-user on this x86-64
machine, in an arm64 Debian root with PyPI's aarch64 wheels of numpy, numba and pyarrow
(tests/helpers/aarch64.sh builds it, about 6 minutes the first time, then reuses it). The counts must be
the published ones, and equal to this machine's own."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import local_run

SCRIPT = Path(__file__).parents[1] / "helpers" / "aarch64.sh"

# Opt-in: building the arm64 root is 6 minutes of Debian's mirror and emulated dpkg, which CI's
# 90 minutes no longer hold beside the clusters (docs/tests.md says when it last ran).
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.uname().machine != "x86_64" or os.geteuid() != 0,
                                 reason="emulates aarch64 on an x86-64 machine, as root"),
              pytest.mark.skipif(os.environ.get("PEGSEARCH_TEST_AARCH64") != "1",
                                 reason="opt-in: PEGSEARCH_TEST_AARCH64=1 (builds an arm64 root)")]


def on_aarch64(*args: str) -> dict:
    """`pegsearch ARGS --json` run in the emulated arm64 root, into a fresh run folder there."""
    command = f"rm -rf /tmp/run && exec pegsearch {' '.join(args)} --out /tmp/run --json"
    done = subprocess.run(["bash", str(SCRIPT), "--", "sh", "-c", command], capture_output=True,
                          text=True, timeout=3000)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "inside: aarch64 Python" in done.stderr, "the search did not run as aarch64"
    return json.loads(done.stdout)


def test_triangle5_raw_counts_on_aarch64_are_the_published_ones(published: dict) -> None:
    document = on_aarch64("run", "triangle-5", "--start", "1", "--raw")
    assert [level["states"] for level in document["levels"]] == \
        published["triangle5_raw_per_level"]["start_hole_1_corner"]
    assert document["verdict"].startswith("one peg is reachable")


def test_skippy_xl_counts_on_aarch64_equal_this_machines(tmp_path: Path) -> None:
    document = on_aarch64("run", "skippy-xl")
    native = local_run("skippy-xl", tmp_path / "native")
    assert [level["states"] for level in document["levels"]] == [r["states"] for r in native.levels]
    assert sum(level["states"] for level in document["levels"]) > 7_000_000

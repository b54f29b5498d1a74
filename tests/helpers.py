"""Helpers shared by tests: running the real CLI in a subprocess and searching in process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from pegsearch.board import load_board
from pegsearch.engines.local import LocalEngine
from pegsearch.search import search
from pegsearch.store import Identity, Run


def pegsearch(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run the `pegsearch` command as a user would, capturing its output."""
    return subprocess.run([sys.executable, "-m", "pegsearch.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)


def local_run(board: str, out: Path, start: tuple[int, ...] | None = None,
              reduced: bool = True) -> Run:
    """Search a board with the local engine in this process."""
    loaded = load_board(board)
    identity = Identity(loaded, start or loaded.empty, "board" if reduced else "none")
    return search(identity, out, LocalEngine())


def level_sets(run: Run) -> list[np.ndarray]:
    """Every level of a run as a sorted array, for comparing engines position for position."""
    return [np.sort(run.read_level(level)) for level in range(len(run.levels))]

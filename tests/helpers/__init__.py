"""Helpers shared by every test module (no test module imports another): running the real CLI in a
subprocess, searching in process, refusals as users see them, and a triangle geometry of their own.
`serving` starts a real service, `s3_server` a real S3-compatible server, `gcs_server` a GCS
emulator."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.cli.main import answer
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.kernel.members import sorted_distinct
from pegsearch.kernel.path_counts import as_int
from pegsearch.store import MANIFEST, LevelWriter, Location, Run, level_name
from pegsearch.store.parts import iter_parts


def pegsearch(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The `pegsearch` command's answer, asked in this process: its exit code and what it printed,
    as `pegsearch_process` would capture them, without a second of imports per call. For what a
    command answers; where the process itself is tested (its signals, its environment, what it
    prints before or after the command's own work, a JVM or threads of its own), `pegsearch_process`.
    The garbage collector's freeze and the environment are undone after, as a process's end would."""
    out, err = io.StringIO(), io.StringIO()
    environment = dict(os.environ)
    with contextlib.chdir(cwd or Path.cwd()), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            code = answer(list(args))
        except SystemExit as exc:  # argparse's refusals, --help and --version
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        finally:
            gc.unfreeze()
            os.environ.clear()
            os.environ.update(environment)
    return subprocess.CompletedProcess(["pegsearch", *args], code, out.getvalue(), err.getvalue())


def pegsearch_process(*args: str, cwd: Path | None = None, timeout: float = 600,
                      env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the `pegsearch` command as a user would, in a process of its own, capturing its
    output; `env` sets variables over this process's environment."""
    return subprocess.run([sys.executable, "-m", "pegsearch", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})


def local_run(board: str, out: Path, start: tuple[int, ...] | None = None,
              reduced: bool = True, count_paths: bool = False, fewest_moves: bool = False) -> Run:
    """Search a board with the local engine in this process."""
    loaded = load_board(board)
    spec = SearchSpec(loaded, start or loaded.empty, "board" if reduced else "none", count_paths,
                      fewest_moves)
    return search(spec, out, LocalEngine())


def values_by_position(run: Run, level: int) -> dict[int, tuple[int, ...]]:
    """A committed level's values by position: a path count, or (fewest moves, last holes)."""
    positions, values = run.read_level_with_values(level)
    if run.fewest_moves:
        return {p: (int(moves), int(last)) for p, (last, moves) in zip(positions.tolist(), values,
                                                                       strict=True)}
    return {p: (as_int(row),) for p, row in zip(positions.tolist(), values, strict=True)}


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values (uint64), ascending, as `np.unique` gives them, by numpy's sort:
    `np.unique`'s hash table (numpy 2.3 on) took 70 times as long on millions of signatures."""
    return sorted_distinct(values, in_place=False)


def limbs(values: list[int]) -> np.ndarray:
    """Exact integers as path-count limbs ``[low, high]``."""
    return np.array([[v & (2**64 - 1), v >> 64] for v in values], dtype=np.uint64)


def one_level_run(out: Path, engine: str, holes: list[int], paths: list[int],
                  split: bool = False) -> Run:
    """A counting run of triangle-5 whose level 0 holds the start positions of `holes` with the
    given path counts: the way to make an engine add numbers near the limit without a huge board.
    `split` stores each position as a part of its own (so a cluster engine maps them apart).
    Signed under the whole group: the starts of mirror holes, not all in one class, are to meet."""
    board = load_board("triangle-5")
    spec = SearchSpec(board, (holes[0],), count_paths=True, signatures="group")
    run = Run.create_or_resume(out, spec, engine, {}, resume=False)
    positions = np.array([board.start_position((hole,)) for hole in holes], dtype=np.uint64)
    writer = run.level_writer(0)
    writer.whole()
    order = np.argsort(positions)
    pieces = [[k] for k in order] if split else [order]
    for index, rows in enumerate(pieces):
        writer.write(index, positions[rows], limbs(paths)[rows])
    run.commit_level(writer, 0.0)
    return run


def written(writer: LevelWriter) -> list[tuple[np.ndarray, np.ndarray]]:
    """The parts an engine wrote through `writer` (not committed), each as positions and path
    limbs, read back and checked like any reader's."""
    return list(iter_parts(writer.folder, writer.entries(), 1 << 62, writer.run.carry,
                           f"level {writer.level}"))


def part_file(out: Path, level: int, index: int = 0) -> Path:
    """The local path of a committed level's part `index`, as the manifest names it."""
    manifest = json.loads((out / MANIFEST).read_text())
    return out / level_name(level) / manifest["levels"][level]["files"][index]["name"]


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def parts_of(run: Run, level: int) -> list[np.ndarray]:
    """The positions of each part file of a committed level, part by part."""
    return [keys for keys, _ in run.iter_level(level, 1 << 62)]


def level_sets(run: Run) -> list[np.ndarray]:
    """Every level of a run as a sorted array, for comparing engines position for position."""
    return [np.sort(run.read_level(level)) for level in range(len(run.levels))]


def assert_one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    """A refusal as users must see it: exit 2, nothing on stdout, one line on stderr, no traceback."""
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert fragment in result.stderr


def wait_for_levels(out: Path, count: int, timeout: float = 120) -> None:
    """Wait until the run in `out` has committed `count` levels (to stop or race it there)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if len(json.loads((out / MANIFEST).read_text())["levels"]) >= count:
                return
        except (FileNotFoundError, json.JSONDecodeError):
            pass
        time.sleep(0.005)
    raise AssertionError(f"the run did not reach {count} levels in {timeout} s")


def levels_stored(uri: str) -> int:
    """The levels a run's manifest lists so far (0 before it is there or while unreadable: a
    store may be down)."""
    try:
        return len(json.loads(Location.parse(uri).read(MANIFEST))["levels"])
    except (OSError, ValueError):
        return 0


def cell(hole: int) -> tuple[int, int]:
    """(row, column) of a hole of a triangle board, by a geometry written here, not the board's."""
    row = 0
    while (row + 1) * (row + 2) // 2 < hole:
        row += 1
    return row, hole - row * (row + 1) // 2 - 1


def hole_at(row: int, column: int) -> int:
    """The hole at (row, column) of a triangle board: `cell` undone."""
    return row * (row + 1) // 2 + column + 1


class _Stop(Exception):
    pass


def stopped_inside_a_level(out: Path) -> dict:
    """A triangle-6 search stopped (in this process) once a level made in passes (tiny bitmap
    slices: a pass each) has two of them committed; returns that level's checkpoint."""
    def stop_after_two_passes(_event: dict) -> None:
        checkpoint = Run.open(out, check_parts=False).in_progress
        if checkpoint and checkpoint["passes_done"] >= 2:
            raise _Stop

    try:
        search(SearchSpec(load_board("triangle-6"), (4,)), out,
               LocalEngine(memory=4000, chunk=500, reduce="bitmap"), progress=stop_after_two_passes)
    except _Stop:
        return Run.open(out).in_progress
    raise AssertionError("the search ended before a level had two passes committed")

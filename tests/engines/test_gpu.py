"""The GPU engine (engines.gpu, kernel.cuda_bitmap): the local engine's levels, digests included.

What is covered beyond the contract every engine keeps (tests/engines/test_contract.py: triangle-5
and english-33's levels, digests and path counts equal to the local engine's, every level forced
onto the GPU, a resume, a killed run, bad settings): the kernel's bits against the CPU's children
ranked; larger boards level by level (slow: triangle-6 whole, english-33 to level 10);
the levels left on the CPU (path counts, levels too small for a bitmap) and each level's record
naming its device; passes when a bitmap outgrows --gpu-memory, bitmaps brought back in slices of
the host's --memory, a pass's width halved where the GPU's memory runs short, a level killed
between passes resumed on the local engine; `verify --against` a local run through the command
line; `estimate --gpu`'s passes and its seconds, unmeasured or calibrated; the one-line refusals
(no numba-cuda, no CUDA runtime, no GPU, a board past 64 holes, a bad --gpu-memory) leaving no run
behind; SIGTERM's one line.

Without a GPU the CUDA kernels run in numba's simulator (NUMBA_ENABLE_CUDASIM=1, set by
tests.helpers.gpu before numba.cuda is first imported), slowly: the quick tests stay on small
boards and few levels. Where a CUDA driver lists a GPU, nothing is forced and the same tests run
on it. What is not covered here: the kernel compiled for a real GPU and its speed (bench/gpu.sh,
on an H100 or H200).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numba.core.config
import numpy as np
import pytest

from tests.helpers.gpu import ON_GPU  # first: it chooses the simulator before numba.cuda loads

# isort: split
from numba import cuda

from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines import gpu as gpu_engine
from pegsearch.engines import make_engine
from pegsearch.engines.costs import estimate
from pegsearch.engines.driver import search
from pegsearch.engines.gpu_costs import gpu_estimate
from pegsearch.engines.local import LocalEngine
from pegsearch.errors import UsageError
from pegsearch.kernel import cuda_bitmap
from pegsearch.kernel.expand import expand
from pegsearch.kernel.ranks import level_ranks, rank_all
from pegsearch.kernel.tables import BoardTables
from pegsearch.store import Run
from tests.helpers import (
    assert_one_line_error,
    distinct,
    level_sets,
    pegsearch,
    pegsearch_process,
    wait_for_levels,
)

GpuEngine = gpu_engine.GpuEngine


def test_the_kernels_run_where_this_module_says() -> None:
    """On the GPU where a driver lists one, else in the simulator: never a silent mix."""
    assert cuda_bitmap.simulated() is not ON_GPU
    assert (GpuEngine().gpu.name == "simulator") is not ON_GPU


def same_levels(run: Run, other: Run) -> None:
    """Two runs hold the same positions level by level, with the same digests."""
    assert [r["states"] for r in run.levels] == [r["states"] for r in other.levels]
    assert [r["digest"] for r in run.levels] == [r["digest"] for r in other.levels]
    for a, b in zip(level_sets(run), level_sets(other), strict=True):
        assert np.array_equal(a, b)


def on_gpu(run: Run) -> list[int]:
    """The levels whose record says a GPU (or the simulator) made them."""
    return [r["level"] for r in run.levels if r.get("device") not in (None, "cpu")]


@pytest.mark.parametrize(("base", "words"), [(0, None), (3000, 40)])
def test_the_kernel_sets_the_bits_of_the_childrens_ranks(base: int, words: int | None) -> None:
    """english-33's level 5 from level 4: the bits set are the ranks of the CPU's children, those
    outside the bitmap's range dropped."""
    board = load_board("english-33")
    tables = BoardTables.for_board(board)
    level = tables.signatures(np.array([board.start_position()], dtype=np.uint64))
    for _ in range(4):
        level = distinct(expand(tables, level)[0])
    children = distinct(expand(tables, level)[0])
    ranks = level_ranks(board.holes, (), board.holes - 6, 0)
    expected = children.copy()
    rank_all(expected, len(expected), ranks.args)
    words = words or -(-ranks.count // 64)
    expected = np.sort(expected[(expected >= base) & (expected < base + 64 * words)]) - base
    bits, made = cuda_bitmap.zeros(words), cuda.to_device(np.zeros(1, dtype=np.int64))
    cuda_bitmap.set_bits(cuda_bitmap.DeviceTables.of(tables), cuda_bitmap.DeviceRanks.of(ranks),
                         cuda.to_device(level), base, bits, made)
    got = np.flatnonzero(np.unpackbits(bits.copy_to_host().view(np.uint8), bitorder="little"))
    assert len(got) > 0 and np.array_equal(got, expected)
    assert made.copy_to_host()[0] == len(expand(tables, level)[0])  # every child, kept or not


def test_tables_levels_stay_on_the_cpu(tmp_path: Path) -> None:
    """Path counts need a value a position, and levels too small for a bitmap are made in hash
    tables: on the CPU, each record saying so; the counts equal the local engine's."""
    spec = SearchSpec(load_board("triangle-5"), (1,), count_paths=True)
    made = search(spec, tmp_path / "paths", GpuEngine())
    local = search(spec, tmp_path / "local", LocalEngine())
    same_levels(made, local)
    assert [r["paths"] for r in made.levels] == [r["paths"] for r in local.levels]
    assert on_gpu(made) == [] and all(r["device"] == "cpu" for r in made.levels[1:])
    assert all(r["engine"] == "local" for r in made.levels[1:]) and made.manifest["engine"] == "gpu"
    small = search(SearchSpec(load_board("triangle-5"), (1,)), tmp_path / "small", GpuEngine())
    assert on_gpu(small) == [] and "tables" in small.levels[1]["reduce"]


@pytest.mark.parametrize(("gpu_memory", "memory", "until"), [(1, None, 6), (None, 4000, 8)])
def test_passes_and_slices_equal_one_pass(gpu_memory: int | None, memory: int | None,
                                          until: int | None, tmp_path: Path) -> None:
    """A GPU too small for a level's bitmap makes it a partition a pass (each a checkpoint); a
    host budget too small for the bitmap brings it back a slice at a time: the same levels."""
    spec = SearchSpec(load_board("triangle-6"), (4,))
    whole = search(spec, tmp_path / "whole", LocalEngine(), until=until)
    engine = GpuEngine(memory=memory, reduce="bitmap", gpu_memory=gpu_memory)
    made = search(spec, tmp_path / "gpu", engine, until=until)
    same_levels(made, whole)
    assert on_gpu(made) == list(range(1, len(made.levels)))  # every level after the start
    assert made.manifest["engine"] == "gpu" and "gpu_kernel_seconds" in made.levels[-1]
    if gpu_memory:
        assert max(r["passes"] for r in made.levels[1:]) >= 4
        assert engine.passes >= len(made.levels) + 4
    else:
        assert max(len(r["files"]) for r in made.levels) >= 4  # a part a slice at least


def test_a_gpu_short_of_memory_halves_its_passes(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    """A bitmap the GPU cannot hold is asked for again at half the width, down to a partition."""
    zeros, refused = cuda_bitmap.zeros, []

    def short(words: int) -> object:
        if words > 1024:  # more than a partition or two of triangle-6's bitmaps
            refused.append(words)
            raise RuntimeError("[2] Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY")
        return zeros(words)

    monkeypatch.setattr(cuda_bitmap, "zeros", short)
    spec = SearchSpec(load_board("triangle-6"), (4,))
    made = search(spec, tmp_path / "gpu", GpuEngine(reduce="bitmap", gpu_memory=1 << 30), until=8)
    same_levels(made, search(spec, tmp_path / "local", LocalEngine(), until=8))
    assert refused and max(r["passes"] for r in made.levels[1:]) > 1


class _Stop(Exception):
    pass


def test_a_level_stopped_between_passes_resumes_on_the_local_engine(tmp_path: Path) -> None:
    """A checkpoint of GPU passes is the local engine's too: the level goes on at its next pass."""
    spec = SearchSpec(load_board("triangle-6"), (4,))
    out = tmp_path / "run"

    def stop_in_a_second_pass(event: dict) -> None:
        checkpoint = Run.open(out, check_parts=False).in_progress
        if checkpoint and checkpoint["passes_done"] >= 2:
            raise _Stop

    with pytest.raises(_Stop):
        search(spec, out, GpuEngine(reduce="bitmap", gpu_memory=1),
               progress=stop_in_a_second_pass)
    resumed = search(spec, out, LocalEngine(memory=4000, chunk=200, reduce="bitmap"), resume=True)
    same_levels(resumed, search(spec, tmp_path / "whole", LocalEngine()))
    assert any("resumed" in r and r["resumed"].startswith("at pass 3") for r in resumed.levels)


def test_verify_against_a_local_run_says_identical(tmp_path: Path) -> None:
    """Through the command line: `--engine gpu` runs, and `verify --against` a local run agrees."""
    made = pegsearch_process("run", "triangle-4", "--engine", "gpu", "--reduce", "bitmap", "--gpu-memory",
                             "64M", "--out", str(tmp_path / "gpu"))
    assert made.returncode == 0, made.stderr
    local = pegsearch("run", "triangle-4", "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr
    verified = pegsearch("verify", str(tmp_path / "gpu"), "--against", str(tmp_path / "local"))
    assert verified.returncode == 0, verified.stderr
    assert "identical" in verified.stdout
    assert json.loads((tmp_path / "gpu" / "manifest.json").read_text())["engine"] == "gpu"


def test_estimate_gpu_prices_passes_and_says_what_is_unmeasured(tmp_path: Path) -> None:
    """`estimate --gpu`: each bitmap level's passes from its bitmap's bytes against --gpu-memory;
    its seconds unmeasured where no level of the run was made on a GPU, and priced at the GPU
    levels' own rate where some were (here a local run's records relabelled: the arithmetic is
    tested, no GPU's figure)."""
    out = tmp_path / "run"
    search(SearchSpec(load_board("english-33"), load_board("english-33").empty), out, LocalEngine(),
           until=14)
    shown = pegsearch("estimate", str(out), "--gpu", "--gpu-memory", "64M")
    assert shown.returncode == 0, shown.stderr
    assert "on the GPU engine, --gpu-memory 64 MiB: seconds unmeasured" in shown.stdout
    unmeasured = json.loads(pegsearch("estimate", str(out), "--gpu", "--json").stdout)["gpu"]
    assert unmeasured["seconds"] is None and unmeasured["calibration"].startswith("unmeasured")
    assert all(level["passes"] == 1 for level in unmeasured["levels"])  # 71.7 GiB holds each
    manifest = json.loads((out / "manifest.json").read_text())
    for record in manifest["levels"][11:]:
        record["device"] = "a test's GPU"
    (out / "manifest.json").write_text(json.dumps(manifest))
    priced = json.loads(pegsearch("estimate", str(out), "--gpu", "--gpu-memory", "64M",
                                  "--json").stdout)
    gpu = priced["gpu"]
    assert gpu["calibration"].startswith("measured on a test's GPU: levels 12, 13, 14 of ")
    largest = max(gpu["levels"], key=lambda level: level["bitmap_bytes"])
    assert largest["bitmap_bytes"] == 1_166_803_110 // 16 // 8  # C(33, 16) ranks, 16 classes
    assert gpu["seconds"] > 0 and all(level["seconds"] > 0 for level in gpu["levels"])
    found = estimate(Run.open(out), 2, 1 << 30, "all")
    narrow = gpu_estimate(found, str(out), "", 36 << 20)  # 4 MiB past a chunk: the largest in 3
    assert max(level.passes for level in narrow.levels) == 3
    assert narrow.seconds > gpu_estimate(found, str(out), "", 96 << 20).seconds  # parents again
    board = json.loads(pegsearch("estimate", "english-33", "--gpu", str(out), "--json").stdout)["gpu"]
    assert board["calibration"] == gpu["calibration"] and board["seconds"] > 0  # another run's rate
    missing = pegsearch("estimate", str(out), "--gpu", str(tmp_path / "none"))
    assert_one_line_error(missing, "no run there to calibrate")


# --- refusals --------------------------------------------------------------------------------------

def test_no_numba_cuda_no_runtime_no_gpu_each_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each missing piece is named, with what to do, before anything is made."""
    monkeypatch.setattr(numba.core.config, "ENABLE_CUDASIM", 0)
    monkeypatch.setattr(gpu_engine, "find_spec", lambda name: None)
    with pytest.raises(UsageError, match=r"needs the package 'numba-cuda'.*pegsearch\[gpu\]"):
        make_engine("gpu")
    monkeypatch.setattr(gpu_engine, "find_spec", lambda name: object())

    def missing() -> bool:
        raise RuntimeError('Failure finding "libcudart.so.13 or libcudart.so.12"\nmore')

    monkeypatch.setattr(cuda, "is_available", missing)
    with pytest.raises(UsageError, match=r"no CUDA runtime \(Failure finding .*--engine local$"):
        make_engine("gpu")
    monkeypatch.setattr(cuda, "is_available", lambda: False)
    with pytest.raises(UsageError, match=r"no NVIDIA GPU or driver.*--engine local$"):
        make_engine("gpu")


@pytest.mark.parametrize("size", ["lots", "1K"])
def test_bad_gpu_memory_is_refused(size: str) -> None:
    with pytest.raises(UsageError, match=f"--gpu-memory {size}"):
        GpuEngine(gpu_memory=size)
    with pytest.raises(UsageError, match="--gpu-memory does not apply to the local engine"):
        make_engine("local", gpu_memory="1G")


def test_the_command_line_without_a_gpu_says_so_and_leaves_no_run(tmp_path: Path) -> None:
    """No simulator, no device visible: one line (which piece is missing depends on what is
    installed), exit 2, no run directory."""
    out = tmp_path / "run"
    result = pegsearch_process("run", "triangle-5", "--engine", "gpu", "--out", str(out),
                               env={"NUMBA_ENABLE_CUDASIM": "0", "CUDA_VISIBLE_DEVICES": ""})
    assert_one_line_error(result, "the gpu engine ")
    assert "--engine local" in result.stderr
    assert not out.exists()


def test_a_board_past_64_holes_is_one_line(tmp_path: Path) -> None:
    board = tmp_path / "wide.toml"
    rows = "\n".join(" ".join("o" * 13) for _ in range(5))
    board.write_text(f'name = "wide"\ngrid = "square"\nlayout = """\n{rows[:-1]}.\n"""\n')
    out = tmp_path / "run"
    assert_one_line_error(pegsearch_process("run", str(board), "--engine", "gpu", "--out", str(out)),
                          "65 holes; at most 64 fit")
    assert not out.exists()


def test_sigterm_mid_search_ends_in_one_line_and_resumes(tmp_path: Path) -> None:
    """SIGTERM while the GPU makes english-33's levels: the other engines' one line, the run
    interrupted and resumable (here on the local engine)."""
    out = tmp_path / "run"
    flags = ["--engine", "gpu", "--reduce", "bitmap"]  # the whole board: still running on a GPU
    process = subprocess.Popen([sys.executable, "-m", "pegsearch", "run", "english-33", *flags,
                                "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    wait_for_levels(out, 6)
    time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert stdout == "" and len(stderr.strip().splitlines()) == 1, stderr
    assert stderr.startswith("pegsearch: stopped by SIGTERM; completed levels are kept"), stderr
    assert "--engine gpu" in stderr and "--resume" in stderr
    assert Run.open(out).status == "interrupted"
    resumed = pegsearch("run", "english-33", "--out", str(out), "--resume", "--until", "9")
    assert resumed.returncode == 0, resumed.stderr
    assert [r["states"] for r in Run.open(out).levels][-1] == 31_312


@pytest.mark.slow
@pytest.mark.parametrize(("board", "until"), [("triangle-6", None), ("english-33", 10)])
def test_larger_levels_equal_the_local_engines(board: str, until: int | None, tmp_path: Path) -> None:
    """triangle-6 whole, and english-33 to level 10 (levels 9 and 10 with more parents than a
    chunk): a minute in the simulator, a child's bit a Python call."""
    spec = SearchSpec(load_board(board), load_board(board).empty)
    local = search(spec, tmp_path / "local", LocalEngine(), until=until)
    made = search(spec, tmp_path / "gpu", GpuEngine(chunk=20_000, reduce="bitmap"), until=until)
    same_levels(made, local)
    assert on_gpu(made) == list(range(1, len(made.levels)))

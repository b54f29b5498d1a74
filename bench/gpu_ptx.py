"""The GPU engine's kernels compiled for a GPU on a machine without one: registers, stack, spills.

    CUDA_HOME=DIR python bench/gpu_ptx.py [CC]        (CC: 9.0 by default, an H100's and H200's)

PTX by NVVM, then ptxas's registers, stack and spills, where ptxas is found. The simulator (the
tests) runs the kernels' Python; this checks what it cannot: that numba's CUDA target compiles them,
the CPU kernel's functions as device functions included. It needs libNVVM: a CUDA toolkit at
CUDA_HOME, or the `nvidia-cuda-nvcc-cu12` wheel unpacked (CUDA_HOME=.../nvidia/cuda_nvcc, with
nvvm/lib64/libnvvm.so linked as libnvvm.so.4, which numba looks for). With no GPU and no CUDA
runtime, numba would ask a driver for the device's compute capability and the runtime for the ones
it supports: both are answered here with CC. With numba 0.68's own numba.cuda, and with numba-cuda
0.30 (its CUDA runtime and NVRTC from the nvidia-cuda-runtime-cu12 and nvidia-cuda-nvrtc-cu12 wheels
on LD_LIBRARY_PATH), 2026-11-28: `_set_bits` in 72 registers, a 640-byte stack, no spills, for
sm_90. Not a test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numba
import numba.cuda.cudadrv.nvvm as nvvm
import numba.cuda.dispatcher as dispatcher
from numba import cuda


def main(cc: tuple[int, int]) -> None:
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=cc)
    nvvm.get_supported_ccs = lambda: (cc,)
    from pegsearch.kernel import cuda_bitmap

    words, table = numba.uint64[::1], numba.int64[::1]
    set_bits = (words, words, words, numba.uint64[:, ::1], numba.uint64[:, :, ::1], words, table,
                words, words, numba.uint16[::1], numba.uint64, numba.uint64, numba.uint64, words, table)
    ptxas = shutil.which("ptxas", path=str(Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin"))
    for kernel, signature in ((cuda_bitmap._set_bits, set_bits), (cuda_bitmap._clear, (words,))):
        ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=cc)
        atomics = sorted({line.split()[0] for line in ptx.splitlines() if line.strip().startswith("atom")})
        print(f"{kernel.py_func.__name__}: {len(ptx):,} bytes of PTX, atomics {', '.join(atomics) or 'none'}")
        if ptxas:
            with tempfile.TemporaryDirectory() as folder:
                source = Path(folder) / "kernel.ptx"
                source.write_text(ptx)
                done = subprocess.run([ptxas, f"-arch=sm_{cc[0]}{cc[1]}", "-v", str(source), "-o",
                                       str(Path(folder) / "kernel.cubin")], capture_output=True, text=True)
                print("\n".join(line for line in done.stderr.splitlines() if "Compiling" not in line
                                and "Function properties" not in line))


if __name__ == "__main__":
    major, minor = (sys.argv[1] if len(sys.argv) > 1 else "9.0").split(".")
    main((int(major), int(minor)))

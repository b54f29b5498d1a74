"""Where the GPU engine's kernels run in the tests: on a GPU where a CUDA driver lists one, else in
numba's CUDA simulator. Chosen when this module is first imported, which must come before
numba.cuda is (the simulator is read from the environment then); the CLI's processes a test
starts inherit the choice (NUMBA_ENABLE_CUDASIM)."""

from __future__ import annotations

import ctypes
import os

import numba.core.config


def gpu_present() -> bool:
    """Whether a CUDA driver here lists a device (asked of libcuda itself, as numba.cuda must not
    be imported before the simulator is chosen)."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        return driver.cuInit(0) == 0 and driver.cuDeviceGetCount(ctypes.byref(count)) == 0 \
            and count.value > 0
    except OSError:
        return False


ON_GPU = gpu_present()
if not ON_GPU:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    numba.core.config.reload_config()

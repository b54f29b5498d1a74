"""Spark's Python daemon, with numba started before it forks its workers: the engine's
`spark.python.daemon.module`.

pyspark's daemon forks a Python worker for each task slot of an executor, and again for each
worker that exits. Every worker started numba before it could load the kernel (numba's first
compile or cache load imports its numpy support and, through its BLAS check, scipy.linalg):
1.2-1.4 s of CPU a worker, 0.15-0.25 s forked from a daemon that had done it (AMD EPYC, 2 cores).

Only numba is started here. pegsearch's own modules import pyarrow, whose allocator starts a
thread, and a fork must not follow a thread that may hold a lock (pyspark's daemon imports its
workers' modules after forking for that reason); numba's compiler starts none.
"""

from __future__ import annotations

import numba
from pyspark import daemon


@numba.njit
def _started(value: int) -> int:
    """Compiled in the daemon, uncached: its compiling loads numba's compiler and registries."""
    return value + 1


if __name__ == "__main__":
    _started(1)
    daemon.manager()

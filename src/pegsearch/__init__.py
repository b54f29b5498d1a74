"""pegsearch: exhaustive breadth-first search of peg-solitaire boards, one MapReduce job per level."""

import os

from pegsearch import numba_cache

# Before numpy is imported: OpenBLAS starts a spinning thread per core when it loads, a tenth of a
# CPU-second every process pays, for linear algebra pegsearch never does. A user's setting stays.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
numba_cache.choose()  # before any kernel is compiled: a read-only install must still import

__version__ = "0.1.0"

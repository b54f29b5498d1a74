"""pegsearch: exhaustive breadth-first search of peg-solitaire boards, one MapReduce job per level."""

from pegsearch import numba_cache

numba_cache.choose()  # before any kernel is compiled: a read-only install must still import

__version__ = "0.1.0"

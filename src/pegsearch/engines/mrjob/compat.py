"""What mrjob 0.7.4, its last release, needs from Python versions newer than it.

mrjob imports the standard library's `pipes` module for `pipes.quote`, its only use of it; Python
3.13 removed `pipes` (`shlex.quote` is the same function, which `pipes` itself re-exported). So on
such a Python `install` puts a stand-in module holding just `quote` under that name before mrjob is
imported; where the real module exists nothing changes. mrjob also imports `distutils`, which
Python 3.12 removed: the `mrjob` extra requires setuptools there, which provides it.
Import this module before any mrjob module: `pegsearch.engines.mrjob.level_job` and `pegsearch.engines.mrjob`
do, first thing.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from types import ModuleType


def install() -> None:
    """Make `import pipes` give a module with `quote` when the standard library has none."""
    if "pipes" in sys.modules or importlib.util.find_spec("pipes") is not None:
        return
    stand_in = ModuleType("pipes", "A stand-in for the removed pipes module: quote only (for mrjob).")
    stand_in.quote = shlex.quote  # type: ignore[attr-defined]
    sys.modules["pipes"] = stand_in


install()

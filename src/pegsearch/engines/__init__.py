"""Engines: the ways a level is computed. They differ in how positions move, never in what a level holds.

Every engine turns the complete level k of a run into the part files of level k + 1, written
through the level's writer the driver gives it; the driver commits and decides when to stop (the
duties in full: `Engine`). A new engine is a module, a line in ENGINES, its name in the settings
it takes (engines.settings; tests/engines/test_settings.py checks it) and a line in the ENGINES
of tests/engines/test_contract.py, which checks its duties (docs/engines.md, Adding an engine).
An engine may also offer `winnable_parents(run, level, winnable)`, one step of the backward walk
(see answers.winnable), so a cluster run can be walked back on its cluster; the others are walked
in process. Engines are imported only when asked for, so a missing optional dependency (pyspark,
mrjob) costs nothing until it is used and then fails with one clear line.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Protocol

from pegsearch.engines.settings import taken_by
from pegsearch.errors import InputError, UsageError

if TYPE_CHECKING:  # types only: the command line's parser lists the engines without pyarrow
    from pegsearch.store import LevelWriter, Location, Run

# How an engine says how far into a level it is: parents expanded so far, out of how many it will
# expand (the parent level's size times the passes it makes, as far as known).
LevelProgress = Callable[[int, int], None]


def no_progress(done: int, total: int) -> None:
    """A `LevelProgress` for callers that do not watch a level's progress."""


ENGINES = {"local": "pegsearch.engines.local:LocalEngine",
           "gpu": "pegsearch.engines.gpu:GpuEngine",
           "mrjob": "pegsearch.engines.mrjob.engine:MRJobEngine",
           "spark": "pegsearch.engines.spark.engine:SparkEngine"}


class Engine(Protocol):
    """What the driver needs of an engine, and what every engine owes a run. Used as a context
    manager around a whole run (a Spark session, a work folder).

    Its duties (the store refuses a part written before the second; tests/engines/test_contract.py
    checks them on every engine):
    - settings: its constructor takes, as keywords, the settings engines.settings declares for its
      name (with the defaults declared there) and refuses a bad value in one line naming it;
    - writing a level: `next_level` says first how the level starts, `writer.resume_at(cut)` when
      it makes the level in passes (it goes on from a checkpoint cut alike, whichever engine left
      it) or `writer.whole()` (a checkpoint is dropped): the writer refuses a part before either.
      Then it writes parts, each sorted and distinct and none sharing a position, through
      `writer.write` or `writer.add` (parts its tasks wrote), commits passes only
      (`writer.commit_pass`, each a checkpoint a killed run resumes at), and never the level:
      the driver commits it. A failed attempt raises; the driver discards what it wrote;
    - what a level holds: the local engine's positions and values, digest for digest, whatever
      cuts it into parts;
    - costs: the driver times each level (the record's `seconds` and `cpu_seconds`, this
      process's); the engine says what they bought in `writer.notes` (`engine` when another
      engine's step made the level, as the gpu engine's CPU levels and Spark's driver levels,
      `passes`, `reduce`) and in `options()` (`workers`: the cores the seconds ran on, where it
      knows). engines.costs prices runs from these records.
    """

    name: str

    def __enter__(self) -> Engine: ...

    def __exit__(self, *exc: object) -> None: ...

    def options(self) -> dict:
        """The engine's settings, recorded in the run's manifest."""
        ...

    def check_location(self, location: Location) -> None:
        """Refuse, in one line and before the run is touched, a store this engine cannot use."""
        ...

    def next_level(self, run: Run, level: int, writer: LevelWriter,
                   report: LevelProgress = no_progress) -> None:
        """Write the part files of level `level + 1` of `run` through `writer`, calling `report`
        as parents are expanded (at least once, when they all are)."""
        ...


def engine_class(name: str) -> type:
    """The named engine's class, imported now; unknown names and missing packages are user errors."""
    if name not in ENGINES:
        raise UsageError(f"unknown engine '{name}': use one of {', '.join(ENGINES)}")
    module_name, class_name = ENGINES[name].split(":")
    try:
        module = import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"the {name} engine needs the package '{exc.name}': install it with"
                         f" pip install 'pegsearch[{name}]'") from None
    return getattr(module, class_name)


def make_engine(name: str, **settings: object) -> Engine:
    """Build the named engine from the settings given on the command line (None = not given);
    a setting the engine does not take is a user error."""
    chosen = engine_class(name)
    given = {key: value for key, value in settings.items() if value is not None}
    foreign = sorted(set(given) - set(taken_by(name)))
    if foreign:
        raise InputError("{" + foreign[0] + "} does not apply to the {chosen} engine", chosen=name)
    return chosen(**given)

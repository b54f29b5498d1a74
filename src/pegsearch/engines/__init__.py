"""Engines: the ways a level is computed. They differ in how positions move, never in what a level holds.

Every engine turns the complete level k of a run into the part files of level k + 1, written
through the level's writer the driver gives it; the driver commits and decides when to stop. An
engine may also offer `winnable_parents(run, level, winnable)`, one step of the backward walk
(see answers.winnable), so a cluster run can be walked back on its cluster; the others are walked
in process. Engines are imported only when asked for, so a missing optional dependency (pyspark,
mrjob) costs nothing until it is used and then fails with one clear line.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Protocol

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
    """What the driver needs of an engine. Used as a context manager around a whole run."""

    name: str
    SETTINGS: tuple[str, ...]  # the command-line settings (as keyword names) the engine accepts

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
    foreign = sorted(set(given) - set(chosen.SETTINGS))
    if foreign:
        raise InputError("{" + foreign[0] + "} does not apply to the {chosen} engine", chosen=name)
    return chosen(**given)

"""Runs on any store: where a run lives (location), its part files (parts), who may write it
(lock), the run itself with its commit protocol (run), its manifest (manifest) and the writer of a
level's parts (writer)."""

from pegsearch.kernel.values import NO_VALUES, Carry
from pegsearch.store.location import Location
from pegsearch.store.manifest import MANIFEST
from pegsearch.store.parts import (
    PART_ROWS,
    POSITION,
    DamagedLevel,
    encode,
    positions_of,
)
from pegsearch.store.run import Run, level_name
from pegsearch.store.writer import LevelWriter

__all__ = ["MANIFEST", "NO_VALUES", "PART_ROWS", "POSITION", "Carry", "DamagedLevel",
           "LevelWriter", "Location", "Run", "encode", "level_name", "positions_of"]

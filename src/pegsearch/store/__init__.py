"""Runs on any store: where a run lives (location), its part files (parts), who may write it
(lock), and the run itself with its manifest and commit protocol (run)."""

from pegsearch.kernel.values import NO_VALUES, Carry
from pegsearch.store.location import Location
from pegsearch.store.parts import (
    PART_ROWS,
    POSITION,
    DamagedLevel,
    encode,
    positions_of,
)
from pegsearch.store.run import MANIFEST, LevelWriter, Run, level_name

__all__ = ["MANIFEST", "NO_VALUES", "PART_ROWS", "POSITION", "Carry", "DamagedLevel",
           "LevelWriter", "Location", "Run", "encode", "level_name", "positions_of"]

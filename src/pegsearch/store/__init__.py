"""Runs on any store: where a run lives (location), its part files (parts), who may write it
(lock), and the run itself with its manifest and commit protocol (run)."""

from pegsearch.store.location import Location
from pegsearch.store.parts import (
    NO_PATHS,
    PART_ROWS,
    POSITION,
    DamagedLevel,
    encode,
    positions_of,
)
from pegsearch.store.run import MANIFEST, LevelWriter, Run, level_name

__all__ = ["MANIFEST", "NO_PATHS", "PART_ROWS", "POSITION", "DamagedLevel",
           "LevelWriter", "Location", "Run", "encode", "level_name", "positions_of"]

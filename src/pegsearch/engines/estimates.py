"""What the next level will take, guessed from the levels before it: positions, and disk.

Every engine sizes its tables, passes or partitions from `expected_states`, and the driver checks
`expected_bytes` against the free disk before a level starts. A wrong guess costs a table doubling,
some empty slots or a needless refusal to start (the margin below), never a wrong count.
"""

from __future__ import annotations

from pegsearch.store import Run

# A level's stored bytes a position vary a little from level to level: the disk asked for has this
# much room beyond the guess.
DISK_MARGIN = 1.25


def expected_states(run: Run, level: int) -> int:
    """A guess at the size of level `level + 1` from the growth of the last two levels."""
    return expected_after([record["states"] for record in run.levels[:level + 1]], len(run.board.jumps))


def expected_after(counts: list[int], jumps: int) -> int:
    """The guess at the level after `counts` (a search's levels so far, on a board of `jumps`
    jumps) every engine plans it by: a plan made before the search (`estimate --nodes`) guesses as
    the engines will, so it cuts the levels as they will."""
    states = counts[-1]
    if len(counts) == 1:
        return max(1, states * jumps)
    growth = states / max(1, counts[-2])
    return max(1, int(states * max(growth, 1.0)))


def expected_bytes(run: Run, level: int) -> int:
    """A guess, with a margin, at the bytes level `level + 1`'s parts take: its expected positions
    at the stored bytes a position of level `level` (8 when that level is too small to tell)."""
    record = run.levels[level]
    stored = sum(entry.get("bytes", 0) for entry in record["files"])
    per_position = stored / record["states"] if record["states"] >= 1 << 16 and stored else 8.0
    return int(expected_states(run, level) * per_position * DISK_MARGIN)

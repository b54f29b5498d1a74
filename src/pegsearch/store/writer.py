"""The level writer: one level's parts written under names unique to this attempt, for the run to commit.

An engine writes parts (from any thread), or takes the entries of parts its tasks wrote; the run's
manifest lists them only when the driver commits the level (Run.commit_level) or a pass of it
(Run.commit_pass). Until then they are this attempt's alone: `discard` drops them, `--resume`
removes whatever no manifest lists. `guard` words a store's refusal of a write (no space,
read-only) as one line, for the writer's writes and the run's own (its folder, lock and manifest).
The writer knows its run only as a RunToCommit, so the run (store.run) imports the writer and not
the other way round.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol, TypeVar

import numpy as np

from pegsearch.errors import UsageError
from pegsearch.kernel.values import NO_VALUES, Carry, merge_summaries
from pegsearch.store.location import Location, reason
from pegsearch.store.manifest import summary_from_json
from pegsearch.store.parts import new_attempt, part_name, write_part

T = TypeVar("T")


class RunToCommit(Protocol):
    """What a level writer needs of the run it writes for (store.run's Run): where the level's
    parts go and what they carry, the levels and the checkpoint the manifest lists, and the run's
    own checkpoint commit."""

    @property
    def location(self) -> Location: ...

    @property
    def carry(self) -> Carry: ...

    @property
    def levels(self) -> list[dict]: ...

    @property
    def in_progress(self) -> dict | None: ...

    def level_folder(self, level: int) -> Location: ...

    def part_metadata(self, level: int) -> dict[str, str]: ...

    def commit_pass(self, writer: LevelWriter, done: int, passes: int, cut: dict,
                    seconds: float) -> None: ...

    def drop_in_progress(self) -> None: ...


class LevelWriter:
    """Writes one level's parts under names unique to this attempt; the driver commits them.

    Engines call `write` (from any thread) with sorted, distinct positions, or `add` the entries
    of parts their tasks wrote into the level's folder (Spark). First they say how the level
    starts: `resume_at` (an engine making it in passes, which may add to a checkpoint) or `whole`
    (one that makes it in one go). A part taken before either is refused: an engine that skipped
    it would write its parts beside a checkpoint another engine left, and the level would hold both.
    """

    def __init__(self, run: RunToCommit, level: int) -> None:
        self.run = run
        self.level = level
        self.folder = run.level_folder(level)
        self.metadata = run.part_metadata(level)
        self.attempt = new_attempt()
        self.summary: dict = {}  # the values written so far, summed up (Carry.summary)
        self.notes: dict[str, str | int | float] = {}  # how the level was made (manifest)
        self._entries: dict[int, dict] = {}
        self._kept: set[int] = set()  # parts a checkpoint (or the level's commit) lists
        self.began = time.perf_counter()
        self._guard = threading.Lock()
        self.started = False  # said how the level starts (`resume_at` or `whole`)
        # A level a killed attempt left in progress: its committed passes are this writer's first.
        checkpoint = run.in_progress if (run.in_progress or {}).get("level") == level else None
        self.checkpoint = checkpoint
        self.earlier_seconds = checkpoint["seconds"] if checkpoint else 0.0
        self.passes_done = checkpoint["passes_done"] if checkpoint else 0
        if checkpoint:
            self._entries = dict(enumerate(checkpoint["files"]))
            self._kept = set(self._entries)
            self.summary = summary_from_json(checkpoint["summary"])
        guard(self.folder, "create the level folder", self.folder.make)

    def resume_at(self, cut: dict) -> int:
        """Where this level's making continues: the partitions its committed passes made, when a
        checkpoint of a level cut as `cut` says (its keyspace and partitions: an engine that
        would cut the level otherwise, on another machine or with another --reduce, cannot add
        to it), else 0, the checkpoint dropped."""
        self.started = True
        if self.checkpoint is None:
            return 0
        present = self.folder.files()
        whole = all(present.get(entry["name"]) == entry["bytes"] for entry in self.checkpoint["files"])
        if self.checkpoint["cut"] == cut and whole:
            self.notes["resumed"] = (f"at pass {self.passes_done + 1} of"
                                     f" {self.checkpoint['passes']}, {self.checkpoint['states']:,}"
                                     " positions kept")
            # The level's seconds add up what each process spent on it; this says how much came
            # before this one, so no reader takes the sum for this process's time.
            self.notes["seconds_before"] = self.earlier_seconds
            return self.checkpoint["done"]
        self._start_over("its committed passes were cut otherwise" if whole
                         else "a part of its committed passes was damaged")
        return 0

    def whole(self) -> None:
        """For an engine that makes the level in one go: a checkpoint left by another engine's
        passes (a run resumed on another engine) is dropped, its parts with it."""
        self.started = True
        if self.checkpoint is not None:
            self._start_over("its committed passes were made by another engine")

    def _start_over(self, why: str) -> None:
        guard(self.run.location, "drop the level in progress", self.run.drop_in_progress)
        self.checkpoint, self.earlier_seconds, self.passes_done = None, 0.0, 0
        self._entries, self._kept, self.summary = {}, set(), {}
        self.notes["resumed"] = f"from its start: {why}"

    def commit_pass(self, done: int, passes: int, cut: dict) -> None:
        """Commit the passes made so far (partitions ``[0, done)``, of `passes` planned), as a
        checkpoint the run resumes at (Run.commit_pass)."""
        self.run.commit_pass(self, done, passes, cut, time.perf_counter() - self.began)

    def committed(self) -> None:
        """The manifest now lists every part written so far: `discard` keeps them."""
        self._kept = set(self._entries)
        self.passes_done += 1

    @property
    def parts(self) -> int:
        """Parts taken so far; the next part's number."""
        return len(self._entries)

    def write(self, index: int, positions: np.ndarray, values: np.ndarray = NO_VALUES) -> None:
        """Write part number `index` of the level (numbers order the parts in the manifest), with
        the values the run carries."""
        name = part_name(index, self.attempt)
        carry = self.run.carry
        entry = guard(self.folder, "write a part file",
                       lambda: write_part(self.folder, name, positions, carry, values, self.metadata))
        self.add(index, entry, carry.summary(values))

    @property
    def rows(self) -> int:
        return sum(entry["rows"] for entry in self._entries.values())

    def entries(self) -> list[dict]:
        return [self._entries[index] for index in sorted(self._entries)]

    def add(self, index: int, entry: dict, summary: dict) -> None:
        """Take part number `index`, already in the level's folder, with its manifest entry and
        the summary of its values (written by `write`, or by a Spark reduce task through
        `write_part`)."""
        if not self.started:
            raise RuntimeError(f"level {self.level}: a part was taken before the engine said how the"
                               " level starts (LevelWriter.resume_at or whole)")
        with self._guard:
            if index in self._entries:
                raise RuntimeError(f"part {index} of level {self.level} written twice")
            self._entries[index] = entry
            self.summary = merge_summaries(self.summary, summary)

    def sweep(self) -> None:
        """Remove the level folder's files this writer has not taken: parts of failed or
        speculative task attempts (which `--resume` would remove too)."""
        taken = {entry["name"] for entry in self._entries.values()}
        for name in self.folder.files():
            if name not in taken:
                self.folder.remove(name)

    def discard(self) -> None:
        """Drop what this attempt wrote and no checkpoint lists (an empty level is not committed;
        a failed one keeps its committed passes for `--resume`). A part the run's manifest lists is
        kept even if `committed` was never told: a signal can land between a commit's write and
        that call, and removing the parts then would leave a manifest listing parts that are gone.
        A file this writer never took goes too: the part a signal cut off inside `write`, before
        it was taken (a cancel during level 0 left level-000/ unlisted, 3 times in 4)."""
        listed = self._listed() | {self._entries[index]["name"] for index in self._kept}
        for index in set(self._entries) - self._kept:
            if self._entries[index]["name"] not in listed:
                del self._entries[index]
        for name in self.folder.files():
            if name not in listed:
                self.folder.remove(name)
        if not self._entries and not self.folder.files():
            self.folder.remove_tree("")

    def _listed(self) -> set[str]:
        """The names of this level's parts the run's manifest lists, committed or checkpointed."""
        records = [self.run.levels[self.level]] if len(self.run.levels) > self.level else []
        checkpoint = self.run.in_progress
        if checkpoint is not None and checkpoint["level"] == self.level:
            records.append(checkpoint)
        return {entry["name"] for record in records for entry in record["files"]}


def guard(location: Location, what: str, action: Callable[[], T], kept: bool = True) -> T:
    """Run a store action, turning the store's refusals (no space, read-only, a name too long, a
    file in the way, lost credentials) into one line that says what could not be done, where, and
    (`kept`) that the levels already committed are safe."""
    try:
        return action()
    except OSError as exc:
        after = ("; the levels already made are kept: fix it and continue with --resume" if kept
                 else "; choose another --out")
        raise UsageError(f"cannot {what} in {location}: {reason(exc)}{after}") from None

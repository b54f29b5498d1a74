"""The terminal's progress while a command works: bars of a level being made or of levels being
walked, one line a committed level, one line a pair a survey by the solver answers. Everything here
writes to stderr, so a command's output (text or JSON) stays clean; tqdm is imported when the
first bar is drawn.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tqdm import tqdm

    from pegsearch.answers.fewest_survey import FewestStart
    from pegsearch.answers.solver import Answer
    from pegsearch.engines.driver import Progress


class LevelBar:
    """A bar of levels on the terminal while an answer walks a run (nothing when stderr is not a
    terminal); a callable `(levels done, levels)` inside `with`."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.bar: tqdm | None = None

    def __enter__(self) -> LevelBar:
        return self

    def __call__(self, done: int, total: int) -> None:
        if not sys.stderr.isatty():
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, file=sys.stderr, leave=False, unit=" levels", desc=self.what)
        self.bar.update(done - self.bar.n)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


class TerminalProgress:
    """A search's progress on the terminal: a bar while a level is made (parents done out of the
    total, positions per second, time left), then one line per committed level. tqdm is imported
    when the first bar is drawn: a search whose output is not a terminal never pays for it."""

    def __init__(self) -> None:
        self.bar: tqdm | None = None

    def __call__(self, event: dict) -> None:
        if "done" in event:
            if self.bar is None:
                from tqdm import tqdm

                disk = f"  ~{event['disk'] / 1e9:.2g} GB" if event.get("disk") else ""
                self.bar = tqdm(total=event["total"], file=sys.stderr, leave=False, unit=" parents",
                                unit_scale=True, desc=f"  level {event['level']:3d}  pegs"
                                                      f" {event['pegs']:3d}{disk}")
            self.bar.total = event["total"]
            self.bar.update(event["done"] - self.bar.n)
            return
        if "continuing" in event:
            say_continuing(event)
            return
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        took = "  (stored)" if event.get("stored") else f"  {event['seconds']:8.2f} s"
        if "seconds_before" in event and not event.get("stored"):
            took += (f" ({event['seconds'] - event['seconds_before']:.2f} s in this process,"
                     f" {event['seconds_before']:.2f} s before it was resumed)")
        print(f"  level {event['level']:3d}  pegs {event['pegs']:3d}  states {event['states']:>13,}"
              f"{took}", file=sys.stderr)


def say_continuing(event: dict) -> None:
    """The one line a resume inside a level made in passes gives, on a terminal or not: where the
    level goes on (its level line then says what this process spent on it)."""
    if "continuing" in event:
        print(f"continuing level {event['level']} at pass {event['continuing']} of"
              f" {event['passes']}", file=sys.stderr)


def pair_progress(start: int, finish: int, answer: Answer) -> None:
    """One line a pair as the solver's survey answers it, so a long survey shows where it is."""
    print(f"  start {start:3d}  finish {finish:3d}  {answer.outcome:9s}  {answer.examined:>13,}"
          f" positions  {answer.seconds:7.2f} s", file=sys.stderr)


def fewest_progress(found: FewestStart) -> None:
    """One line a start as the solver's survey of fewest moves answers it."""
    print(f"  start {found.start:3d}  {found.outcome:9s}  {found.said:>24}  {found.examined:>13,}"
          f" positions  {found.seconds:7.2f} s", file=sys.stderr)


def survey_progress(start: int) -> Progress:
    """The progress of one start's search in a survey: its start hole, then its levels."""
    print(f"start hole {start}:", file=sys.stderr)
    return TerminalProgress()

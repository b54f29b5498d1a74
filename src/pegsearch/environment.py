"""Settings a user gives in the environment rather than on a command line, read in every layer:
each one refused in one line that names the variable when it is not what it must be, by whichever
command or server meets it first.
"""

from __future__ import annotations

import os

from pegsearch.errors import UsageError


def environment_seconds(name: str, default: float, what: str) -> float:
    """The seconds the variable `name` gives, 0 or more, else `default`; refused in one line
    unless it is a number of seconds (`what` says what they are, for the refusal)."""
    given = os.environ.get(name)
    if given is None:
        return default
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise UsageError(f"{name}={given}: not a number of seconds; give {what}, 0 or more"
                         f" (default {default:g})")
    return seconds

"""The one exception type that reaches the user as a single line and exit code 2.

Anything a user can get wrong (a board file, a hole number, an output directory, an engine that is not
available) raises `UsageError` with a message that says what, where and what to do; the CLI prints it
without a traceback. Every other exception is a bug and keeps its traceback.
"""


class UsageError(Exception):
    """A problem with the user's input or environment, reported as one line with exit code 2."""

    exit_code = 2

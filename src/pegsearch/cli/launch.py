"""The `pegsearch` command's entry point: SIGINT and SIGTERM are handled before the slow imports.

Importing the command (numpy, numba, pyarrow and the compiled kernels) takes most of a second, and a
Ctrl-C in that time would otherwise end in a KeyboardInterrupt traceback. Nothing has been done yet
then, so the one line says so. Everything else is `pegsearch.cli.main`; `python -m pegsearch` comes here too.
"""

from __future__ import annotations

import sys

from pegsearch.errors import failure
from pegsearch.interrupts import install


def main() -> int:
    install()
    try:
        from pegsearch.cli.main import main as command

        return command()
    except (KeyboardInterrupt, SystemError) as exc:  # before cli.main's own handling is in place
        ended = failure(exc)
        if ended is None:
            raise
        print("pegsearch: interrupted while starting; nothing was done", file=sys.stderr)
        return ended.exit_code


if __name__ == "__main__":
    sys.exit(main())

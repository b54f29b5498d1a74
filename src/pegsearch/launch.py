"""The `pegsearch` command's entry point: SIGINT and SIGTERM are handled before the slow imports.

Importing the command (numpy, numba, pyarrow and the compiled kernels) takes most of a second, and a
Ctrl-C in that time would otherwise end in a KeyboardInterrupt traceback. Nothing has been done yet
then, so the one line says so. Everything else is `pegsearch.cli.main`.
"""

from __future__ import annotations

import sys

from pegsearch.interrupts import install, interruption, signal_of


def main() -> int:
    install()
    try:
        from pegsearch.cli import main as command

        return command()
    except (KeyboardInterrupt, SystemError) as exc:  # before cli.main's own handling is in place
        interrupt = interruption(exc)
        if interrupt is None:
            raise
        print("pegsearch: interrupted while starting; nothing was done", file=sys.stderr)
        return 128 + signal_of(interrupt)


if __name__ == "__main__":
    sys.exit(main())

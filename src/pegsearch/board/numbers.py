"""Numbers as a user writes them: digits 0-9 only, and no longer than a number asked for can be.

Python reads the digits of every script (an Arabic-Indic five is 5 to `int`) and refuses more than
4,300 of them with a ValueError in the interpreter's words; a position, a hole or a time bound is
read here first, so one rule holds for every number a face takes (positions already refused other
scripts' digits while starts and time bounds took them) and a number of thousands of digits is
refused in the same one line as any other.
"""

from __future__ import annotations

import re

from pegsearch.errors import InputError

DIGITS = 18  # the most digits of a whole number read (a board has at most 64 holes)
SHOWN = 40  # the most characters of what a user typed repeated in an error
# A number with a fraction, as a user writes one in digits 0-9: no sign, exponent, spaces or
# underscores (Python's float took " 1", 1_0 as 10 and 1e-300), nor more digits than mean anything.
DECIMAL = re.compile(r"[0-9]{1,18}(\.[0-9]{1,18})?")


def is_digits(text: str) -> bool:
    """Whether `text` is digits 0-9 and nothing else."""
    return text.isascii() and text.isdigit()


def is_decimal(text: str) -> bool:
    """Whether `text` is digits 0-9 with at most one decimal point between them (10, 0.5)."""
    return DECIMAL.fullmatch(text) is not None


def whole(text: str, field: str) -> int:
    """`text` as a whole number for `field` (a vocabulary word, named as each face names it)."""
    if not is_digits(text):
        raise InputError("{" + field + "} {text}: not a whole number; write it with the digits"
                         " 0-9", text=shown(text))
    if len(text.lstrip("0")) > DIGITS:
        raise InputError("{" + field + "} {text}: {digits} digits; no hole or count here is so"
                         " large", text=shown(text), digits=len(text))
    return int(text)


def hole(text: str) -> int:
    """A hole number on the command line (argparse's `type`): a ValueError, which argparse words
    as "invalid hole value", for anything but digits 0-9 with at most a minus sign before them. A
    negative number is a whole number, only not a hole: it is read, so that the board, which knows
    its holes, refuses it in the words of any hole off it (`--start -1` was "not a whole number")."""
    digits = text.removeprefix("-")
    if not is_digits(digits) or len(digits.lstrip("0")) > DIGITS:
        raise ValueError(text)
    return int(text)


def shown(text: str) -> str:
    """What a user typed, cut short for an error's line."""
    return text if len(text) <= SHOWN else f"{text[:SHOWN - 1]}…"

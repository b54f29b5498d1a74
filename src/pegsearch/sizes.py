"""Memory sizes for every layer: a size as a user writes it ('2G', '512M'), the memory this machine
has, and the budget a search takes when none is given.

The local engine, the solver in answers/ and the faces all size their work in these terms, so they
live below all of them: none has to reach into another's layer to read a --memory option.
"""

from __future__ import annotations

import os
import re

from pegsearch.errors import InputError

DEFAULT_BUDGET_CAP = 4 << 30


def physical_memory() -> int:
    """The bytes of memory this machine has."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def default_budget() -> int:
    """A quarter of the machine's memory, at most 4 GiB."""
    return min(DEFAULT_BUDGET_CAP, physical_memory() // 4)


def parse_size(text: str, here: bool = True, field: str = "memory") -> int:
    """'2G', '512M', '1.5GB' or a byte count, as bytes; `here`: a bound for this machine, which
    cannot be more than it has (an estimate prices another machine's); `field`: the option named
    in an error (the GPU engine's --gpu-memory)."""
    # Digits 0-9, at most 20 before the point (more overflowed float: "memory": 310 nines was a 500).
    match = re.fullmatch(r"\s*(\d{1,20}(?:\.\d{1,20})?)\s*([KMGT]?)i?B?\s*", str(text),
                         re.IGNORECASE | re.ASCII)
    if not match:
        raise InputError("{" + field + "} {text}: not a size; write it like 2G, 512M or 1.5G", text=text)
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[match[2].upper()]
    size = int(float(match[1]) * scale)
    if size < 64 << 20:
        raise InputError("{" + field + "} {text}: too small; give at least 64M", text=text)
    if here and size > physical_memory():
        # A budget the machine cannot hold would end in swapping or the kernel's OOM killer
        # hours later, not in passes.
        raise InputError("{memory} {text}: more than this machine's {has:.1f} GiB of memory; give"
                         " at most {most}G", text=text, has=physical_memory() / 2**30,
                         most=physical_memory() >> 30,
                         served="{memory} {text}: more than the server's memory; give less")
    return size

"""The backward walk that carries values, on English from the centre: CPU and wall seconds a walk.

    python bench/backward_walk.py [--work DIR]

Searches English twice into DIR (a fewest-moves run and a counting run; kept there, so a second
call reuses them), then walks each back from the centre (answers.winnable.counted_sets, what a
hint's kept sets and `winnable` compute in process): the fewest moves left and the finishing holes
on the first run, the solutions on the second. Prints each walk's CPU seconds (this process's,
all threads), wall seconds, the positions kept and a digest of the sets and values, so that two
versions of the walk are checked equal as well as timed.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from pathlib import Path

from pegsearch.answers.winnable import counted_sets, targets
from pegsearch.board.files import load_board
from pegsearch.board.spec import SearchSpec
from pegsearch.engines.driver import search
from pegsearch.engines.local import LocalEngine
from pegsearch.store import Carry, Run

BOARD, CENTRE = "english-33", 17


def stored_run(work: Path, name: str, **carry: bool) -> Run:
    """English from the centre with `carry`, searched into work/name unless it is there whole."""
    out = work / name
    if (out / "manifest.json").exists():
        return Run.open(out)
    board = load_board(BOARD)
    return search(SearchSpec(board, (CENTRE,), **carry), out, LocalEngine())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "backward-walk")
    work = parser.parse_args().work
    moves = stored_run(work, "moves", fewest_moves=True)
    paths = stored_run(work, "paths", count_paths=True)
    for run, carry, finish in [(moves, Carry.MOVES, CENTRE), (moves, Carry.FINISHES, None),
                               (paths, Carry.PATHS, CENTRE)]:
        digest, kept = hashlib.sha256(), 0
        cpu, wall = time.process_time(), time.perf_counter()
        for _, winnable, values in counted_sets(run, targets(run, finish), carry):
            digest.update(winnable.tobytes())
            digest.update(values.tobytes())
            kept += len(winnable)
        print(f"{carry.name.lower():9} CPU {time.process_time() - cpu:6.2f} s"
              f"  wall {time.perf_counter() - wall:6.2f} s  kept {kept:,}"
              f"  digest {digest.hexdigest()[:16]}")


if __name__ == "__main__":
    main()

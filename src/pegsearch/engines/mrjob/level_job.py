"""One level of the search as an MRJob: level k in, level k + 1 out, one position per line.

`pegsearch.engines.mrjob` drives this job level by level; `jobs/level_job.py` runs it from the
command line. It lives in the package, not in `jobs/`, so that an installed pegsearch (a wheel on
every node of a cluster) carries it: mrjob's local, hadoop, emr and dataproc runners execute the
class's own source file in each task, which is why this module ends by running the job. The board
travels with the job as a small JSON file (`--search`: its definition and the symmetry group
signatures are taken under), uploaded by mrjob to every task.

- mapper: buffers its input positions and expands them `--batch-size` at a time with the shared
  kernel (`pegsearch.kernel.expand.expand_distinct`), so the compiled loops run once per batch,
  never once per position; the batch's children are deduplicated (their values merged) before
  they leave the mapper.
- combiner and reducer: one line per signature, however many times it arrived, carrying the merge
  of the values that arrived with it: path counts summed, or the fewest moves kept.

Lines are plain decimal text, so Hadoop streaming can split the input anywhere between lines and a
person can read every file: `position` alone, `position<TAB>paths` with `--carry paths`, or
`position<TAB>moves,last_holes` with `--carry moves` (`last_holes` the bits of the holes the last
moved peg may stand on, see kernel.moves). Path counts are exact (Python integers between tasks,
128-bit limbs inside a batch) and a sum above `pegsearch.kernel.path_counts.LIMIT`, the largest a
level file stores, fails the task rather than wrapping.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import pegsearch.engines.mrjob.compat  # noqa: F401  (before mrjob, which needs `pipes`, gone in Python 3.13)

# isort: split
from mrjob.job import MRJob
from mrjob.protocol import RawProtocol

if TYPE_CHECKING:
    import numpy as np

    from pegsearch.kernel.values import Carry

BATCH_SIZE = 1 << 16  # positions per kernel call: large enough to amortise the call, small in memory
CARRIES = ("nothing", "paths", "moves")  # the job's --carry: kernel.values.Carry by name


def batch_size(text: str) -> int:
    """The --batch-size argument: a whole number of positions, at least 1."""
    try:
        size = int(text)
    except ValueError:
        size = 0
    if size < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of positions >= 1")
    return size


class LevelJob(MRJob):
    """Expand every position of a level and keep one line per child signature."""

    INPUT_PROTOCOL = RawProtocol
    INTERNAL_PROTOCOL = RawProtocol
    OUTPUT_PROTOCOL = RawProtocol

    def configure_args(self) -> None:
        super().configure_args()
        self.add_file_arg("--search", required=True,
                          help="JSON file: the run's board definition and symmetry group")
        self.add_passthru_arg("--carry", choices=CARRIES, default="nothing",
                              help="what lines carry after a tab: a path count (summed per"
                                   " signature) or fewest moves (the fewest kept)")
        self.add_passthru_arg("--batch-size", type=batch_size, default=BATCH_SIZE,
                              help=f"positions a mapper expands per kernel call (default {BATCH_SIZE})")

    def mapper_init(self) -> None:
        # pegsearch's kernel (numpy, numba) is imported by mappers only: Hadoop starts a fresh
        # Python for every task, and combiners and reducers, which only add and compare text,
        # start twice as fast without it.
        from pegsearch.board.files import board_from_definition
        from pegsearch.kernel.tables import BoardTables

        with open(self.options.search, encoding="utf-8") as handle:
            search = json.load(handle)
        board = board_from_definition(search["board"], self.options.search)
        group = tuple(tuple(permutation) for permutation in search["group"])
        self.tables = BoardTables.for_board(board, group=group)
        self.positions: list[int] = []
        self.values: list[str | None] = []

    def mapper(self, position: str, value: str | None) -> Iterator[tuple[str, str | None]]:
        self.positions.append(int(position))
        self.values.append(value)
        if len(self.positions) >= self.options.batch_size:
            yield from self._children()

    def mapper_final(self) -> Iterator[tuple[str, str | None]]:
        yield from self._children()

    def _children(self) -> Iterator[tuple[str, str | None]]:
        """The distinct child signatures of the buffered parents (with their merged values),
        after which the buffer is emptied."""
        import numpy as np

        from pegsearch.kernel.expand import expand_distinct
        from pegsearch.kernel.values import Carry

        if not self.positions:
            return
        carry = Carry[self.options.carry.upper()]
        parents = np.array(self.positions, dtype=np.uint64)
        texts, self.positions, self.values = self.values, [], []
        keys, values = expand_distinct(self.tables, parents, values_from_text(carry, texts), carry)
        if not carry:
            for signature in keys.tolist():
                yield str(signature), None
            return
        yield from zip(map(str, keys.tolist()), values_as_text(carry, values), strict=True)

    def combiner(self, signature: str, values: Iterable[str | None]) -> Iterator[tuple[str, str | None]]:
        yield signature, self._merged(signature, values)

    def reducer(self, signature: str, values: Iterable[str | None]) -> Iterator[tuple[str, str | None]]:
        yield signature, self._merged(signature, values)

    def _merged(self, signature: str, values: Iterable[str | None]) -> str | None:
        """A signature's values merged, as text: path counts summed, or the fewest moves kept with
        the union of their last holes (None when nothing is carried)."""
        if self.options.carry == "moves":
            pairs = [tuple(map(int, text.split(","))) for text in values]
            fewest = min(moves for moves, _ in pairs)
            last = 0
            for moves, holes in pairs:
                last |= holes if moves == fewest else 0
            return f"{fewest},{last}"
        if self.options.carry == "nothing":
            return None
        from pegsearch.errors import PathCountOverflow
        from pegsearch.kernel.path_counts import LIMIT

        total = sum(map(int, values))
        if total > LIMIT:
            raise PathCountOverflow(f"the path count of signature {signature} exceeds {LIMIT:.3e},"
                                    " the largest a level stores")
        return str(total)


def values_as_text(carry: Carry, values: np.ndarray) -> list[str]:
    """Carried values (path counts or fewest moves) as the text after a line's tab (see the
    module notes)."""
    import pyarrow as pa

    from pegsearch.kernel.path_counts import to_arrow
    from pegsearch.kernel.values import Carry

    if carry is Carry.PATHS:
        return to_arrow(values).cast(pa.string()).to_pylist()
    return [f"{moves},{last}" for last, moves in values.tolist()]


def values_from_text(carry: Carry, texts: list[str]) -> np.ndarray:
    """Values from the text after lines' tabs (a line's newline may end it)."""
    import numpy as np
    import pyarrow as pa

    from pegsearch.kernel.path_counts import ARROW_TYPE, from_arrow
    from pegsearch.kernel.values import NO_VALUES, Carry

    if carry is Carry.PATHS:
        # Text to limbs through Arrow's decimal128: no Python object per value, and a count too
        # large for decimal(38, 0) is refused by the cast.
        return from_arrow(pa.array([text.rstrip() for text in texts], pa.string()).cast(ARROW_TYPE))
    if carry is Carry.MOVES:
        pairs = [text.split(",") for text in texts]
        values = np.array([[int(last), int(moves)] for moves, last in pairs], dtype=np.uint64)
        return values.reshape(-1, 2)
    return NO_VALUES


if __name__ == "__main__":
    LevelJob.run()

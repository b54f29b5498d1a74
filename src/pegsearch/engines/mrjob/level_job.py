"""One level of the search as an MRJob: level k in, level k + 1 out, one position per line.

`pegsearch.engines.mrjob` drives this job level by level; `jobs/level_job.py` runs it from the
command line. It lives in the package, not in `jobs/`, so that an installed pegsearch (a wheel on
every node of a cluster) carries it: mrjob's local, hadoop, emr and dataproc runners execute the
class's own source file in each task, which is why this module ends by running the job. The board
travels with the job as a small JSON file (`--search`: its definition and the symmetry group
signatures are taken under), uploaded by mrjob to every task.

- mapper: buffers its input positions and expands them `--batch-size` at a time with the shared
  kernel (`pegsearch.kernel.expand.expand_distinct`), so the compiled loops run once per batch, never once per
  position; the batch's children are deduplicated (or their path counts summed) before they leave
  the mapper.
- combiner and reducer: one line per signature, however many times it arrived, carrying the sum of
  the path counts that arrived with it when counting paths.

Lines are plain decimal text, so Hadoop streaming can split the input anywhere between lines and a
person can read every file: `position` alone, or `position<TAB>paths` with `--count-paths`. Path
counts are exact (Python integers between tasks, 128-bit limbs inside a batch) and a sum above
`pegsearch.kernel.path_counts.LIMIT`, the largest a level file stores, fails the task rather than wrapping.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Iterator

import pegsearch.engines.mrjob.compat  # noqa: F401  (before mrjob, which needs `pipes`, gone in Python 3.13)

# isort: split
from mrjob.job import MRJob
from mrjob.protocol import RawProtocol

BATCH_SIZE = 1 << 16  # positions per kernel call: large enough to amortise the call, small in memory


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
        self.add_passthru_arg("--count-paths", action="store_true",
                              help="lines carry a path count after a tab; sum them per signature")
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
        self.paths: list[str | None] = []

    def mapper(self, position: str, paths: str | None) -> Iterator[tuple[str, str | None]]:
        self.positions.append(int(position))
        self.paths.append(paths)
        if len(self.positions) >= self.options.batch_size:
            yield from self._children()

    def mapper_final(self) -> Iterator[tuple[str, str | None]]:
        yield from self._children()

    def _children(self) -> Iterator[tuple[str, str | None]]:
        """The distinct child signatures of the buffered parents (with their summed path counts),
        after which the buffer is emptied."""
        import numpy as np

        from pegsearch.kernel.expand import expand_distinct
        from pegsearch.store import NO_PATHS

        if not self.positions:
            return
        parents = np.array(self.positions, dtype=np.uint64)
        texts, self.positions, self.paths = self.paths, [], []
        if not self.options.count_paths:
            for signature in expand_distinct(self.tables, parents, NO_PATHS)[0].tolist():
                yield str(signature), None
            return
        import pyarrow as pa

        from pegsearch.kernel.path_counts import ARROW_TYPE, from_arrow, to_arrow

        # Text to limbs and back through Arrow's decimal128: no Python object per child on the way
        # in, and a count too large for decimal(38, 0) is refused by the cast.
        paths = from_arrow(pa.array(texts, pa.string()).cast(ARROW_TYPE))
        keys, sums = expand_distinct(self.tables, parents, paths)
        yield from zip(map(str, keys.tolist()), to_arrow(sums).cast(pa.string()).to_pylist(),
                       strict=True)

    def combiner(self, signature: str, paths: Iterable[str | None]) -> Iterator[tuple[str, str | None]]:
        yield signature, self._total(signature, paths)

    def reducer(self, signature: str, paths: Iterable[str | None]) -> Iterator[tuple[str, str | None]]:
        yield signature, self._total(signature, paths)

    def _total(self, signature: str, paths: Iterable[str | None]) -> str | None:
        """The sum of a signature's path counts as text (None when not counting paths)."""
        if not self.options.count_paths:
            return None
        from pegsearch.errors import PathCountOverflow
        from pegsearch.kernel.path_counts import LIMIT

        total = sum(map(int, paths))
        if total > LIMIT:
            raise PathCountOverflow(f"the path count of signature {signature} exceeds {LIMIT:.3e},"
                                    " the largest a level stores")
        return str(total)


if __name__ == "__main__":
    LevelJob.run()

"""One level of the search as an MRJob: level k in, level k + 1 out, one decimal position per line.

This file is what mrjob ships to a cluster (with `pegsearch.engines.mrjob` driving it level by level).
Nodes need only the installed `pegsearch` package: the board travels with the job as a small JSON
file (`--search`: its definition and the symmetry group signatures are taken under), uploaded by
mrjob to every task.

- mapper: buffers its input positions and expands them a batch at a time with the shared kernel
  (`pegsearch.expand.expand`), so the compiled loops run once per batch, never once per position;
  the batch's children are deduplicated before they leave the mapper.
- combiner and reducer: one line per signature, however many times it arrived.

Lines are plain decimal text (the unsigned 64-bit position), so Hadoop streaming can split the input
anywhere between lines and a person can read every file. Keys carry no value (nothing is counted yet),
so an intermediate line is just the signature and an output line is just the position.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from mrjob.job import MRJob
from mrjob.protocol import RawProtocol, RawValueProtocol

BATCH = 1 << 16  # positions per kernel call: large enough to amortise the call, small in memory


class LevelJob(MRJob):
    """Expand every position of a level and keep one line per child signature."""

    INPUT_PROTOCOL = RawValueProtocol
    INTERNAL_PROTOCOL = RawProtocol
    OUTPUT_PROTOCOL = RawProtocol

    def configure_args(self) -> None:
        super().configure_args()
        self.add_file_arg("--search", required=True,
                          help="JSON file: the run's board definition and symmetry group")

    def mapper_init(self) -> None:
        # pegsearch (numpy, numba) is imported by mappers only: Hadoop starts a fresh Python for
        # every task, and combiners and reducers, which only compare text, start twice as fast
        # without it.
        from pegsearch.board import board_from_definition
        from pegsearch.codec import Codec

        with open(self.options.search, encoding="utf-8") as handle:
            search = json.load(handle)
        board = board_from_definition(search["board"], self.options.search)
        group = tuple(tuple(permutation) for permutation in search["group"])
        self.codec = Codec.for_board(board, group=group)
        self.parents: list[int] = []

    def mapper(self, _: None, line: str) -> Iterator[tuple[str, None]]:
        self.parents.append(int(line))
        if len(self.parents) >= BATCH:
            yield from self._children()

    def mapper_final(self) -> Iterator[tuple[str, None]]:
        yield from self._children()

    def _children(self) -> Iterator[tuple[str, None]]:
        """The distinct child signatures of the buffered parents, which are then dropped."""
        import numpy as np

        from pegsearch.expand import deduplicate, expand

        if not self.parents:
            return
        children, _ = expand(self.codec, np.array(self.parents, dtype=np.uint64))
        self.parents = []
        for signature in deduplicate(children).tolist():
            yield str(signature), None

    def combiner(self, signature: str, _: Iterator[None]) -> Iterator[tuple[str, None]]:
        yield signature, None

    def reducer(self, signature: str, _: Iterator[None]) -> Iterator[tuple[str, None]]:
        yield signature, None


if __name__ == "__main__":
    LevelJob.run()

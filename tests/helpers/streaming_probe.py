"""An mrjob job that reports what Hadoop Streaming gives its tasks: a counter each map task
increments, and two of the job's settings read from a task's environment, as any mrjob user's job
reads them. tests/engines/test_hadoop.py runs it on YARN by mrjob's hadoop runner; mrjob ships this
file to the task, which runs it as a script.
"""

from __future__ import annotations

from collections.abc import Iterator

from mrjob.compat import jobconf_from_env
from mrjob.job import MRJob


class StreamingProbe(MRJob):
    def mapper(self, _key: None, _line: str) -> Iterator[tuple[str, str | None]]:
        self.increment_counter("probe", "lines", 1)
        yield "partition", jobconf_from_env("mapreduce.task.partition")
        yield "input", jobconf_from_env("mapreduce.map.input.file")


if __name__ == "__main__":
    StreamingProbe.run()

"""A Spark server keeps its session: `pegsearch serve --engine spark --master local[2]` runs its
Spark searches one after another in one worker process that keeps its SparkSession (slow: a JVM)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.helpers import pegsearch_process
from tests.helpers.serving import Server

pytestmark = pytest.mark.slow

EVERY_LEVEL_A_JOB = {"driver_below": 0}


def spark_worker(state: Path, search_id: str) -> int:
    """The process id of the kept Spark worker that ran a search, from the search's log."""
    log = (state / "logs" / f"{search_id}.log").read_text()
    found = re.match(r"searched by the Spark worker (\d+),", log)
    assert found, f"{search_id} was not run by the kept Spark worker"
    return int(found.group(1))


def test_spark_searches_share_one_kept_session_through_a_cancel(tmp_path: Path,
                                                                 published: dict) -> None:
    """Searches after the first run in the same worker, on the session it kept, and are right
    (Jaap Scherphuis's counts); a cancelled one leaves its run interrupted and resumable, and the
    session serves the next search; stopping the server ends the worker."""
    state = tmp_path / "state"
    server = Server(tmp_path / "runs", "--engine", "spark", "--master", "local[2]",
                    "--state", str(state))
    try:
        workers = []
        for start, name in ((1, "start_hole_1_corner"), (4, "start_hole_4_edge_middle")):
            search_id = server.submit({"board": "triangle-5", "start": [start], "symmetry": "none",
                                       "settings": EVERY_LEVEL_A_JOB})
            document = server.wait(search_id)
            assert [level["states"] for level in document["levels"]] == \
                published["triangle5_raw_per_level"][name]
            assert {level["engine"] for level in document["levels"][1:]} == {"spark"}
            workers.append(spark_worker(state, search_id))
        assert workers[0] == workers[1]

        long = server.submit({"board": "skippy-xl", "symmetry": "none", "settings": EVERY_LEVEL_A_JOB})
        server.wait(long, until=("running",), levels=4)
        assert server.json("POST", f"/api/searches/{long}/cancel")[0] == 200
        cancelled = server.wait(long, until=("interrupted",))
        assert 4 <= len(cancelled["levels"]) < 26

        after = server.submit({"board": "triangle-5", "start": [1], "symmetry": "none",
                               "settings": EVERY_LEVEL_A_JOB})
        assert [level["states"] for level in server.wait(after)["levels"]] == \
            published["triangle5_raw_per_level"]["start_hole_1_corner"]
        assert spark_worker(state, after) == workers[0]
    finally:
        assert server.stop() == 0
    with pytest.raises(ProcessLookupError):
        os.kill(workers[0], 0)  # the worker ended with its server
    resumed = pegsearch_process("run", "skippy-xl", "--symmetry", "none", "--out",
                                str(tmp_path / "runs" / long), "--resume", "--until", "6")
    assert resumed.returncode == 0, resumed.stderr

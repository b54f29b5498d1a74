"""GET /metrics on a real `pegsearch serve` (issue 79, item 7): Prometheus's text format, behind the
token, its values following searches as they run; and, in a slow test, a real Prometheus (Debian's
`prometheus` binary) scraping the server every second and answering PromQL about a search it
watched."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers.serving import Server, free_ports

TOKEN = "metrics-token"
SLOW_SEARCH = {"board": "english-33", "symmetry": "none", "settings": {"memory": "256M"}}
SMALL = {"board": "triangle-5", "start": [1]}
HARD = "2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("metrics") / "runs", token=TOKEN)
    yield started
    started.stop()


def scrape(server: Server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics, by its name and labels."""
    status, body = server.request("GET", "/metrics")
    assert status == 200, body
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(body.decode())
            for sample in family.samples}


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_need_the_token_and_are_prometheus_text(server: Server) -> None:
    assert server.request("GET", "/metrics", token="")[0] == 401
    assert server.request("GET", "/metrics", token="wrong")[0] == 401
    connection = urllib.request.Request(f"{server.url}/metrics",
                                        headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(connection, timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = scrape(server)
    assert value(samples, "process_resident_memory_bytes") > 10_000_000
    assert value(samples, "process_open_fds") > 3
    assert value(samples, "pegsearch_solver_workers") >= 2
    assert value(samples, "pegsearch_draining") == 0
    for status in ("queued", "running", "complete", "interrupted", "failed"):
        assert ("pegsearch_searches", (("status", status),)) in samples  # at 0 from the start
    assert "/metrics" not in server.get("/api/openapi.json")["paths"]  # the operator's, not the API's


def test_levels_positions_and_searches_follow_a_search(server: Server) -> None:
    before = scrape(server)
    search_id = server.submit(SMALL)
    document = server.wait(search_id)
    after = scrape(server)
    levels = document["levels"]
    made = value(after, "pegsearch_levels_made_total", engine="local") \
        - value(before, "pegsearch_levels_made_total", engine="local")
    assert made == len(levels) == 14
    positions = value(after, "pegsearch_positions_made_total", engine="local") \
        - value(before, "pegsearch_positions_made_total", engine="local")
    assert positions == sum(level["states"] for level in levels)
    timed = value(after, "pegsearch_level_seconds_count", engine="local") \
        - value(before, "pegsearch_level_seconds_count", engine="local")
    assert timed == len(levels)
    assert value(after, "pegsearch_searches", status="complete") \
        == value(before, "pegsearch_searches", status="complete") + 1
    assert value(after, "pegsearch_http_requests_total", method="POST", route="/api/searches",
                 status="202") >= 1
    assert value(after, "pegsearch_http_requests_total", method="GET",
                 route="/api/searches/{search_id}", status="200") >= 1
    assert not any(search_id in str(key) for key in after)  # never a search id: series stay few


def test_running_and_queued_searches_and_levels_as_they_are_made(server: Server) -> None:
    before = value(scrape(server), "pegsearch_levels_made_total", engine="local")
    running = server.submit(SLOW_SEARCH)
    waiting = server.submit({"board": "triangle-6", "symmetry": "none"})
    try:
        server.wait(running, ("running",), levels=5)
        first = scrape(server)
        made = value(first, "pegsearch_levels_made_total", engine="local") - before
        assert 5 <= made < 32
        assert value(first, "pegsearch_searches", status="running") == 1
        assert value(first, "pegsearch_searches", status="queued") == 1
        assert value(first, "pegsearch_queue_length") == 1
        assert value(first, "pegsearch_workers") == 1
        server.wait(running, ("running",), levels=12)
        later = scrape(server)
        made_later = value(later, "pegsearch_levels_made_total", engine="local") - before
        assert made < made_later and 12 <= made_later < 32
    finally:
        for search_id in (waiting, running):
            server.request("POST", f"/api/searches/{search_id}/cancel")
    stopped = scrape(server)
    assert value(stopped, "pegsearch_queue_length") == 0
    assert value(stopped, "pegsearch_searches", status="interrupted") >= 2


def test_hints_are_timed_and_the_undecided_counted(server: Server) -> None:
    before = scrape(server)
    undecided = 0
    for seconds in ("0.001", "0.002", "0.5"):
        status, hint = server.json("GET", f"/api/boards/triangle-9/hint?position={HARD}&seconds={seconds}")
        assert status == 200, hint
        undecided += hint["winnable"] is None
    after = scrape(server)
    assert value(after, "pegsearch_hint_seconds_count", by="solver") \
        - value(before, "pegsearch_hint_seconds_count", by="solver") == 3
    assert value(after, "pegsearch_hints_undecided_total") \
        - value(before, "pegsearch_hints_undecided_total") == undecided
    assert value(after, "pegsearch_solver_busy_workers") == 0  # none solving once answered
    assert value(after, "pegsearch_http_requests_total", method="GET",
                 route="/api/boards/{name}/hint", status="200") >= 3


# ----- a real Prometheus
PROMETHEUS = shutil.which("prometheus")
SCRAPE_CONFIG = """\
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: pegsearch
    scrape_interval: 1s
    scrape_timeout: 1s
    authorization:
      credentials: {token}
    static_configs:
      - targets: ["127.0.0.1:{port}"]
"""


@pytest.fixture
def prometheus(tmp_path: Path, server: Server) -> Iterator[str]:
    """Prometheus on a free port of 127.0.0.1, scraping the server every second (with its token);
    its URL. Its data in a folder of the test's own: no system service is used."""
    if PROMETHEUS is None:
        pytest.skip("no prometheus binary: apt-get install prometheus (Debian's package) to run it")
    (port,) = free_ports(1)
    config = tmp_path / "prometheus.yml"
    config.write_text(SCRAPE_CONFIG.format(token=TOKEN, port=server.port))
    log = tmp_path / "prometheus.log"
    with open(log, "w") as output:
        process = subprocess.Popen([PROMETHEUS, f"--config.file={config}",
                                    f"--storage.tsdb.path={tmp_path / 'data'}",
                                    f"--web.listen-address=127.0.0.1:{port}"],
                                   stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"prometheus not ready: {log.read_text()[-2000:]}"
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def promql(url: str, query: str) -> list[dict]:
    """The result of an instant query through Prometheus's HTTP API."""
    with urllib.request.urlopen(f"{url}/api/v1/query?{urllib.parse.urlencode({'query': query})}",
                                timeout=10) as response:
        answer = json.loads(response.read())
    assert answer["status"] == "success", answer
    return answer["data"]["result"]


def answered(url: str, query: str, expected: float, seconds: float = 60) -> None:
    """Wait until the query's one value is `expected` (scrapes come every second)."""
    deadline = time.monotonic() + seconds
    while True:
        result = promql(url, query)
        if len(result) == 1 and float(result[0]["value"][1]) == expected:
            return
        assert time.monotonic() < deadline, (query, result)
        time.sleep(0.5)


@pytest.mark.slow
def test_a_real_prometheus_answers_promql_about_a_search_it_watched(
        server: Server, prometheus: str, published: dict) -> None:
    answered(prometheus, 'up{job="pegsearch"}', 1)  # it scrapes the server, token and all
    before = scrape(server)
    levels_before = value(before, "pegsearch_levels_made_total", engine="local")
    positions_before = value(before, "pegsearch_positions_made_total", engine="local")
    complete_before = value(before, "pegsearch_searches", status="complete")
    search_id = server.submit({"board": "english-33", "settings": {"memory": "256M"}})
    document = server.wait(search_id)
    figures = published["english_centre_reduced_per_level"]
    assert [level["states"] for level in document["levels"]] == figures["levels"]
    answered(prometheus, 'pegsearch_levels_made_total{engine="local"}',
             levels_before + len(figures["levels"]))
    answered(prometheus, 'sum(pegsearch_positions_made_total{engine="local"})',
             positions_before + figures["total"])
    answered(prometheus, 'pegsearch_searches{status="complete"}', complete_before + 1)
    answered(prometheus, 'sum(pegsearch_level_seconds_count{engine="local"})',
             levels_before + len(figures["levels"]))
    # It watched the search run: at some scrape one search was running, in a worker.
    answered(prometheus, 'max_over_time(pegsearch_workers[10m])', 1)

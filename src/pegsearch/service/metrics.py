"""GET /metrics: the server in Prometheus's text format, through `prometheus_client`.

What an operator graphs and alerts on, each a handful of series (labels take a few values: a
status, an engine, a route's template, never a search id):

- `pegsearch_searches{status}`: the searches under the runs root by status, as the API words it
  (queued, running, complete, interrupted, failed, ...), counted when scraped.
- `pegsearch_queue_length`: the searches waiting for a slot; `pegsearch_workers`: those running.
- `pegsearch_levels_made_total{engine}`, `pegsearch_positions_made_total{engine}` and the histogram
  `pegsearch_level_seconds{engine}`: the levels this server's searches committed since it started,
  by the engine the level's record names (`local`, `spark`, `spark (driver)`, `mrjob`, `gpu`), their
  positions (states) and their seconds. The workers are processes of their own: a level is counted
  from its run's manifest, once committed, at the next scrape (or when its worker ends). A level
  made before the server started (a resumed search's) is not counted; a survey's are not either
  (they are in its start runs).
- `pegsearch_hint_seconds{by}` (histogram): hints answered, from a stored run (`run`) or by the
  solver (`solver`); `pegsearch_hints_undecided_total`: those whose position the solver's bound
  left undecided.
- `pegsearch_solver_workers`, `pegsearch_solver_busy_workers`, `pegsearch_solver_waiting`: the
  solver pool's threads, those solving now, and the hints waiting for one.
- `pegsearch_http_requests_total{method,route,status}` and `pegsearch_http_request_seconds{route}`:
  every request answered, by its route's template (`/api/searches/{search_id}`), `unmatched` where
  no route took it (a 404, or a refusal before routing: 401, 413).
- `pegsearch_draining`: 1 while the server drains (`service.drain`).
- `process_*`: prometheus_client's process collector: resident memory, open file descriptors,
  CPU seconds, start time (of the server's process, not its workers').
"""

from __future__ import annotations

import threading
from collections import Counter as Tally
from collections.abc import Iterable, Iterator

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client import generate_latest as latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.types import Scope

from pegsearch.errors import NotFound, PegsearchError
from pegsearch.service.drain import Drain
from pegsearch.service.hints import Hints
from pegsearch.service.jobs import Jobs
from pegsearch.service.storage import run_ids, stored_levels

# The text format's version every Prometheus reads (prometheus_client 0.22+ says 1.0.0, the same
# text for names such as these, which a Prometheus before 3.0 does not know).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LEVEL_BUCKETS = (0.01, 0.05, 0.25, 1, 5, 15, 60, 300, 1800, 7200, 28800)  # seconds
HINT_BUCKETS = (0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
REQUEST_BUCKETS = (0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 60)
UNMATCHED = "unmatched"


class Metrics:
    """The server's metrics, in a registry of its own (two apps in one process never share one)."""

    def __init__(self, jobs: Jobs, hints: Hints, drain: Drain) -> None:
        self.jobs, self.hints, self.drain = jobs, hints, drain
        disable_created_metrics()  # no `_created` series beside each counter: twice the series
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        self.registry.register(_Gauges(self))
        self.levels = Counter("pegsearch_levels_made", "Levels committed by this server's searches",
                              ["engine"], registry=self.registry)
        self.positions = Counter("pegsearch_positions_made", "Positions (states) of those levels",
                                 ["engine"], registry=self.registry)
        self.level_seconds = Histogram("pegsearch_level_seconds", "Seconds each of those levels took",
                                       ["engine"], buckets=LEVEL_BUCKETS, registry=self.registry)
        self.hint_seconds = Histogram("pegsearch_hint_seconds", "Seconds a hint took to answer",
                                      ["by"], buckets=HINT_BUCKETS, registry=self.registry)
        self.undecided = Counter("pegsearch_hints_undecided", "Hints whose position the solver's"
                                 " bound left undecided", registry=self.registry)
        self.requests = Counter("pegsearch_http_requests", "HTTP requests answered",
                                ["method", "route", "status"], registry=self.registry)
        self.request_seconds = Histogram("pegsearch_http_request_seconds", "Seconds to answer",
                                         ["route"], buckets=REQUEST_BUCKETS, registry=self.registry)
        self.lock = threading.Lock()
        self.counted: dict[str, int] = {}  # a search's levels counted (or made before it started)
        self.ended: set[str] = set()  # searches whose worker ended: counted a last time
        jobs.watchers.append(self)

    # ----- what the queue tells (under its lock: no store is read here)
    def launched(self, search_id: str, levels: int) -> None:
        """A worker starts the search, whose run has `levels` levels already (not counted)."""
        with self.lock:
            self.counted[search_id] = levels
            self.ended.discard(search_id)

    def finished(self, search_id: str) -> None:
        with self.lock:
            self.ended.add(search_id)

    # ----- what the routes tell
    def hint(self, by: str, seconds: float, document: dict) -> None:
        self.hint_seconds.labels(by).observe(seconds)
        if document.get("winnable") is None:
            self.undecided.inc()

    def request(self, scope: Scope, status: int, seconds: float) -> None:
        """One request answered (`logs.RequestIds` calls this once per request)."""
        route = getattr(scope.get("route"), "path", None) or UNMATCHED
        self.requests.labels(scope["method"], route, str(status)).inc()
        self.request_seconds.labels(route).observe(seconds)

    # ----- a scrape
    def text(self) -> bytes:
        """The metrics in Prometheus's text format, the levels committed since the last scrape
        counted first."""
        self._count_levels()
        return latest(self.registry)

    def _count_levels(self) -> None:
        with self.lock:
            watched = dict(self.counted)
            ended = set(self.ended)
        for search_id, counted in watched.items():
            try:
                levels = stored_levels(self.jobs.root, search_id)
            except PegsearchError:  # deleted, or damaged: what it made was counted
                levels = []
            for level in levels[counted:]:
                engine = str(level.get("engine", "unknown"))
                self.levels.labels(engine).inc()
                self.positions.labels(engine).inc(level.get("states", 0))
                if isinstance(level.get("seconds"), int | float):
                    self.level_seconds.labels(engine).observe(level["seconds"])
            with self.lock:
                if search_id in ended and search_id in self.ended:
                    del self.counted[search_id]
                    self.ended.discard(search_id)
                elif search_id in self.counted:
                    self.counted[search_id] = max(counted, len(levels))


class _Gauges(Collector):
    """The gauges read when scraped: searches by status, the queue, the solver pool, the drain."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[GaugeMetricFamily]:
        jobs, hints = self.metrics.jobs, self.metrics.hints
        statuses = GaugeMetricFamily("pegsearch_searches", "Searches under the runs root by status",
                                     labels=["status"])
        for status, count in sorted(_statuses(jobs).items()):
            statuses.add_metric([status], count)
        yield statuses
        with jobs.lock:
            queued, running = len(jobs.queue), len(jobs.running)
        yield _gauge("pegsearch_queue_length", "Searches waiting for a slot", queued)
        yield _gauge("pegsearch_workers", "Searches running in worker processes", running)
        with hints.lock:
            busy, held = hints.busy, hints.held
        yield _gauge("pegsearch_solver_workers", "Threads of the solver pool", hints.workers)
        yield _gauge("pegsearch_solver_busy_workers", "Threads of the solver pool solving now", busy)
        yield _gauge("pegsearch_solver_waiting", "Hints waiting for the solver pool", held - busy)
        yield _gauge("pegsearch_draining", "1 while the server drains before it stops",
                     int(self.metrics.drain.draining))


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def _statuses(jobs: Jobs) -> Tally[str]:
    """Every search's status, as GET /api/searches would say it, counted."""
    tally: Tally[str] = Tally(dict.fromkeys(_STATUSES, 0))
    for search_id in _ids(jobs):
        try:
            tally[jobs.status(search_id)] += 1
        except NotFound:  # deleted meanwhile
            continue
    return tally


def _ids(jobs: Jobs) -> Iterable[str]:
    return run_ids(jobs.root) | jobs.records.ids()


# Listed at 0 before any search has them, so a query for one is answered from the first scrape.
_STATUSES = ("queued", "running", "cancelling", "deleting", "complete", "interrupted", "failed",
             "damaged")

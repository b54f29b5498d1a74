"""kernel.threads.stream: items to whichever core is free, a core's index never in two calls at once."""

from __future__ import annotations

import threading
import time

import pytest

from pegsearch.kernel.threads import WORKERS, stream


def test_stream_calls_each_item_once_and_never_one_worker_twice_at_once() -> None:
    seen: list[int] = []
    busy = [False] * WORKERS
    lock = threading.Lock()

    def call(item: int, offset: int, worker: int) -> None:
        assert 0 <= worker < WORKERS
        assert not busy[worker], "a worker's index was given to two calls at once"
        busy[worker] = True
        time.sleep(0.001 * (item % 3))  # uneven items: the free core takes the next
        with lock:
            seen.append(item + offset)
        busy[worker] = False

    stream(call, iter(range(200)), 1000)
    assert sorted(seen) == list(range(1000, 1200))


def test_a_failed_call_stops_the_stream_after_the_calls_in_flight() -> None:
    running = [0]
    taken: list[int] = []
    lock = threading.Lock()

    def call(item: int, worker: int) -> None:
        with lock:
            running[0] += 1
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        if item == 3:
            raise ValueError("item 3")

    def items():
        for item in range(10_000):
            taken.append(item)
            yield item

    with pytest.raises(ValueError, match="item 3"):
        stream(call, items())
    assert running[0] == 0  # nothing runs on after the failure is raised
    assert len(taken) < 100  # the stream stopped taking items soon after

"""What the faces' tests share: a fresh service for one test (a module may define its own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.serving import Server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """`pegsearch serve` on a runs folder of this test's own, stopped after it."""
    started = Server(tmp_path / "runs")
    yield started
    started.stop()

"""What the store's fault tests share: the search they make on a failing store, made on local disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import pegsearch

BOARD = "english-33"


@pytest.fixture(scope="session")
def english_on_disk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BOARD's run on local disk: what a search on a store that failed must equal, digest for digest."""
    out = tmp_path_factory.mktemp("local") / "run"
    assert pegsearch("run", BOARD, "--out", str(out)).returncode == 0
    return out

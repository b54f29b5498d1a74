"""Shared fixtures and the --slow switch: slow tests (full 28/33-hole runs, clusters) run in CI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="also run tests marked slow (CI does)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def published() -> dict:
    """Published figures copied from OEIS, Scherphuis, Bell and Durango Bill, with their sources."""
    return json.loads((DATA / "published.json").read_text())

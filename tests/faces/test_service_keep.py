"""A search submitted to the service with `"keep": "last"`: recorded, run by the worker as
`run --keep last` runs it, and refused for a survey (whose answers need every level)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegsearch.errors import UsageError
from pegsearch.service.app import Defaults, SearchRequest, _record
from pegsearch.service.records import Records
from pegsearch.service.worker import run_search
from pegsearch.store import Location, Run


def test_a_search_submitted_with_keep_last_keeps_only_its_last_level(tmp_path: Path) -> None:
    record = _record(SearchRequest(board="triangle-5", keep="last"), Defaults())
    records = Records(tmp_path / "state")
    records.put(record)
    assert records.get(record.id).keep == "last"
    run_search(Location.parse(tmp_path / "runs"), records, record.id)
    run = Run.open(tmp_path / "runs" / record.id)
    assert run.keep == "last" and run.status == "complete"
    assert run.dropped() == list(range(len(run.levels) - 1))
    assert sorted(p.name for p in run.location.local.glob("level-*")) == [
        f"level-{len(run.levels) - 1:03d}"]


def test_a_survey_with_keep_is_refused() -> None:
    with pytest.raises(UsageError, match="keep"):
        _record(SearchRequest(board="triangle-5", survey=True, keep="last"), Defaults())

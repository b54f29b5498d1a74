"""`pegsearch bench`: whole searches measured in child processes."""

from __future__ import annotations

import json

from tests.helpers import pegsearch_process


def test_bench_measures_each_board_and_passes_run_options(published: dict) -> None:
    result = pegsearch_process("bench", "--boards", "triangle-5", "--repeat", "2", "--json", "--", "--raw")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    [figures] = document["results"]
    assert figures["states"] == published["triangle5_raw_per_level"]["totals"]["1"]
    assert (figures["board"], figures["engine"], figures["repeats"]) == ("triangle-5", "local", 2)
    assert figures["wall_seconds"] > 0 and figures["cpu_seconds"] > 0 and figures["peak_mb"] > 10
    assert "cores" in document["machine"]


def test_bench_table_and_errors() -> None:
    table = pegsearch_process("bench", "--boards", "triangle-5", "--repeat", "1").stdout.splitlines()
    assert table[0].startswith("machine: ")
    assert table[1].split() == ["board", "engine", "runs", "wall", "s", "CPU", "s", "states",
                                "states/CPU-s", "peak", "MB"]
    assert table[2].split()[:3] == ["triangle-5", "local", "1"]
    unknown = pegsearch_process("bench", "--boards", "nope")
    assert unknown.returncode == 2 and "unknown board 'nope'" in unknown.stderr
    assert pegsearch_process("bench", "--repeat", "0").returncode == 2


def test_compare_alternates_with_a_peer_and_reports_ratios(published: dict) -> None:
    result = pegsearch_process("compare", "triangle-5", "--peer", "sleep 0.3", "--repeat", "2", "--json",
                               "--", "--raw")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert len(document["pairs"]) == 2
    assert document["states"] == published["triangle5_raw_per_level"]["totals"]["1"]
    for pair in document["pairs"]:
        assert 0.3 <= pair["peer"]["wall_seconds"] < 2  # the peer really ran, and alone
        assert pair["peer"]["peak_mb"] < 50  # the timer's memory is not the peer's
        assert pair["pegsearch"]["cpu_seconds"] > 0.1
    walls = sorted(p["pegsearch"]["wall_seconds"] / p["peer"]["wall_seconds"] for p in document["pairs"])
    assert document["medians"]["ratio"]["wall_seconds"] == sum(walls) / 2


def test_compare_refuses_a_failing_or_missing_peer() -> None:
    failing = pegsearch_process("compare", "triangle-5", "--peer", "sh -c 'echo broken >&2; exit 3'",
                                "--repeat", "1")
    assert failing.returncode == 2 and failing.stderr.strip().endswith("(exit 3): broken")
    missing = pegsearch_process("compare", "triangle-5", "--peer", "no-such-program-x", "--repeat", "1")
    assert missing.returncode == 2 and "no program 'no-such-program-x'" in missing.stderr
    assert "Traceback" not in failing.stderr + missing.stderr

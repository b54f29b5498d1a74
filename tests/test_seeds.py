"""The tests that draw at random take their seed from the `seed` fixture (tests/conftest.py): a new
one each run, printed, and `--seed N` or PEGSEARCH_TEST_SEED=N to replay a failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def test_the_seed_is_an_int_and_printed(seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    """What a failing test's report shows: the seed and how to replay it."""
    assert isinstance(seed, int)


def inner(*options: str, env: dict[str, str] | None = None) -> str:
    """The test above in a pytest of its own (one process), its printed lines."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-n", "0", "-p", "no:cacheprovider",
         "tests/test_seeds.py::test_the_seed_is_an_int_and_printed", *options],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PEGSEARCH_TEST_SEED": "", **(env or {})})
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_a_seed_given_is_replayed_and_a_new_one_printed() -> None:
    """`--seed` wins over PEGSEARCH_TEST_SEED, which is used alone."""
    assert "seed 9: replay with `pytest --seed 9 tests/test_seeds.py::" in inner(
        "--seed", "9", env={"PEGSEARCH_TEST_SEED": "678"})
    assert "seed 678: replay with" in inner(env={"PEGSEARCH_TEST_SEED": "678"})

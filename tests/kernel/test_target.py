"""The compile target: measured once per machine and kept, the user's choice first, and the same
counts whatever the kernels are compiled for (published figures, and a second computation)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pegsearch.kernel.target import CHOSEN, COMPILING, FILE, USER, candidates

CHOICE = ("import json; from pegsearch.kernel import target;"
          " print(json.dumps(target.choose().as_json()))")


def environment(cache: Path, **settings: str) -> dict[str, str]:
    """This environment with numba's cache in `cache` and no compile target inherited (this test
    process chose one when it imported the kernels, and its children would take it)."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", CHOSEN)}
    return {**env, "NUMBA_CACHE_DIR": str(cache), **settings}


def python(code: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def pegsearch(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-m", "pegsearch", *args], capture_output=True,
                          text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_target_the_user_sets_wins_and_nothing_is_measured(tmp_path: Path) -> None:
    env = environment(tmp_path / "cache", NUMBA_CPU_NAME="haswell")
    choice = json.loads(python(CHOICE, env))
    assert (choice["target"], choice["how"], choice["timings"]) == ("haswell", USER, {})
    assert not (tmp_path / "cache" / FILE).exists()


def test_a_target_the_user_sets_that_llvm_does_not_know_is_refused_in_one_line(tmp_path: Path) -> None:
    """It was six lines of LLVM's ("'nonsense' is not a recognized processor for this target")
    and kernels compiled for a generic model."""
    env = environment(tmp_path / "cache", NUMBA_CPU_NAME="nonsense")
    done = subprocess.run([sys.executable, "-m", "pegsearch", "run", "triangle-4", "--out",
                           str(tmp_path / "run")], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("pegsearch: error: NUMBA_CPU_NAME=nonsense: LLVM knows no such CPU"
                                  " model here; unset it")
    assert len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_the_fastest_target_is_measured_once_kept_and_used_by_later_processes(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    env = environment(cache)
    tuned = json.loads(pegsearch("tune", "--json", env=env))
    models = candidates()
    assert tuned["how"] == "measured" and set(tuned["timings"]) == set(models)
    assert tuned["target"] == min(tuned["timings"], key=tuned["timings"].__getitem__)
    assert all(ns > 0 for ns in tuned["timings"].values())
    wisdom = cache / FILE
    stamp = wisdom.stat().st_mtime_ns

    # A later process reads the choice (the same measurement, not a new one) and compiles for it.
    later = json.loads(python(CHOICE + "; import os; print(os.environ['NUMBA_CPU_NAME'])", env)
                       .splitlines()[0])
    assert later == tuned and wisdom.stat().st_mtime_ns == stamp
    pegsearch("run", "triangle-5", "--out", str(tmp_path / "run"), env=env)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["compile_target"]["target"] == tuned["target"]
    assert manifest["compile_target"]["how"] == "measured"
    assert wisdom.stat().st_mtime_ns == stamp

    # A damaged file costs a measurement, never a failure or a wrong model, and says so in a line
    # (the first run's one line, that the kernels are being compiled, with it).
    wisdom.write_text("{not json")
    again = subprocess.run([sys.executable, "-c", CHOICE], capture_output=True, text=True, env=env,
                           timeout=600)
    assert json.loads(again.stdout)["how"] == "measured"
    assert again.stderr == (f"pegsearch: {wisdom} is damaged (not a JSON object): measuring the"
                            f" compile target again; {COMPILING}\n")
    kept = json.loads(wisdom.read_text())

    # A kept model LLVM does not know (a file from another machine, or edited) is measured again.
    kept[next(iter(kept))]["target"] = "nonsense"
    wisdom.write_text(json.dumps(kept))
    repaired = subprocess.run([sys.executable, "-c", CHOICE], capture_output=True, text=True,
                              env=env, timeout=600)
    assert "names 'nonsense', a CPU model LLVM does not know here" in repaired.stderr
    assert "not a recognized processor" not in repaired.stderr
    assert json.loads(repaired.stdout)["target"] in models
    assert "nonsense" not in wisdom.read_text()


@pytest.mark.slow
def test_tune_says_when_its_choice_cannot_be_kept(tmp_path: Path) -> None:
    """A folder where the file goes: it said "kept"."""
    cache = tmp_path / "cache"
    (cache / FILE).mkdir(parents=True)
    done = subprocess.run([sys.executable, "-m", "pegsearch", "tune"], capture_output=True, text=True,
                          env=environment(cache), timeout=900)
    assert done.returncode == 2 and "kept:" not in done.stdout
    assert done.stderr.splitlines()[-1].startswith(f"pegsearch: error: {cache / FILE} cannot be written")
    assert "is not kept, so every later process measures again" in done.stderr


# Forced as a user would force it, in a cache of its own: the portable x86-64 (SSE2), the target
# furthest from any host here. Each target is some 70 s of CI compiling every kernel again, so the
# others (`haswell`, `znver3`: AVX2, no AVX-512) are forced the same way by hand
# (docs/performance.md's targets) and `pegsearch tune`'s test measures several.
FORCED = [("generic", "")]
ASM = ("from pegsearch.kernel.probe import OneStep; OneStep();"
       " from pegsearch.kernel.expand import _expand_into_bits;"
       " print(any('zmm' in asm for asm in _expand_into_bits.inspect_asm().values()))")


@pytest.mark.slow
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86-64 compile targets")
@pytest.mark.parametrize(("model", "features"), FORCED)
def test_every_forced_target_gives_the_published_counts(tmp_path: Path, published: dict, model: str,
                                                        features: str) -> None:
    env = environment(tmp_path / "cache", NUMBA_CPU_NAME=model, NUMBA_CPU_FEATURES=features)
    assert python(ASM, env).strip() == "False", "the kernel used AVX-512 registers"
    english = json.loads(pegsearch("run", "english-33", "--out", str(tmp_path / "english"), "--json",
                                   env=env))
    manifest = json.loads((tmp_path / "english" / "manifest.json").read_text())
    assert (manifest["compile_target"]["target"], manifest["compile_target"]["how"]) == (model, USER)
    assert [level["states"] for level in english["levels"]] == \
        published["english_centre_reduced_per_level"]["levels"]
    triangle = json.loads(pegsearch("run", "triangle-5", "--start", "1", "--raw", "--out",
                                    str(tmp_path / "t5"), "--json", env=env))
    assert [level["states"] for level in triangle["levels"]] == \
        published["triangle5_raw_per_level"]["start_hole_1_corner"]
    checked = pegsearch("verify", str(tmp_path / "english"), "--recompute", "14", env=env)
    assert "levels 1 to 14 agree position for position" in checked

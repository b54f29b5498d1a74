"""The compile target: the CPU model numba's LLVM makes the kernels' code for, chosen by measurement.

numba compiles for the host's CPU model unless told otherwise, and the same source can run twice
as fast on one machine compiled for another model: LLVM's models differ in how they lay out and
optimise a loop (on an AMD EPYC, LLVM's znver3 and znver4 models once left ten reference-count
calls a child in the map's loop that its haswell model kept out, see kernel.ranks.rank_chunks).
No one model is best everywhere, so the first process that loads the kernels on a machine not
seen before (its CPU, numba and llvmlite, and these kernels' source) times the hot kernel
(kernel.probe) compiled for the host's model and a few portable ones, in child processes two at
a time, and keeps the fastest in a small file beside numba's cache, as FFTW keeps its wisdom.
Every later process on that machine (a command, a service worker, a Spark or mrjob task) reads
it and compiles for that model. The features are always the host's: only the model that tunes
the code changes, never the instructions it may use.

A NUMBA_CPU_NAME the user set wins and is never measured; `pegsearch tune` measures again.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

KERNEL = Path(__file__).parent
# Set beside NUMBA_CPU_NAME when the model was chosen here, so a child process that inherits both
# (a Spark worker, an mrjob task) knows the choice is this file's and not the user's.
CHOSEN = "PEGSEARCH_COMPILE_TARGET"
# The portable models tried beside the host's on x86-64: haswell and x86-64-v3 (AVX2's, what
# most clouds' AMD and Intel machines run best, by the measurements in docs/performance.md), and
# on a CPU with AVX-512 one model made for it.
PORTABLE = ("haswell", "x86-64-v3")
AVX512 = ("icelake-server",)
FILE = "pegsearch-targets.json"
USER = "set by NUMBA_CPU_NAME"


@dataclass(frozen=True)
class Choice:
    """What the kernels are compiled for on this machine and why."""

    cpu: str  # the CPU's model name, as the system gives it
    host: str  # LLVM's name for the host's CPU model: numba's default target
    target: str  # the model the kernels are compiled for
    how: str  # "measured", "set by NUMBA_CPU_NAME", or why nothing was measured
    timings: dict[str, float] = field(default_factory=dict)  # CPU-ns a child, by model
    measured: str = ""  # when (UTC)
    seconds: float = 0.0  # what measuring took

    def describe(self) -> str:
        """One line for a benchmark's or a manifest's reader."""
        return f"{self.cpu}: kernels compiled for {self.target} ({self.how}; host model {self.host})"

    def as_json(self) -> dict:
        return asdict(self)


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo on Linux, else the platform's word for it) and the
    architecture this process runs as: under emulation (qemu-user) the name is the host's."""
    name = platform.processor()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    return f"{name or 'unknown CPU'} ({platform.machine()})"


def machine_key() -> str:
    """What a choice holds for: the CPU (its model name, LLVM's model and its features), numba's
    code generator (llvmlite's version) and the kernels' source; a change to any measures again."""
    source = hashlib.sha256()
    for path in sorted(KERNEL.glob("*.py")):
        source.update(path.read_bytes())
    features = hashlib.sha256(llvm.get_host_cpu_features().flatten().encode()).hexdigest()[:12]
    return (f"{cpu_model()} | {llvm.get_host_cpu_name()} {features} | llvmlite"
            f" {llvmlite.__version__} | kernels {source.hexdigest()[:12]}")


def candidates() -> list[str]:
    """The models to time: the host's first, then the portable ones (x86-64 only: elsewhere the
    host's is the one model known to fit)."""
    host = llvm.get_host_cpu_name()
    if platform.machine() not in ("x86_64", "AMD64"):
        return [host]
    avx512 = "+avx512f" in llvm.get_host_cpu_features().flatten()
    return list(dict.fromkeys([host, *PORTABLE, *(AVX512 if avx512 else ())]))


def wisdom_file() -> Path:
    """Beside numba's cache: NUMBA_CACHE_DIR when set (pegsearch.numba_cache sets it where the
    package cannot be written), else the kernels' own __pycache__, where numba keeps them."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    return (Path(folder) if folder else KERNEL / "__pycache__") / FILE


def _read(path: Path) -> dict:
    """The choices kept in `path`, by machine key; none when it is missing or unreadable (then
    the measurement is made again: a damaged file costs seconds, never a wrong choice)."""
    try:
        kept = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _write(path: Path, kept: dict) -> None:
    """Replace `path` whole (a reader sees the old file or the new one, never half of one)."""
    part = path.with_name(f"{path.name}.{os.getpid()}")
    part.write_text(json.dumps(kept, indent=1, sort_keys=True))
    os.replace(part, path)


@contextlib.contextmanager
def _locked(path: Path):
    """Only one process measures at a time on a machine; the others wait for its choice."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.with_name(f"{path.name}.lock"), "a")  # noqa: SIM115 (held while yielding)
    except OSError:  # a folder this process cannot write: it measures for itself alone
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def probe(model: str, **settings: str) -> subprocess.Popen:
    """kernel.probe in a child process compiling for `model` (with the host's features unless
    `settings` give NUMBA_CPU_FEATURES, or another cache), on one core."""
    env = {**os.environ, "NUMBA_CPU_NAME": model, "NUMBA_NUM_THREADS": "1", **settings}
    env.pop(CHOSEN, None)
    return subprocess.Popen([sys.executable, "-m", "pegsearch.kernel.probe"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def one_step(probed: subprocess.Popen) -> float:
    """A probe's CPU-ns a child, once it ends; ValueError with its last line if it failed."""
    out, err = probed.communicate()
    try:
        return float(json.loads(out.strip().splitlines()[-1])["one_step"])
    except (ValueError, IndexError, KeyError, TypeError):
        raise ValueError((err.strip().splitlines() or [f"exit {probed.returncode}"])[-1]) from None


def measure(models: list[str]) -> tuple[dict[str, float], dict[str, str]]:
    """Each model's CPU-ns a child of the one step, and the models whose probe failed, with the
    last line it printed: two probes at a time where there are two cores (each on one core)."""
    timings, failed = {}, {}
    at_once = max(1, min(2, os.cpu_count() or 1))
    for first in range(0, len(models), at_once):
        running = {model: probe(model) for model in models[first:first + at_once]}
        for model, probed in running.items():
            try:
                timings[model] = one_step(probed)
            except ValueError as exc:
                failed[model] = str(exc)
    return timings, failed


def tune() -> Choice:
    """Measure the candidates now and keep the fastest for this machine (`pegsearch tune`)."""
    path, key = wisdom_file(), machine_key()
    with _locked(path):
        return _tune(path, key)


def _tune(path: Path, key: str) -> Choice:
    began = time.perf_counter()
    host, models = llvm.get_host_cpu_name(), candidates()
    if len(models) == 1:
        choice = Choice(cpu_model(), host, host, f"host model: no other model is tried on"
                        f" {platform.machine()}")
    else:
        timings, failed = measure(models)
        if timings:
            best = min(timings, key=timings.__getitem__)
            how = "measured" + "".join(f"; {m} failed: {line}" for m, line in failed.items())
            choice = Choice(cpu_model(), host, best, how, timings,
                            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                            round(time.perf_counter() - began, 2))
        else:
            choice = Choice(cpu_model(), host, host, "host model: every probe failed ("
                            + "; ".join(f"{m}: {line}" for m, line in failed.items()) + ")")
    kept = _read(path)
    kept[key] = choice.as_json()
    with contextlib.suppress(OSError):  # unwritable: this process still uses what it measured
        _write(path, kept)
    return choice


def chosen() -> Choice:
    """This machine's choice: the user's NUMBA_CPU_NAME, else the one kept for this machine,
    else one measured now (once per machine: later processes read it)."""
    named = os.environ.get("NUMBA_CPU_NAME")
    if named and os.environ.get(CHOSEN) != named:
        return Choice(cpu_model(), llvm.get_host_cpu_name(), named, USER)
    path, key = wisdom_file(), machine_key()
    kept = _read(path).get(key)
    if kept is None:
        with _locked(path):  # another process may have measured while this one waited
            kept = _read(path).get(key)
            if kept is None:
                return _tune(path, key)
    return Choice(**kept)


def apply(choice: Choice) -> None:
    """Compile for `choice` from now on in this process and the processes it starts (numba reads
    its settings again when the environment changes, so the variable is set as well)."""
    os.environ["NUMBA_CPU_NAME"] = choice.target
    if choice.how != USER:
        os.environ[CHOSEN] = choice.target
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CPU_NAME = choice.target


_CHOICE: list[Choice] = []


def choose() -> Choice:
    """This process's choice, made (and applied) the first time it is asked: the kernel package
    asks before any kernel is compiled."""
    if not _CHOICE:
        _CHOICE.append(chosen())
        apply(_CHOICE[0])
    return _CHOICE[0]

"""The compile target: the CPU model numba's LLVM makes the kernels' code for, chosen by measurement.

numba compiles for the host's CPU model unless told otherwise, and the same source can run twice
as fast on one machine compiled for another model: LLVM's models differ in how they lay out and
optimise a loop (on an AMD EPYC, LLVM's znver3 and znver4 models once left ten reference-count
calls a child in the map's loop that its haswell model kept out, see kernel.ranks.rank_chunks).
No one model is best everywhere, so the first process that loads the kernels on a machine not
seen before (its CPU, numba and llvmlite, and these kernels' source) times the hot kernel
(kernel.probe) compiled for the host's model and a few portable ones, in child processes (two
compiling at a time, then each timed alone), and keeps the fastest in a small file beside
numba's cache, as FFTW keeps its wisdom. Every later process on that machine (a command, a
service worker, a Spark or mrjob task) reads it and compiles for that model (a read-only install
reads the one its administrator's first process kept in the package). The features are
always the host's: only the model that tunes the code changes, never the instructions it may use.

A NUMBA_CPU_NAME the user set wins and is never measured, unless LLVM does not know it (refused in
one line: LLVM would print its complaint six times and compile for a generic model); a kept choice
that cannot be read or names a model LLVM does not know is measured again, saying so in one line.
`pegsearch tune` measures again.
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
import tempfile
import time
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

from pegsearch.errors import UsageError
from pegsearch.kernel import compiling

KERNEL = Path(__file__).parent
# Set beside NUMBA_CPU_NAME when the model was chosen here, so a child process that inherits both
# (a Spark worker, an mrjob task) knows the choice is this file's and not the user's.
CHOSEN = "PEGSEARCH_COMPILE_TARGET"
# The portable models tried beside the host's on x86-64: haswell and x86-64-v3 (AVX2's, which ran
# the one step fastest or within noise of it on the AMD EPYC and Intel Xeon machines measured, see
# docs/performance.md), and on a CPU with AVX-512 one model made for it.
PORTABLE = ("haswell", "x86-64-v3")
AVX512 = ("icelake-server",)
FILE = "pegsearch-targets.json"
USER = "set by NUMBA_CPU_NAME"
_CHOICE: list[Choice] = []  # this process's choice, once made
# What this process measured, if it did, and why it could not keep it (None: kept).
_MEASURED: list[tuple[Choice, str | None]] = []
# Said before the first process on a machine measures and compiles: tens of seconds of silence else.
COMPILING = ("measuring which compile target runs the kernels fastest on this CPU, once for this"
             " machine: about 30 s")


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
    """What a choice holds for: the CPU (its model name, LLVM's model and its features), numba and
    its code generator (llvmlite), and the kernels' source; a change to any measures again."""
    source = hashlib.sha256()
    for path in sorted(KERNEL.glob("*.py")):
        source.update(path.read_bytes())
    features = hashlib.sha256(llvm.get_host_cpu_features().flatten().encode()).hexdigest()[:12]
    return (f"{cpu_model()} | {llvm.get_host_cpu_name()} {features} | numba {version('numba')},"
            f" llvmlite {llvmlite.__version__} | kernels {source.hexdigest()[:12]}")


def candidates() -> list[str]:
    """The models to time: the host's first, then the portable ones (x86-64 only: elsewhere the
    host's is the one model known to fit)."""
    host = llvm.get_host_cpu_name()
    if platform.machine() not in ("x86_64", "AMD64"):
        return [host]
    avx512 = "+avx512f" in llvm.get_host_cpu_features().flatten()
    return list(dict.fromkeys([host, *PORTABLE, *(AVX512 if avx512 else ())]))


def packaged_file() -> Path:
    """Where the package keeps a choice: in the kernels' own __pycache__, written there by the
    first process on a machine while the folder was writable (an administrator's)."""
    return KERNEL / "__pycache__" / FILE


def wisdom_file() -> Path:
    """Beside numba's cache: NUMBA_CACHE_DIR when set (pegsearch.numba_cache sets it where the
    package cannot be written), else the kernels' own __pycache__, where numba keeps them."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    return Path(folder) / FILE if folder else packaged_file()


def read_kept(path: Path) -> dict:
    """The choices kept in `path`, by machine key; none when it is missing or unreadable (then
    the measurement is made again: a damaged file costs seconds, never a wrong choice)."""
    try:
        kept = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def write_kept(path: Path, kept: dict) -> None:
    """Replace `path` whole (a reader sees the old file or the new one, never half of one)."""
    part = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        part.write_text(json.dumps(kept, indent=1, sort_keys=True))
        os.replace(part, path)
    except OSError:
        part.unlink(missing_ok=True)
        raise


def known(model: str) -> bool:
    """Whether LLVM knows `model` as a CPU model of this machine's architecture. LLVM says so only
    by printing "'MODEL' is not a recognized processor for this target" on the standard error
    when a target machine is made for it, so that stream is caught for the moment it takes."""
    llvm.initialize_native_target()
    with tempfile.TemporaryFile() as caught:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        try:
            llvm.Target.from_default_triple().create_target_machine(cpu=model)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        return b"not a recognized processor" not in caught.read()


@contextlib.contextmanager
def locked(path: Path):
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


class Probe:
    """kernel.probe in a child process compiling for `model` (with the host's features unless
    `settings` give NUMBA_CPU_FEATURES, or another cache), on one core, kept until `close`."""

    def __init__(self, model: str, **settings: str) -> None:
        env = {**os.environ, "NUMBA_CPU_NAME": model, "NUMBA_NUM_THREADS": "1", **settings}
        env.pop(CHOSEN, None)
        self.process = subprocess.Popen([sys.executable, "-m", "pegsearch.kernel.probe"], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)

    def ready(self) -> None:
        """Wait until the kernel is compiled; ValueError with the probe's last line if it died."""
        if self.process.stdout.readline().strip() != "ready":
            raise ValueError(self._failure())

    def time(self) -> float:
        """The one step's CPU-ns a child, best of the probe's rounds, measured now."""
        self.process.stdin.write("time\n")
        self.process.stdin.flush()
        try:
            return float(json.loads(self.process.stdout.readline())["one_step"])
        except (ValueError, KeyError, TypeError):
            raise ValueError(self._failure()) from None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        self.process.wait()

    def _failure(self) -> str:
        self.close()
        return (self.process.stderr.read().strip().splitlines() or
                [f"exit {self.process.returncode}"])[-1]


def measure(models: list[str]) -> tuple[dict[str, float], dict[str, str]]:
    """Each model's CPU-ns a child of the one step, and the models whose probe failed, with the
    last line it printed. The probes compile as many at a time as there are cores (at most two:
    each compiles on one); then each is timed alone, in turn, and again in the reverse order (a
    drifting load falls on all alike), keeping its best."""
    at_once = max(1, min(2, os.cpu_count() or 1))
    probes = {model: Probe(model) for model in models[:at_once]}
    timings: dict[str, float] = {}
    failed: dict[str, str] = {}
    for index, model in enumerate(models):
        try:
            probes[model].ready()
        except ValueError as exc:
            failed[model] = str(exc)
        if index + at_once < len(models):
            probes[models[index + at_once]] = Probe(models[index + at_once])
    for model in [*probes, *reversed(probes)]:
        if model not in failed:
            try:
                timings[model] = min(probes[model].time(), timings.get(model, float("inf")))
            except ValueError as exc:
                failed[model] = str(exc)
                timings.pop(model, None)
    for probed in probes.values():
        probed.close()
    return timings, failed


def tune() -> tuple[Choice, str | None]:
    """Measure the candidates now and keep the fastest for this machine (`pegsearch tune`): once a
    process, so one that measured as it loaded the kernels (a machine not seen before) gives that
    measurement rather than making a second. Returns the choice and why it could not be kept
    (None when it was)."""
    if not _MEASURED:
        path, key = wisdom_file(), machine_key()
        with locked(path):
            _tune(path, key)
    return _MEASURED[0]


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
    kept = read_kept(path)
    kept[key] = choice.as_json()
    try:
        write_kept(path, kept)
        unkept = None
    except OSError as exc:  # unwritable: this process still uses what it measured
        unkept = f"{path} cannot be written ({exc.strerror or exc})"
    _MEASURED.append((choice, unkept))
    return choice


def chosen() -> Choice:
    """This machine's choice: the user's NUMBA_CPU_NAME, else the one kept for this machine
    (beside the user's cache, else in the package: a read-only install tuned by its
    administrator), else one measured now (once per machine: later processes read it)."""
    named = os.environ.get("NUMBA_CPU_NAME")
    if named and os.environ.get(CHOSEN) != named:
        if not known(named):
            raise UsageError(f"NUMBA_CPU_NAME={named}: LLVM knows no such CPU model here; unset it"
                             f" (pegsearch measures the fastest) or name one it knows, such as"
                             f" {llvm.get_host_cpu_name()} (this CPU's)")
        return Choice(cpu_model(), llvm.get_host_cpu_name(), named, USER)
    path, key = wisdom_file(), machine_key()
    kept, wrong = _kept(path, key)
    if kept is None and wrong is None and path != packaged_file():  # none yet: not a damaged one
        kept, _ = _kept(packaged_file(), key)
    if kept is None:
        with locked(path):  # another process may have measured while this one waited
            kept, wrong = _kept(path, key)
            if kept is None:
                again = f"{path} {wrong}: measuring the compile target again; " if wrong else ""
                compiling.say(f"{again}{COMPILING}")
                return _tune(path, key)
    return kept


def _kept(path: Path, key: str) -> tuple[Choice | None, str | None]:
    """The choice kept in `path` for `key`, if there is a whole one naming a model LLVM knows;
    else None and what is wrong with the file (None too when it holds no choice for this machine:
    a machine not seen before). A wrong one is measured again and replaced, never trusted."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    try:
        entry = json.loads(text).get(key)
    except (ValueError, AttributeError):
        return None, "is damaged (not a JSON object)"
    if entry is None:
        return None, None
    try:
        choice = Choice(**entry) if isinstance(entry, dict) else None
    except TypeError:
        choice = None
    if choice is None:
        return None, "holds this machine's choice in a shape this pegsearch does not read"
    if not known(choice.target):
        return None, f"names {choice.target!r}, a CPU model LLVM does not know here"
    return choice, None


def apply(choice: Choice) -> None:
    """Compile for `choice` from now on in this process and the processes it starts (numba reads
    its settings again when the environment changes, so the variable is set as well)."""
    os.environ["NUMBA_CPU_NAME"] = choice.target
    if choice.how != USER:
        os.environ[CHOSEN] = choice.target
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CPU_NAME = choice.target


def choose() -> Choice:
    """This process's choice, made (and applied) the first time it is asked: the kernel package
    asks before any kernel is compiled."""
    if not _CHOICE:
        _CHOICE.append(chosen())
        apply(_CHOICE[0])
    return _CHOICE[0]

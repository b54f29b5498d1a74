#!/usr/bin/env bash
# Run pegsearch's numba kernels on aarch64 (ARM64) on an x86_64 Debian 12 machine, under qemu-user
# emulation, with the aarch64 wheels PyPI has for numpy, numba, llvmlite, pyarrow and tqdm.
#
#   tests/helpers/aarch64.sh [ROOT] [-- COMMAND ...]
#
# ROOT (default /tmp/pegsearch-arm64) is an arm64 Debian bookworm root built here with debootstrap;
# it is reused when a previous run finished building it. With no COMMAND the script ends by printing
# the JSON of `pegsearch run triangle-5 --json` and `pegsearch run skippy-xl --json`, run inside
# ROOT; with one it runs COMMAND inside ROOT instead (e.g. `-- pegsearch run english-33 --json`,
# `-- bash`). With PEGSEARCH_COMPARE=/path/to/x86_64/pegsearch set, the same two searches are also
# run natively and the per-level state counts compared (exit status 1 if they differ).
#
# Needs root (debootstrap, chroot, mounts, binfmt_misc) and the network: it downloads from Debian's
# mirror (DEBIAN_MIRROR, default http://deb.debian.org/debian) and from PyPI only. Run it under
# `nice -n 19` when something else on the machine is being timed. Each step reports its seconds on
# stderr. Measured on a 2-core AMD EPYC VM at nice 19, from scratch: 7.5 min in all -- building ROOT
# 5.5 min (debootstrap's emulated second stage 3.3-3.7 of it), triangle-5 1.3 min (mostly numba
# compiling the kernels under qemu), skippy-xl 0.6 min; ROOT takes about 780 MB.
# PEGSEARCH_REQUIREMENTS overrides what is pip-installed for pegsearch's dependencies, e.g.
# "numpy==2.4.6 numba==0.68.1 llvmlite==0.50.0 pyarrow==26.0.1 tqdm==4.70.1" to match an x86 venv.
set -euo pipefail

ROOT=/tmp/pegsearch-arm64
if [[ $# -gt 0 && $1 != -- ]]; then ROOT=$1; shift; fi
if [[ ${1:-} == -- ]]; then shift; fi
ROOT=${ROOT%/}
COMMAND=("$@")
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STATE="$ROOT/.pegsearch-aarch64"   # markers of the steps already done in ROOT

say() { echo "aarch64.sh: $*" >&2; }
step_start() { STEP_NAME=$1; STEP_T0=$(date +%s%N); say "$1 ..."; }
step_end() { local ms=$(( ($(date +%s%N) - STEP_T0) / 1000000 )); say "$STEP_NAME: $((ms / 1000)).$(printf %03d $((ms % 1000))) s"; }

[[ $(id -u) -eq 0 ]] || { say "must run as root (debootstrap, chroot, mounts)"; exit 2; }
[[ $(uname -m) == x86_64 ]] || say "warning: written for an x86_64 host, this is $(uname -m)"

# 1. Host tools from Debian: qemu-user-static (a static qemu-aarch64, registered with binfmt_misc with
#    the F flag so it works inside a chroot without being copied there), binfmt-support (update-binfmts)
#    and debootstrap. Skipped when all are installed already.
if ! command -v debootstrap >/dev/null || ! command -v update-binfmts >/dev/null \
   || [[ ! -x /usr/bin/qemu-aarch64-static ]]; then
  step_start "apt-get install qemu-user-static binfmt-support debootstrap"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static binfmt-support debootstrap >&2
  step_end
fi

# 2. Let the kernel run aarch64 ELF files through qemu (binfmt_misc). debootstrap's second stage, dpkg's
#    maintainer scripts and pip's build subprocess all exec aarch64 binaries, so building ROOT needs
#    this. binfmt_misc may not be mounted in a container or VM without systemd: mount it. If it cannot
#    be had, an already-built ROOT can still be run (step 8 then puts qemu in front of the command).
BINFMT=/proc/sys/fs/binfmt_misc
binfmt_on() { [[ -r $BINFMT/qemu-aarch64 ]] && head -1 "$BINFMT/qemu-aarch64" | grep -q enabled; }
if ! binfmt_on; then
  [[ -e $BINFMT/register ]] || mount -t binfmt_misc binfmt_misc "$BINFMT" 2>/dev/null \
    || say "cannot mount binfmt_misc on $BINFMT"
  if [[ -e $BINFMT/qemu-aarch64 ]]; then echo 1 > "$BINFMT/qemu-aarch64" || true  # registered, disabled
  elif [[ -e $BINFMT/register ]]; then update-binfmts --enable qemu-aarch64 >&2 || true; fi
fi
if binfmt_on; then say "binfmt_misc: qemu-aarch64 $(grep flags "$BINFMT/qemu-aarch64")"
else say "binfmt_misc: qemu-aarch64 is not enabled (only an already-built ROOT can be run)"; fi

# The chroot's mounts: /proc (Python, numba and pip read it), /sys, /dev (/dev/null, /dev/shm for
# multiprocessing). Bind-mounted for the script's lifetime only and always unmounted at exit, so ROOT
# can be deleted with rm -rf afterwards.
MOUNTED=()
mount_chroot() {
  mountpoint -q "$ROOT/proc" || { mount -t proc proc "$ROOT/proc"; MOUNTED+=("$ROOT/proc"); }
  mountpoint -q "$ROOT/sys" || { mount -t sysfs sysfs "$ROOT/sys"; MOUNTED+=("$ROOT/sys"); }
  mountpoint -q "$ROOT/dev" || { mount --rbind /dev "$ROOT/dev"; mount --make-rslave "$ROOT/dev"; MOUNTED+=("$ROOT/dev"); }
}
unmount_chroot() {
  local m
  for m in "${MOUNTED[@]}"; do umount -R "$m" 2>/dev/null || umount -R -l "$m" || true; done
  MOUNTED=()
}
trap unmount_chroot EXIT

# Commands inside ROOT get a clean environment: the host's PIP_*, SSL_CERT_FILE, find-links and the
# like name host paths (and the host's local wheel folders are x86_64). pip gets PyPI only, and the
# host's CA bundle (copied in below), so that a TLS-inspecting proxy the host trusts works in ROOT too.
# Proxy settings are passed through.
inroot() {
  local envs=(PATH=/opt/venv/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb
              PIP_INDEX_URL=https://pypi.org/simple PIP_CERT=/etc/ssl/certs/host-ca-bundle.crt
              PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1)
  local v
  for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
    [[ -n ${!v:-} ]] && envs+=("$v=${!v}")
  done
  if binfmt_on; then
    env -i "${envs[@]}" chroot "$ROOT" "$@"
  else  # no binfmt_misc: qemu runs the first aarch64 program; anything it execs fails (ENOEXEC)
    cp -u /usr/bin/qemu-aarch64-static "$ROOT/usr/bin/qemu-aarch64-static"
    local prog=$1 line; shift
    if [[ $prog != /* ]]; then
      line=$(PATH=$ROOT/opt/venv/bin:$ROOT/usr/bin:$ROOT/bin command -v "$prog") || { say "$prog: not found in ROOT"; return 127; }
      prog=${line#"$ROOT"}
    fi
    if [[ $(head -c 2 "$ROOT$prog") == '#!' ]]; then  # a script (pip, pegsearch): qemu runs its interpreter
      read -r line < "$ROOT$prog"; line=${line#\#!}
      # shellcheck disable=SC2086  # "#!/usr/bin/env python3" is two words
      set -- $line "$prog" "$@"; prog=$1; shift
    fi
    env -i "${envs[@]}" chroot "$ROOT" /usr/bin/qemu-aarch64-static "$prog" "$@"
  fi
}

# 3. An arm64 Debian bookworm root with Python 3.11 (the Python numba's cp311 aarch64 wheels are for).
#    minbase + python3, python3-venv (ensurepip's wheels) and ca-certificates is all that is needed;
#    --include puts them in during debootstrap, so no separate apt-get inside the chroot. The first
#    stage (downloading, unpacking) runs natively; the second (dpkg configuring every package) runs
#    emulated and is the slow part. A root left half-built by an interrupted run is deleted and redone.
if [[ ! -e $STATE/debootstrap ]]; then
  binfmt_on || { say "building $ROOT needs binfmt_misc (see above)"; exit 1; }
  if [[ -e $ROOT ]]; then
    if findmnt -rno TARGET | grep -q "^$ROOT/"; then say "$ROOT has mounts under it; not deleting"; exit 1; fi
    say "$ROOT is incomplete: deleting it"; rm -rf "$ROOT"
  fi
  step_start "debootstrap first stage (download + unpack, native)"
  debootstrap --arch=arm64 --foreign --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$ROOT" "$MIRROR" >&2
  step_end
  step_start "debootstrap second stage (configure, emulated)"
  chroot "$ROOT" /debootstrap/debootstrap --second-stage >&2
  rm -f "$ROOT"/var/cache/apt/archives/*.deb  # the downloaded packages (~40 MB), no longer needed
  step_end
  mkdir -p "$STATE"; touch "$STATE/debootstrap"
fi

mount_chroot
# Name resolution and the host's trusted CAs, refreshed every run (cheap; the host's may change).
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
cp -L /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/host-ca-bundle.crt"

# 4. A venv with pegsearch's dependencies as aarch64 wheels from PyPI. --only-binary=:all: makes a
#    missing aarch64 wheel an error rather than a source build (which would take hours under qemu).
#    The requirements are pegsearch's own [project] dependencies unless PEGSEARCH_REQUIREMENTS is set.
REQUIREMENTS=${PEGSEARCH_REQUIREMENTS:-}
if [[ -z $REQUIREMENTS ]]; then
  REQUIREMENTS=$(sed -n '/^dependencies = \[/,/^\]/p' "$REPO/pyproject.toml" | grep -o '"[^"]*"' | tr -d '"' | xargs)
fi
if [[ ! -e $STATE/venv || $(cat "$STATE/venv") != "$REQUIREMENTS" ]]; then
  step_start "python3 -m venv (emulated)"
  [[ -x $ROOT/opt/venv/bin/python ]] || inroot /usr/bin/python3 -m venv /opt/venv
  step_end
  step_start "pip install --only-binary=:all: $REQUIREMENTS"
  # shellcheck disable=SC2086  # the requirements are words
  inroot /opt/venv/bin/pip install --only-binary=:all: $REQUIREMENTS >&2
  step_end
  echo "$REQUIREMENTS" > "$STATE/venv"
  rm -f "$STATE/pegsearch"
fi

# 5. pegsearch itself, from the repository this script is in: `git archive HEAD` (committed files only)
#    when it is a git checkout, else its pyproject.toml, README.md and src/. --no-deps: step 4 installed
#    them; build isolation fetches setuptools from PyPI. Reinstalled when HEAD changes.
if git -C "$REPO" rev-parse HEAD >/dev/null 2>&1; then
  VERSION=$(git -C "$REPO" rev-parse HEAD)
else
  VERSION=tree-$(date +%s)  # no commit to compare with: always reinstall
fi
if [[ ! -e $STATE/pegsearch || $(cat "$STATE/pegsearch") != "$VERSION" ]]; then
  step_start "pip install pegsearch ($VERSION)"
  rm -rf "$ROOT/opt/pegsearch-src"; mkdir -p "$ROOT/opt/pegsearch-src"
  if [[ $VERSION != tree-* ]]; then
    git -C "$REPO" archive HEAD | tar -x -C "$ROOT/opt/pegsearch-src"
  else
    tar -c -C "$REPO" pyproject.toml README.md src | tar -x -C "$ROOT/opt/pegsearch-src"
  fi
  inroot /opt/venv/bin/pip install --no-deps --force-reinstall /opt/pegsearch-src >&2
  step_end
  echo "$VERSION" > "$STATE/pegsearch"
fi

# 6. What the emulated machine looks like to numba: LLVM's host CPU (under qemu-user it cannot read an
#    aarch64 /proc/cpuinfo, so expect "generic") and the wheels' versions.
inroot /opt/venv/bin/python -c '
import platform, sys, llvmlite.binding as ll, numba, numpy, pyarrow
ll.initialize_native_target()
print(f"inside: {platform.machine()} Python {sys.version.split()[0]}, numba {numba.__version__}, "
      f"llvmlite {ll.llvm_version_info}, numpy {numpy.__version__}, pyarrow {pyarrow.__version__}; "
      f"LLVM host CPU {ll.get_host_cpu_name()!r} features {ll.get_host_cpu_features().flatten()!r}")
' >&2
du -sxh "$ROOT" 2>/dev/null | sed 's/^/aarch64.sh: disk used by ROOT: /' >&2

# 7. A given command runs inside ROOT and the script ends with its status.
if [[ ${#COMMAND[@]} -gt 0 ]]; then
  set +e; inroot "${COMMAND[@]}"; status=$?; unmount_chroot; exit $status
fi

# 8. The two searches, each into a fresh run folder inside ROOT. The first one compiles the numba
#    kernels under emulation (cached in the package's __pycache__, so later runs skip that).
status=0
for board in triangle-5 skippy-xl; do
  rm -rf "$ROOT/tmp/pegsearch-runs/$board"; mkdir -p "$ROOT/tmp/pegsearch-runs"
  step_start "pegsearch run $board (aarch64, emulated)"
  inroot /opt/venv/bin/pegsearch run "$board" --out "/tmp/pegsearch-runs/$board" --json \
    > "$ROOT/tmp/pegsearch-runs/$board.json"
  step_end
  cat "$ROOT/tmp/pegsearch-runs/$board.json"
  if [[ -n ${PEGSEARCH_COMPARE:-} ]]; then
    # The same search natively, and its per-level counts compared with the aarch64 ones (by the root's
    # python3: the host may not have one).
    native=$(mktemp -d)
    "$PEGSEARCH_COMPARE" run "$board" --out "$native/run" --json > "$ROOT/tmp/pegsearch-runs/$board.native.json"
    rm -rf "$native"
    inroot /usr/bin/python3 -c '
import json, sys
a, b = (json.load(open(f"/tmp/pegsearch-runs/{sys.argv[1]}{s}.json")) for s in ("", ".native"))
sa, sb = ([(l["level"], l["pegs"], l["states"]) for l in d["levels"]] for d in (a, b))
same = sa == sb and a["verdict"] == b["verdict"]
print(f"{sys.argv[1]}: aarch64 {[s for _, _, s in sa]} vs x86_64 {[s for _, _, s in sb]}:",
      "equal" if same else "DIFFERENT", file=sys.stderr)
sys.exit(0 if same else 1)' "$board" || status=1
  fi
done
exit $status

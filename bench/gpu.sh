#!/bin/bash
# The GPU engine measured on one NVIDIA GPU (an H100 or H200 with 16 cores beside it), in one call.
# Issue 57's measurements, then their table (bench/gpu_table.py).
#
#   bash bench/gpu.sh            (from anywhere; runs from the repository's root)
#
# Stages, in this order, each under what is left of BUDGET seconds (default 540: one 10-minute
# device call with room to copy the results back), a stage that has not begun by then said skipped:
#   machine   the GPU, driver, CPU, memory and package versions;
#   bandwidth the card's device-to-device copy rate (GB/s, bytes read and written);
#   warm      triangle-5 on the GPU, so no timed run pays for compiling the kernels (the CPU's for
#             this CPU, the GPU's for this GPU: both cached on disk);
#   t8-gpu    triangle-8 whole on the GPU (--threads 16 for the host's share);
#   t8-cpu    triangle-8 whole on the same machine's 16 cores (the local engine, --threads 16);
#   verify    the two triangle-8 runs compared level by level (`pegsearch verify --against`);
#   t9-gpu    triangle-9 to level 15 on the GPU, --keep last (about 20 GB of disk at level 15), resumed
#             when WORK already holds it (a second call on a warm machine goes on where it stopped);
#   estimate  triangle-9 whole on this machine, the GPU's seconds calibrated on the t9-gpu run's
#             levels (`bench/triangle9_estimate.py -- --gpu RUN`: the CPU's from the measured run);
#   tests     tests/engines/test_gpu.py on the GPU (no simulator: the kernels compiled for it and
#             checked against the local engine, digests included), last: the measurements are
#             checked too (triangle-8's runs against each other, triangle-9's level 15's digest).
# STAGES="t9-gpu table" (say) runs some alone. Runs and logs live in WORK (default
# /tmp/pegsearch-gpu); the table, the stages' logs in one file and the three runs' manifests (five
# files: the device tool brings back at most eight) are copied to $OUT, or ./gpu-results.
# Runs `python -m pegsearch` from src/ with python3 (PYTHON chooses another): it needs numpy, numba,
# numba-cuda, pyarrow, scipy, tqdm and pytest, which the device machines' image holds.
set -uo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
budget=${BUDGET:-540}
work=${WORK:-/tmp/pegsearch-gpu}
results=${OUT:-gpu-results}
stages=${STAGES:-machine bandwidth warm t8-gpu t8-cpu verify t9-gpu estimate tests table}
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
unset NUMBA_ENABLE_CUDASIM
logs="$work/logs"
mkdir -p "$logs" "$results"
began=$(date +%s)
walls="$logs/walls.txt"
: > "$walls"

left() { echo $(( budget - ($(date +%s) - began) )); }

# stage NAME COMMAND...: run it under what is left of the budget, its output to NAME.log and here.
stage() {
  local name=$1 seconds
  shift
  [[ " $stages " == *" $name "* ]] || return 0
  seconds=$(left)
  if (( seconds < 20 )); then
    echo "== $name: skipped ($seconds s of the budget left)" | tee -a "$walls"
    return 0
  fi
  echo "== $name (at most $seconds s)"
  local start=$EPOCHREALTIME
  if declare -F "$1" >/dev/null; then  # a function of this script (timeout runs programs only)
    "$@" 2>&1 | tee "$logs/$name.log"
  else
    timeout --signal=INT "$seconds" "$@" 2>&1 | tee "$logs/$name.log"
  fi
  local code=${PIPESTATUS[0]}
  echo "== $name: exit $code, $(awk "BEGIN {printf \"%.1f\", $EPOCHREALTIME - $start}") s wall" \
    | tee -a "$walls"
}

machine() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv
  lscpu | sed -n 's/^Model name: *//p' | head -1
  echo "$(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB, $(df -h "$work" | awk 'NR==2 {print $4}') free in $work"
  "$python" -c 'import sys, numba, numpy, pyarrow
from importlib.metadata import version
from numba import cuda
print("python", sys.version.split()[0], "numba", numba.__version__, "numba-cuda", version("numba-cuda"),
      "numpy", numpy.__version__, "pyarrow", pyarrow.__version__, "cuda available", cuda.is_available())'
}

bandwidth() {
  "$python" -c 'import time
import numpy as np
from numba import cuda
a = cuda.device_array(1 << 29, dtype=np.uint64)  # 4 GiB
b = cuda.device_array_like(a)
b.copy_to_device(a); cuda.synchronize()
start = time.perf_counter()
for _ in range(10):
    b.copy_to_device(a)
cuda.synchronize()
print(f"{2 * 10 * a.nbytes / (time.perf_counter() - start) / 1e9:.0f}")' | tee "$work/bandwidth"
}

fresh() { rm -rf "$1"; }

stage machine machine
stage bandwidth bandwidth
fresh "$work/warm"
stage warm "$python" -m pegsearch run triangle-5 --engine gpu --reduce bitmap --out "$work/warm"
[[ " $stages " == *" t8-gpu "* ]] && fresh "$work/t8-gpu"
stage t8-gpu "$python" -m pegsearch run triangle-8 --engine gpu --threads 16 --memory 32G --out "$work/t8-gpu"
[[ " $stages " == *" t8-cpu "* ]] && fresh "$work/t8-cpu"
stage t8-cpu "$python" -m pegsearch run triangle-8 --threads 16 --out "$work/t8-cpu"
stage verify "$python" -m pegsearch verify "$work/t8-gpu" --against "$work/t8-cpu"
resume=()
[ -f "$work/t9-gpu/manifest.json" ] && resume=(--resume)
stage t9-gpu "$python" -m pegsearch run triangle-9 --engine gpu --threads 16 --memory 48G --keep last \
  --until 15 --out "$work/t9-gpu" "${resume[@]}"
stage estimate "$python" bench/triangle9_estimate.py -- --gpu "$work/t9-gpu" --cores 16 --memory 96G \
  --keep last
stage tests "$python" -m pytest -q -x -p no:cacheprovider tests/engines/test_gpu.py

for run in t8-gpu t8-cpu t9-gpu; do
  [ -f "$work/$run/manifest.json" ] && cp "$work/$run/manifest.json" "$results/$run.manifest.json"
done
for log in "$logs"/*.log; do echo "==== $log"; cat "$log"; done > "$results/stages.log" 2>/dev/null
if [[ " $stages " == *" table "* ]]; then
  echo "== table"
  { "$python" bench/gpu_table.py "$work/t8-gpu" "$work/t8-cpu" "$work/t9-gpu" \
      "$(cat "$work/bandwidth" 2>/dev/null)"
    echo; echo "Stages (wall seconds, start-up and compiling included):"; cat "$walls"; } \
    | tee "$results/table.md"
fi

#!/bin/bash
# How the local engine scales with threads: one level of a board made at 1, 2, 4, 8 and 16 threads.
# Each a `pegsearch run --threads N`, in one call, with the speed-up and efficiency against 1 thread.
#
#   bench/scaling.sh [BOARD] [LEVEL] [WORK] [THREADS...]
#
# Defaults: triangle-8, level 15 (546 M positions; a bitmap plane of about 230 MB a thread, so
# 16 threads' planes still fit the default 4 GiB memory bound and the level is made in one step at
# every count; PEGSEARCH_SCALING_MEMORY sets --memory), WORK=/tmp/scaling, threads 1 2 4 8 16. Makes BOARD to level LEVEL - 1
# once in WORK/base (kept for the next call), then for each thread count copies it and makes LEVEL
# alone; the level's own seconds (the manifest's, without start-up) are compared, beside its CPU
# seconds, how it was made (a plane a thread, one shared bitmap, or routed) and its positions. Threads beyond
# the machine's cores are run too (they measure oversubscription, not scaling): read the table
# against `nproc`. Runs `python -m pegsearch` with python3 (set PYTHON to choose another).
set -euo pipefail
board=${1:-triangle-8} level=${2:-15} work=${3:-/tmp/scaling}
shift $(( $# < 3 ? $# : 3 ))
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2 4 8 16)
python=${PYTHON:-python3}
memory=()
[ -n "${PEGSEARCH_SCALING_MEMORY:-}" ] && memory=(--memory "$PEGSEARCH_SCALING_MEMORY")
mkdir -p "$work"
if [ ! -f "$work/base/manifest.json" ]; then
  "$python" -m pegsearch run "$board" --out "$work/base" --until $((level - 1)) > /dev/null \
    2> "$work/base.err" || { tail -2 "$work/base.err" >&2; exit 1; }
fi
echo "$board level $level on $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -1))"
printf '%7s %10s %8s %10s %10s %s\n' threads seconds speed-up efficiency cpu-s made
one=""
for n in "${threads[@]}"; do
  rm -rf "$work/copy"
  cp -r "$work/base" "$work/copy"
  "$python" -m pegsearch run "$board" --out "$work/copy" --resume --until "$level" --threads "$n" \
    "${memory[@]}" > /dev/null 2> "$work/threads-$n.err" || { tail -2 "$work/threads-$n.err" >&2; exit 1; }
  read -r seconds cpu made < <("$python" -c '
import json, sys
record = json.load(open(sys.argv[1]))["levels"][int(sys.argv[2])]
made = ("shared bitmap" if record.get("shared") else "%s planes" % record["planes"] if "planes" in record
        else "routed")
print(record["seconds"], record.get("cpu_seconds", "-"), "%s, %d pass(es), %d positions" % (made, record.get("passes", 1), record["states"]))' \
    "$work/copy/manifest.json" "$level")
  one=${one:-$seconds}
  awk -v n="$n" -v s="$seconds" -v one="$one" -v c="$cpu" -v m="$made" \
    'BEGIN { printf "%7d %10.2f %8.2fx %9.0f%% %10s %s\n", n, s, one / s, 100 * one / s / n, c, m }'
done
rm -rf "$work/copy"

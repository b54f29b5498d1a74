#!/bin/bash
# A large search on the local engine one level a stage: each level's time, peak memory and disk.
# The showcase runs (triangle-9, the 41- and 45-hole boards) are made this way.
#
#   bench/stages.sh BOARD FOLDER FIRST LAST [RUN-OPTIONS...]
#
# Makes levels FIRST to LAST of BOARD's run in FOLDER (`pegsearch run BOARD --out FOLDER --until K`,
# resumed for every K after the first stage), each stage in its own process under /usr/bin/time, and
# appends a line a level to FOLDER.levels.txt: level, states, seconds, the peak resident memory of
# the process that made it, the level's stored bytes and the disk the run takes after it. A stage
# that fails (a disk refused, an interrupt) stops the script; run it again from that level to
# continue. `pegsearch` must be on PATH.
set -euo pipefail
board=$1 folder=$2 first=$3 last=$4
shift 4
log=$folder.levels.txt
for level in $(seq "$first" "$last"); do
  resume=()
  [ -f "$folder/manifest.json" ] && resume=(--resume)
  if ! /usr/bin/time -f "%M" pegsearch run "$board" --out "$folder" --until "$level" "${resume[@]}" \
      "$@" > "$folder.stage-$level.txt" 2> "$folder.stage-$level.err"; then
    tail -3 "$folder.stage-$level.err" >&2
    exit 1
  fi
  peak=$(tail -1 "$folder.stage-$level.err")  # /usr/bin/time's line: peak resident KiB
  python3 - "$folder" "$level" "$peak" "$(du -sb "$folder" | cut -f1)" >> "$log" <<'EOF'
import json, sys
folder, level, peak_kb, disk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
record = json.load(open(f"{folder}/manifest.json"))["levels"][level]
stored = sum(f["bytes"] for f in record["files"])
print(f"level {level:3} states {record['states']:>15,} {record['seconds']:9.1f} s"
      f"  peak {peak_kb / 2**20:6.2f} GiB  stored {stored / 1e9:7.2f} GB"
      f"  run {disk / 1e9:7.2f} GB  {record.get('reduce', '')}")
EOF
  tail -1 "$log"
done

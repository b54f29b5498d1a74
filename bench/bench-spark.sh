#!/bin/bash
# A board's search on the local engine and on Spark local[2], alternated, side by side on one machine.
# Its figures: triangle-8 and triangle-9 in cluster/spark.md.
#
#   bench/bench-spark.sh BOARD UNTIL ROUNDS [FOLDER]           fresh runs to level UNTIL
#   RESUME=1 bench/bench-spark.sh BOARD UNTIL ROUNDS [FOLDER]  the same runs resumed to UNTIL
#
# Extra `pegsearch run` options for both engines go in OPTIONS (e.g. OPTIONS="--memory 8G").
# Runs go to FOLDER (default /tmp/pegsearch-bench-BOARD: triangle-8 takes about 6 GB a run to
# level 16), one round
# being a local run then a Spark run; the table printed at the end gives each level's seconds
# from every run's manifest and the ratio of the medians. `pegsearch` must be on PATH.
set -euo pipefail
board=$1 until_level=$2 rounds=$3 folder=${4:-/tmp/pegsearch-bench-$1}
mkdir -p "$folder"
cd "$folder"
for round in $(seq 1 "$rounds"); do
  for engine in local spark; do
    out=$engine-$round
    options=(--out "$out" --until "$until_level" ${OPTIONS:-})
    [ "$engine" = spark ] && options+=(--engine spark --master 'local[2]')
    if [ "${RESUME:-}" ]; then options+=(--resume); else rm -rf "$out"; fi
    /usr/bin/time -f "$out to level $until_level: %e s wall" \
      pegsearch run "$board" "${options[@]}" >> "$out.txt" 2>&1 || { tail -3 "$out.txt"; exit 1; }
    tail -1 "$out.txt"
  done
done
python3 - "$rounds" <<'EOF'
import json, statistics, sys
rounds = int(sys.argv[1])
runs = {e: [json.load(open(f"{e}-{r}/manifest.json"))["levels"] for r in range(1, rounds + 1)]
        for e in ("local", "spark")}
print("level  parents  local s  spark s  spark/local (medians)")
for k in range(1, len(runs["local"][0])):
    local = [levels[k]["seconds"] for levels in runs["local"]]
    spark = [levels[k]["seconds"] for levels in runs["spark"]]
    parents = runs["local"][0][k - 1]["states"]
    ratio = statistics.median(spark) / max(statistics.median(local), 1e-9)
    print(f"{k:5} {parents:12,} {local} {spark} {ratio:.2f}")
EOF

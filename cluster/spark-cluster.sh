#!/usr/bin/env bash
# A Spark standalone cluster on this machine: one master on 127.0.0.1 and N workers, worker K
# bound to an address of its own, 127.0.0.(K+1), with the executors it starts.
#
#   cluster/spark-cluster.sh start [N]   start a master and N workers (default 2); prints the URL
#   cluster/spark-cluster.sh status      which daemons run, and the master URL
#   cluster/spark-cluster.sh url         the master URL alone (for --master / spark-submit)
#   cluster/spark-cluster.sh stop        stop the workers, then the master, by their PIDs
#   cluster/spark-cluster.sh kill K      a fault drill: SIGKILL worker K and its executors (their
#                                        shuffle files go with them); freeze K / thaw K: SIGSTOP
#                                        and SIGCONT them (a worker that stops answering)
#
# The pip pyspark package has no sbin/start-master.sh, so the daemons are started with spark-class.
# PIDs, logs and worker folders live under PEGSEARCH_SPARK_DIR (default /tmp/pegsearch-spark-$USER),
# never inside site-packages. Settings, all optional:
#   SPARK_MASTER_PORT (7077), SPARK_MASTER_WEBUI_PORT (8080), SPARK_WORKER_CORES (1),
#   SPARK_WORKER_MEMORY (2g), SPARK_CONF_DIR (cluster/spark-conf), SPARK_CLASS (spark-class on PATH).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
state="${PEGSEARCH_SPARK_DIR:-${TMPDIR:-/tmp}/pegsearch-spark-$(id -un)}"
port="${SPARK_MASTER_PORT:-7077}"
ui_port="${SPARK_MASTER_WEBUI_PORT:-8080}"
cores="${SPARK_WORKER_CORES:-1}"
memory="${SPARK_WORKER_MEMORY:-2g}"
wait_seconds=60

export SPARK_CONF_DIR="${SPARK_CONF_DIR:-$here/spark-conf}"
export SPARK_LOG_DIR="$state/logs" SPARK_WORKER_DIR="$state/work" SPARK_PID_DIR="$state/pids"
# The daemons read these themselves too; unset, they would take Spark's defaults instead of ours.
unset SPARK_MASTER_HOST SPARK_WORKER_PORT SPARK_WORKER_WEBUI_PORT

die() { echo "spark-cluster: $*" >&2; exit 1; }

alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# Start a daemon in the background; spark-class ends in `exec java`, so $! is the JVM's PID.
launch() {
    local name="$1"; shift
    nohup "$spark_class" "$@" >"$SPARK_LOG_DIR/$name.out" 2>&1 </dev/null &
    echo $! >"$SPARK_PID_DIR/$name.pid"
}

# Wait until `grep -c PATTERN FILE` reaches COUNT, or fail showing the log.
await() {
    local file="$1" pattern="$2" count="$3" what="$4" pid_file="$5"
    for _ in $(seq $((wait_seconds * 5))); do
        if (( $(grep -c "$pattern" "$file" 2>/dev/null || true) >= count )); then return 0; fi
        alive "$pid_file" || { tail -n 20 "$file" >&2; die "$what exited; log: $file"; }
        sleep 0.2
    done
    tail -n 20 "$file" >&2
    die "$what not ready after $wait_seconds s; log: $file (stop with: $0 stop)"
}

start() {
    local workers="${1:-2}"
    [[ "$workers" =~ ^[0-9]+$ ]] || die "start wants a number of workers, not '$workers'"
    spark_class="${SPARK_CLASS:-$(command -v spark-class || true)}"
    [[ -x "$spark_class" ]] || die "spark-class not found: activate the environment with pyspark"
    alive "$SPARK_PID_DIR/master.pid" && die "a cluster already runs from $state ($0 stop first)"
    rm -rf "$SPARK_LOG_DIR" "$SPARK_WORKER_DIR" "$SPARK_PID_DIR"
    mkdir -p "$SPARK_LOG_DIR" "$SPARK_WORKER_DIR" "$SPARK_PID_DIR"
    local url="spark://127.0.0.1:$port"
    launch master org.apache.spark.deploy.master.Master \
        --host 127.0.0.1 --port "$port" --webui-port "$ui_port"
    await "$SPARK_LOG_DIR/master.out" "elected leader" 1 master "$SPARK_PID_DIR/master.pid"
    for i in $(seq "$workers"); do
        # spark-env.sh keeps an address given here: the worker's executors bind to it too.
        SPARK_LOCAL_IP="127.0.0.$((i + 1))" launch "worker-$i" org.apache.spark.deploy.worker.Worker \
            --host "127.0.0.$((i + 1))" \
            --cores "$cores" --memory "$memory" --work-dir "$SPARK_WORKER_DIR/worker-$i" \
            --webui-port 0 "$url"
    done
    await "$SPARK_LOG_DIR/master.out" "Registering worker" "$workers" "a worker" \
        "$SPARK_PID_DIR/master.pid"
    echo "$url" >"$state/master-url"
    echo "$url"
}

stop() {
    local pid_file pid
    # Workers first (each stops its executors), then the master.
    for pid_file in "$SPARK_PID_DIR"/worker-*.pid "$SPARK_PID_DIR"/master.pid; do
        [[ -f "$pid_file" ]] || continue
        pid="$(cat "$pid_file")"
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid"
            for _ in $(seq 75); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
            kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
        fi
        rm -f "$pid_file"
    done
    rm -f "$state/master-url"
}

# Worker K's processes: its JVM and the executors it started (working in its folder).
worker_processes() {
    local worker="$1" pid_file="$SPARK_PID_DIR/worker-$1.pid" entry
    [[ "$worker" =~ ^[0-9]+$ && -f "$pid_file" ]] || die "no worker $worker under $state"
    cat "$pid_file"
    for entry in /proc/[0-9]*; do
        [[ "$(readlink "$entry/cwd" 2>/dev/null)" == "$SPARK_WORKER_DIR/worker-$worker"/* ]] \
            && echo "${entry#/proc/}"
    done
    return 0
}

# Send SIGNAL to every process of worker K.
drill() {
    local signal="$1" worker="$2"
    # shellcheck disable=SC2046  # a list of PIDs
    kill "-$signal" $(worker_processes "$worker") 2>/dev/null || true
}

status() {
    local pid_file found=1
    for pid_file in "$SPARK_PID_DIR"/master.pid "$SPARK_PID_DIR"/worker-*.pid; do
        [[ -f "$pid_file" ]] || continue
        found=0
        if alive "$pid_file"; then state_word=running; else state_word=dead; fi
        echo "$(basename "$pid_file" .pid) pid $(cat "$pid_file") $state_word"
    done
    (( found == 0 )) || { echo "no cluster under $state"; return 1; }
    [[ -f "$state/master-url" ]] && echo "master $(cat "$state/master-url")"
    return 0
}

case "${1:-}" in
    start) start "${2:-2}" ;;
    stop) stop ;;
    status) status ;;
    kill) drill KILL "${2:-}" ;;
    freeze) drill STOP "${2:-}" ;;
    thaw) drill CONT "${2:-}" ;;
    url) [[ -f "$state/master-url" ]] && cat "$state/master-url" || die "no cluster under $state" ;;
    *) die "usage: $0 start [N] | stop | status | url | kill K | freeze K | thaw K" ;;
esac

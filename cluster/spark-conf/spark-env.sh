# Sourced by spark-submit, spark-class, masters and workers when SPARK_CONF_DIR points here.
# Everything on this machine talks over 127.0.0.1; the daemons themselves need little memory.
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
export SPARK_DAEMON_MEMORY="${SPARK_DAEMON_MEMORY:-512m}"

# Sourced by spark-submit, spark-class, masters and workers when SPARK_CONF_DIR points here.
# Everything on this machine talks over 127.0.0.1; the daemons themselves need little memory.
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
export SPARK_DAEMON_MEMORY="${SPARK_DAEMON_MEMORY:-512m}"
# The master and workers keep books and pass messages, never hot loops: without the optimising
# compiler and with one GC thread a master and 2 workers start in 11 s on 16-17 s of CPU, against
# 19-21 s on 36-37 (AMD EPYC, 2 cores, quiet). Executors keep Spark's defaults.
export SPARK_DAEMON_JAVA_OPTS="${SPARK_DAEMON_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"

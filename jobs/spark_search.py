"""spark-submit entry point: the whole search of one board on a Spark cluster.

    spark-submit --master spark://127.0.0.1:7077 jobs/spark_search.py BOARD --out RUN
                 [--start HOLE ...] [--raw] [--resume] [--json]

It is `pegsearch run BOARD --engine spark` with the master taken from spark-submit, so the same
driver writes level 0, commits each level, applies the stop rule and resumes, and `pegsearch counts
RUN` reads the result. --out is a folder every node of the cluster sees at the same path, or a
store URI every node reaches (s3://BUCKET/PATH, gs://..., hdfs://...).
"""

import sys

from pegsearch.cli.main import main

if __name__ == "__main__":
    sys.exit(main(["run", *sys.argv[1:], "--engine", "spark"]))

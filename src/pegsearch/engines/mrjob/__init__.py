"""The mrjob engine: the driver side (`engine`), the MRJob each level runs (`level_job`), and the
shim that lets mrjob 0.7.4 import on Python 3.13 (`compat`)."""

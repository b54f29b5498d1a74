"""The Spark engine: the session (starting Spark, quietly), the probe of the run's store, and the
level job whose tasks move blocks (see `engine`)."""

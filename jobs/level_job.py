"""Run one level of the search as an MRJob from the command line, e.g. on a Hadoop edge node:

    python jobs/level_job.py -r hadoop --search search.json [--carry paths|moves] LEVEL_FILES

The job is `pegsearch.engines.mrjob.level_job.LevelJob`, installed with the package; mrjob ships that module's
source file (not this launcher) to the tasks, so every node needs pegsearch installed. `pegsearch run
--engine mrjob` does not use this file. See cluster/mrjob.md.
"""

from pegsearch.engines.mrjob.level_job import LevelJob

if __name__ == "__main__":
    LevelJob.run()

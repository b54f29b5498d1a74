"""Ship a whole search as a record (answers.records): the record of a complete run, written to
src/pegsearch/answers/records/BOARD-START.json.

    python bench/make_record.py RUN --recorded "2026-12-02, AMD EPYC, 2 cores"

RUN is a complete run from a single vacancy (made with `--keep last` if its levels outgrow the
disk: the record needs only the manifest and the last level). Not a test: records are made once,
from searches that take hours, and checked by tests/answers/test_records.py on their first levels.
"""

from __future__ import annotations

import argparse

from pegsearch.answers.records import record_of, write_record
from pegsearch.store import Run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a complete run")
    parser.add_argument("--recorded", required=True, help="when and on what machine it was made")
    args = parser.parse_args()
    print(write_record(record_of(Run.open(args.run), args.recorded)))


if __name__ == "__main__":
    main()

"""What the command line's parser (cli.main) and its handlers (cli.commands) both need, below
both, so neither imports the other for it."""

from pathlib import Path

# Where runs go, are listed and are resumed from when no folder is named: `runs/` here.
RUNS = Path("runs")

# Boards with more holes than this are surveyed by the solver unless asked otherwise: the largest
# searched whole here has 37.
SURVEY_WHOLE = 40

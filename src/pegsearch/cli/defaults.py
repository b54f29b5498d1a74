"""What the command line's parser (cli.main) and its handlers (cli.commands) both need, below
both, so neither imports the other for it."""

from pathlib import Path

# Where runs go, are listed and are resumed from when no folder is named: `runs/` here.
RUNS = Path("runs")

"""`python -m pegsearch`: the same command as `pegsearch`."""

import sys

from pegsearch.cli.launch import main

sys.exit(main())

"""`python -m sim.cli`: the `hexsim` command."""

import sys

from sim.cli.commands import main

sys.exit(main())

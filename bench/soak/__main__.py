"""`python -m bench.soak`: see bench/soak/__init__.py and bench/soak/cli.py."""

import sys

from bench.soak.cli import main

sys.exit(main())

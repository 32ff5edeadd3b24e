"""`python -m react_agent.eval`: see react_agent.eval.cli."""

import sys

from react_agent.eval.cli import main

sys.exit(main())

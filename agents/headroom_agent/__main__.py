"""``python -m headroom_agent`` (and the zipapp) run the command line."""

import sys

from headroom_agent.cli import main

sys.exit(main())

#!/usr/bin/env python
"""Django's command-line utility for Headroom.

Beside ``make run`` it uses the environment ``make run`` made: variables that
are not set come from ``var/run.env`` (``$HEADROOM_VAR_DIR/run.env``), so
``python manage.py create_agent_token --project demo`` finds the embedded
database and the secret key. A set variable always wins; without the file
(production, containers) nothing changes.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    from webapp.launcher import load_run_env

    load_run_env(os.environ)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

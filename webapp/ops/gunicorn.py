"""Gunicorn settings of the web role: ``gunicorn -c python:webapp.ops.gunicorn``.

Only logging is set here (the bind address, workers and timeout are on the
command line in ``docker/entrypoint.sh``), with share-link tokens cut from
every line by ``RedactingLogger``. With ``LOG_FORMAT=json`` gunicorn's
own error and access logs use the same one-object-per-line formatter as
Django, so every line the web container prints is JSON. Gunicorn reads this
module before Django is set up, hence ``webapp.env`` and not the settings.
"""

from __future__ import annotations

from typing import Any

from gunicorn import glogging  # type: ignore[import-untyped]  # gunicorn ships no type hints

from webapp.env import env_choice
from webapp.ops.logs import formatter_config
from webapp.ops.redact import ShareTokenFilter

loglevel = env_choice("LOG_LEVEL", "info", ("debug", "info", "warning", "error"))

logconfig_dict: dict[str, Any] = {}
if env_choice("LOG_FORMAT", "text", ("text", "json")) == "json":
    # propagate=False: once Django configures the root logger in a worker
    # process, propagating would print each gunicorn line twice.
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": formatter_config("json")},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"},
            "stdout": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"},
        },
        "root": {"level": loglevel.upper(), "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": loglevel.upper(), "handlers": ["stderr"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["stdout"], "propagate": False},
        },
    }


class RedactingLogger(glogging.Logger):  # type: ignore[misc]
    """Gunicorn's logger with share-link tokens cut from access and error lines (webapp/ops/redact.py)."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            if not any(isinstance(f, ShareTokenFilter) for f in log.filters):
                log.addFilter(ShareTokenFilter())


logger_class = RedactingLogger

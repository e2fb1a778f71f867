"""One JSON object per log line (``LOG_FORMAT=json``), for log shippers.

The same formatter serves the web processes (Django's ``LOGGING``, and
gunicorn through ``webapp.ops.gunicorn``) and the Celery workers, which log
through the root logger because ``CELERY_WORKER_HIJACK_ROOT_LOGGER`` is off.
This module imports nothing from Django: gunicorn loads it before Django is
set up.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", "exc_info"}`` on one line.

    ``time`` is ISO 8601 in UTC with milliseconds; ``exc_info`` is the
    formatted traceback, or null. Newlines inside the message or traceback are
    escaped by JSON, so a record never spans two lines.

    Creating one also routes Python warnings through logging
    (``logging.captureWarnings``): otherwise ``warnings.warn`` writes raw
    multi-line text to stderr between the JSON lines.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        logging.captureWarnings(True)

    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "exc_info": self.formatException(record.exc_info) if record.exc_info else None,
        }
        if record.stack_info:
            body["stack_info"] = self.formatStack(record.stack_info)
        return json.dumps(body, ensure_ascii=False, default=str)


def formatter_config(log_format: str) -> dict[str, Any]:
    """The ``logging.config.dictConfig`` entry of the formatter for ``LOG_FORMAT``."""
    if log_format == "json":
        return {"()": "webapp.ops.logs.JsonFormatter"}
    return {"format": TEXT_FORMAT}

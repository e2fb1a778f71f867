"""Built-in parsers. Importing this package registers each one."""

from workers.pipeline.parsers import (  # noqa: F401
    diskspd,
    evtx_logon,
    fio_json,
    fsct,
    perfmon_csv,
    robocopy,
    samples_json,
    timings,
)

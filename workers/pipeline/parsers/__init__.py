"""Built-in parsers. Importing this package registers each one."""

from workers.pipeline.parsers import perfmon_csv, samples_json, timings  # noqa: F401

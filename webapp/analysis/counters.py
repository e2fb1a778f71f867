"""Counter paths: ``\\Object(Instance)\\Counter`` parsed into a reference.

The capacity method (``analysis.capacity``) reads the chosen counter and the
limits table (``analysis.limits``) reads each limit's counter the same way;
both import it from here.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_COUNTER = "\\Processor(_Total)\\% Processor Time"


@dataclass(frozen=True)
class CounterRef:
    object: str
    instance: str
    counter: str

    @property
    def path(self) -> str:
        instance = f"({self.instance})" if self.instance else ""
        return f"\\{self.object}{instance}\\{self.counter}"


def parse_counter(text: str | None) -> CounterRef:
    """``\\Object(Instance)\\Counter`` (host optional) -> a reference; the default is total CPU."""
    from workers.pipeline.parsers.common.counter_paths import split_counter_path

    raw = (text or DEFAULT_COUNTER).strip()
    if not raw.startswith("\\"):
        raw = "\\" + raw
    found = split_counter_path(raw)
    if found is None:
        raise ValueError(f"counter {text!r} is not a path like \\Processor(_Total)\\% Processor Time")
    _, obj, instance, counter = found
    return CounterRef(obj, instance, counter)

"""DiskSpd text report: one timespan's tables -- I/O per thread and target, latency percentiles, CPU.

Each table is read into a :class:`Run`; a console that cut a row at its width is
joined back (``_unwrap_row``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.diskspd.model import DIRECTIONS, Flow, Subject
from workers.pipeline.parsers.diskspd.reading import MIB, clean_path, error
from workers.pipeline.parsers.diskspd.text_lines import (
    DASHES,
    DECIMAL,
    PARSER,
    PERCENTILE_ROW,
    RULE,
    SECTION_TITLES,
    SECTIONS,
    THREAD_ROW,
    TOTAL_ROW,
    Lines,
    cell_count,
    cell_number,
    column_of,
    split_cells,
    top_level,
    without_size,
    without_suffix,
)

# Cells of a thread row: (column, name in messages, whole number?)
_ROW_FIELDS = (
    ("thread", "thread number", True),
    ("bytes", "bytes", True),
    ("i/os", "I/Os", True),
    ("avglat", "AvgLat", False),
    ("latstddev", "LatStdDev", False),
    ("iopsstddev", "IopsStdDev", False),
    ("mib/s", "MiB/s", False),
    ("mb/s", "MB/s", False),  # older reports: the same binary megabytes, MiB/s
    ("i/o per s", "I/O per s", False),
)


@dataclass
class Table:
    """The per-thread rows of one I/O table summed per target, and its ``total:`` row."""

    total: Flow
    iops: float | None  # the total row's "I/O per s"


@dataclass
class Run:
    index: int
    line: int
    test_time: float | None = None
    thread_count: int | None = None
    max_thread: int = -1
    interrupted: bool = False
    cpu_rows: list[list[float]] = field(default_factory=list)
    cpu_avg: list[float] | None = None
    cpu_line: int | None = None
    test_time_half: float = 0.005  # half a unit of the last digit "actual test time" printed
    # (count, printed rate, half a unit of its last digit) of every rate printed:
    # I/Os with "I/O per s", MiB (bytes / 2^20) with "MiB/s"
    rates: list[tuple[float, float, float]] = field(default_factory=list)
    tables: dict[str, Table] = field(default_factory=dict)
    targets: dict[str, Subject] = field(default_factory=dict)
    latency_column: bool = False
    # subject -> direction -> percentile name -> ms
    percentiles: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)


def read_cpu(lines: Lines, run: Run) -> None:
    while (line := lines.peek()) is not None:
        text = line.strip()
        if DASHES.match(text):
            lines.next()
            continue
        if not text or "|" not in text or top_level(text):
            return
        lines.next()
        cells = split_cells(text)
        shares = [cell for cell in cells if cell.endswith("%")]
        if len(shares) < 4:
            continue
        values = [cell_number(cell, "CPU percentage", lines.number) for cell in shares[-4:]]
        numbers = [value if value is not None else 0.0 for value in values]
        if any("avg" in cell.lower() for cell in cells[: len(cells) - 4]):
            run.cpu_avg = numbers
            run.cpu_line = lines.number
        else:
            run.cpu_rows.append(numbers)
            run.cpu_line = run.cpu_line or lines.number


def truncated(lines: Lines, what: str, run: Run) -> ParseError:
    return error(
        PARSER,
        f"results for timespan {run.index} (line {run.line}) end before {what} (file truncated?)",
        line=max(lines.number, 1),
    )


def read_io_table(lines: Lines, run: Run, section: str) -> None:
    title = SECTION_TITLES[section]
    header = lines.next()
    while header is not None and not header.strip():
        header = lines.next()
    if header is None:
        raise truncated(lines, f"the {title} table", run)
    if not header.strip().lower().startswith("thread") or "|" not in header:
        raise error(
            PARSER,
            f"expected the column header of the {title} table ('thread | bytes | I/Os | ...'), "
            f"got {header.strip()[:60]!r}",
            lines.number,
        )
    joins = 0
    while not header.rstrip().lower().endswith("file") and joins < 3:
        ahead = lines.peek()
        if ahead is None or not ahead.strip() or RULE.match(ahead):
            break
        header += lines.next() or ""
        joins += 1
    columns = [cell.lower() for cell in split_cells(header)]
    for required in ("bytes", "i/os"):
        if required not in columns:
            raise error(PARSER, f"the {title} table header has no {required!r} column", lines.number)
    if "avglat" in columns:
        run.latency_column = True
    rule = lines.next()
    if rule is None:
        raise truncated(lines, f"the rows of the {title} table", run)
    if not RULE.match(rule):
        raise error(PARSER, f"expected a dashed line under the {title} table header", lines.number)
    while (ahead := lines.peek()) is not None and DASHES.match(ahead):
        lines.next()

    # per-thread rows, up to the closing dashed line
    while True:
        row = lines.next()
        if row is None:
            raise truncated(lines, f"the end of the {title} table", run)
        number = lines.number
        if RULE.match(row):
            break
        if not THREAD_ROW.match(row):
            raise error(
                PARSER, f"expected a thread row of the {title} table, got {row.strip()[:60]!r}", number
            )
        row = _unwrap_row(lines, row, len(columns), needs_file=True)
        _thread_row(run, section, columns, row, number)
    while (ahead := lines.peek()) is not None and DASHES.match(ahead):
        lines.next()

    total = lines.next()
    while total is not None and not total.strip():
        total = lines.next()
    if total is None:
        raise truncated(lines, f"the 'total:' row of the {title} table", run)
    match = TOTAL_ROW.match(total)
    if match is None:
        raise error(PARSER, f"expected the 'total:' row of the {title} table", lines.number)
    number = lines.number
    cells = split_cells(_unwrap_row(lines, match.group(1), len(columns) - 2, needs_file=False))
    values = dict(zip((c for c in columns if c not in ("thread", "file")), cells, strict=False))
    if len(cells) < len(columns) - 2:
        raise truncated(lines, f"the end of the 'total:' row of the {title} table", run)
    flow = Flow(line=number)
    flow.bytes = cell_count(values["bytes"], f"{title} total bytes", number)
    flow.ios = cell_count(values["i/os"], f"{title} total I/Os", number)
    if "avglat" in values:
        flow.latency_avg_ms = cell_number(values["avglat"], f"{title} total AvgLat", number)
    if "latstddev" in values:
        flow.latency_stddev_ms = cell_number(values["latstddev"], f"{title} total LatStdDev", number)
    if "iopsstddev" in values:
        flow.iops_stddev = cell_number(values["iopsstddev"], f"{title} total IopsStdDev", number)
    iops = (
        cell_number(values["i/o per s"], f"{title} total I/O per s", number)
        if "i/o per s" in values
        else None
    )
    rate_column = "mib/s" if "mib/s" in values else "mb/s"
    mibps = (
        cell_number(values[rate_column], f"{title} total {rate_column}", number)
        if rate_column in values
        else None
    )
    flow.iops_printed, flow.mibps_printed = iops, mibps
    note_rates(run, flow.ios, flow.bytes, values)
    run.tables[section] = Table(total=flow, iops=iops)


def _unwrap_row(lines: Lines, row: str, cells: int, needs_file: bool) -> str:
    """A table row re-joined if a console cut it at its width.

    A cut row has too few cells, or all of them with the last one cut:
    a thread row's file cell then lacks its closing ``(size)``; a
    ``total:`` row (a number last, followed by a blank line) is followed
    by a fragment without ``|``. A continuation may itself look like a
    row (``   35686 | 4.64 | ...``), so it is taken whenever the joined
    row does not get more cells than the header has.
    """
    for _ in range(4):
        have = row.count("|") + 1
        ahead = lines.peek()
        if ahead is None or not ahead.strip() or RULE.match(ahead) or TOTAL_ROW.match(ahead):
            break
        following = ahead.strip()
        if top_level(following) or following.lower() in SECTIONS or following.startswith("%-ile"):
            break
        if have < cells:
            if have + ahead.count("|") > cells:
                break
        elif have > cells or "|" in ahead or (needs_file and row.rstrip().endswith(")")):
            break
        row += lines.next() or ""
    return row


def _thread_row(run: Run, section: str, columns: list[str], row: str, number: int) -> None:
    cells = split_cells(row)
    if len(cells) != len(columns):
        raise error(
            PARSER,
            f"thread row has {len(cells)} cells but the {SECTION_TITLES[section]} header has {len(columns)}",
            number,
        )
    values = dict(zip(columns, cells, strict=True))
    found: dict[str, float | None] = {}
    for name, what, whole in _ROW_FIELDS:
        if name not in values:
            continue
        try:
            found[name] = (
                cell_count(values[name], what, number) if whole else cell_number(values[name], what, number)
            )
        except ParseError as failure:
            failure.column = column_of(row, columns.index(name))  # found only when needed: it is slow
            raise
    run.max_thread = max(run.max_thread, int(found.get("thread") or 0))
    path = clean_path(without_size(values.get("file", "")))
    subject = run.targets.setdefault(path, Subject())
    mibps = found.get("mib/s")
    getattr(subject, section).add(
        int(found["bytes"] or 0),
        int(found["i/os"] or 0),
        found.get("avglat"),
        found.get("latstddev"),
        found.get("iopsstddev"),
        number,
        iops=found.get("i/o per s"),
        mibps=mibps if mibps is not None else found.get("mb/s"),
    )
    note_rates(run, int(found["i/os"] or 0), int(found["bytes"] or 0), values)


def read_percentile_table(lines: Lines, run: Run, header: str, heading: str | None, number: int) -> None:
    directions = []
    for cell in split_cells(header)[1:]:
        word = cell.split("(")[0].strip().lower()
        directions.append(word if word in DIRECTIONS else None)
    subject = _percentile_subject(run, heading)
    table: dict[str, dict[str, float]] = {}
    while (ahead := lines.peek()) is not None and DASHES.match(ahead):
        lines.next()
    labels = set()
    while (ahead := lines.peek()) is not None and (match := PERCENTILE_ROW.match(ahead)):
        lines.next()
        labels.add(match.group(1).strip().lower())
        name = _percentile_label(match.group(1))
        if name is None:
            continue
        for index, (direction, cell) in enumerate(zip(directions, split_cells(match.group(2)), strict=False)):
            if direction is None:
                continue
            try:
                value = cell_number(cell, f"{direction} {match.group(1)} latency", lines.number)
            except ParseError as failure:
                failure.column = column_of(ahead, index + 1)
                raise
            if value is not None:
                table.setdefault(direction, {})[name] = value
    if "max" not in labels:
        where = f"the latency table at line {number}"
        raise truncated(lines, f"the 'max' row of {where}" if labels else f"the rows of {where}", run)
    run.percentiles[subject] = table


def _percentile_subject(run: Run, heading: str | None) -> str:
    """Which target a latency table belongs to: the path line above it, else all targets ("")."""
    if heading is None:
        return ""
    text = heading.strip()
    lower = text.lower()
    if lower.rstrip(":") == "total" or lower.startswith("total latency"):
        return ""
    text = without_suffix(text, "latency distribution").rstrip(":").strip()
    path = clean_path(text)
    if path in run.targets:
        return path
    for known in run.targets:
        if known and known in path:
            return known
    return ""


def half_unit(text: str) -> float:
    """Half a unit of the last digit of a printed decimal: ``30.01`` -> 0.005, ``12`` -> 0.5."""
    _, dot, decimals = text.strip().rstrip("%").strip().partition(".")
    return 0.5 * 10.0 ** -len(decimals) if dot else 0.5


def note_rates(run: Run, ios: int, nbytes: int, values: dict[str, str]) -> None:
    """Remember a row's printed rates with their counts: they bound the measured time."""
    for column, count in (("i/o per s", ios), ("mib/s", nbytes / MIB), ("mb/s", nbytes / MIB)):
        cell = values.get(column, "").strip()
        if count > 0 and DECIMAL.match(cell):
            run.rates.append((count, float(cell), half_unit(cell)))


def _percentile_label(label: str) -> str | None:
    """``min``, ``25th`` -> ``p25``, ``3-nines`` -> ``p99_9``, ``max``."""
    text = label.strip().lower()
    if text in ("min", "max"):
        return text
    if match := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)", text):
        return f"p{match.group(1)}"
    if match := re.fullmatch(r"(\d{1,2})-nines", text):
        nines = int(match.group(1))
        if nines < 2:
            return None
        return "p99" + ("_" + "9" * (nines - 2) if nines > 2 else "")
    return None

"""DiskSpd results: the text report and ``-Rxml`` output.

Two parsers: ``diskspd_text``
(:class:`~workers.pipeline.parsers.diskspd.text_parser.DiskSpdTextParser`) and
``diskspd_xml`` (:class:`~workers.pipeline.parsers.diskspd.xml_parser.DiskSpdXmlParser`).
Both reduce a file to :class:`~workers.pipeline.parsers.diskspd.model.RunResult`\\ s
and share how runs become measurements (``records``) and how sizes, units and
paths are read (``reading``). The text report's modules are ``text_*`` (lines
and cells, input parameters, tables, the whole report), the XML's ``xml_*``.

What is accepted
================

Text report (DiskSpd 2.0.x to 2.2.0, the three layouts)
    * older 2.0.x: a ``MB/s`` column, file sizes like ``(8192MB)``, no
      ``System information`` block (so no start time), the all-target latency
      table without a heading;
    * later 2.0.x (2.0.21 in the samples): ``MiB/s`` and ``IopsStdDev``
      columns, ``System information`` with ``start time: 2021/04/16 19:03:38
      UTC``, the latency table under ``total:``, per-target latency tables
      under the target's path;
    * 2.2.0: tab indents, ``block size: 4KiB`` sizes, ``... per thread``,
      ``Core | CPU`` (and other topology) columns in the CPU table, the
      latency table under ``Total latency distribution:``.

    Any of ``Command Line:``, ``Input parameters`` and ``System information``
    may be missing; text before, between and after reports (console prompts,
    an msinfo32 dump) is skipped; tabs and spaces are alike; ``N/A`` cells
    are "no value"; a command line, path or table row that a console cut at
    80 columns is joined back. One file may hold several runs: several
    timespans of one profile (``Results for timespan N``) and/or several
    invocations appended to one file; each is read with the parameters of its
    own ``Input parameters`` block.

XML (``-Rxml``)
    ``<Results><System/><Profile/><TimeSpan/>...</Results>``, with or without
    an XML declaration; ``<Latency>`` (with its 100+ percentile ``<Bucket>``\\ s)
    only when latency was measured; per-thread ``<Thread><Target>`` results;
    several ``<TimeSpan>`` results per document and several documents
    appended in one file. A ``<TimeSpan>`` holding DiskSpd's ``<Error>`` (the
    test was interrupted before measuring) has no results and is skipped.

What comes out
==============

One run per DiskSpd timespan, with per *subject* -- each target path, and
``""`` for all targets together (a single-target run has both, equal) --
and per direction ``read``, ``write`` and ``total``:

=============================== ======= ==============================================
metric                          unit    meaning
=============================== ======= ==============================================
``<dir>.iops``                  IO/s    I/Os per second
``<dir>.mbps``                  MB/s    **decimal** megabytes (10^6 bytes) per second
``<dir>.bytes`` / ``<dir>.ios`` B / IO  bytes and I/Os transferred
``<dir>.iops_stddev``           IO/s    IopsStdDev, when DiskSpd gathered it
``<dir>.latency.avg_ms``        ms      mean latency (not emitted when there were no I/Os)
``<dir>.latency.stddev_ms``     ms      latency standard deviation
``<dir>.latency.min_ms``        ms      fastest I/O
``<dir>.latency.p25_ms`` ...    ms      p25, p50, p75, p90, p95, p99, then
                                        ``p99_9`` (3-nines) ... ``p99_9999999`` (9-nines)
``<dir>.latency.max_ms``        ms      slowest I/O
``cpu.usage_pct`` ...           %       usage, user, kernel, idle: DiskSpd's average
                                        over all CPUs (subject ``""``)
=============================== ======= ==============================================

Units: every throughput is stored in MB/s = 10^6 bytes/s. DiskSpd's own
columns are binary: the text report's ``MiB/s`` column *and* the older
``MB/s`` column are both bytes / 2^20 / seconds (``ResultParser.cpp``), and
the XML has no rate at all. The text report's rates are stored as printed
(its ``I/O per s`` and ``MiB/s``, the latter times 1.048576 -- an exact
conversion to MB/s) for the total rows and single-thread targets; rates that
must be derived (a target served by several threads, and every XML rate) come
from the exact byte and I/O counts over one measured time chosen so that it
reproduces every rate the report printed (see ``text_parser``).

Per-target figures of a multi-thread run are the sums of the thread rows;
mean latencies are weighted by I/O count; a standard deviation cannot be
recombined from rounded per-thread figures, so a target's stddev is given
only when one thread served it. Percentiles per target come from DiskSpd's
per-target latency tables (text, more than one target); the XML has only
the all-target distribution. From the XML's 1..99 percentile series only the
points the text report prints are kept, so both formats give the same names.

Parameters (strings) of each run: ``block_size`` (bytes), ``threads``
(total), ``outstanding_io`` (per thread and target), ``write_pct``,
``duration_s``, ``warmup_s``, ``random`` (``true``/``false``; plus
``random_pct`` for mixed random/sequential I/O), ``software_cache``
(``enabled``/``disabled``/``local_disabled``), ``write_through``
(``true``/``false``) and ``targets`` (count). Values that differ between
targets are joined with commas. They come from ``Input parameters`` (text)
or ``<Profile>`` (XML); a text report without ``Input parameters`` falls
back to its ``Command Line:`` (DiskSpd's defaults filling what the command
leaves out), and the block size, lacking both, to bytes / I/Os. When a file
holds one parameter set they are the run's attributes; when it holds
several (a block-size sweep) every measurement carries its run's set, so
each becomes its own run; runs with the same set are repetitions 1, 2, ...
The command line and the computer name (when the file has only one) are run
attributes too.

Times: a run is stamped with its start as the file records it (XML
``<RunTime>``, text ``start time:``, both UTC; a later timespan of the same
profile starts after the earlier ones' warm-up, test and cool-down). Older
text reports record no time: the upload must then pass ``started_at`` (ISO
8601; a time without offset is read in the upload's timezone), and the file
is rejected without it rather than stamped with an invented time.
``started_at`` is only read when a run needs it; runs without a time follow
it back to back. A recorded time before 1990 or in the future is treated as
missing.

Errors are :class:`~workers.pipeline.errors.ParseError` with the line (and
column where a cell or XML position is known) and the parser's name: a
file that is DiskSpd but stops before any result says "no results found
(truncated?)"; one that stops inside a run's I/O tables, or (when latency
was measured) before or inside its percentile table, names the run and the
missing part; XML syntax errors carry the XML parser's line and column; a
byte that does not decode is reported at its own line. Nothing of a file
that fails is kept: no partial runs.

Memory: the text report is read a line at a time and the XML with a pull
parser that drops the per-second IOPS series (most of a long run's file) as
it goes, so neither holds a whole file; only the measurements are kept.
"""

from __future__ import annotations

from workers.pipeline.parsers.diskspd.text_parser import DiskSpdTextParser
from workers.pipeline.parsers.diskspd.xml_parser import DiskSpdXmlParser

__all__ = ["DiskSpdTextParser", "DiskSpdXmlParser"]

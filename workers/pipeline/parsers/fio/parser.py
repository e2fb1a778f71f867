"""fio results written with ``--output-format=json`` (fio 2.x and 3.x).

What is read
------------
* The first ``{`` that starts a valid JSON object holding ``"fio version"``
  and a ``jobs`` list (or, for ``fio --client``, a ``client_stats`` list),
  found with ``json.JSONDecoder.raw_decode``. Text before it --
  ``fio: pid=..., err=...`` lines, ``terminating on signal``, anything fio
  or a wrapper printed to the same file -- is skipped and kept (its first
  lines) as the run attribute ``fio_messages``. ``--status-interval``
  output holds several objects, each cumulative: the last one is used.
* fio 3.x latencies are in nanoseconds (``clat_ns``, ``lat_ns``); fio 2.x
  ones in microseconds (``clat``, ``lat``). Percentile keys are the text
  fio prints (``"99.900000"``); fio 2.x's padding keys (``"0.00"``) are
  ignored.
* Old versions lack ``bw_bytes`` and ``io_kbytes``: there ``bw`` is KiB/s
  and ``io_bytes`` is KiB despite its name (``bw`` x ``runtime`` equals
  it in the fio 2.1 and 2.17 samples), so both are scaled to bytes.
* An interrupted job (``error`` != 0) keeps its figures; its parameters
  carry ``error=<code>``.

What comes out
--------------
Per job (subject = ``jobname``, suffixed ``#1``, ``#2`` ... when several
jobs share a name, as ``numjobs`` clones without ``group_reporting`` do;
``host`` = ``hostname`` for ``client_stats``) and per direction ``read``,
``write``, ``trim`` that moved data:

``<dir>.iops`` (IO/s), ``<dir>.bw_bytes_per_s`` (B/s), ``<dir>.mbps``
(10^6 B/s), ``<dir>.lat.mean_ms``, ``<dir>.clat.mean_ms``,
``<dir>.clat.p50_ms`` / ``p90`` / ``p95`` / ``p99`` / ``p99_9`` (and the
same ``<dir>.lat.pNN_ms`` when fio ran with ``lat_percentiles``),
``<dir>.io_bytes`` (B), ``<dir>.runtime_s`` (s); and per job
``cpu.usr_pct``, ``cpu.sys_pct`` (%).

Every figure is stamped with the document's ``timestamp`` (epoch seconds,
when fio wrote it); else its ``time`` text (the machine's local time, read
in the upload's timezone); else the upload's ``started_at``. Without any of
them the file is refused rather than stamped with an invented time.

Parameters per job, from its ``job options`` over the ``global options``:
``block_size`` (bytes: ``bs=4k`` -> ``4096``; ``64k,4k`` -> ``65536,4096``;
a range ``4k-16k`` -> ``4096-16384``; fio's ``kb_base`` is honoured),
``rw``, ``iodepth``, ``numjobs``, ``ioengine``, ``direct``, ``size`` and
``error``. Every figure carries its job's set as ``Measurement.params``:
uploaded without a run name, a file is its own execution run (never merged
with another file's, see ``workers.pipeline.load``); into a named run, a
file whose jobs share one set goes to that run with the set as its
attributes, and jobs that differ get a run per set under it.

Fidelity: ``iops``, ``bw_bytes``, ``io_bytes``, latency means and
percentiles and CPU shares are stored as fio wrote them, in fio's unit or an
exact conversion of it: usec (fio 2.x) / 1000 and nsec (3.x) / 10^6 -> ms;
KiB (2.x ``bw``, ``io_bytes``) x 1024 -> B; ``runtime`` msec / 1000 -> s;
``mbps`` is ``bw_bytes`` / 10^6. Nothing is recomputed from other figures.
"""

from __future__ import annotations

from typing import ClassVar

from workers.pipeline.decode import Decoded, Opener, decode, decode_error
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.fio.document import PARSER, read_all
from workers.pipeline.parsers.fio.records import parse_text
from workers.pipeline.records import Parsed


class FioJsonParser:
    """fio ``--output-format=json`` results, fio 2.x and 3.x."""

    name: ClassVar[str] = PARSER
    binary: ClassVar[bool] = False

    def detect(self, head_bytes: bytes, head_text: str) -> int:
        return 95 if '"fio version"' in head_text and "{" in head_text else 0

    def parse(self, source: Decoded | Opener, context: ParseContext) -> Parsed:
        decoded = source if isinstance(source, Decoded) else decode(source)
        try:
            with decoded.open_text() as stream:
                text = read_all(stream)
        except UnicodeDecodeError as exc:
            raise decode_error(exc, decoded.encoding, PARSER) from None
        return parse_text(text, context)

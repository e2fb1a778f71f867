"""The request bodies of issue 26's hostile inputs, for ``bench/abuse.py``.

The shapes are those the tests already send (named beside each builder), at
the issue's sizes: the tests prove the answer and the memory, the benchmark
the time. Large gzip streams are made without holding the inflated bytes.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterable, Iterator

MiB = 1024 * 1024
BOUNDARY = "HeadroomAbuse"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"
GZIP_JSON = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
GZIP_MULTIPART = {"Content-Type": MULTIPART, "Content-Encoding": "gzip"}


def gzip_stream(chunks: Iterable[bytes], level: int = 6) -> bytes:
    """A gzip stream of ``chunks`` in turn (level 6: what ``gzip`` and the agents use)."""
    packer = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = [packer.compress(chunk) for chunk in chunks]
    out.append(packer.flush())
    return b"".join(out)


def gzip_repeating(head: bytes, chunk: bytes, times: int, tail: bytes) -> bytes:
    """gzip of ``head + chunk * times + tail``, with ``chunk`` deflated once and its block repeated.

    After a full flush deflate starts afresh, so every copy of ``chunk`` is the
    same block: a 4 GiB bomb is made in a second, not the half minute that
    deflating 4 GiB takes. The trailer's CRC is computed over the real content.
    """
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    opening = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH)
    closing = packer.compress(tail) + packer.flush()
    crc = zlib.crc32(head)
    for _ in range(times):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + len(chunk) * times + len(tail)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + opening + block * times + closing + struct.pack("<II", crc, size & 0xFFFFFFFF)


def multipart_parts(fields: dict[str, str], filename: str) -> tuple[bytes, bytes]:
    """The bytes before and after a file's content in a multipart body with ``fields`` and the file."""
    head = "".join(
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        for name, value in fields.items()
    )
    head += (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    )
    return head.encode(), f"\r\n--{BOUNDARY}--\r\n".encode()


def multipart(fields: dict[str, str], filename: str, content: bytes) -> bytes:
    head, tail = multipart_parts(fields, filename)
    return head + content + tail


def dimensions_body(count: int) -> bytes:
    """``POST /api/v1/campaigns`` with ``count`` dimensions (tests/webapp/api/test_campaigns.py)."""
    dimensions = [f"d{i}" for i in range(count)]
    return json.dumps({"slug": "abuse-dims", "name": "Dims", "dimensions": dimensions}).encode()


def timings_csv_lines(rows: int) -> Iterator[bytes]:
    """A timings CSV, each row its own repetition (tests/reliability/test_memory_results.py)."""
    yield b"name,started_at,duration_ms,repetition\n"
    batch = 10_000
    for first in range(0, rows, batch):
        lines = (
            f"logon,2015-07-01T10:00:00Z,{i % 5000},{i + 1}\n" for i in range(first, min(rows, first + batch))
        )
        yield "".join(lines).encode()


def timings_json_chunks(rows: int) -> Iterator[bytes]:
    """A timings JSON list of ``rows`` (tests/reliability/test_memory_results.py)."""
    row = '{{"name":"logon","started_at":"2015-07-01T10:00:00Z","duration_ms":{},"repetition":{}}}'
    yield b"["
    batch = 10_000
    for first in range(0, rows, batch):
        text = ",".join(row.format(i % 5000, i + 1) for i in range(first, min(rows, first + batch)))
        yield (("," if first else "") + text).encode()
    yield b"]"


def gzip_upload(fields: dict[str, str], filename: str, content: Iterable[bytes]) -> bytes:
    """A multipart upload sent with ``Content-Encoding: gzip``, the file streamed into the gzip."""
    head, tail = multipart_parts(fields, filename)
    return gzip_stream([head, *content, tail])


def padded_samples(campaign: str, items: int, values: int = 400) -> bytes:
    """A samples batch of ``items`` items padded to ``values`` JSON values each (test_memory_results.py)."""
    item = {"time": "2015-07-01T10:00:00Z", "object": "Processor", "counter_name": "x", "value": 1}
    padded = json.dumps({**item, "pad": [0] * (values - 4)})
    return f'{{"campaign": "{campaign}", "host": "FS01", "samples": [{",".join([padded] * items)}]}}'.encode()


def surrogate_samples(campaign: str) -> bytes:
    """A samples batch whose second item's key is a lone surrogate escape (test_batch_streaming.py)."""
    items = [{"t": "2024-01-01T00:00:00Z", "counter": "x", "value": 1}, {"\udc00": 1}]
    return json.dumps({"campaign": campaign, "host": "FS01", "samples": items}).encode()


def steps_body(count: int) -> bytes:
    """``count`` open load steps of 10, 20, ... users, one a minute (tests/webapp/api/test_steps.py)."""
    steps = [
        {
            "users": 10 * (i + 1),
            "started_at": f"2015-06-{1 + i // 1440:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00Z",
        }
        for i in range(count)
    ]
    return json.dumps({"steps": steps}).encode()

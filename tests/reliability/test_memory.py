"""Issue 14, findings 1 and 4: hostile bodies and files leave web and worker under 300 MB peak RSS.

A real gunicorn (two sync workers) and a real Celery worker (solo) take every
hostile input of the attack review: an anonymous gzip bomb sent to /healthz
and to /api/v1/uploads, an authenticated one past the inflation limit, a
30 MiB batch of ``{}`` samples gzipped to tens of KiB, and a 16 MiB timings
file of ``[{},{},...]`` that the worker must fail. Each gets its refusal; then
the peak resident set (``VmHWM`` in /proc/<pid>/status) of every web and
worker process must be under 300 MB. Memory, not time, is the measure: no
timing thresholds. ``-s`` prints the figures docs/reliability.md quotes.
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import pytest
from django.test.client import encode_multipart

from tests.conftest import database_url
from tests.factories import make_campaign, make_token
from tests.reliability.services import Client, Stack, wait_until
from webapp.core.models import Upload

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

LIMIT_BYTES = 300 * 1000 * 1000
MiB = 1024 * 1024


def gzip_of(parts: list[tuple[bytes, int]]) -> bytes:
    """A gzip stream of each ``(chunk, times)`` in turn, made without holding the inflated bytes."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = io.BytesIO()
    for chunk, times in parts:
        for _ in range(times):
            out.write(packer.compress(chunk))
    out.write(packer.flush())
    return out.getvalue()


def multipart_bomb(campaign: str, inflated: int) -> bytes:
    head = encode_multipart("B", {"campaign": campaign, "file": io.BytesIO(b"")})
    opening, closing = head.split(b"\r\n\r\n\r\n--B", 1)  # the empty file's (empty) content
    return gzip_of([(opening + b"\r\n\r\n", 1), (b"\0" * MiB, inflated // MiB), (b"\r\n--B" + closing, 1)])


def descendants(pid: int) -> list[int]:
    found, parents = [], {pid}
    for stat in sorted(Path("/proc").glob("[0-9]*/stat")):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) in parents:
            found.append(int(stat.parent.name))
            parents.add(int(stat.parent.name))
    return found


def peak_rss(pid: int) -> dict[int, int]:
    """VmHWM in bytes of ``pid`` and its children."""
    peaks = {}
    for each in [pid, *descendants(pid)]:
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks[each] = int(line.split()[1]) * 1024
    return peaks


def test_hostile_bodies_and_files_keep_web_and_worker_under_300_mb(stack: Stack, capsys):
    redis = stack.redis()
    env = stack.env(
        database_url(), redis.url(), HEADROOM_TOKEN_RATE_PER_MINUTE="0", HEADROOM_MAX_DECOMPRESSED_SIZE="256m"
    )
    web = stack.gunicorn(env, workers=2)
    worker = stack.worker(env)
    campaign = make_campaign()
    _, token = make_token(campaign.project)
    anonymous, agent = Client(web.base), Client(web.base, token)
    web_pids = sorted(peak_rss(web.pid))
    figures: list[tuple[str, int, int]] = []

    def record(what: str) -> None:
        web_peak = max(peak_rss(web.pid).values())
        worker_peak = max(peak_rss(worker.pid).values())
        figures.append((what, web_peak, worker_peak))

    record("idle")
    bomb = multipart_bomb(campaign.slug, 1024 * MiB)  # ~1 MiB on the wire, 1 GiB inflated
    gzip_multipart = {"Content-Type": "multipart/form-data; boundary=B", "Content-Encoding": "gzip"}
    for path in ("/healthz", "/api/v1/uploads"):
        reply = anonymous.request("POST", path, bomb, gzip_multipart)
        assert reply.status in (401, 403, 415), reply.body
        assert reply.body["error"]["code"] and reply.body["error"]["message"]
        record(f"anonymous gzip bomb ({len(bomb) // 1024:,} KiB -> 1 GiB) to {path}: {reply.status}")

    reply = agent.request("POST", "/api/v1/uploads", bomb, gzip_multipart)
    assert reply.status == 413 and reply.body["error"]["code"] == "too_large", reply.body
    record(f"authenticated gzip bomb, 1000x (past HEADROOM_MAX_GZIP_RATIO=100): {reply.status}")

    samples = gzip_of(
        [
            (b'{"campaign": "' + campaign.slug.encode() + b'", "host": "FS01", "samples": [{}', 1),
            (b",{}" * 1024, 10 * 1024),
            (b"]}", 1),
        ]
    )
    reply = agent.request(
        "POST", "/api/v1/samples", samples, {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    )
    # About 1000x: refused by HEADROOM_MAX_GZIP_RATIO (100x) before the item limit is reached.
    assert reply.status == 413 and reply.body["error"]["code"] == "too_large", reply.body
    assert "100x" in reply.body["error"]["message"], reply.body
    record(f"30 MiB samples batch of {{}} ({len(samples) // 1024} KiB gzipped): {reply.status}")

    timings = b"[" + b"{}," * (16 * MiB // 3) + b"{}]"
    reply = agent.upload(campaign.slug, timings, "timings.json", kind="timings")
    assert reply.status == 202, reply.body
    upload_id = reply.body["id"]
    wait_until(
        lambda: Upload.objects.filter(pk=upload_id, status__in=["stored", "failed"]).exists(),
        300,
        f"the timings upload settled\n{worker.tail()}",
        interval=0.5,
    )
    upload = Upload.objects.get(pk=upload_id)
    assert upload.status == "failed", upload.error
    assert upload.error["message"].startswith('timing is missing "name"')
    assert (upload.error["line"], upload.error["column"]) == (1, 2)
    record("16 MiB timings file of [{},{},...] (worker fails it at line 1, column 2)")

    assert sorted(peak_rss(web.pid)) == web_pids, "a gunicorn worker was replaced: its peak is lost"
    with capsys.disabled():
        print("\npeak RSS (VmHWM, MB) after each input: web (largest gunicorn process) / worker")
        for what, web_peak, worker_peak in figures:
            print(f"  {web_peak / 1e6:6.0f} / {worker_peak / 1e6:6.0f}  {what}")
    for what, web_peak, worker_peak in figures:
        assert web_peak < LIMIT_BYTES, f"web {web_peak / 1e6:.0f} MB after {what}"
        assert worker_peak < LIMIT_BYTES, f"worker {worker_peak / 1e6:.0f} MB after {what}"

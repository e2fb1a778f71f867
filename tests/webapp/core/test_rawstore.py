"""The raw store keeps every byte, once, under its hash, durably and with no spool left behind."""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import stat
import time
from pathlib import Path

import pytest

from tests.paths import FIXTURES
from webapp.core import rawstore

PERFMON = "perfmon_csv/rajitharul_perfmon_SriLanka_1.2MB.csv"


@pytest.fixture
def raw_dir(settings, tmp_path) -> Path:
    settings.STORAGES = {
        **settings.STORAGES,
        "raw": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path), "file_permissions_mode": 0o640},
        },
    }
    return tmp_path  # Django's settings signal makes ``storages`` build the backend anew


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_the_bytes_land_under_their_hash_readable_by_the_worker_and_nothing_else_stays(raw_dir):
    data = b"name,started_at,duration_ms\nlogon,2015-06-01T09:00:00Z,1500\n" * 1000
    stored = rawstore.save(io.BytesIO(data))
    sha = hashlib.sha256(data).hexdigest()
    assert (stored.sha256, stored.size, stored.key) == (sha, len(data), f"raw/{sha[:2]}/{sha}")
    assert files_under(raw_dir) == [stored.key]  # the spool file is gone
    path = raw_dir / stored.key
    assert path.read_bytes() == data
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    with rawstore.open_raw(stored.key) as raw:
        assert raw.read() == data


def test_the_same_bytes_twice_are_one_file(raw_dir):
    data = b"x" * 300_000
    first = rawstore.save(io.BytesIO(data))
    second = rawstore.save(io.BytesIO(data))
    assert first == second
    assert files_under(raw_dir) == [first.key]
    assert (raw_dir / first.key).read_bytes() == data


def test_gzip_sent_is_kept_compressed_under_the_inflated_contents_digest(raw_dir):
    """Issue 26 item 7: what a caller makes the store keep is about what they sent."""
    data = (FIXTURES / PERFMON).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    sent = gzip.compress(data, compresslevel=6)
    stored = rawstore.save(io.BytesIO(sent), gzipped=True)
    assert (stored.sha256, stored.size, stored.key) == (sha, len(data), f"raw/{sha[:2]}/{sha}.gz")
    assert files_under(raw_dir) == [stored.key]
    kept = (raw_dir / stored.key).stat().st_size
    # Level 1 at rest: within 15 % of the level-6 body that was sent, and a fraction of the content.
    assert kept < len(sent) * 1.15 and kept < len(data) / 2, (kept, len(sent), len(data))
    with rawstore.open_raw(stored.key) as raw:
        assert not raw.seekable()
        assert raw.read() == data
    assert rawstore.find(sha) == stored.key
    # The same content sent plain is a file of its own (kept as sent), found second.
    plain = rawstore.save(io.BytesIO(data))
    assert plain.key == f"raw/{sha[:2]}/{sha}" and rawstore.find(sha) == stored.key
    assert rawstore.find("0" * 64) is None


def test_a_body_that_came_compressed_is_compressed_at_rest(raw_dir):
    newlines = b"\n" * (8 * 1024 * 1024)
    stored = rawstore.save(io.BytesIO(newlines), compress=True)
    assert stored.size == len(newlines) and stored.key.endswith(".gz")
    assert (raw_dir / stored.key).stat().st_size < 64 * 1024  # 8 MiB of newlines keep under 64 KiB
    with rawstore.open_raw(stored.key) as raw:
        assert hashlib.sha256(raw.read()).hexdigest() == stored.sha256


def test_a_refused_upload_leaves_no_file(raw_dir, settings):
    settings.MAX_UPLOAD_SIZE = 1000
    with pytest.raises(rawstore.TooLarge, match="exceeds the limit of 1,000 bytes"):
        rawstore.save(io.BytesIO(b"y" * 5000))
    assert files_under(raw_dir) == []


def test_a_file_cut_short_under_its_key_is_replaced_by_the_whole_bytes(raw_dir):
    data = b"0123456789" * 10_000
    key = rawstore.storage_key(hashlib.sha256(data).hexdigest())
    (raw_dir / key).parent.mkdir(parents=True)
    (raw_dir / key).write_bytes(data[:4096])  # what a crash before any fsync can leave
    stored = rawstore.save(io.BytesIO(data))
    assert stored.key == key
    assert (raw_dir / key).read_bytes() == data
    assert files_under(raw_dir) == [key]


def test_without_hard_links_the_bytes_are_copied_into_place(raw_dir, monkeypatch):
    def no_links(src: str, dst: str) -> None:  # an SMB or FUSE mount that refuses link()
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    data = b"copied, not linked\n" * 100
    stored = rawstore.save(io.BytesIO(data))
    assert (raw_dir / stored.key).read_bytes() == data
    assert stat.S_IMODE(os.stat(raw_dir / stored.key).st_mode) == 0o640
    assert files_under(raw_dir) == [stored.key]


def test_spool_files_a_killed_request_left_are_removed_after_a_day(raw_dir):
    rawstore.save(io.BytesIO(b"makes the spool folder"))
    spool = raw_dir / ".spool"
    old, fresh = spool / "raw-old", spool / "raw-fresh"
    old.write_bytes(b"half an upload")
    fresh.write_bytes(b"an upload in progress")
    a_day_ago = time.time() - rawstore.SPOOL_MAX_AGE_SECONDS - 60
    os.utime(old, (a_day_ago, a_day_ago))
    assert rawstore.clean_spool() == 1
    assert sorted(p.name for p in spool.iterdir()) == ["raw-fresh"]

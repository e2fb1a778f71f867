"""The raw store: every uploaded byte, kept, content-addressed.

Raw bytes are written before anything else happens to an upload and are never
changed, so any upload can be re-parsed after a parser fix. Keys derive from
the SHA-256 of the content (``raw/ab/abcdef...``), never from a user's file
name, so identical bytes are stored once. The backend is Django's ``raw``
storage: a directory by default, S3-compatible storage when configured.

What arrived compressed stays compressed at rest: the bytes of a request sent
with ``Content-Encoding: gzip`` (every agent sends that way) are kept gzip'd
under ``<key>.gz`` (level 1: a fast pass, within a few per cent of level 6 on
result files), so what a caller can make the store keep is about what they
sent, not what it inflates to. The digest and ``size`` are always the
inflated content's: identity does not depend on how a file travelled.
``open_raw`` hands every reader the inflated bytes either way.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import os
import shutil
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, BinaryIO, cast

from django.conf import settings
from django.core.files import File
from django.core.files.storage import FileSystemStorage, storages

CHUNK = 1024 * 1024
# Raw files kept compressed: the fastest level (see the module's docstring).
AT_REST_LEVEL = 1
GZIP_SUFFIX = ".gz"
# Inflated bytes allowed before the gzip ratio applies (a tiny body is mostly header).
RATIO_FLOOR = 1024 * 1024
# A spool file older than this belongs to no live request (gunicorn's timeout is minutes).
SPOOL_MAX_AGE_SECONDS = 24 * 3600


class TooLarge(Exception):
    def __init__(self, limit: int, what: str) -> None:
        super().__init__(f"{what} exceeds the limit of {limit:,} bytes")
        self.limit = limit


class TooCompressed(TooLarge):
    """A gzip body that inflates far more than any real result file does."""

    def __init__(self, ratio: int) -> None:
        Exception.__init__(
            self,
            f"the gzip data inflates to more than {ratio}x its compressed size "
            "(HEADROOM_MAX_GZIP_RATIO); send the file uncompressed",
        )
        self.limit = ratio


def check_ratio(inflated: int, compressed: int) -> None:
    """Refuse ``inflated`` bytes out of ``compressed`` bytes in past the ratio (and a small floor).

    The check runs on every inflated chunk, so a bomb is stopped after at most
    ``RATIO_FLOOR + ratio x`` what was read, not at the absolute size limit.
    """
    ratio: int = settings.MAX_GZIP_RATIO
    if ratio > 0 and inflated > RATIO_FLOOR + ratio * compressed:
        raise TooCompressed(ratio)


class BadGzip(Exception):
    pass


@dataclass(frozen=True)
class StoredRaw:
    sha256: str
    size: int
    key: str


def storage_key(sha256: str, *, compressed: bool = False) -> str:
    return f"raw/{sha256[:2]}/{sha256}{GZIP_SUFFIX if compressed else ''}"


def find(sha256: str) -> str | None:
    """The key these bytes are stored under (compressed or not), or None."""
    for compressed in (True, False):
        key = storage_key(sha256, compressed=compressed)
        if exists(key):
            return key
    return None


class _Packer:
    """Writes gzip (one member, no name, no time: the same bytes pack the same) into ``target``."""

    def __init__(self, target: IO[bytes]) -> None:
        self.target = target
        self.packer = zlib.compressobj(AT_REST_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)

    def write(self, data: bytes) -> None:
        self.target.write(self.packer.compress(data))

    def flush(self) -> None:
        self.target.write(self.packer.flush())


def gunzip_chunks(source: IO[bytes], limit: int) -> Iterator[bytes]:
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    produced = read = 0
    try:
        while chunk := source.read(CHUNK):
            read += len(chunk)
            # max_length bounds each step so a gzip bomb never inflates in memory.
            data = decompressor.decompress(chunk, CHUNK)
            while True:
                produced += len(data)
                if produced > limit:
                    raise TooLarge(limit, "the decompressed upload")
                check_ratio(produced, read - len(decompressor.unconsumed_tail))
                yield data
                if not decompressor.unconsumed_tail:
                    break
                data = decompressor.decompress(decompressor.unconsumed_tail, CHUNK)
        tail = decompressor.flush()
        produced += len(tail)
        if produced > limit:
            raise TooLarge(limit, "the decompressed upload")
        check_ratio(produced, read)
        yield tail
    except zlib.error as exc:
        raise BadGzip(f"the upload is not valid gzip data: {exc}") from None
    if not decompressor.eof:
        raise BadGzip("the gzip data ends before its end marker (truncated upload?)")


def plain_chunks(source: IO[bytes], limit: int) -> Iterator[bytes]:
    size = 0
    while chunk := source.read(CHUNK):
        size += len(chunk)
        if size > limit:
            raise TooLarge(limit, "the upload")
        yield chunk


def save(
    source: IO[bytes],
    *,
    gzipped: bool = False,
    compress: bool = False,
    inspect: Callable[[bytes], None] | None = None,
) -> StoredRaw:
    """Stream ``source`` into the raw store, hashing as it goes; never whole in memory.

    ``gzipped``: ``source`` is gzip data (inflated to hash and inspect).
    ``compress``: keep the bytes gzip'd at rest (the caller sent them compressed);
    a gzip ``source`` is always kept compressed.

    When this returns the bytes are durable: on the filesystem the spool file
    is fsynced, linked under its key and the directory fsynced (a power cut
    after the 202 loses nothing); an S3 PUT is durable when it returns.
    ``inspect`` sees every (inflated) chunk, then ``b""``; whatever it raises
    stops the upload with nothing stored.
    """
    if gzipped:
        chunks = gunzip_chunks(source, settings.MAX_DECOMPRESSED_SIZE)
    else:
        chunks = plain_chunks(source, settings.MAX_UPLOAD_SIZE)
    compressed = compress or gzipped
    digest = hashlib.sha256()
    size = 0
    storage = storages["raw"]
    local = storage if isinstance(storage, FileSystemStorage) else None
    with tempfile.NamedTemporaryFile(
        dir=_spool_dir(local) if local else settings.FILE_UPLOAD_TEMP_DIR, prefix="raw-"
    ) as spool:
        writer: _Packer | IO[bytes] = _Packer(spool) if compressed else spool
        for chunk in chunks:
            if inspect is not None and chunk:
                inspect(chunk)
            digest.update(chunk)
            writer.write(chunk)
            size += len(chunk)
        if inspect is not None:
            inspect(b"")
        writer.flush()
        spool.flush()
        sha256 = digest.hexdigest()
        key = storage_key(sha256, compressed=compressed)
        if local:
            os.chmod(spool.fileno(), local.file_permissions_mode or 0o640)
            os.fsync(spool.fileno())
            _link_durably(spool.name, local.path(key), spool.tell())
        elif not storage.exists(key):
            spool.seek(0)
            saved = storage.save(key, File(spool))
            if saved != key:  # a concurrent writer stored the same bytes first
                storage.delete(saved)
    return StoredRaw(sha256=sha256, size=size, key=key)


def _spool_dir(storage: FileSystemStorage) -> str:
    """Spool files beside the raw files: one filesystem, so a link puts them in place."""
    path = os.path.join(storage.location, ".spool")
    os.makedirs(path, exist_ok=True)
    return path


def _link_durably(spool: str, target: str, size: int) -> None:
    """Give the fsynced ``spool`` the name ``target`` and make the name itself durable.

    Where the filesystem has no hard links (some SMB or FUSE mounts) the bytes
    are copied beside the target, fsynced and renamed into place instead.
    """
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    try:
        os.link(spool, target)
    except FileExistsError:
        # The same bytes, stored before (content-addressed) -- or left cut short by a
        # crash before this code fsynced: then replace them.
        if os.path.getsize(target) != size:
            _copy_into_place(spool, target)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        _copy_into_place(spool, target)
    # Also when another request linked it a moment ago: it may not have fsynced yet.
    _fsync_dir(folder)
    _fsync_dir(os.path.dirname(folder))


def _copy_into_place(spool: str, target: str) -> None:
    with tempfile.NamedTemporaryFile(dir=os.path.dirname(target), prefix=".copy-", delete=False) as copy:
        try:
            with open(spool, "rb") as source:
                shutil.copyfileobj(source, copy, CHUNK)
            copy.flush()
            os.fsync(copy.fileno())
            os.chmod(copy.name, os.stat(spool).st_mode)
            os.replace(copy.name, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(copy.name)
            raise


def clean_spool(older_than_seconds: float = SPOOL_MAX_AGE_SECONDS) -> int:
    """Remove spool files a killed web process left behind; how many were removed."""
    storage = storages["raw"]
    if not isinstance(storage, FileSystemStorage):
        return 0
    folder = os.path.join(storage.location, ".spool")
    cutoff = time.time() - older_than_seconds
    removed = 0
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(folder):
            with contextlib.suppress(FileNotFoundError):
                if entry.is_file() and entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
    return removed


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_bytes(data: bytes) -> StoredRaw:
    import io

    return save(io.BytesIO(data))


class _Inflated(gzip.GzipFile):
    """A stored ``.gz`` file read as its content; not seekable (seeking would re-inflate)."""

    def __init__(self, stored: IO[bytes]) -> None:
        super().__init__(fileobj=stored, mode="rb")
        self.stored = stored  # GzipFile leaves a file object it was given open

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.stored.close()


def open_raw(key: str) -> BinaryIO:
    """The stored content, inflated when it is kept compressed."""
    stored = storages["raw"].open(key, "rb")
    if not key.endswith(GZIP_SUFFIX):
        return cast(BinaryIO, stored)
    return cast(BinaryIO, _Inflated(stored))


def exists(key: str) -> bool:
    return bool(storages["raw"].exists(key))

"""The raw store: every uploaded byte, kept, content-addressed.

Raw bytes are written before anything else happens to an upload and are never
changed, so any upload can be re-parsed after a parser fix. Keys derive from
the SHA-256 of the content (``raw/ab/abcdef...``), never from a user's file
name, so identical bytes are stored once. The backend is Django's ``raw``
storage: a directory by default, S3-compatible storage when configured.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, BinaryIO, cast

from django.conf import settings
from django.core.files import File
from django.core.files.storage import storages

CHUNK = 1024 * 1024


class TooLarge(Exception):
    def __init__(self, limit: int, what: str) -> None:
        super().__init__(f"{what} exceeds the limit of {limit:,} bytes")
        self.limit = limit


class BadGzip(Exception):
    pass


@dataclass(frozen=True)
class StoredRaw:
    sha256: str
    size: int
    key: str


def storage_key(sha256: str) -> str:
    return f"raw/{sha256[:2]}/{sha256}"


def gunzip_chunks(source: IO[bytes], limit: int) -> Iterator[bytes]:
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    produced = 0
    try:
        while chunk := source.read(CHUNK):
            # max_length bounds each step so a gzip bomb never inflates in memory.
            data = decompressor.decompress(chunk, CHUNK)
            while True:
                produced += len(data)
                if produced > limit:
                    raise TooLarge(limit, "the decompressed upload")
                yield data
                if not decompressor.unconsumed_tail:
                    break
                data = decompressor.decompress(decompressor.unconsumed_tail, CHUNK)
        tail = decompressor.flush()
        produced += len(tail)
        if produced > limit:
            raise TooLarge(limit, "the decompressed upload")
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


def save(source: IO[bytes], *, gzipped: bool = False) -> StoredRaw:
    """Stream ``source`` into the raw store, hashing as it goes; never whole in memory."""
    if gzipped:
        chunks = gunzip_chunks(source, settings.MAX_DECOMPRESSED_SIZE)
    else:
        chunks = plain_chunks(source, settings.MAX_UPLOAD_SIZE)
    digest = hashlib.sha256()
    size = 0
    with tempfile.NamedTemporaryFile(dir=settings.FILE_UPLOAD_TEMP_DIR, prefix="raw-") as spool:
        for chunk in chunks:
            digest.update(chunk)
            spool.write(chunk)
            size += len(chunk)
        spool.flush()
        os.fsync(spool.fileno())
        sha256 = digest.hexdigest()
        key = storage_key(sha256)
        storage = storages["raw"]
        if not storage.exists(key):
            spool.seek(0)
            saved = storage.save(key, File(spool))
            if saved != key:  # a concurrent writer stored the same bytes first
                storage.delete(saved)
    return StoredRaw(sha256=sha256, size=size, key=key)


def save_bytes(data: bytes) -> StoredRaw:
    import io

    return save(io.BytesIO(data))


def open_raw(key: str) -> BinaryIO:
    return cast(BinaryIO, storages["raw"].open(key, "rb"))


def exists(key: str) -> bool:
    return bool(storages["raw"].exists(key))

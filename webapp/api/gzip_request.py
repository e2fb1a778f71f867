"""Accept ``Content-Encoding: gzip`` request bodies without inflating them in memory.

For multipart uploads the request stream is replaced by one that inflates on
the fly (bounded by HEADROOM_MAX_DECOMPRESSED_SIZE, so a gzip bomb stops with
413) and Django's multipart parser streams the inflated file to a temporary
file as usual. JSON endpoints read the still-compressed body through
``rawstore`` instead.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from webapp.api.errors import error_response

CHUNK = 64 * 1024


class GzipBodyError(Exception):
    pass


class InflatingStream:
    """A file-like ``read()`` over a gzip stream, refusing to inflate past ``limit``."""

    def __init__(self, source: Any, limit: int) -> None:
        self.source = source
        self.limit = limit
        self.produced = 0
        self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.buffer = b""
        self.done = False

    def _fill(self, wanted: int) -> None:
        while len(self.buffer) < wanted and not self.done:
            if self.inflater.unconsumed_tail:
                data = self.inflater.decompress(self.inflater.unconsumed_tail, CHUNK)
            else:
                chunk = self.source.read(CHUNK)
                if not chunk:
                    data = self.inflater.flush()
                    self.done = True
                    if not self.inflater.eof:
                        raise GzipBodyError("the gzip body ends before its end marker (truncated request?)")
                else:
                    try:
                        data = self.inflater.decompress(chunk, CHUNK)
                    except zlib.error as exc:
                        raise GzipBodyError(f"the request body is not valid gzip data: {exc}") from None
            self.produced += len(data)
            if self.produced > self.limit:
                raise GzipBodyError(f"the decompressed body exceeds the limit of {self.limit:,} bytes")
            self.buffer += data

    def readline(self, size: int = -1) -> bytes:
        while b"\n" not in self.buffer and not self.done:
            self._fill(len(self.buffer) + CHUNK)
        end = self.buffer.find(b"\n") + 1 or len(self.buffer)
        if size is not None and size >= 0:
            end = min(end, size)
        line, self.buffer = self.buffer[:end], self.buffer[end:]
        return line

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            self._fill(self.limit + 1)
            data, self.buffer = self.buffer, b""
            return data
        self._fill(size)
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class GzipRequestMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
        content_type = request.META.get("CONTENT_TYPE", "")
        if encoding == "gzip" and content_type.startswith("multipart/"):
            inflating = InflatingStream(request._stream, settings.MAX_DECOMPRESSED_SIZE)
            setattr(request, "_stream", inflating)  # noqa: B010  (Django reads the body from _stream)
            # The multipart parser needs a length; the real bound is the inflater's limit.
            request.META["CONTENT_LENGTH"] = str(settings.MAX_DECOMPRESSED_SIZE)
            del request.META["HTTP_CONTENT_ENCODING"]
            try:
                request.POST  # noqa: B018  (parse now, so gzip errors become a clean 4xx)
            except GzipBodyError as exc:
                status = 413 if "exceeds" in str(exc) else 400
                return error_response(status, "bad_request_body", str(exc))
        elif (
            content_type.startswith("multipart/")
            and _declared_length(request) > settings.MAX_UPLOAD_SIZE + 65536
        ):
            return error_response(
                413, "too_large", f"the upload exceeds the limit of {settings.MAX_UPLOAD_SIZE:,} bytes"
            )
        elif encoding not in ("", "identity", "gzip"):
            return error_response(
                415, "unsupported_encoding", f"Content-Encoding {encoding!r} is not supported; use gzip"
            )
        return self.get_response(request)

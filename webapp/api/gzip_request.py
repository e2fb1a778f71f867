"""Request bodies of the upload endpoints: read only for a caller who may add data, gzip allowed.

Only ``/api/v1/uploads``, ``/api/v1/samples`` and ``/api/v1/timings`` take a
body with ``Content-Encoding: gzip``; a compressed body sent anywhere else is
refused with 415 before a byte of it is read. On those three paths nothing is
read until django-ninja has accepted the caller (``request.auth``): an agent
token, or a session past its CSRF check, and in both cases write access to
some project (and to ``?campaign=`` when named; ``webapp.api.auth``). So a
gzip bomb from an anonymous caller, an account without membership or a
session without its CSRF header costs a header parse. For a gzip multipart
upload the stream inflates on the fly, bounded by
HEADROOM_MAX_DECOMPRESSED_SIZE and by HEADROOM_MAX_GZIP_RATIO times the
compressed bytes read so far (413 above either), and Django's multipart
parser streams the inflated file to a temporary file as usual; the JSON batch
endpoints inflate the still-compressed body themselves, with the same bounds.
Whatever temporary file a parse left behind (an error, a limit, a client gone
mid-body) is removed when the response is made.
"""

from __future__ import annotations

import contextlib
import weakref
import zlib
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from webapp.api.errors import ApiError, error_response
from webapp.core.rawstore import TooCompressed, check_ratio

CHUNK = 64 * 1024
# The endpoints that take a request body worth compressing (agents gzip all three).
UPLOAD_PATHS = frozenset({"/api/v1/uploads", "/api/v1/samples", "/api/v1/timings"})
IDENTITY = ("", "identity")


class GzipBodyError(ApiError):
    """A compressed upload that is not valid gzip (400) or inflates past the limit (413)."""


class BodyBeforeAuthentication(OSError):
    """Something tried to read an upload body before the caller was authenticated.

    An ``OSError``, so Django reports it as ``UnreadablePostError``, which its
    CSRF check takes as "no form token" without reading further.
    """


class InflatingStream:
    """A file-like ``read()`` over a gzip stream, refusing to inflate past ``limit``."""

    def __init__(self, source: Any, limit: int) -> None:
        self.source = source
        self.limit = limit
        self.produced = 0
        self.consumed = 0
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
                        raise GzipBodyError(
                            400, "bad_gzip", "the gzip body ends before its end marker (truncated request?)"
                        )
                else:
                    self.consumed += len(chunk)
                    try:
                        data = self.inflater.decompress(chunk, CHUNK)
                    except zlib.error as exc:
                        raise GzipBodyError(
                            400, "bad_gzip", f"the request body is not valid gzip data: {exc}"
                        ) from None
            self.produced += len(data)
            if self.produced > self.limit:
                raise GzipBodyError(
                    413, "too_large", f"the decompressed body exceeds the limit of {self.limit:,} bytes"
                )
            try:
                check_ratio(self.produced, self.consumed - len(self.inflater.unconsumed_tail))
            except TooCompressed as exc:
                raise GzipBodyError(413, "too_large", str(exc)) from None
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


def authenticated(request: HttpRequest) -> bool:
    """Whether django-ninja has accepted the caller (token, or session past its CSRF check).

    ``request.auth`` is set only after ``webapp.api.auth`` let the caller send
    an upload (write access somewhere, and to ``?campaign=`` when named). A
    signed-in session alone is not enough: the CSRF check runs before it, and
    a check that looked for a form token in the body would otherwise inflate it.
    """
    return getattr(request, "auth", None) is not None


class AuthenticatedBody:
    """The request stream, readable only once ``authenticated(request)`` holds."""

    def __init__(self, source: Any, request: HttpRequest) -> None:
        self.source = source
        self.request = weakref.ref(request)  # the request holds this stream: no cycle
        self.allowed = False

    def _check(self) -> None:
        if not self.allowed:
            request = self.request()
            if request is None or not authenticated(request):
                raise BodyBeforeAuthentication("the request body is read only for an authenticated caller")
            self.allowed = True

    def read(self, size: int = -1) -> bytes:
        self._check()
        data: bytes = self.source.read(size)
        return data

    def readline(self, size: int = -1) -> bytes:
        self._check()
        line: bytes = self.source.readline(size)
        return line


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _discard_partial_uploads(request: HttpRequest) -> None:
    """Remove the temporary files the multipart parser made, finished or not."""
    for handler in getattr(request, "_upload_handlers", None) or ():
        with contextlib.suppress(OSError):
            handler.upload_interrupted()


SENT_GZIP = "headroom_sent_gzip"


def sent_compressed(request: HttpRequest) -> bool:
    """Whether the body came gzip'd: then the raw store keeps the file compressed too."""
    return bool(getattr(request, SENT_GZIP, False))


class GzipRequestMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
        multipart = request.META.get("CONTENT_TYPE", "").startswith("multipart/")
        length = _declared_length(request)
        if request.path_info not in UPLOAD_PATHS:
            if encoding not in IDENTITY and length > 0:
                return error_response(
                    415,
                    "unsupported_encoding",
                    f"Content-Encoding {encoding!r} is accepted only by " + ", ".join(sorted(UPLOAD_PATHS)),
                )
            if multipart and length > settings.MAX_UPLOAD_SIZE + 65536:
                return error_response(
                    413, "too_large", f"the upload exceeds the limit of {settings.MAX_UPLOAD_SIZE:,} bytes"
                )
            return self.get_response(request)
        if encoding not in (*IDENTITY, "gzip"):
            return error_response(
                415, "unsupported_encoding", f"Content-Encoding {encoding!r} is not supported; use gzip"
            )
        if length > settings.MAX_UPLOAD_SIZE + 65536:
            return error_response(
                413, "too_large", f"the upload exceeds the limit of {settings.MAX_UPLOAD_SIZE:,} bytes"
            )
        stream: Any = request._stream
        setattr(request, SENT_GZIP, encoding == "gzip")
        if encoding == "gzip" and multipart:
            stream = InflatingStream(stream, settings.MAX_DECOMPRESSED_SIZE)
            # The multipart parser needs a length; the real bound is the inflater's limit.
            request.META["CONTENT_LENGTH"] = str(settings.MAX_DECOMPRESSED_SIZE)
            del request.META["HTTP_CONTENT_ENCODING"]
        setattr(request, "_stream", AuthenticatedBody(stream, request))  # noqa: B010  (Django reads _stream)
        try:
            return self.get_response(request)
        finally:
            _discard_partial_uploads(request)

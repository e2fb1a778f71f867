"""``/api/v1/samples`` and ``/api/v1/timings``: JSON batches from agents.

A batch is checked at once (JSON syntax, shape, size limits) so an agent gets
a 400 it can act on, then stored in the raw store like any file and
normalised by the same workers: nothing an agent sends bypasses the pipeline,
and an identical retry of a batch is recognised by its bytes (200,
``duplicate: true``).

The check reads the body as a stream of JSON events (ijson): the item limit is
judged while items arrive and no item is ever built, so memory stays at the
size of the body however many small objects it packs.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import ijson
from django.conf import settings
from django.http import HttpRequest
from ninja import Router, Status

from webapp.api.auth import any_auth
from webapp.api.batch_bodies import SAMPLES_BODY, TIMINGS_BODY
from webapp.api.errors import ApiError
from webapp.api.schemas import ACCEPT_RESPONSES
from webapp.api.uploads import body_campaign, check_timezone, store_and_accept, upload_out
from webapp.core import rawstore
from webapp.core.models import Host
from webapp.core.upload_meta import UploadMeta, check_declared

router = Router(tags=["batches"])


# Bodies up to this size are checked in memory; larger ones from a temporary file.
SPOOL_IN_MEMORY = 1024 * 1024
# A batch field other than the item list (campaign, host, scenario ...) is a few
# values; past this many JSON values it is refused rather than built in memory.
MAX_FIELD_VALUES = 10_000
# One sample or timing is a handful of values; an item holding more is refused
# here, so the worker never has to decode it (its parser builds whole items).
MAX_ITEM_VALUES = 1_000
# A sample is flatter still (time, counter or object/instance/counter_name, value: about a
# dozen values). A batch of items padded to just under the general limit would otherwise be
# walked value by value (27,000 items x 400 values: 7 s) and built by the worker.
MAX_SAMPLE_VALUES = 64
ITEM_VALUES = {"samples": MAX_SAMPLE_VALUES}
# Deeper than this, a batch is refused as the JSON decoder would refuse it.
MAX_DEPTH = 256
COUNTER_KEYS = ("counter", "object", "instance", "counter_name")
FIELDS = frozenset({"campaign", "host", "role", "scenario", "run", "timezone"})
_SCALARS = frozenset({"null", "boolean", "integer", "double", "number", "string"})
# JSON may escape half of a UTF-16 pair (``"\\ud800"``), which no text column can hold. The
# streaming parser turns it into "?", so the escapes are read in the bytes: an escape is a
# backslash after an even run of backslashes; a high half followed by a low half is a pair.
_SURROGATE_ESCAPE = re.compile(
    rb"(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2})"
)
_PAIR_LENGTH = 12
_MAYBE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")  # a quick look first: most bodies have none


@dataclass
class BatchSummary:
    """What the API checks of a batch, read as a stream: nothing is built per item."""

    fields: dict[str, Any] = field(default_factory=dict)  # top-level members other than the items
    items: int = 0
    items_is_list: bool = False
    counters: set[tuple[str, ...]] = field(default_factory=set)  # distinct counters, for samples
    item_values: int = 0  # JSON values in the current item


@contextlib.contextmanager
def read_body(request: HttpRequest) -> Iterator[IO[bytes]]:
    """The (inflated) body in a temporary file, bounded by DATA_UPLOAD_MAX_MEMORY_SIZE; 400/413 otherwise.

    Spooled to disk past 1 MiB and removed however the request ends.
    """
    encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    stream: Any = request
    chunks = (
        rawstore.gunzip_chunks(stream, limit) if encoding == "gzip" else rawstore.plain_chunks(stream, limit)
    )
    with tempfile.SpooledTemporaryFile(SPOOL_IN_MEMORY, dir=settings.FILE_UPLOAD_TEMP_DIR) as body:
        try:
            for chunk in chunks:
                body.write(chunk)
        except rawstore.TooLarge as exc:
            raise ApiError(413, "too_large", str(exc)) from None
        except rawstore.BadGzip as exc:
            raise ApiError(400, "bad_gzip", str(exc)) from None
        body.seek(0)
        yield body


def _utf8(body: IO[bytes]) -> IO[bytes]:
    """The body as UTF-8 for the streaming parser (JSON may come as UTF-16/32 or with a BOM)."""
    encoding = json.detect_encoding(body.read(4))
    body.seek(0)
    if encoding == "utf-8":
        return body
    if encoding == "utf-8-sig":
        body.seek(3)
        return body
    try:  # rare (agents send UTF-8), and bounded by the body limit
        return io.BytesIO(body.read().decode(encoding).encode("utf-8"))
    except UnicodeError:
        raise ApiError(400, "invalid_json", f"the body is not {encoding.upper()} JSON") from None


class _SurrogateCheck:
    """A reader that refuses a lone surrogate escape before the JSON parser sees its bytes."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.carry = b""  # read but not yet handed on: an escape may continue in the next chunk
        self.offset = 0  # of ``carry``'s first byte in the body

    def read(self, size: int = -1) -> bytes:
        while True:
            data = self.stream.read(size)
            text = self.carry + data
            keep = len(text)
            if data:
                # The last escape's worth of bytes waits for the next chunk, which may complete
                # a pair. Of a run of backslashes before them an even number is handed on: that
                # keeps the parity that decides whether the run ends in an escape, and keeps the
                # carry short however long the run.
                keep = max(len(text) - _PAIR_LENGTH, 0)
                run = keep - len(text[:keep].rstrip(b"\\"))
                keep -= run % 2
            for found in _SURROGATE_ESCAPE.finditer(text) if _MAYBE_SURROGATE.search(text) else ():
                if found.end(1) > keep:
                    keep = min(keep, found.start(1))  # checked again, whole, with the next chunk
                    break
                if len(found.group(1)) == 6:
                    raise ApiError(
                        400,
                        "invalid_text",
                        f"byte {self.offset + found.start(1):,} of the body holds a lone surrogate escape"
                        f" ({found.group(1).decode()}): JSON text must be valid Unicode",
                    )
            self.offset += keep
            self.carry = text[keep:]
            if keep or not data:  # an empty answer means the end to the parser
                return text[:keep]


def _json_error(exc: Exception) -> ApiError:
    message = exc.args[0] if exc.args else str(exc)
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    first = str(message).strip().splitlines()[0] if str(message).strip() else "unreadable JSON"
    return ApiError(400, "invalid_json", f"invalid JSON: {first}")


def summarise(body: IO[bytes], key: str) -> BatchSummary:
    """Walk the batch once as a stream of JSON events, refusing it as soon as a limit is passed.

    Items are counted (and, for samples, their counters collected) as they
    arrive, never built: ``{"samples": [{}, {}, ...]}`` stops at item
    ``MAX_BATCH_ITEMS + 1``. Only the small top-level fields are built.
    """
    summary = BatchSummary()
    item_values = ITEM_VALUES.get(key, MAX_ITEM_VALUES)
    depth = 0  # containers open around the current event
    top_is_object: bool | None = None
    member = ""  # the top-level member being read
    builder: ijson.ObjectBuilder | None = None  # builds a top-level field we keep
    built = 0
    counter: dict[str, str] | None = None  # the counter fields of the current sample
    sample_key = ""
    try:
        for event, value in ijson.basic_parse(_SurrogateCheck(_utf8(body)), use_float=True):
            if event in ("end_map", "end_array"):
                depth -= 1
            if top_is_object is None:
                top_is_object = event == "start_map"
            elif not top_is_object:
                pass  # walked for its syntax only
            elif depth == 1 and event == "map_key":
                member, builder, built = value, None, 0
                if member == key:
                    summary.items, summary.items_is_list = 0, False
                    summary.counters.clear()
                elif member in FIELDS:
                    builder = ijson.ObjectBuilder()
            elif member == key:
                if depth == 1 and event == "start_array":
                    summary.items_is_list = True
                elif summary.items_is_list and depth >= 2:
                    counter, sample_key = _item_event(summary, key, event, value, depth, counter, sample_key)
                    summary.item_values = (
                        0 if depth == 2 and event not in ("end_map", "end_array") else (summary.item_values)
                    )
                    summary.item_values += 1
                    if summary.item_values > item_values:
                        raise ApiError(
                            413,
                            "item_too_large",
                            f"{key} item {summary.items:,} holds more than {item_values:,} JSON values",
                        )
            elif builder is not None and depth >= 1:
                built += 1
                if built > MAX_FIELD_VALUES:
                    raise ApiError(
                        413, "field_too_large", f"{member!r} holds more than {MAX_FIELD_VALUES:,} values"
                    )
                builder.event(event, value)
                if depth == 1 and event not in ("start_map", "start_array"):
                    summary.fields[member] = builder.value
                    builder = None
            if event in ("start_map", "start_array"):
                depth += 1
                if depth > MAX_DEPTH:
                    raise ApiError(400, "invalid_json", "the JSON is nested too deeply")
    except ijson.JSONError as exc:
        raise _json_error(exc) from None
    except ValueError as exc:  # e.g. an integer longer than Python converts
        raise ApiError(400, "invalid_json", f"invalid JSON: {exc}") from None
    if not top_is_object:
        raise ApiError(400, "invalid_batch", "the body must be a JSON object")
    return summary


def _item_event(
    summary: BatchSummary,
    key: str,
    event: str,
    value: Any,
    depth: int,
    counter: dict[str, str] | None,
    name: str,
) -> tuple[dict[str, str] | None, str]:
    """Count an item as it starts; for samples, note its counter fields. Returns the sample state."""
    if depth == 2 and event not in ("end_map", "end_array"):
        summary.items += 1
        if summary.items > settings.MAX_BATCH_ITEMS:
            raise ApiError(
                413,
                "batch_too_large",
                f"at least {summary.items:,} {key} in one batch; the limit is {settings.MAX_BATCH_ITEMS:,}",
            )
        if key == "samples" and event == "start_map":
            return {}, ""
    if counter is None:
        return None, name
    if depth == 3 and event == "map_key":
        return counter, value
    if depth == 3 and name in COUNTER_KEYS and event != "end_map":
        counter[name] = str(value) if event in _SCALARS else "<not a string>"
    elif depth == 2 and event == "end_map":
        summary.counters.add(tuple(counter.get(k, "None") for k in COUNTER_KEYS))
        if len(summary.counters) > settings.MAX_COLUMNS:
            raise ApiError(
                413,
                "too_many_columns",
                f"at least {len(summary.counters):,} distinct counters in one batch; "
                f"the limit is {settings.MAX_COLUMNS:,}",
            )
        return None, ""
    return counter, name


def _meta(body: dict[str, Any], kind: str, items: int) -> UploadMeta:
    scenario = body.get("scenario") or {}
    if not isinstance(scenario, dict):
        raise ApiError(400, "invalid_scenario", "scenario must be a JSON object of strings")
    role = str(body.get("role") or "client")
    if role not in Host.Role.values:
        raise ApiError(400, "invalid_role", f"role must be 'client' or 'server', not {role!r}")
    return UploadMeta(
        filename=f"{kind}-batch-{items}.json",
        kind=kind,
        scenario=scenario,
        host=str(body.get("host") or "")[:255],
        role=role,
        timezone=check_timezone(str(body.get("timezone") or "")),
        run=str(body.get("run") or "")[:200],
    )


def _accept_batch(request: HttpRequest, kind: str, key: str) -> Status[dict[str, Any]]:
    with read_body(request) as raw:
        summary = summarise(raw, key)
        if not summary.items_is_list or not summary.items:
            raise ApiError(400, "invalid_batch", f"'{key}' must be a non-empty list")
        body = summary.fields
        campaign = body_campaign(request, str(body.get("campaign") or ""))
        meta = _meta(body, kind, summary.items)
        check_declared(campaign, meta.scenario)
        if kind == "samples" and not meta.host:
            raise ApiError(400, "missing_host", "a samples batch needs 'host'")
        raw.seek(0)
        upload, duplicate = store_and_accept(request, campaign, raw, meta)
    return Status(200 if duplicate else 202, upload_out(request, upload, duplicate))


@router.post(
    "/samples",
    auth=any_auth,
    response=ACCEPT_RESPONSES,
    openapi_extra=SAMPLES_BODY,
)
def post_samples(request: HttpRequest) -> Status[dict[str, Any]]:
    """A batch of live counter samples (JSON, gzip allowed).

    Body: ``{"campaign", "host", "role", "scenario": {...}, "run", "samples":
    [{"time": ISO-8601, "counter": "\\\\\\\\HOST\\\\Object(Instance)\\\\Counter", "value": 12.5}]}``;
    instead of ``counter`` a sample may give ``object``, ``instance`` and ``counter_name``.
    """
    return _accept_batch(request, "samples", "samples")


@router.post(
    "/timings",
    auth=any_auth,
    response=ACCEPT_RESPONSES,
    openapi_extra=TIMINGS_BODY,
)
def post_timings(request: HttpRequest) -> Status[dict[str, Any]]:
    """A batch of timing results.

    Body: ``{"campaign", "host", "scenario": {...}, "run", "timings": [{"name",
    "started_at", "duration_ms", "repetition", "scenario", "host", "tags"}]}``.
    """
    return _accept_batch(request, "timings", "timings")

"""``headroom-agent upload``: result files to ``POST /api/v1/uploads``, gzipped on the wire.

Each file becomes one spooled request: a multipart body (the form fields,
then the file) compressed as a whole with gzip and sent with
``Content-Encoding: gzip``. The body is built by streaming the file from
disk through the compressor into the spool, so a file of any size needs
only a small, constant amount of memory, and a retry sends exactly the
same bytes. ``--wait`` then follows each upload to ``stored`` or ``failed``
and prints the parser's error message verbatim.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Protocol

from headroom_agent import blg, inventory, localzone, progress
from headroom_agent.client import Client, TransportError, Verdict
from headroom_agent.context import EXIT_FAILED, EXIT_OK, EXIT_SPOOLED, EXIT_USAGE, Context, combine
from headroom_agent.outbox import Delivery, report
from headroom_agent.spool import Envelope, Item, Spool

READ_CHUNK = 1024 * 1024
COMPRESS_LEVEL = 6
FINAL_STATUSES = ("stored", "failed")


@dataclass(frozen=True)
class UploadMeta:
    """The form fields of an upload (SPEC: ``POST /api/v1/uploads``)."""

    campaign: str
    scenario: Mapping[str, str]
    host: str
    role: str
    kind: str = "auto"
    step: int | None = None
    timezone: str = ""
    run: str = ""

    def fields(self) -> list[tuple[str, str]]:
        found = [
            ("campaign", self.campaign),
            ("kind", self.kind or "auto"),
            ("scenario", json.dumps(dict(self.scenario), sort_keys=True)),
            ("host", self.host),
            ("role", self.role),
        ]
        if self.step is not None:
            found.append(("step", str(self.step)))
        if self.timezone:
            found.append(("timezone", self.timezone))
        if self.run:
            found.append(("run", self.run))
        return found


def _quote(value: str) -> str:
    """A header parameter value: quotes and line breaks escaped as browsers do."""
    return value.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


class Writable(Protocol):
    def write(self, data: bytes, /) -> int: ...


def write_multipart(
    out: Writable, boundary: str, fields: list[tuple[str, str]], path: Path, bar: progress.Progress
) -> None:
    """Stream ``multipart/form-data`` (fields first, then the file) into ``out``."""
    dash = f"--{boundary}\r\n".encode("ascii")
    for name, value in fields:
        out.write(dash)
        out.write(f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode())
        out.write(value.encode("utf-8") + b"\r\n")
    out.write(dash)
    out.write(
        f'Content-Disposition: form-data; name="file"; filename="{_quote(path.name)}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
    )
    with open(path, "rb") as source:
        while True:
            chunk = source.read(READ_CHUNK)
            if not chunk:
                break
            out.write(chunk)
            bar.advance(len(chunk))
    out.write(f"\r\n--{boundary}--\r\n".encode("ascii"))


def prepare(spool: Spool, path: Path, meta: UploadMeta, show_progress: bool | None = None) -> Item:
    """Compress ``path`` into a spooled upload request (nothing is sent yet)."""
    size = path.stat().st_size
    boundary = "headroom-" + uuid.uuid4().hex
    bar = progress.Progress(f"compressing {path.name}", size, progress.wanted(show_progress, size))

    def write(handle: IO[bytes]) -> None:
        # mtime=0: the same file always compresses to the same bytes.
        with gzip.GzipFile(fileobj=handle, mode="wb", compresslevel=COMPRESS_LEVEL, mtime=0) as zipped:
            write_multipart(zipped, boundary, meta.fields(), path, bar)
        bar.close()

    envelope = Envelope(
        kind="upload",
        method="POST",
        path="/api/v1/uploads",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "Content-Encoding": "gzip"},
        label=path.name,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        source=str(path.resolve()),
    )
    return spool.add(envelope, write)


def describe_failure(error: Any) -> str:
    """The server's parse error: where, then the message exactly as the parser wrote it."""
    if not isinstance(error, dict):
        return str(error)
    where = [f"parser {error['parser']}"] if error.get("parser") else []
    if error.get("line") is not None:
        where.append(f"line {error['line']}")
    if error.get("column") is not None:
        where.append(f"column {error['column']}")
    prefix = f"({', '.join(where)}) " if where else ""
    return f"{prefix}\n  {error.get('message', '')}" if prefix else f"\n  {error.get('message', '')}"


def wait_for(
    client: Client, upload_id: int, timeout: float, out: IO[str] | None = None
) -> dict[str, Any] | None:
    """Poll an upload until ``stored`` or ``failed``; None if it did not finish in time."""
    out = out or sys.stderr
    deadline = time.monotonic() + timeout
    delay = 0.5
    last_status = ""
    while True:
        try:
            response = client.get_json(f"/api/v1/uploads/{upload_id}")
        except TransportError as exc:
            print(f"upload {upload_id}: server unreachable while waiting ({exc}); retrying", file=out)
            response = None
        if response is not None:
            answer = response.json()
            if response.status != 200 or not isinstance(answer, dict):
                print(f"upload {upload_id}: cannot read its status: {response.error_message()}", file=out)
                return None
            status = str(answer.get("status"))
            if status in FINAL_STATUSES:
                return answer
            if status != last_status:
                last_status = status
        if time.monotonic() + delay > deadline:
            return None
        time.sleep(delay)
        delay = min(delay * 1.5, 5.0)


def file_list(paths: list[str]) -> tuple[list[Path], list[str]]:
    """Existing regular files, and a message for each argument that is not one."""
    found: list[Path] = []
    problems: list[str] = []
    for name in paths:
        path = Path(name)
        if not path.exists():
            problems.append(f"{name}: no such file")
        elif not path.is_file():
            problems.append(f"{name}: not a regular file")
        elif not os.access(path, os.R_OK):
            problems.append(f"{name}: not readable")
        else:
            found.append(path)
    return found, problems


def meta_from(args: argparse.Namespace, ctx: Context) -> UploadMeta:
    """The form fields from the command line and the configured defaults."""
    settings = ctx.settings
    return UploadMeta(
        campaign=settings.require_campaign(),
        scenario=settings.scenario,
        host=settings.host,
        role=settings.role,
        kind=args.kind,
        step=args.step,
        # Times without an offset were written in this machine's zone unless the sender says otherwise.
        timezone=args.timezone or localzone.local_zone(),
        run=args.run or "",
    )


def show_final(answer: dict[str, Any], out: IO[str]) -> int:
    """Print an upload's final status; EXIT_FAILED if parsing failed."""
    if answer.get("status") == "stored":
        parser = f" (parser {answer['parser']})" if answer.get("parser") else ""
        print(f"upload {answer['id']} stored: {answer.get('rows') or 0:,} rows{parser}", file=out)
        return EXIT_OK
    error = answer.get("error")
    if isinstance(error, dict) and not error.get("parser") and answer.get("parser"):
        error = {**error, "parser": answer["parser"]}
    print(f"upload {answer['id']} failed {describe_failure(error)}", file=out)
    return EXIT_FAILED


def _prepare_file(ctx: Context, path: Path, meta: UploadMeta, show_progress: bool | None) -> Item | None:
    """Spool one file; a binary perfmon log goes as the CSV relog makes of it (None: not sent)."""
    if not blg.is_blg(path):
        return prepare(ctx.spool, path, meta, show_progress)
    if not blg.on_windows():
        print(
            f"{path}: a binary perfmon log (.blg), which the server reads as CSV; on Windows run "
            f"`{blg.relog_command(path)}` and upload the CSV (headroom-agent upload does that itself there)",
            file=ctx.err,
        )
        return None
    try:
        with blg.converted(path) as csv_file:
            # The spool keeps its own compressed copy, so the temporary CSV can go at once.
            item = prepare(ctx.spool, csv_file, meta, show_progress)
    except blg.RelogFailed as exc:
        print(f"{path}: {exc}", file=ctx.err)
        return None
    print(
        f"{path.name}: binary perfmon log converted with relog; sending it as {csv_file.name}", file=ctx.out
    )
    return item


def note_inventory(delivery: Delivery | None, err: IO[str]) -> None:
    """Say when the server refused the machine inventory (it never changes the exit code)."""
    if delivery is not None and delivery.verdict is Verdict.REJECTED:
        print(f"machine inventory refused by the server: {delivery.message}", file=err)


def run(args: argparse.Namespace, ctx: Context) -> int:
    """``headroom-agent upload FILE...``"""
    files, problems = file_list(args.files)
    for problem in problems:
        print(problem, file=ctx.err)
    if not files:
        return EXIT_USAGE
    meta = meta_from(args, ctx)
    machine = None if args.no_inventory else inventory.spool_inventory(ctx.spool, ctx.settings, ctx.err)
    items = []
    for path in files:
        item = _prepare_file(ctx, path, meta, args.progress)
        if item is None:
            problems.append(str(path))
        else:
            items.append(item)
    result = ctx.outbox.flush()
    report(result, ctx.spool, items, ctx.err)
    note_inventory(result.of(machine) if machine else None, ctx.err)
    codes = [EXIT_FAILED if problems else EXIT_OK]
    delivered: list[tuple[int, str]] = []
    for item in items:
        label = item.envelope.label
        delivery = result.of(item)
        if delivery is None or delivery.verdict in (Verdict.RETRY, Verdict.AUTH):
            print(f"spooled {label} (not delivered yet; kept in {ctx.spool.items_dir})", file=ctx.out)
            codes.append(EXIT_FAILED if delivery and delivery.verdict is Verdict.AUTH else EXIT_SPOOLED)
        elif delivery.verdict is Verdict.REJECTED:
            print(f"{label}: rejected by the server: {delivery.message}", file=ctx.err)
            codes.append(EXIT_FAILED)
        else:
            answer = delivery.answer or {}
            duplicate = " (duplicate of an earlier upload)" if answer.get("duplicate") else ""
            if answer.get("refiled"):
                duplicate = " (re-filed: sent before with other options, parsed again with these)"
            print(f"upload {answer.get('id')} {answer.get('status')} {label}{duplicate}", file=ctx.out)
            if isinstance(answer.get("id"), int):
                delivered.append((answer["id"], label))
    if args.wait:
        for upload_id, label in delivered:
            final = wait_for(ctx.client, upload_id, args.wait_timeout, ctx.err)
            if final is None:
                print(
                    f"upload {upload_id} ({label}) not finished after {args.wait_timeout:g} s; "
                    f"check {ctx.client.url(f'/api/v1/uploads/{upload_id}')}",
                    file=ctx.err,
                )
                codes.append(EXIT_FAILED)
            else:
                codes.append(show_final(final, ctx.out))
    return combine(*codes)

"""Delivering spooled requests: oldest first, and stop as soon as the server is away.

Every command puts its requests in the spool and then calls ``Outbox.flush``,
which delivers whatever is pending in order -- older leftovers first, then
the command's own items. Items still backing off from earlier failures are
skipped until one delivery succeeds (the server is evidently back), after
which everything goes. A failure that will hit every item (unreachable, 5xx,
token rejected) ends the flush at once; a request the server refuses for
good (4xx) moves to ``rejected/`` and the flush continues.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from headroom_agent import progress
from headroom_agent.client import Client, FileBody, Response, TransportError, Verdict, verdict
from headroom_agent.spool import Item, Spool

LOCK_TIMEOUT = 30.0


@dataclass
class Delivery:
    """The outcome of one try to deliver one item."""

    item: Item
    verdict: Verdict
    status: int | None = None
    answer: dict[str, Any] | None = None
    message: str = ""


@dataclass
class FlushResult:
    """What one flush did, and what is left."""

    deliveries: list[Delivery] = field(default_factory=list)
    remaining: int = 0
    failure: Delivery | None = None  # the RETRY/AUTH delivery that stopped the flush
    lock_busy: bool = False

    def of(self, item: Item) -> Delivery | None:
        """This item's delivery in this flush, if it was tried."""
        return next((d for d in self.deliveries if d.item.id == item.id), None)


class Outbox:
    """The spool plus a client: turns pending items into deliveries."""

    def __init__(self, spool: Spool, client: Client, show_progress: bool | None = None) -> None:
        self.spool = spool
        self.client = client
        self.show_progress = show_progress

    def flush(self, force: bool = False, lock_timeout: float = LOCK_TIMEOUT) -> FlushResult:
        """Deliver pending items in order; ``force`` ignores the backoff of earlier failures."""
        lock = self.spool.lock()
        if not lock.acquire(lock_timeout):
            return FlushResult(remaining=self.spool.count(), lock_busy=True)
        try:
            self.spool.clean_tmp()
            result = FlushResult()
            server_up = False
            while True:
                deferred = False
                blocked: set[str] = set()
                now = time.time()
                for item in self.spool.pending():
                    key = item.envelope.order_key
                    if key and key in blocked:
                        continue
                    if not (force or server_up or item.due(now)):
                        deferred = True
                        if key:
                            blocked.add(key)
                        continue
                    delivery = self.deliver(item)
                    result.deliveries.append(delivery)
                    if delivery.verdict in (Verdict.RETRY, Verdict.AUTH):
                        result.failure = delivery
                        result.remaining = self.spool.count()
                        return result
                    server_up = True
                if not (deferred and server_up):
                    break
            result.remaining = self.spool.count()
            return result
        finally:
            lock.release()

    def deliver(self, item: Item) -> Delivery:
        """Send one item and update the spool: removed, rejected, or postponed."""
        envelope = item.envelope
        try:
            path = envelope.path
            if envelope.kind == "steps":
                found = self._run_path(item)
                if isinstance(found, Delivery):
                    return self._settle(found)
                path = found
            with item.open_body() as handle:
                bar = progress.Progress(
                    f"sending {envelope.label}",
                    item.body_size,
                    progress.wanted(self.show_progress, item.body_size),
                )
                body = FileBody(handle, item.body_size, bar.advance)
                try:
                    response = self.client.request(envelope.method, path, body, envelope.headers)
                finally:
                    bar.close()
        except TransportError as exc:
            return self._settle(Delivery(item, Verdict.RETRY, message=f"server unreachable ({exc})"))
        return self._settle(self._judge(item, response))

    def _run_path(self, item: Item) -> str | Delivery:
        """Steps need the run's id: get-or-create the run by name first."""
        response = self.client.post_json("/api/v1/runs", item.envelope.run_request or {})
        judged = self._judge(item, response)
        if judged.verdict is not Verdict.DELIVERED or judged.answer is None or "id" not in judged.answer:
            return judged
        return f"/api/v1/runs/{judged.answer['id']}/steps"

    def _judge(self, item: Item, response: Response) -> Delivery:
        outcome = verdict(response.status)
        answer = response.json()
        if outcome is Verdict.DELIVERED:
            return Delivery(item, outcome, response.status, answer if isinstance(answer, dict) else None)
        message = response.error_message()
        if outcome is Verdict.AUTH:
            message = f"token rejected by {self.client.server} (HTTP {response.status}: {message})"
        elif outcome is Verdict.RETRY:
            message = f"server error at {self.client.server} (HTTP {response.status}: {message})"
        return Delivery(item, outcome, response.status, None, message)

    def _settle(self, delivery: Delivery) -> Delivery:
        item = delivery.item
        if delivery.verdict is Verdict.DELIVERED:
            self.spool.remove(item)
        elif delivery.verdict is Verdict.REJECTED:
            source = item.envelope.source
            if item.envelope.kind == "upload" and source and Path(source).is_file():
                # The file itself is the copy to keep; the prepared body would only duplicate it.
                self.spool.remove(item)
            else:
                self.spool.reject(item, delivery.message)
        else:
            self.spool.postpone(item, delivery.message)
        return delivery


def describe_answer(answer: dict[str, Any] | None) -> str:
    """``upload 12 (queued)`` for an upload-like answer, ``run 3`` for a run."""
    if not answer:
        return "delivered"
    if "status" in answer:
        duplicate = ", duplicate of an earlier upload" if answer.get("duplicate") else ""
        return f"upload {answer.get('id')} ({answer.get('status')}{duplicate})"
    return f"run {answer.get('id')}"


def report(
    result: FlushResult,
    spool: Spool,
    own: Iterable[Item] = (),
    stream: TextIO | None = None,
) -> None:
    """Tell the user about older items delivered or rejected, and why anything is left."""
    stream = stream or sys.stderr
    own_ids = {item.id for item in own}
    for delivery in result.deliveries:
        if delivery.item.id in own_ids:
            continue
        label = delivery.item.envelope.label
        if delivery.verdict is Verdict.DELIVERED:
            print(f"delivered from the spool: {label} -> {describe_answer(delivery.answer)}", file=stream)
        elif delivery.verdict is Verdict.REJECTED:
            print(f"rejected by the server: {label}: {delivery.message}", file=stream)
    where = spool.items_dir
    count = result.remaining
    items = f"{count} item{'s' if count != 1 else ''}"
    if result.lock_busy:
        print(
            f"another headroom-agent process is delivering the spool; {items} wait in {where}",
            file=stream,
        )
    elif result.failure is not None and result.failure.verdict is Verdict.AUTH:
        print(
            f"{result.failure.message}\n  set a valid token with `headroom-agent configure --token TOKEN`, "
            f"then run `headroom-agent flush`; {items} kept in {where}",
            file=stream,
        )
    elif result.failure is not None:
        print(
            f"{result.failure.message}: {items} spooled in {where}; "
            "the next headroom-agent command or `headroom-agent flush` retries them",
            file=stream,
        )


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)

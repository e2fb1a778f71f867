"""The spool: durable, atomic, first in first out, and honest about what is left."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from headroom_agent.client import Client, Verdict
from headroom_agent.outbox import Outbox
from headroom_agent.spool import BACKOFF_MAX, Envelope, Spool, backoff_seconds

from tests.agents.conftest import Sink
from tests.ports import free_port


def envelope(label: str = "x", kind: str = "samples", order_key: str = "") -> Envelope:
    return Envelope(
        kind=kind,
        method="POST",
        path="/api/v1/samples",
        headers={"Content-Type": "application/json"},
        label=label,
        created="2024-01-01T00:00:00Z",
        order_key=order_key,
    )


def test_it_stores_the_exact_body_after_an_envelope_line(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    body = bytes(range(256)) * 10
    item = spool.add_bytes(envelope(), body)
    [again] = spool.pending()
    assert again.id == item.id
    assert again.envelope == item.envelope
    with again.open_body() as handle:
        assert handle.read() == body
    assert again.body_size == len(body)


def test_it_never_shows_a_half_written_item(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    seen_during_write: list[int] = []

    def write(handle: object) -> None:
        seen_during_write.append(len(spool.pending()))
        raise RuntimeError("crash while writing")

    with pytest.raises(RuntimeError):
        spool.add(envelope(), write)
    assert seen_during_write == [0]
    assert spool.pending() == []
    assert list(spool.tmp_dir.iterdir()) == []


def test_it_lists_items_oldest_first(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    labels = [f"batch {n}" for n in range(5)]
    for label in labels:
        spool.add_bytes(envelope(label), b"{}")
    assert [item.envelope.label for item in spool.pending()] == labels


def test_it_survives_a_new_process(tmp_path: Path) -> None:
    Spool(tmp_path / "spool").add_bytes(envelope("kept"), b"data")
    reopened = Spool(tmp_path / "spool")
    assert [item.envelope.label for item in reopened.pending()] == ["kept"]


def test_it_backs_off_exponentially_up_to_a_cap() -> None:
    assert backoff_seconds(1, jitter=0) == 5
    assert backoff_seconds(2, jitter=0) == 10
    assert backoff_seconds(4, jitter=0) == 40
    assert backoff_seconds(50, jitter=0) == BACKOFF_MAX


def test_it_records_failed_tries_durably(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    item = spool.add_bytes(envelope(), b"{}")
    spool.postpone(item, "server unreachable (connection refused)", now=1000.0)
    [again] = Spool(tmp_path / "spool").pending()
    assert again.state.attempts == 1
    assert again.state.last_error == "server unreachable (connection refused)"
    assert not again.due(1000.0)
    assert again.due(1000.0 + 10)


def test_it_moves_refused_items_aside_with_the_reason(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    item = spool.add_bytes(envelope(), b"{}")
    spool.reject(item, "campaign 'nope' not found")
    assert spool.pending() == []
    [refused] = spool.rejected()
    assert refused.state.last_error == "campaign 'nope' not found"
    assert spool.restore_rejected() == 1
    assert len(spool.pending()) == 1


def test_it_quarantines_an_unreadable_item(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    spool.add_bytes(envelope(), b"{}")
    (spool.items_dir / "0000000000000000001-1-0000.req").write_bytes(b"not json\n")
    assert len(spool.pending()) == 1
    [bad] = list(spool.rejected_dir.glob("*.req"))
    assert bad.name.startswith("0000000000000000001")


def test_it_removes_only_stale_temporary_files(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    spool.add_bytes(envelope(), b"{}")
    old = spool.tmp_dir / "old.req"
    fresh = spool.tmp_dir / "fresh.req"
    old.write_bytes(b"x")
    fresh.write_bytes(b"x")
    os.utime(old, (time.time() - 3 * 86400, time.time() - 3 * 86400))
    spool.clean_tmp()
    assert not old.exists()
    assert fresh.exists()


def test_its_lock_is_exclusive_and_released(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    first, second = spool.lock(), spool.lock()
    assert first.acquire()
    assert not second.acquire(timeout=0.2)
    first.release()
    assert second.acquire()
    second.release()


def test_a_flush_delivers_in_order_and_empties_the_spool(tmp_path: Path, sink: Sink) -> None:
    spool = Spool(tmp_path / "spool")
    for n in range(3):
        spool.add_bytes(envelope(f"batch {n}"), f'{{"n": {n}}}'.encode())
    result = Outbox(spool, Client(sink.url, "t")).flush()
    assert [d.verdict for d in result.deliveries] == [Verdict.DELIVERED] * 3
    assert [r.json()["n"] for r in sink.posts("/api/v1/samples")] == [0, 1, 2]
    assert sink.requests[0].headers["Authorization"] == "Bearer t"
    assert result.remaining == 0
    assert spool.pending() == []


def test_a_flush_stops_at_the_first_unreachable_try(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    for n in range(3):
        spool.add_bytes(envelope(f"batch {n}"), b"{}")
    result = Outbox(spool, Client(f"http://127.0.0.1:{free_port()}", "t", timeout=2)).flush()
    assert len(result.deliveries) == 1
    assert result.failure is not None
    assert result.failure.message == "server unreachable (connection refused)"
    assert result.remaining == 3
    [first, second, third] = spool.pending()
    assert first.state.attempts == 1
    assert second.state.attempts == third.state.attempts == 0


def test_items_backing_off_wait_until_the_server_is_back(tmp_path: Path, sink: Sink) -> None:
    spool = Spool(tmp_path / "spool")
    old = spool.add_bytes(envelope("old"), b'{"n": "old"}')
    spool.postpone(old, "server unreachable", now=time.time())
    spool.add_bytes(envelope("new"), b'{"n": "new"}')
    result = Outbox(spool, Client(sink.url, "t")).flush()
    # The new item proves the server is back, so the old one goes too.
    assert sorted(r.json()["n"] for r in sink.posts("/api/v1/samples")) == ["new", "old"]
    assert result.remaining == 0


def test_ordered_items_are_never_overtaken(tmp_path: Path, sink: Sink) -> None:
    spool = Spool(tmp_path / "spool")
    first = spool.add_bytes(envelope("step 10", order_key="steps:c:r"), b'{"n": 10}')
    spool.postpone(first, "server unreachable", now=time.time())
    spool.add_bytes(envelope("step 20", order_key="steps:c:r"), b'{"n": 20}')
    spool.add_bytes(envelope("other"), b'{"n": 0}')
    Outbox(spool, Client(sink.url, "t")).flush()
    order = [r.json()["n"] for r in sink.posts("/api/v1/samples")]
    assert order.index(10) < order.index(20)


def test_a_refused_batch_is_kept_aside_and_the_rest_still_goes(tmp_path: Path, sink: Sink) -> None:
    spool = Spool(tmp_path / "spool")
    spool.add_bytes(envelope("bad"), b"{}")
    spool.add_bytes(envelope("good"), b"{}")
    sink.answer(400, {"error": {"code": "invalid_batch", "message": "'samples' must be a non-empty list"}})
    result = Outbox(spool, Client(sink.url, "t")).flush()
    assert [d.verdict for d in result.deliveries] == [Verdict.REJECTED, Verdict.DELIVERED]
    assert result.deliveries[0].message == "'samples' must be a non-empty list"
    [refused] = spool.rejected()
    assert refused.envelope.label == "bad"


def test_a_rejected_token_keeps_everything(tmp_path: Path, sink: Sink) -> None:
    spool = Spool(tmp_path / "spool")
    spool.add_bytes(envelope("a"), b"{}")
    spool.add_bytes(envelope("b"), b"{}")
    sink.answer(401, {"error": {"code": "unauthorized", "message": "missing or rejected credentials"}})
    result = Outbox(spool, Client(sink.url, "bad")).flush()
    assert result.failure is not None
    assert result.failure.verdict is Verdict.AUTH
    assert result.failure.message.startswith(f"token rejected by {sink.url} (HTTP 401")
    assert result.remaining == 2

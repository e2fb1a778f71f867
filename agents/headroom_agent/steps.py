"""``headroom-agent step``: mark load-step boundaries of a capacity run.

``step --run R --users N`` says "from now on the run carries N users" (the
step stays open until the next step starts); ``step --run R --end`` closes
the last step. The time is taken when the command runs, not when the
request is delivered, so a spooled step keeps its true time. Delivery gets
or creates the run by name (``POST /api/v1/runs``) and then posts the step
(``POST /api/v1/runs/{id}/steps``); both are idempotent. Steps of one run
share an order key, so the spool never delivers a later step before an
earlier one.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from typing import Any

from headroom_agent.client import Verdict
from headroom_agent.context import EXIT_USAGE, Context, spool_code
from headroom_agent.outbox import report
from headroom_agent.spool import Envelope
from headroom_agent.timing import iso_utc


def parse_time(text: str | None) -> datetime:
    """``--at`` (ISO 8601 with an offset), or now."""
    if not text:
        return datetime.now(timezone.utc)
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"--at {text!r} needs a UTC offset, e.g. 2024-05-01T10:00:00Z")
    return moment


def describe_run(answer: dict[str, Any]) -> str:
    """``run 'R' (id 3): 10 users from ..., 20 users from ... to ...``"""
    steps = answer.get("steps") or []
    parts = []
    for step in steps:
        end = f" to {step['ended_at']}" if step.get("ended_at") else " (open)"
        parts.append(f"{step['users']} users from {step['started_at']}{end}")
    listing = "; ".join(parts) if parts else "no steps"
    return f"run {answer.get('name')!r} (id {answer.get('id')}): {listing}"


def run(args: argparse.Namespace, ctx: Context) -> int:
    """``headroom-agent step --run R (--users N | --end)``"""
    try:
        moment = parse_time(args.at)
    except ValueError as exc:
        print(str(exc), file=ctx.err)
        return EXIT_USAGE
    if args.users is not None and args.users < 0:
        print("--users must be 0 or more", file=ctx.err)
        return EXIT_USAGE
    settings = ctx.settings
    campaign = settings.require_campaign()
    stamp = iso_utc(moment)
    if args.end:
        body: dict[str, Any] = {"steps": [], "end_at": stamp}
        label = f"end of run {args.run!r} at {stamp}"
    else:
        body = {"steps": [{"users": args.users, "started_at": stamp}]}
        label = f"step of run {args.run!r}: {args.users} users from {stamp}"
    envelope = Envelope(
        kind="steps",
        method="POST",
        path="/api/v1/runs/{id}/steps",
        headers={"Content-Type": "application/json"},
        label=label,
        created=stamp,
        order_key=f"steps:{campaign}:{args.run}",
        run_request={
            "campaign": campaign,
            "name": args.run,
            "scenario": settings.scenario,
            "tool": args.tool,
        },
    )
    item = ctx.spool.add_bytes(envelope, json.dumps(body, separators=(",", ":")).encode("utf-8"))
    result = ctx.outbox.flush()
    report(result, ctx.spool, [item], ctx.err)
    delivery = result.of(item)
    if delivery is not None and delivery.verdict is Verdict.DELIVERED:
        print(describe_run(delivery.answer or {}), file=ctx.out)
    elif delivery is not None and delivery.verdict is Verdict.REJECTED:
        print(f"{label}: rejected by the server: {delivery.message}", file=ctx.err)
    else:
        print(f"spooled {label} (not delivered yet; kept in {ctx.spool.items_dir})", file=ctx.out)
    return spool_code(ctx.spool, [item])

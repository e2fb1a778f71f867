"""``headroom-agent campaign create``: a new campaign in the token's project (``POST /api/v1/campaigns``).

Unlike uploads this is not spooled: creating a campaign is something a
person does once, at the keyboard, and wants to see succeed or fail now.
"""

from __future__ import annotations

import argparse
from typing import Any

from headroom_agent.client import TransportError
from headroom_agent.context import EXIT_FAILED, EXIT_OK, Context


def add_parser(commands: Any, conn: argparse.ArgumentParser) -> None:
    """``campaign create --slug S --name N [--description D] [--dimension KEY ...]``."""
    parser = commands.add_parser("campaign", help="create a campaign (needs an editor's or owner's token)")
    actions = parser.add_subparsers(dest="campaign_action", metavar="ACTION")
    actions.required = True
    create = actions.add_parser("create", parents=[conn], help="create a campaign in the token's project")
    create.add_argument("--slug", required=True, help="short name for URLs and --campaign, e.g. smb-study")
    create.add_argument("--name", required=True, help='display name, e.g. "SMB 2.1 vs 3.02"')
    create.add_argument("--description", default="", help="what the study is about")
    create.add_argument(
        "--dimension",
        action="append",
        default=[],
        metavar="KEY",
        help="a scenario dimension the study varies, in grouping order (repeat: --dimension smb_dialect "
        "--dimension av)",
    )
    create.add_argument(
        "--project", default="", help="project slug (only if the token could write to several)"
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    """Create the campaign; 0 when created, 1 when refused or the server is unreachable."""
    body = {
        "slug": args.slug,
        "name": args.name,
        "description": args.description,
        "dimensions": args.dimension,
    }
    if args.project:
        body["project"] = args.project
    try:
        response = ctx.client.post_json("/api/v1/campaigns", body)
    except TransportError as exc:
        print(f"server unreachable ({exc}); nothing created", file=ctx.err)
        return EXIT_FAILED
    answer = response.json()
    if response.status == 201 and isinstance(answer, dict):
        dims = ", ".join(answer.get("dimensions") or []) or "none"
        print(
            f"campaign {answer['slug']} created in project {answer['project']} (dimensions: {dims})\n"
            f"  {answer.get('url', '')}\n"
            f"  upload to it with --campaign {answer['slug']} "
            f"(or: headroom-agent configure --campaign {answer['slug']})",
            file=ctx.out,
        )
        return EXIT_OK
    print(f"campaign not created (HTTP {response.status}): {response.error_message()}", file=ctx.err)
    return EXIT_FAILED

"""The ``headroom-agent`` command line: parsing, dispatch, ``configure`` and ``flush``.

Every command that talks to the server first writes its requests to the
spool, then delivers the spool (older leftovers first). See ``context`` for
the exit codes and ``README.md`` for the commands.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, Callable

from headroom_agent import __version__, campaigns, sample, steps, timing, upload, watch
from headroom_agent.client import Client, TransportError, Verdict
from headroom_agent.config import (
    ROLES,
    ConfigError,
    is_plain_http_remote,
    load_file,
    mask,
    normalise_server,
    parse_pairs,
    resolve,
    save_file,
)
from headroom_agent.context import EXIT_FAILED, EXIT_OK, EXIT_SPOOLED, EXIT_USAGE, Context
from headroom_agent.outbox import Outbox, describe_answer, report
from headroom_agent.progress import human_bytes
from headroom_agent.spool import Spool, SpoolError

Command = Callable[[argparse.Namespace, Context], int]


def _connection_options() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("connection (override the config file and environment)")
    group.add_argument("--server", help="Headroom URL, e.g. https://headroom.example (env HEADROOM_SERVER)")
    group.add_argument("--token", help="agent token (env HEADROOM_TOKEN)")
    group.add_argument("--config", help="config file (env HEADROOM_CONFIG)")
    group.add_argument("--spool", dest="spool_dir", help="spool directory (env HEADROOM_SPOOL_DIR)")
    group.add_argument("--timeout", type=float, help="seconds to wait for the server (default 60)")
    return parent


def _tag_options() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("what the data belongs to (defaults from `configure`)")
    group.add_argument("--campaign", help="campaign slug")
    group.add_argument(
        "--scenario",
        action="append",
        nargs="+",
        metavar="KEY=VALUE",
        help="scenario dimensions, e.g. --scenario smb_dialect=3.02 av=off",
    )
    group.add_argument("--host", help="host name (default: this machine's name)")
    group.add_argument("--role", choices=ROLES, help="client or server (default client)")
    return parent


# A scenario pair's key: a dimension name, then "=".
_PAIR = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*=")


def split_scenario_pairs(argv: Sequence[str]) -> list[str]:
    """``--scenario a=1 b=2 FILE ...`` -> ``--scenario=a=1 --scenario=b=2 FILE ...``.

    The pairs after ``--scenario`` end at the first word that is not
    KEY=VALUE, so files may follow them, as the dashboard's examples write
    them (argparse's ``nargs="+"`` would swallow the files too). Nothing
    after ``--`` is touched.
    """
    out: list[str] = []
    taking = False
    for index, word in enumerate(argv):
        if taking and _PAIR.match(word):
            out.append(f"--scenario={word}")
            continue
        if taking and not (out and out[-1].startswith("--scenario=")):
            raise ValueError(
                f"--scenario takes KEY=VALUE pairs, e.g. --scenario smb_dialect=3.02; got {word!r}"
            )
        taking = word == "--scenario"
        if word == "--":
            return out + list(argv[index:])
        if not taking:
            out.append(word)
    if taking and not (out and out[-1].startswith("--scenario=")):
        raise ValueError("--scenario takes KEY=VALUE pairs, e.g. --scenario smb_dialect=3.02")
    return out


def _upload_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kind", default="auto", help="parser name, or auto (default) to detect from content"
    )
    parser.add_argument(
        "--step", type=int, metavar="USERS", help="load step (user count) the file belongs to"
    )
    parser.add_argument(
        "--timezone",
        help="IANA zone for times without an offset, e.g. Asia/Kolkata (default: this machine's zone)",
    )
    parser.add_argument("--run", help="run name to file the results under")
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument("--progress", action="store_true", default=None, help="always show a progress bar")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show one")


def _inventory_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-inventory",
        action="store_true",
        help="do not send what this machine is (OS, CPU, memory, disks, network adapters)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    conn = _connection_options()
    tags = _tag_options()
    parser = argparse.ArgumentParser(
        prog="headroom-agent",
        description="Upload results, sample counters and time commands for Headroom. "
        "Nothing is lost when the server is away: requests wait in a spool.",
        epilog="exit codes: 0 delivered, 1 rejected or failed, 2 usage, 75 spooled for a later retry",
    )
    parser.add_argument("--version", action="version", version=f"headroom-agent {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    p = commands.add_parser("configure", parents=[conn, tags], help="store server, token and defaults")
    p.add_argument(
        "--show", action="store_true", help="print the effective settings and where they come from"
    )
    p.add_argument("--no-check", action="store_true", help="do not contact the server to check the token")

    p = commands.add_parser("upload", parents=[conn, tags], help="upload result files")
    p.add_argument("files", nargs="+", metavar="FILE")
    _upload_options(p)
    p.add_argument("--wait", action="store_true", help="follow each upload to stored/failed")
    _inventory_option(p)
    p.add_argument("--wait-timeout", type=float, default=600.0, metavar="SECONDS", help="default 600")

    p = commands.add_parser("sample", parents=[conn, tags], help="sample live counters (needs psutil)")
    p.add_argument("--run", required=True, help="run name the samples belong to")
    p.add_argument("--interval", type=float, default=1.0, metavar="SECONDS", help="default 1")
    p.add_argument(
        "--duration", type=float, default=600.0, metavar="SECONDS", help="default 600; 0 = until Ctrl+C"
    )
    p.add_argument("--counters", default="cpu,mem,disk,net", help="groups: cpu,mem,disk,net or none")
    p.add_argument(
        "--per-nic",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also one Network Interface instance per NIC, with its Current Bandwidth (default on)",
    )
    _inventory_option(p)
    p.add_argument(
        "--typeperf",
        action="append",
        metavar="PATH",
        help=r"Windows: also sample this perfmon counter path via typeperf, e.g. '\LogicalDisk(C:)\Avg. Disk Queue Length'",
    )
    p.add_argument(
        "--batch", type=float, default=30.0, metavar="SECONDS", help="send a batch this often (default 30)"
    )

    p = commands.add_parser("time", parents=[conn, tags], help="time a command, repeatedly")
    p.add_argument("--name", required=True, help='what is timed, e.g. "Excel launch"')
    p.add_argument("--repeat", type=int, default=1, help="repetitions (default 1)")
    p.add_argument("--pause", type=float, default=0.0, metavar="SECONDS", help="pause between repetitions")
    p.add_argument("--tag", action="append", metavar="KEY=VALUE", help="tag sent with each timing")
    p.add_argument("--run", help="run name")
    p.add_argument(
        "--users",
        type=int,
        metavar="N",
        help="active user sessions while the command runs; overrides the load step its time falls in",
    )
    p.add_argument(
        "--until-window",
        metavar="TITLE",
        help="Windows only: stop the clock when a new window whose title contains TITLE is visible",
    )
    p.add_argument("--window-timeout", type=float, default=120.0, metavar="SECONDS", help="default 120")
    p.add_argument("--leave-running", action="store_true", help="with --until-window: do not close the app")
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="-- CMD ...")

    p = commands.add_parser("step", parents=[conn, tags], help="mark a load step of a run")
    p.add_argument("--run", required=True, help="run name")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--users", type=int, help="the user count from now on")
    which.add_argument("--end", action="store_true", help="the run's last step ends now")
    p.add_argument("--at", metavar="TIME", help="ISO 8601 time with offset instead of now")
    p.add_argument("--tool", default="", help="tool driving the load, e.g. fsct (stored on a new run)")

    p = commands.add_parser(
        "watch", parents=[conn, tags], help="upload new files in a directory as they appear"
    )
    p.add_argument("directory", metavar="DIR")
    p.add_argument("--pattern", default="*", metavar="GLOB", help="file name pattern (default *)")
    p.add_argument("--recursive", action="store_true", help="also look in subdirectories")
    p.add_argument("--interval", type=float, default=5.0, metavar="SECONDS", help="poll interval (default 5)")
    p.add_argument(
        "--settle", type=float, default=10.0, metavar="SECONDS", help="unchanged this long = complete"
    )
    p.add_argument("--once", action="store_true", help="upload what is there (once settled) and exit")
    p.add_argument("--skip-existing", action="store_true", help="ignore files present at start")
    p.add_argument("--state", metavar="FILE", help="state file (default: in the agent's data directory)")
    _upload_options(p)

    campaigns.add_parser(commands, conn)

    p = commands.add_parser("flush", parents=[conn], help="deliver the spool now")
    p.add_argument("--list", action="store_true", help="list spooled and rejected items instead")
    p.add_argument("--retry-rejected", action="store_true", help="queue rejected items again first")
    return parser


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    flags = {key: getattr(args, key, None) for key in ("server", "token", "config", "spool_dir", "timeout")}
    flags.update({key: getattr(args, key, None) for key in ("campaign", "host", "role")})
    scenario = getattr(args, "scenario", None)
    if scenario:
        flags["scenario_flags"] = parse_pairs(value for group in scenario for value in group)
    return flags


def check_token(client: Client) -> tuple[bool | None, str]:
    """Does the server accept the token? (True, ""), (False, why) or (None, unreachable)."""
    try:
        response = client.get_json("/api/v1/whoami")
    except TransportError as exc:
        return None, f"server unreachable ({exc})"
    if response.status == 200 and response.json() is not None:
        return True, ""
    if response.status in (401, 403):
        return (
            False,
            f"token rejected by {client.server} (HTTP {response.status}: {response.error_message()})",
        )
    return False, f"{client.server} does not look like a Headroom server: {response.error_message()}"


def configure(args: argparse.Namespace, ctx: Context) -> int:
    """``headroom-agent configure``: store settings (checking the token), or ``--show`` them."""
    settings = ctx.settings
    if args.show:
        stored = "exists" if settings.config_path.exists() else "not written yet"
        rows = [
            ("config file", f"{settings.config_path} ({stored})"),
            ("server", settings.server or "(not set)"),
            ("token", mask(settings.token)),
            ("campaign", settings.campaign or "(not set)"),
            ("host", settings.host),
            ("role", settings.role),
            ("scenario", ", ".join(f"{k}={v}" for k, v in settings.scenario.items()) or "(none)"),
            (
                "spool",
                f"{settings.spool_dir} ({ctx.spool.count()} waiting, {len(ctx.spool.rejected())} rejected)",
            ),
        ]
        for key, value in rows:
            source = settings.sources.get("spool_dir" if key == "spool" else key)
            print(f"{key:12} {value}" + (f"   [{source}]" if source else ""), file=ctx.out)
        return EXIT_OK

    values = load_file(settings.config_path)
    changes: dict[str, Any] = {}
    if args.server:
        changes["server"] = normalise_server(args.server)
    for key in ("token", "campaign", "host", "role", "spool_dir"):
        if getattr(args, key, None):
            changes[key] = getattr(args, key)
    if args.scenario:
        changes["scenario"] = parse_pairs(value for group in args.scenario for value in group)
    if not changes:
        print("nothing to change; give --server, --token, --campaign, ... (or --show)", file=ctx.err)
        return EXIT_USAGE
    values.update(changes)
    # Check what will be used: flags, then environment, then the file being written.
    server = normalise_server(str(values["server"])) if values.get("server") else settings.server
    server = settings.server if settings.sources.get("server", "").startswith("environment") else server
    token = (
        settings.token
        if settings.sources.get("token", "").startswith("environment")
        else str(values.get("token") or "")
    )
    if server and is_plain_http_remote(server):
        print(f"warning: {server} is plain http: the token travels unencrypted", file=ctx.err)
    accepted: bool | None = None
    if server and token and not args.no_check:
        accepted, why = check_token(Client(server, token, ctx.client.timeout))
        if accepted is False:
            print(f"{why}\n  nothing saved", file=ctx.err)
            return EXIT_FAILED
        if accepted is None:
            print(f"{why}; saved anyway, the token is checked on first use", file=ctx.err)
    save_file(settings.config_path, values)
    print(f"saved {', '.join(sorted(changes))} to {settings.config_path}", file=ctx.out)
    if accepted and ctx.spool.count():
        # A corrected server or token: deliver what waited for it.
        result = Outbox(ctx.spool, Client(server, token, ctx.client.timeout)).flush(force=True)
        report(result, ctx.spool, (), ctx.err)
    return EXIT_OK


def flush(args: argparse.Namespace, ctx: Context) -> int:
    """``headroom-agent flush``: deliver everything now, or ``--list`` it."""
    spool = ctx.spool
    if args.list:
        pending, rejected = spool.pending(), spool.rejected()
        for title, items in (("waiting", pending), ("rejected", rejected)):
            print(
                f"{title}: {len(items)} in {spool.items_dir if title == 'waiting' else spool.rejected_dir}",
                file=ctx.out,
            )
            for item in items:
                state = item.state
                tried = f", {state.attempts} tries, last: {state.last_error}" if state.attempts else ""
                print(
                    f"  {item.id}  {item.envelope.kind:8} {human_bytes(item.body_size):>9}  {item.envelope.label}{tried}",
                    file=ctx.out,
                )
        return EXIT_OK
    if args.retry_rejected:
        moved = spool.restore_rejected()
        print(f"{moved} rejected item(s) queued again", file=ctx.err)
    before = spool.count()
    result = ctx.outbox.flush(force=True)
    for delivery in result.deliveries:
        label = delivery.item.envelope.label
        if delivery.verdict is Verdict.DELIVERED:
            print(f"delivered {label} -> {describe_answer(delivery.answer)}", file=ctx.out)
        elif delivery.verdict is Verdict.REJECTED:
            print(f"rejected {label}: {delivery.message}", file=ctx.err)
    report(result, spool, [d.item for d in result.deliveries], ctx.err)
    refused = any(d.verdict is Verdict.REJECTED for d in result.deliveries)
    if result.remaining == 0:
        print(f"spool empty ({before} item(s) handled)", file=ctx.err)
    if refused or (result.failure is not None and result.failure.verdict is Verdict.AUTH):
        return EXIT_FAILED
    return EXIT_SPOOLED if result.remaining else EXIT_OK


COMMANDS: dict[str, Command] = {
    "configure": configure,
    "upload": upload.run,
    "sample": sample.run,
    "time": timing.run,
    "step": steps.run,
    "watch": watch.run,
    "flush": flush,
    "campaign": campaigns.run,
}
NEEDS_SERVER = ("upload", "sample", "time", "step", "watch", "flush", "campaign")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    parser = build_parser()
    try:
        words = split_scenario_pairs(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        parser.error(str(exc))
    args = parser.parse_args(words)
    try:
        settings = resolve(_flags(args))
        if args.command in NEEDS_SERVER and not (args.command == "flush" and args.list):
            settings.require_server()
        spool = Spool(settings.spool_dir)
        client = Client(settings.server, settings.token, settings.timeout)
        ctx = Context(settings, spool, client, Outbox(spool, client, getattr(args, "progress", None)))
        return COMMANDS[args.command](args, ctx)
    except (ConfigError, SpoolError) as exc:
        print(f"headroom-agent: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130

"""What every command gets (settings, spool, client, outbox, streams) and the exit codes.

Exit codes, the same for every command:

* ``0``  everything was delivered (and, with ``--wait``, stored);
* ``1``  something needs a person: rejected by the server, a parse failure,
  token rejected, a command that failed;
* ``2``  bad usage or configuration (nothing was sent);
* ``75`` (``EX_TEMPFAIL``) the server could not be reached: the data is safe
  in the spool and the next command or ``headroom-agent flush`` delivers it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TextIO

from headroom_agent.client import Client
from headroom_agent.config import Settings
from headroom_agent.outbox import Outbox
from headroom_agent.spool import Item, Spool

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_SPOOLED = 75


@dataclass
class Context:
    """The per-command environment."""

    settings: Settings
    spool: Spool
    client: Client
    outbox: Outbox
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)


def combine(*codes: int) -> int:
    """The exit code of several outcomes: a failure beats spooled, spooled beats success."""
    if EXIT_USAGE in codes:
        return EXIT_USAGE
    if EXIT_FAILED in codes:
        return EXIT_FAILED
    if EXIT_SPOOLED in codes:
        return EXIT_SPOOLED
    return EXIT_OK


def spool_code(spool: Spool, own: Iterable[Item]) -> int:
    """Exit code from where a command's own items ended up in the spool."""
    own_ids = {item.id for item in own}
    if not own_ids:
        return EXIT_OK
    if own_ids & {item.id for item in spool.rejected()}:
        return EXIT_FAILED
    pending = [item for item in spool.pending() if item.id in own_ids]
    if any(item.state.last_error.startswith("token rejected") for item in pending):
        return EXIT_FAILED
    return EXIT_SPOOLED if pending else EXIT_OK

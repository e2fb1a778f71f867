"""Where a shared figure comes from: its JSON pointer in the API answer a member reads for the same view.

A shared report prints the numbers ``GET /api/v1/campaigns/{slug}/capacity``,
``/sizing``, ``/compare`` and ``/copies`` give a member (issue 20's display
oracle, tests/browser/test_display_oracle.py, reads them back). A ``Mark`` is
one printed figure: its text, the pointer of its value (``key``; several,
space-separated, for a cell printing several), the unit the API gives it in and
the value itself; a section's ``data-api`` names the answer relative to the campaign's API (see
``api_address``). Sentences are lists of parts, plain text and marks; the
template filter ``marked`` prints each mark in a ``<span data-key ...>``, so
nothing visible changes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from webapp.analysis.limits import limit_text


@dataclass(frozen=True)
class Mark:
    text: str
    key: str
    unit: str
    value: Any


Part = str | Mark

# The unit a limit's value is stored in (limit_text prints disk latency in ms, from seconds).
_LIMIT_UNITS = {"disk_latency": "s", "memory": "MB", "network": "%", "cpu": "%"}
_LIMIT_FIGURE = re.compile(r"\d[\d,.]*(?: (?:ms|MB|%))?")


def plain(parts: Sequence[Part]) -> str:
    """The sentence as read: the parts' text, marks and all."""
    return "".join(p if isinstance(p, str) else p.text for p in parts)


def limit_parts(row: Mapping[str, Any], key: str) -> list[Part]:
    """ "disk latency reaches 20 ms" with its figure marked as the limit row's ``limit`` (at ``key``)."""
    text = limit_text(row)
    if row.get("resource") == "timing" and row.get("limit_text"):
        # "logon time exceeds its baseline by 1 s": the API's own wording, marked whole (its "1 s" is a margin,
        # not the row's limit in ms).
        return [Mark(text, key.rsplit("/", 1)[0] + "/limit_text", "", text)]
    found = _LIMIT_FIGURE.search(text)
    if not found or row.get("limit") is None or row.get("resource") == "timing":
        return [text]
    unit = _LIMIT_UNITS.get(str(row["resource"]), "")
    mark = Mark(found.group(0), key, unit, row["limit"])
    return [text[: found.start()], mark, text[found.end() :]]


def api_address(view: str, query: Mapping[str, Any]) -> str:
    """``compare?baseline=4``: the answer a shared section's figures point into, relative to the campaign's
    API (``/api/v1/campaigns/{slug}/``): a shared page names no address of the site but its own."""
    given = {k: v for k, v in query.items() if v not in (None, "")}
    return view + (f"?{urlencode(given)}" if given else "")

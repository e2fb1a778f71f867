"""Reading printed figures back against the API: the compare units test and the display oracle share these.

A figure the page prints is marked where it is printed (HeadroomPages.figure in pages.js, ``figure``
attributes in the shared report's templates): ``data-key`` holds the JSON pointers of its values in the
API answer named by the nearest ``data-api`` above it (several, space-separated, for a cell printing
several figures, in the order printed), ``data-unit`` the units the API gives them in (``|``-separated),
``data-value`` the value itself. The printed unit is read from the text (or from the row's Unit cell).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

# (stored unit, printed unit) -> stored units per printed unit.
PER_PRINTED = {
    ("ms", "ms"): 1.0,
    ("ms", "s"): 1000.0,
    ("s", "ms"): 0.001,  # a disk latency limit, stored in seconds
    ("B/s", "MB/s"): 1e6,
    ("bytes", "KiB"): 1024.0,
    ("bytes", "MiB"): 1024.0**2,
    ("bytes", "B"): 1.0,
    ("s", "min"): 60.0,
    ("s", "h"): 3600.0,
    ("bytes", "KB"): 1024.0,  # Django's filesizeformat: binary multiples with decimal names
    ("bytes", "MB"): 1024.0**2,
}
FIGURES = ("mean", "stdev", "min", "max")
# A number and the unit printed after it; "1 h 2 min 3 s" is one duration (read by seconds()).
NUMBER = "[-\u2212]?" + r"\d[\d,]*(?:\.\d+)?"
UNITS = r"%|ms|s|min|h|users|servers|MB/s|IO/s|IOPS|KiB|MiB|KB|MB|GB|bytes|B|" + "\u00d7"
FIGURE = re.compile(rf"(?<![\w.])({NUMBER})\s?({UNITS})(?![\w/])")
DURATION = re.compile(rf"^(?:({NUMBER}) h )?(?:({NUMBER}) min )?({NUMBER}) s$")


def per_printed(unit: str, printed: str) -> float:
    """Stored units per printed unit; a figure printed bare (its unit in the column's heading) is as stored."""
    if printed == "":
        return 1.0
    if (unit, printed) in PER_PRINTED:
        return PER_PRINTED[(unit, printed)]
    assert printed == unit, f"{unit!r} printed as {printed!r}"
    return 1.0


def assert_printed(text: str, value: float | None, per: float, where: str) -> None:
    """``text`` is ``value / per`` to the decimals it shows ("—" for no value)."""
    if value is None:
        assert text == "—", where
        return
    shown = text.replace(",", "").replace("\u2212", "-")
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    assert abs(float(shown) - value / per) <= 0.5 * 10**-decimals + 1e-9, f"{where}: {text} for {value / per}"


def detail_cells(page) -> list[dict[str, str]]:
    """The compare page's "Mean, spread and significance" table, a dict per row keyed by its headers."""
    headers = page.locator("#detail-table thead th").all_inner_texts()
    return [
        dict(zip(headers, row.locator("td").all_inner_texts(), strict=True))
        for row in page.locator("#detail-table tbody tr").all()
    ]


@dataclass(frozen=True)
class Printed:
    """One element printing figures: its text, where its values are in which API answer, in which units."""

    where: str  # the page and a CSS-ish path, for messages
    text: str
    api: str
    keys: list[str]
    units: list[str]
    value: Any
    row_unit: str  # the text of its row's Unit cell, if the row has one


# Every element of the page that prints a figure: marked ones with their marks, and unmarked ones that
# print a number with a unit (or a number in a table that has a Unit column).
SCAN = """([unitPattern, labels]) => {
    const unit = new RegExp(unitPattern);
    const out = {marked: [], unmarked: []};
    const path = el => {
        const parts = [];
        for (let n = el; n && n !== document.body; n = n.parentElement) {
            parts.unshift(n.tagName.toLowerCase() + (n.id ? "#" + n.id : ""));
            if (n.id) break;
        }
        return parts.join(" > ");
    };
    const rowUnit = el => {
        const table = el.closest("table");
        const row = el.closest("tr");
        if (!table || !row) return "";
        const headers = Array.from(table.querySelectorAll("thead th")).map(th => th.textContent.trim());
        const at = headers.indexOf("Unit");
        return at >= 0 && row.cells[at] ? row.cells[at].textContent.trim() : "";
    };
    document.querySelectorAll("[data-key]").forEach(el => {
        if (el.closest("[hidden]")) return;
        const source = el.closest("[data-api]");
        out.marked.push({where: path(el), text: el.textContent.trim(), api: source ? source.dataset.api : "",
            keys: el.dataset.key, units: el.dataset.unit, value: el.dataset.value, rowUnit: rowUnit(el)});
    });
    const main = document.querySelector("main") || document.body;
    const named = new Set(labels);
    // Scenario names are dimensions, not figures: "CPU 50 %" (a server's CPU load), "dataset=95 GiB ...".
    main.querySelectorAll("td, li, dd, output, .figure").forEach(el => {
        if (el.closest("[data-key]") || el.querySelector("[data-key]") || el.closest("[hidden]")) return;
        // Only the innermost such element speaks for its text.
        if (el.querySelector("td, li, dd, output, .figure")) return;
        const text = el.textContent.trim().replace(/CPU \\d+ %/g, "CPU");
        // A scenario's label ("dataset=95 GiB, ...") and a copy's data set name are words, not figures, and so
        // is what a shared report marks as a name (data-name: a dimension's value, a metric and its parameters).
        if (named.has(el.textContent.trim()) || el.matches("td.path, [data-name]") || /^\\w+=/.test(el.textContent.trim())) return;
        const numeric = /^[-\\u2212]?\\d[\\d,]*(\\.\\d+)?$/.test(text);
        if (unit.test(text) || (numeric && rowUnit(el) !== "")) {
            out.unmarked.push({where: path(el), text: text});
        }
    });
    return out;
}"""


def scan(page, labels: list[str]) -> tuple[list[Printed], list[dict[str, str]]]:
    """The page's marked figures, and the elements printing a figure with no mark (scenario ``labels`` aside)."""
    found = page.evaluate(SCAN, [FIGURE.pattern, labels])
    marked = [
        Printed(
            m["where"],
            m["text"],
            unquote(m["api"]),
            m["keys"].split(),
            m["units"].split("|"),
            json.loads(m["value"]) if m["value"] else None,
            m["rowUnit"],
        )
        for m in found["marked"]
    ]
    return marked, found["unmarked"]


@dataclass
class Answers:
    """The API answers a page's figures name, each fetched once: a page prints many figures of one answer,
    and an answer can take half a second (a logon capacity answer with its timing windows)."""

    client: Any  # a signed-in django.test.Client
    campaign_api: str  # a share report names answers relative to it ("compare?baseline=4")
    fetched: dict[str, Any] = field(default_factory=dict)

    def path(self, api: str) -> str:
        return api if api.startswith("/") else f"{self.campaign_api}/{api}"

    def __getitem__(self, api: str) -> Any:
        path = self.path(api)
        if path not in self.fetched:
            response = self.client.get(path)
            assert response.status_code == 200, (path, response.status_code)
            self.fetched[path] = response.json()
        return self.fetched[path]


def pointer(answer: Any, at: str) -> Any:
    """The value at JSON pointer ``at`` of ``answer``."""
    node = answer
    for part in at.lstrip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part.replace("~1", "/").replace("~0", "~")]
    return node


def seconds(text: str) -> float | None:
    """ "1 h 2 min 3 s" in seconds, None if the text is no duration."""
    found = DURATION.match(text)
    if not found:
        return None
    h, m, s = (float(p.replace(",", "")) if p else 0.0 for p in found.groups())
    return h * 3600 + m * 60 + s


def printed_figures(text: str, row_unit: str) -> list[tuple[str, str]]:
    """(number, printed unit) for each number of ``text`` in order: a number's unit is the first unit
    printed after it before a bracket or comma ("85.5 ± 4.99 s (n=5)": 85.5 s, 4.99 s, 5), else the row's."""
    numbers = list(re.finditer(NUMBER, text))
    out = []
    for found in numbers:
        rest = re.split(r"[(,;]", text[found.end() :], maxsplit=1)[0]
        unit = re.search(rf"(?<![\w/])({UNITS})(?![\w/])", rest)
        out.append((found.group(0), unit.group(1) if unit else row_unit))
    return out

"""Every real fixture through the real pipeline: each figure comes back as the tool printed it.

The stored rows are those ``/api/v1/uploads/{id}/data`` returns, compared with
the hand-copied table in ``cases``: a stored figure must be within half a unit
of the last digit printed, in the unit printed or an exact conversion of it.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection

from tests.factories import make_token
from tests.ingest import ingest_path
from tests.paths import FIXTURES, real_fixture
from tests.workers.fidelity.cases import CASES, NOT_UPLOADS, REFUSED, SCENARIO
from webapp.core.models import Campaign, Upload

pytestmark = pytest.mark.django_db


def test_every_real_fixture_is_covered() -> None:
    files = {
        str(path.relative_to(FIXTURES))
        for path in FIXTURES.glob("*/*")
        if path.is_file() and path.parent.name not in NOT_UPLOADS
    }
    # Files fetched into shared/ later than the rest may be missing from an older copy of it.
    assert files == {name for name in set(CASES) | set(REFUSED) if (FIXTURES / name).is_file()}


def _half_unit(text: str) -> float:
    _, dot, decimals = text.partition(".")
    return 0.5 * 10.0 ** -len(decimals) if dot else 0.5


def _stored(client: Any, token: str, upload: Upload) -> list[dict[str, Any]]:
    """The upload's rows as ``/api/v1/uploads/{id}/data`` returns them, times as the database holds them.

    The API's JSON writes times to the millisecond (Django's encoder), so each row's time is
    taken from the same row read from the tables, in the API's order.
    """
    rows: list[dict[str, Any]] = []
    url: str | None = f"/api/v1/uploads/{upload.pk}/data?limit=10000"
    while url:
        page = client.get(url.replace("http://testserver", ""), HTTP_AUTHORIZATION=f"Bearer {token}").json()
        rows += page["results"]
        url = page["next"]
    assert len(rows) == upload.rows
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT time, value FROM counter_sample WHERE upload_id = %s ORDER BY series_id, time",
            [upload.pk],
        )
        stored = cursor.fetchall()
        cursor.execute(
            "SELECT time, value FROM measurement WHERE upload_id = %s "
            "ORDER BY run_id, metric, subject, repetition, time",
            [upload.pk],
        )
        stored += cursor.fetchall()
    for row, (time, value) in zip(rows, stored, strict=True):
        assert row["value"] == value
        assert _time(row["time"]) == time  # to the microsecond, as stored
        row["time"] = _time(row["time"]).astimezone(UTC)
    return rows


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_figure_is_stored_as_the_tool_printed_it(client: Any, campaign: Campaign, name: str) -> None:
    case = CASES[name]
    real_fixture(name)  # skips when this copy of shared/ predates the file
    _, token = make_token(campaign.project)
    upload = ingest_path(campaign, case.path, scenario=SCENARIO, **case.meta)
    assert upload.status == "stored", upload.error
    rows = _stored(client, token, upload)
    measurements: dict[tuple[str, str], list[tuple[datetime, float, str]]] = defaultdict(list)
    samples: dict[tuple[str, str, str, datetime], float] = {}
    for row in rows:
        if row["type"] == "measurement":
            measurements[(row["metric"], row["subject"])].append((row["time"], row["value"], row["unit"]))
        else:
            samples[(row["object"], row["instance"], row["counter"], row["time"])] = row["value"]
    for figure in case.figures:
        printed = float(figure.text)
        half = _half_unit(figure.text)
        found = measurements[(figure.metric, figure.subject)]
        assert found, f"{name}: no {figure.metric} for {figure.subject!r}"
        candidates = [value for time, value, _ in found if figure.time is None or time == figure.time]
        assert any(abs(value / figure.scale - printed) <= half * (1 + 1e-9) for value in candidates), (
            f"{name}: {figure.metric} {figure.subject!r} printed {figure.text}, stored {candidates}"
        )
    if case.time is not None:
        assert {time for values in measurements.values() for time, _, _ in values} == {case.time}
    for sample in case.samples:
        stored = samples[(sample.object, sample.instance, sample.counter, sample.time)]
        # a double holds ~17 digits: the closest one to the text is the value the tool printed
        assert stored == float(sample.text), f"{name}: {sample} stored as {stored!r}"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_files_with_nothing_to_store_are_refused_with_a_reason(campaign: Campaign, name: str) -> None:
    upload = ingest_path(campaign, real_fixture(name), scenario=SCENARIO, timezone="UTC")
    assert (upload.status, upload.rows) == ("failed", 0)
    assert REFUSED[name] in upload.error["message"]

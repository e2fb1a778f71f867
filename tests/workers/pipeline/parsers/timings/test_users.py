"""A timing's optional ``users`` (active sessions when it was measured), in JSON and CSV."""

from __future__ import annotations

import json

import pytest

from tests.workers.pipeline.parsers.timings.helpers import _error, _parse

ROW = {"name": "logon", "started_at": "2015-07-01T00:20:00Z", "duration_ms": 1200}


def test_a_json_row_carries_its_users_and_a_row_without_them_has_none() -> None:
    first, second, third = _parse(
        json.dumps([{**ROW, "users": 250}, ROW, {**ROW, "users": 0, "repetition": 2}])
    )
    assert (first.users, second.users, third.users) == (250, None, 0)


def test_a_csv_users_column_is_read_and_an_empty_cell_is_none() -> None:
    data = "name,started_at,duration_ms,users\nlogon,2015-07-01T00:20:00Z,1200,300\nlogon,2015-07-01T00:21:00Z,1300,\n"
    first, second = _parse(data)
    assert (first.users, second.users) == (300, None)


@pytest.mark.parametrize("users", ["-1", "2.5", "many", "true"])
def test_users_that_are_not_a_whole_number_are_refused_with_where(users: str) -> None:
    data = f"name,started_at,duration_ms,users\nlogon,2015-07-01T00:20:00Z,1200,{users}\n"
    error = _error(data)
    assert error.message == f'"users" must be a non-negative whole number, got "{users}"'
    assert (error.line, error.column) == (2, 4)


def test_json_users_beyond_the_column_are_refused() -> None:
    error = _error(json.dumps([{**ROW, "users": 2**31}]))
    assert error.message == '"users" must be at most 2,147,483,647, got 2147483648'

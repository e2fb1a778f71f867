"""Robocopy logs re-encoded, garbage, empty, or without a usable time zone: read alike or refused."""

from __future__ import annotations

import random

import pytest

from tests.paths import FIXTURES
from tests.workers.pipeline.parsers.robocopy.helpers import (
    ANDREW,
    JW1210,
    MIB,
    MOHAMED,
    RIPVANNWINKLER,
    SOSUKIGARA,
    _bytes,
    _decoded_bytes,
    _decoded_file,
    _error,
    _figures,
    _parse,
    _text,
)


def test_it_reads_the_same_log_re_encoded_correctly() -> None:
    reference = _figures(_parse(_decoded_file(MOHAMED), timezone="UTC"))
    text = _text(MOHAMED)
    for data in (
        text.encode("utf-8"),
        text.encode("utf-8-sig"),
        text.encode("utf-16"),
        text.encode("utf-16-be"),
    ):
        assert _figures(_parse(_decoded_bytes(data), timezone="UTC")) == reference


def test_it_refuses_a_cp932_log_forced_to_utf8_at_the_first_bad_line() -> None:
    error = _error(_decoded_file(SOSUKIGARA, encoding="utf-8"), timezone="UTC")
    assert error.line == 3  # the Japanese banner
    assert "not valid utf-8" in error.message


def test_it_refuses_a_utf16_log_that_lost_a_byte() -> None:
    data = ANDREW.read_bytes()
    error = _error(_decoded_bytes(data[:400] + data[401:]), timezone="UTC")
    assert "UTF-16 with a byte lost or added" in error.message
    assert error.line == 4


def test_it_survives_a_cp850_log_mangled_through_cp1252() -> None:
    # Decoded as CP1252 and saved as UTF-8: accents and NBSPs are wrong but the
    # structure holds; the Bytes/sec figure (with mangled NBSPs) is dropped, not guessed.
    mangled = MOHAMED.read_bytes().decode("cp1252", errors="replace").encode("utf-8")
    figures = _figures(_parse(_decoded_bytes(mangled), timezone="UTC"))
    assert figures["bytes.copied"] == _bytes("6.23", MIB)
    assert figures["speed.mb_per_min"] == 2_478.284
    assert "speed.bytes_per_s" not in figures


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_it_refuses_garbage(seed: int) -> None:
    data = random.Random(seed).randbytes(20_000)
    error = _error(_decoded_bytes(data), timezone="UTC")
    assert error.message.startswith(("not a robocopy log", "the file is not valid"))


@pytest.mark.parametrize("data", [b"", b"\r\n  \r\n", b"\xff\xfe"], ids=["empty", "blank", "bom-only"])
def test_it_refuses_an_empty_file(data: bytes) -> None:
    error = _error(_decoded_bytes(data), timezone="UTC")
    assert (error.message, error.line) == ("the file is empty", 1)


def test_it_refuses_another_tools_output() -> None:
    path = FIXTURES / "diskspd_txt" / "vc_DiskSpd_2.2.0_SingleGroup.txt"
    error = _error(_decoded_file(path), timezone="UTC")
    assert error.message.startswith("not a robocopy log")
    assert error.line == 1


# --- time zones --------------------------------------------------------------------


def test_it_asks_for_a_timezone_for_local_times() -> None:
    error = _error(_decoded_file(RIPVANNWINKLER))
    assert error.line == 6  # the Started line
    assert "timezone" in error.message


def test_it_refuses_an_unknown_timezone() -> None:
    error = _error(_decoded_file(RIPVANNWINKLER), timezone="Mars/Olympus_Mons")
    assert "unknown timezone" in error.message


def test_it_refuses_a_started_at_that_is_not_iso() -> None:
    error = _error(_decoded_file(JW1210), timezone="UTC", extra={"started_at": "17/03/2026 12:09"})
    assert "ISO 8601" in error.message

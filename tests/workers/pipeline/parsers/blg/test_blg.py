"""A binary perfmon log is recognised by its header -- built here from the documented layout -- and
refused with the ``relog`` command that converts it; a real Data Collector Set log is recognised too."""

from __future__ import annotations

import io

import pytest

from tests.blg_layout import blg_first_buffer
from tests.ingest import ingest_bytes
from tests.paths import real_fixture
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.blg.parser import relog_command
from workers.pipeline.registry import detect_parser


def test_the_documented_header_is_detected_as_a_binary_perfmon_log() -> None:
    head = blg_first_buffer()
    parser = detect_parser(head, "")
    assert (parser.name, parser.detect(head, "")) == ("blg", 100)


def test_an_event_trace_of_another_kind_is_not_taken_for_a_blg() -> None:
    # The same buffer and marker, but the log file is an .etl: relog does not make CSV of it.
    head = blg_first_buffer("C:\\Windows\\Logs\\boot.etl")
    with pytest.raises(ParseError, match="could not recognise"):
        detect_parser(head, "")


def test_a_real_data_collector_set_log_is_detected() -> None:
    head = real_fixture("perfmon_blg/txrx_BasicPerfCounters.blg").read_bytes()[: 64 * 1024]
    assert detect_parser(head, "").name == "blg"


@pytest.mark.parametrize(
    ("filename", "command"),
    [
        ("DataCollector01.blg", "relog DataCollector01.blg -f csv -o DataCollector01.csv"),
        ("C:\\PerfLogs\\Admin\\Basic Set\\Log 02.BLG", 'relog "Log 02.BLG" -f csv -o "Log 02.csv"'),
        ("", "relog in.blg -f csv -o in.csv"),
    ],
)
def test_the_relog_command_names_the_uploaded_file(filename: str, command: str) -> None:
    assert relog_command(filename) == command


def test_parsing_says_what_to_run() -> None:
    parser = detect_parser(blg_first_buffer(), "")
    with pytest.raises(ParseError) as caught:
        parser.parse(lambda: io.BytesIO(blg_first_buffer()), ParseContext(filename="DataCollector01.blg"))
    assert "`relog DataCollector01.blg -f csv -o DataCollector01.csv`" in str(caught.value)


@pytest.mark.django_db
def test_an_upload_of_the_header_fails_with_the_relog_command(campaign) -> None:
    upload = ingest_bytes(campaign, blg_first_buffer(), host="win1", role="server", filename="Night run.blg")
    assert upload.status == "failed" and upload.rows == 0
    assert upload.error["parser"] == "blg"
    assert upload.error["message"] == (
        "this is a binary perfmon log (.blg), which Headroom cannot read; convert it to CSV on Windows "
        'with `relog "Night run.blg" -f csv -o "Night run.csv"` and upload "Night run.csv" instead '
        "(headroom-agent upload does this itself on Windows)"
    )

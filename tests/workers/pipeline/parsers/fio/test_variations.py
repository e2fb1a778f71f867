"""The fio JSON parser on variations of a real sample: times, signals, clones, client/server, sizes."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tests.workers.pipeline.parsers.fio.helpers import _base, _by_key, _doc_text, _error, _parsed
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.fio.records import block_size


def test_it_uses_the_local_time_text_with_the_upload_timezone_when_there_is_no_timestamp() -> None:
    doc = _base()
    del doc["timestamp"], doc["timestamp_ms"]
    doc["time"] = "Sat Apr 17 15:41:11 2021"
    found = _by_key(_parsed(_doc_text(doc), timezone="America/Los_Angeles"))
    assert {item.time for item in found.values()} == {datetime(2021, 4, 17, 22, 41, 11, tzinfo=UTC)}
    error = _error(_doc_text(doc))
    assert "timezone" in error.message


def test_it_reads_interrupted_runs_after_a_signal_message() -> None:
    doc = _base()
    doc["jobs"][0]["error"] = 4
    text = "fio: terminating on signal 2\n\n" + _doc_text(doc)
    parsed = _parsed(text)
    found = _by_key(parsed)
    assert found["fio_randrw_1GB_4k_d1_th1_direct", "write.iops"].value == pytest.approx(2167.231601)
    assert parsed.run_attributes["error"] == "4"
    assert parsed.run_attributes["fio_messages"] == "fio: terminating on signal 2"


def test_it_skips_braces_in_the_prefix_text() -> None:
    text = "fio: option {bs} looks odd\nwarning: {not json}\n" + _doc_text(_base())
    found = _by_key(_parsed(text))
    assert found["fio_randrw_1GB_4k_d1_th1_direct", "write.bw_bytes_per_s"].value == 8876980


def test_it_names_clone_jobs_apart_and_groups_reported_jobs_on_the_run() -> None:
    doc = _base()
    job = doc["jobs"][0]
    doc["jobs"] = [job, json.loads(json.dumps(job)), json.loads(json.dumps(job))]
    doc["jobs"][2]["write"]["iops"] = 1000
    found = _by_key(_parsed(_doc_text(doc)))
    name = "fio_randrw_1GB_4k_d1_th1_direct"
    assert found[f"{name}#3", "write.iops"].value == 1000
    assert found[f"{name}#1", "write.iops"].value == pytest.approx(2167.231601)
    assert len({tuple(sorted((item.params or {}).items())) for item in found.values()}) == 1


def test_it_takes_the_last_of_several_status_interval_objects() -> None:
    first = _base()
    first["jobs"][0]["write"]["iops"] = 10
    text = _doc_text(first) + "\n" + _doc_text(_base())
    found = _by_key(_parsed(text))
    assert found["fio_randrw_1GB_4k_d1_th1_direct", "write.iops"].value == pytest.approx(2167.231601)


def test_it_reads_client_server_output_with_hosts() -> None:
    doc = _base()
    job = doc.pop("jobs")[0]
    job["hostname"] = "client01"
    doc["client_stats"] = [job]
    items = list(_parsed(_doc_text(doc)).measurements)
    assert {item.host for item in items} == {"client01"}


def test_it_converts_fio_sizes_to_bytes() -> None:
    assert block_size("4k", 1024, 1) == "4096"
    assert block_size("4K", 1024, 1) == "4096"
    assert block_size("1M", 1024, 1) == "1048576"
    assert block_size("512", 1024, 1) == "512"
    assert block_size("4ki", 1024, 1) == "4000"  # fio's compatibility mode
    assert block_size("4k", 1000, 1) == "4000"
    assert block_size("4KiB", 1000, 1) == "4096"
    assert block_size("64k,4k", 1024, 1) == "65536,4096"
    assert block_size("4k,4k", 1024, 1) == "4096"
    assert block_size("4k-16k", 1024, 1) == "4096-16384"
    with pytest.raises(ParseError):
        block_size("huge", 1024, 7)


def test_it_honours_kb_base_from_the_options() -> None:
    doc = _base()
    doc["jobs"][0]["job options"]["kb_base"] = "1000"
    assert _parsed(_doc_text(doc)).run_attributes["block_size"] == "4000"

"""The fio JSON parser: every real sample, fio 2.x/3.x units, prefix text, parameters, and its errors.

Expected figures are read from the sample files here, independently of the
parser, and a few are also written out as literal numbers checked by hand.
"""

from __future__ import annotations

import io
import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from workers.pipeline.decode import decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.fio import FioJsonParser
from workers.pipeline.parsers.fio.records import block_size
from workers.pipeline.records import Measurement, Parsed

REAL = Path(__file__).resolve().parents[5] / "shared" / "fixtures" / "real"
FIO_FILES = sorted((REAL / "fio_json").glob("*"))
OTHER_FILES = sorted(p for p in REAL.glob("*/*") if p.parent.name != "fio_json")
STARTED = {"started_at": "2014-01-15T09:30:00+00:00"}
SIZES = {"4k": 4096, "16k": 16384, "256k": 262144}


def _parsed_path(path: Path, **context: Any) -> Parsed:
    decoded = decode(lambda: path.open("rb"))
    return FioJsonParser().parse(decoded, ParseContext(**context))


def _parsed(data: bytes | str, **context: Any) -> Parsed:
    raw = data.encode() if isinstance(data, str) else data
    decoded = decode(lambda: io.BytesIO(raw))
    return FioJsonParser().parse(decoded, ParseContext(**context))


def _error(data: bytes | str, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        list(_parsed(data, **context).measurements)
    assert info.value.parser == "fio_json"
    return info.value


def _detect(data: bytes) -> int:
    decoded = decode(lambda: io.BytesIO(data))
    return FioJsonParser().detect(decoded.head_bytes, decoded.head_text)


def _by_key(parsed: Parsed) -> dict[tuple[str, str], Measurement]:
    found: dict[tuple[str, str], Measurement] = {}
    for item in parsed.measurements:
        key = (item.subject, item.metric)
        assert key not in found, f"{key} twice"
        found[key] = item
    return found


def _document(path: Path) -> dict[str, Any]:
    """The fio JSON object in a sample, read without the parser."""
    text = path.read_text(encoding="utf-8-sig")
    value, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    return value


def _doc_text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2)


# --------------------------------------------------------------------------
# Every real sample


def test_it_has_the_samples_it_checks() -> None:
    assert len(FIO_FILES) == 6


@pytest.mark.parametrize("path", FIO_FILES, ids=lambda p: p.name)
def test_it_reads_every_real_sample_with_the_figures_in_the_file(path: Path) -> None:
    doc = _document(path)
    parsed = _parsed_path(path, extra=STARTED)
    found = _by_key(parsed)
    assert parsed.parser == "fio_json"
    assert parsed.tool == "fio"
    assert parsed.run_attributes["fio_version"] == doc["fio version"]

    expected_time = (
        datetime.fromtimestamp(doc["timestamp"], UTC)
        if "timestamp" in doc
        else datetime(2014, 1, 15, 9, 30, tzinfo=UTC)
    )
    assert {item.time for item in found.values()} == {expected_time}

    checked = 0
    for job in doc["jobs"]:
        name = job["jobname"]
        for direction in ("read", "write", "trim"):
            section = job[direction]
            if not section["io_bytes"]:
                assert (name, f"{direction}.iops") not in found
                continue
            checked += 1
            assert found[name, f"{direction}.iops"].value == section["iops"]
            bw = section["bw_bytes"] if "bw_bytes" in section else section["bw"] * 1024
            assert found[name, f"{direction}.bw_bytes_per_s"].value == bw
            assert found[name, f"{direction}.bw_bytes_per_s"].unit == "B/s"
            assert found[name, f"{direction}.mbps"].value == pytest.approx(bw / 1e6)
            clat, per_ms = (section["clat_ns"], 1e6) if "clat_ns" in section else (section["clat"], 1e3)
            p99 = clat["percentile"]["99.000000"] / per_ms
            assert found[name, f"{direction}.clat.p99_ms"].value == pytest.approx(p99)
            assert found[name, f"{direction}.clat.p99_9_ms"].value == pytest.approx(
                clat["percentile"]["99.900000"] / per_ms
            )
            assert found[name, f"{direction}.clat.mean_ms"].value == pytest.approx(clat["mean"] / per_ms)
            assert found[name, f"{direction}.runtime_s"].value == section["runtime"] / 1000
        assert found[name, "cpu.sys_pct"].value == job["sys_cpu"]
        # Block size: from the job's options, else the global ones; absent when fio did not say.
        options = {**doc.get("global options", {}), **job.get("job options", {})}
        params = next(item.params for item in found.values() if item.subject == name)
        block = (params or parsed.run_attributes).get("block_size")
        if "bs" in options:
            assert block == str(SIZES[options["bs"].lower()])
        else:
            assert block is None
    assert checked >= 1


def test_it_reads_fio_2_1_microseconds_and_kib_with_literal_figures() -> None:
    # fio-2.1.4: no bw_bytes, no io_kbytes, no timestamp; clat in microseconds.
    parsed = _parsed_path(REAL / "fio_json" / "pkb_fio-2.1.4_5jobs.json", extra=STARTED)
    found = _by_key(parsed)
    assert len({item.subject for item in found.values()}) == 5
    write = "sequential_write"
    assert found[write, "write.iops"].value == 133
    assert found[write, "write.bw_bytes_per_s"].value == 68118 * 1024  # 69,752,832 B/s
    assert found[write, "write.mbps"].value == pytest.approx(69.752832)
    assert found[write, "write.clat.p99_ms"].value == pytest.approx(823.296)  # 823296 us
    assert found[write, "write.clat.p50_ms"].value == pytest.approx(444.416)
    assert found[write, "write.lat.mean_ms"].value == pytest.approx(478.73747)
    assert found[write, "write.runtime_s"].value == pytest.approx(5.314)
    # io_bytes is KiB in fio 2.x: 361,984 KiB, which bw (KiB/s) x runtime confirms.
    assert found[write, "write.io_bytes"].value == 361984 * 1024
    assert pytest.approx(361984, rel=0.001) == 68118 * 5.314
    assert (write, "read.iops") not in found
    assert found["random_read_test", "read.iops"].value == 317
    assert found["random_read_test", "read.clat.p90_ms"].value == pytest.approx(
        _document(REAL / "fio_json" / "pkb_fio-2.1.4_5jobs.json")["jobs"][3]["read"]["clat"]["percentile"][
            "90.000000"
        ]
        / 1000
    )
    # No job options in this version: no parameters, so nothing invented.
    assert all(item.params == {} for item in found.values())
    assert set(parsed.run_attributes) == {"fio_version"}


def test_it_refuses_a_file_without_any_time_unless_started_at_is_given() -> None:
    path = REAL / "fio_json" / "pkb_fio-2.1.4_5jobs.json"
    with pytest.raises(ParseError) as info:
        _parsed_path(path)
    assert "started_at" in info.value.message
    assert info.value.line == 1


def test_it_skips_the_error_lines_before_the_json_and_marks_the_error_code() -> None:
    path = REAL / "fio_json" / "vc_fio-3.13_with_error_prefix.json"
    parsed = _parsed_path(path)
    found = _by_key(parsed)
    assert found["fiotest", "read.iops"].value == pytest.approx(49501.318267)
    assert found["fiotest", "read.bw_bytes_per_s"].value == 202249835
    assert found["fiotest", "read.clat.p95_ms"].value == pytest.approx(9.371648)  # 9371648 ns
    assert found["fiotest", "read.io_bytes"].value == 536973312
    assert found["fiotest", "read.iops"].time == datetime(2020, 8, 25, 19, 57, 13, tzinfo=UTC)
    # The JSON starts on line 3; the job's "jobname" is on line 20.
    assert found["fiotest", "read.iops"].line == 20
    attributes = parsed.run_attributes
    assert attributes["error"] == "42"
    assert attributes["block_size"] == "4096"  # bs=4k from the global options
    assert attributes["ioengine"] == "windowsaio"
    assert attributes["iodepth"] == "512"
    assert attributes["fio_messages"].startswith("fio: pid=19192, err=42/")


def test_it_gives_each_job_its_own_parameters_when_jobs_differ() -> None:
    parsed = _parsed_path(REAL / "fio_json" / "pkb_fio-2.17_global_options_hist.json")
    found = _by_key(parsed)
    read = found["rand_16k_read_100%-io-depth-1-num-jobs-2", "read.iops"]
    write = found["rand_16k_write_100%-io-depth-1-num-jobs-2", "write.iops"]
    assert read.value == pytest.approx(8086.673998)
    assert write.value == pytest.approx(2457.017193)
    assert read.params == {
        "block_size": "16384",
        "rw": "randread",
        "iodepth": "1",
        "numjobs": "2",
        "ioengine": "libaio",  # from the global options
        "direct": "1",
        "size": "100%",
    }
    assert write.params is not None and write.params["rw"] == "randwrite"
    assert "block_size" not in parsed.run_attributes
    # fio 2.17 has no bw_bytes: bw is KiB/s; clat percentiles are microseconds.
    assert found["rand_16k_read_100%-io-depth-1-num-jobs-2", "read.bw_bytes_per_s"].value == 129386 * 1024
    assert read.time == datetime(2017, 9, 28, 0, 45, 52, tzinfo=UTC)


def test_it_reads_fio_3_nanoseconds_and_puts_one_jobs_parameters_on_the_run() -> None:
    parsed = _parsed_path(REAL / "fio_json" / "vc_fio-3.26-19-ge7e53_readwrite.json")
    found = _by_key(parsed)
    assert found["disk_fill", "read.iops"].value == pytest.approx(569.699415)
    assert found["disk_fill", "write.iops"].value == pytest.approx(256.606819)
    assert found["disk_fill", "read.bw_bytes_per_s"].value == 149343283
    assert found["disk_fill", "read.mbps"].value == pytest.approx(149.343283)
    assert found["disk_fill", "write.clat.p99_ms"].value == pytest.approx(151.864912)
    assert found["disk_fill", "read.io_bytes"].value == 740294656
    assert all(
        item.params and item.params.items() <= parsed.run_attributes.items() for item in found.values()
    )
    assert parsed.run_attributes["block_size"] == "262144"
    assert parsed.run_attributes["rw"] == "readwrite"
    assert parsed.run_attributes["fio_version"] == "fio-3.26-19-ge7e53"


def test_it_ignores_latency_keys_fio_never_writes() -> None:
    # This sample was re-serialised by its test suite: "lat_us" holds nanosecond
    # figures. fio writes lat_ns (3.x) or lat (2.x) only, so no lat.* figure.
    found = _by_key(_parsed_path(REAL / "fio_json" / "vc_fio-3.13_randread.json"))
    assert ("fiotest", "read.lat.mean_ms") not in found
    assert found["fiotest", "read.clat.mean_ms"].value == pytest.approx(7.843056611698)


# --------------------------------------------------------------------------
# Variations built from a real sample


def _base() -> dict[str, Any]:
    return _document(REAL / "fio_json" / "vc_fio-3.26_randwrite.json")


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


# --------------------------------------------------------------------------
# Errors


def test_it_refuses_a_truncated_file_with_the_place_it_ends() -> None:
    text = (REAL / "fio_json" / "vc_fio-3.26_randwrite.json").read_text()
    cut = text[: len(text) // 2]
    error = _error(cut)
    assert "truncated" in error.message
    assert error.line == cut.count("\n") + 1
    assert error.column is not None


def test_it_reports_json_errors_on_the_files_own_lines_after_prefix_text() -> None:
    text = "fio: one\nfio: two\n" + '{\n  "fio version" : "fio-3.1",\n  "jobs" : [ 1 2 ]\n}\n'
    error = _error(text)
    assert error.message.startswith("invalid fio JSON: Expecting ',' delimiter")
    assert (error.line, error.column) == (5, 16)  # the 2 in [ 1 2 ]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (b"   \r\n  \n", "empty"),
        (b"\x00\x01garbage\xff\xfe binary noise", "no JSON object"),
        (b"fio: pid=1, err=5/file:io_u.c:1, func=io_u error=Input/output error\n", "no JSON object"),
        (b'{"name": "logon", "started_at": "2015-07-01T10:15:00Z"}', "not fio output"),
        (b'[{"jobs": []}]', "not fio output"),
        (b'{"fio version": "fio-3.1", "timestamp": 1, "jobs": {}}', '"jobs" must be a list'),
        (b'{"fio version": "fio-3.1", "timestamp": 1, "jobs": []}', "is empty"),
        (b'{"fio version": "fio-3.1", "timestamp": 1, "jobs": [7]}', "must be an object"),
        (b'{"fio version": "fio-3.1", "timestamp": 1, "jobs": [{"error": 0}]}', '"jobname"'),
    ],
)
def test_it_refuses_broken_files_with_a_clear_message(data: bytes, words: str) -> None:
    error = _error(data)
    assert words in error.message
    assert error.line is not None


def test_it_refuses_a_figure_of_the_wrong_type_on_its_jobs_line() -> None:
    doc = _base()
    doc["jobs"][0]["write"]["iops"] = "fast"
    error = _error(_doc_text(doc))
    assert '"write.iops" must be a number' in error.message
    assert (
        error.line
        == _doc_text(doc).splitlines().index('      "jobname": "fio_randrw_1GB_4k_d1_th1_direct",') + 1
    )


def test_it_refuses_a_broken_object_after_complete_results() -> None:
    text = _doc_text(_base()) + '\n{"fio version": "fio-3.26", "jobs": ['
    error = _error(text)
    assert "after the complete fio results" in error.message


def test_it_refuses_text_that_is_not_valid_in_its_encoding() -> None:
    doc = _doc_text(_base()).encode()
    # UTF-8 decided from a valid head, then a stray byte far beyond it.
    data = doc.replace(b'"fio version"', 'é"fio version"'.encode(), 1) + b" " * 70000 + b"\xff"
    with pytest.raises(ParseError):
        list(_parsed(data).measurements)


# --------------------------------------------------------------------------
# Detection


@pytest.mark.parametrize("path", FIO_FILES, ids=lambda p: p.name)
def test_it_detects_fio_json(path: Path) -> None:
    assert _detect(path.read_bytes()) == 95


@pytest.mark.parametrize("path", OTHER_FILES, ids=lambda p: p.name)
def test_it_leaves_other_formats_alone(path: Path) -> None:
    assert _detect(path.read_bytes()) == 0


@pytest.mark.parametrize(
    "data",
    [
        b'[{"name": "logon", "started_at": "2015-07-01T10:15:00Z", "duration_ms": 1}]',
        b"name,started_at,duration_ms\nlogon,2015-07-01T10:15:00Z,1\n",
        b'"(PDH-CSV 4.0) (GMT Standard Time)(0)","\\\\FS01\\Processor(_Total)\\% Processor Time"\n',
    ],
)
def test_it_leaves_timings_and_perfmon_text_alone(data: bytes) -> None:
    assert _detect(data) == 0


def test_it_has_finite_values_only() -> None:
    for path in FIO_FILES:
        for item in _parsed_path(path, extra=STARTED).measurements:
            assert math.isfinite(item.value), (path.name, item.metric)


# --------------------------------------------------------------------------
# Hostile input (found by fuzzing)

LONG_DIGITS = "9" * 5000  # past Python's 4,300-digit limit for int()


def test_it_points_at_an_integer_too_long_to_read() -> None:
    text = "fio: one\n" + _doc_text(_base()).replace('"error": 0', '"error": ' + LONG_DIGITS, 1)
    error = _error(text)
    assert error.message.startswith("invalid fio JSON: a whole number has more than 4,300 digits; expected")
    line = text[: text.index(LONG_DIGITS)].count("\n") + 1
    assert (error.line, error.column) == (line, text.splitlines()[line - 1].index(LONG_DIGITS) + 1)


def test_it_skips_a_long_digit_string_inside_a_json_string_when_locating_the_integer() -> None:
    doc = _base()
    doc["jobs"][0]["job options"]["comment"] = LONG_DIGITS
    text = _doc_text(doc).replace('"error": 0', '"error": -' + LONG_DIGITS, 1)
    error = _error(text)
    assert error.line == text[: text.index("-" + LONG_DIGITS)].count("\n") + 1


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("iops", "9" * 400, '"write.iops" must be a number, got 999'),
        ("iops", "Infinity", '"write.iops" must be a number, got Infinity'),
    ],
)
def test_it_refuses_a_figure_beyond_any_float(key: str, value: str, words: str) -> None:
    doc = _base()
    doc["jobs"][0]["write"][key] = 12345.5
    error = _error(_doc_text(doc).replace("12345.5", value))
    assert error.message.startswith(words)


def test_it_refuses_an_error_code_or_timestamp_beyond_any_date_or_float() -> None:
    doc = _base()
    doc["jobs"][0]["error"] = 12345.5
    assert (
        '"error" must be a number, got Infinity'
        in _error(_doc_text(doc).replace("12345.5", "Infinity")).message
    )
    doc = _base()
    doc["timestamp"] = 12345.5
    error = _error(_doc_text(doc).replace("12345.5", "9" * 400))  # not a float: falls back, no started_at
    assert "started_at" in error.message
    error = _error(_doc_text(doc).replace("12345.5", "99999999999999"))
    assert error.message == '"timestamp" 99999999999999 is not a time fio can have written (epoch seconds)'
    assert error.line == 1


def test_it_refuses_a_block_size_too_long_to_be_a_number() -> None:
    with pytest.raises(ParseError) as info:
        block_size("4" * 400 + "k", 1024, 7)
    assert info.value.message == f"block size '{'4' * 37}...' is not a fio size such as 4k or 1M"
    assert info.value.line == 7
    assert block_size("  4k  ", 1024, 1) == "4096"
    with pytest.raises(ParseError):
        block_size("4" + " " * 30_000 + "x", 1024, 7)


def test_it_refuses_a_local_time_with_no_utc_equivalent() -> None:
    doc = _base()
    del doc["timestamp"], doc["timestamp_ms"]
    doc["time"] = "Mon Jan  1 00:00:00 0001"
    error = _error(_doc_text(doc), timezone="Asia/Kolkata")
    assert (
        error.message
        == "the time 0001-01-01T00:00:00 is too close to year 1 or 9999 to express in UTC; expected a real time"
    )
    assert error.line == 1


def test_it_finds_the_document_after_a_run_of_thousands_of_braces() -> None:
    parsed = _parsed("{" * 50_000 + "\n" + _doc_text(_base()))
    assert parsed.run_attributes["fio_messages"] == "{" * 2000
    values = {key: item.value for key, item in _by_key(parsed).items()}
    assert values == {key: item.value for key, item in _by_key(_parsed(_doc_text(_base()))).items()}


def test_it_reports_the_first_json_error_of_a_document_holding_a_run_of_braces() -> None:
    text = _doc_text(_base()).replace('"jobs": [', '"jobs": [' + "{" * 50_000, 1)
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    error = _error(text)
    assert error.message == f"invalid fio JSON: {expected.value.msg}"
    assert (error.line, error.column) == (expected.value.lineno, expected.value.colno)

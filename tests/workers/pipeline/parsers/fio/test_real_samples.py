"""The fio JSON parser on every real sample: fio 2.x/3.x units, prefix text and parameters.

Expected figures are read from the sample files here, independently of the
parser, and a few are also written out as literal numbers checked by hand.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.workers.pipeline.parsers.fio.helpers import (
    FIO_FILES,
    REAL,
    SIZES,
    STARTED,
    _by_key,
    _document,
    _parsed_path,
)
from workers.pipeline.errors import ParseError


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

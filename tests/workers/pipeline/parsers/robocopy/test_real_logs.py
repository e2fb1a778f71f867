"""The robocopy parser against every real log in shared/fixtures/real/robocopy.

The expected summaries below were read off each file by hand; where the file
allows it the test also recomputes them independently of the parser (file
list lines counted per tag, file sizes summed, Speed against Bytes/Times), and
header values such as the source path are taken from the file text so that no
user's path is written here.
"""

from __future__ import annotations

import re

import pytest

from tests.workers.pipeline.parsers.robocopy.helpers import (
    AHMAD,
    ANDREW,
    AOQTYII,
    DARY,
    GIB,
    JW1210,
    KIB,
    MARKRAI,
    MIB,
    MOHAMED,
    RIPVANNWINKLER,
    SOSUKIGARA,
    VALENCALE,
    WXZJT,
    _bytes,
    _decoded_bytes,
    _decoded_file,
    _error,
    _figures,
    _items,
    _line_of,
    _parse,
    _row,
    _text,
    _times,
    _utc,
)


def _header(text: str, label: str) -> str:
    match = re.search(rf"^\s*{label}\s*:\s*(.*?)\s*$", text, re.MULTILINE)
    assert match, label
    return match[1]


def _listed(text: str, tag: str) -> int:
    """How many file-list lines carry ``tag`` (e.g. 'New File')."""
    return len(re.findall(rf"^\t\s*{tag}(?=[\s])", text, re.MULTILINE))


def _listed_bytes(text: str, tag: str) -> float:
    """Sum of the sizes robocopy printed on the ``tag`` lines of the file list."""
    total = 0.0
    for match in re.finditer(rf"^\t\s*{tag}\s*\t\t\s*([\d.]+)(?: ([kmg]))?\t", text, re.MULTILINE):
        total += float(match[1]) * {None: 1, "k": KIB, "m": MIB, "g": GIB}[match[2]]
    return total


def test_it_reads_the_en_utf16_summary_only_log() -> None:
    text = _text(ANDREW)
    parsed = _parse(_decoded_file(ANDREW), timezone="America/New_York")
    figures = _figures(parsed)

    assert _row(figures, "dirs") == (991, 981, 10, 0, 0, 0)
    assert _row(figures, "files") == (6755, 6743, 12, 0, 0, 1)
    assert _row(figures, "bytes") == (_bytes("2.430", GIB), _bytes("2.430", GIB), _bytes("6.4", KIB), 0, 0, 0)
    assert figures["bytes.copied"] == 2_609_192_632
    assert (figures["time.total_s"], figures["time.copied_s"]) == (8, 7)
    assert (figures["time.failed_s"], figures["time.extras_s"]) == (0, 0)
    assert figures["speed.bytes_per_s"] == 334_750_079
    assert figures["speed.mb_per_min"] == 19_154.553
    assert figures["elapsed_s"] == 9  # 12:27:10 PM -> 12:27:19 PM
    # Saturday, May 30, 2026 12:27:10 PM, New York (EDT, UTC-4).
    assert _times(parsed) == {_utc(2026, 5, 30, 16, 27, 10)}
    assert parsed.run_attributes == {
        "source": _header(text, "Source"),
        "destination": _header(text, "Dest"),
        "options": _header(text, "Options"),
        "started_at": "2026-05-30T16:27:10+00:00",
        "ended_at": "2026-05-30T16:27:19+00:00",
    }
    assert {item.unit for item in _items(parsed) if item.metric.startswith("bytes.")} == {"B"}
    assert {item.unit for item in _items(parsed) if item.metric.startswith(("dirs.", "files."))} == {"count"}
    assert all(item.params == {} for item in _items(parsed))  # one job: one execution


def test_it_reads_the_big_utf16_log_with_a_file_list_and_progress_lines() -> None:
    text = _text(MARKRAI)
    parsed = _parse(_decoded_file(MARKRAI), timezone="America/Los_Angeles")
    figures = _figures(parsed)

    assert _row(figures, "dirs") == (686, 682, 4, 0, 0, 1)
    assert _row(figures, "files") == (3656, 3655, 1, 0, 0, 2)
    assert _row(figures, "bytes") == (
        _bytes("1.362", GIB),
        _bytes("1.362", GIB),
        _bytes("202.3", KIB),
        0,
        0,
        _bytes("95.3", KIB),
    )
    assert (figures["time.total_s"], figures["time.copied_s"]) == (4, 3)
    assert figures["speed.bytes_per_s"] == 371_812_354
    assert figures["speed.mb_per_min"] == 21_275.273
    assert figures["elapsed_s"] == 5
    # Tuesday, December 9, 2025 8:39:53 PM in Los Angeles (PST, UTC-8) is the 10th in UTC.
    assert _times(parsed) == {_utc(2025, 12, 10, 4, 39, 53)}
    assert parsed.run_attributes["ended_at"] == "2025-12-10T04:39:58+00:00"
    # Independent of the summary: the file list.
    assert figures["dirs.copied"] == _listed(text, "New Dir") == 682
    assert figures["files.extras"] == _listed(text, r"\*EXTRA File") == 2
    # Physical line numbers (lines end at \n; "100%" progress lines count).
    lines = {item.metric: item.line for item in _items(parsed)}
    assert lines["dirs.total"] == _line_of(text, r"^\s+Dirs :") == 9068
    assert lines["elapsed_s"] == _line_of(text, r"^\s+Ended :")


def test_it_reads_the_multithreaded_log_in_g_units_which_are_binary() -> None:
    parsed = _parse(_decoded_file(RIPVANNWINKLER), timezone="America/Chicago")
    figures = _figures(parsed)

    assert _row(figures, "dirs") == (10, 10, 0, 0, 0, 0)
    assert _row(figures, "files") == (10, 10, 0, 0, 0, 0)
    assert _row(figures, "bytes") == (_bytes("76.290", GIB), _bytes("76.290", GIB), 0, 0, 0, 0)
    assert figures["bytes.copied"] == 81_915_763_753
    assert [figures[f"time.{c}_s"] for c in ("total", "copied", "failed", "extras")] == [315, 42, 0, 8]
    assert figures["speed.bytes_per_s"] == 1_915_409_756
    assert figures["speed.mb_per_min"] == 109_600.625
    assert figures["elapsed_s"] == 51  # 11:08:15 AM -> 11:09:06 AM
    assert _times(parsed) == {_utc(2026, 7, 24, 16, 8, 15)}  # CDT, UTC-5
    # Each figure covers the job up to its Ended line, so its run spans the copy.
    assert {item.until for item in _items(parsed)} == {_utc(2026, 7, 24, 16, 9, 6)}

    # Why "g" is 1024^3: bytes / speed must fall in the Times row's copy
    # time, which robocopy truncates to 0:00:42.
    seconds = figures["bytes.copied"] / figures["speed.bytes_per_s"]
    assert 42 <= seconds < 43
    assert not 42 <= 76.290e9 / figures["speed.bytes_per_s"] < 43  # decimal giga would be 39.8 s
    # ... and robocopy's "MegaBytes" are MiB.
    assert figures["speed.bytes_per_s"] * 60 / MIB == pytest.approx(figures["speed.mb_per_min"], abs=0.001)


def test_it_reads_the_french_cp850_log_which_decode_takes_for_cp1251() -> None:
    text = _text(MOHAMED)
    decoded = _decoded_file(MOHAMED)
    assert decoded.encoding == "cp1251"  # the generic guess; robocopy wrote the OEM code page
    parsed = _parse(decoded, timezone="Europe/Paris")
    figures = _figures(parsed)

    assert _row(figures, "dirs") == (22, 22, 0, 0, 0, 0)
    assert _row(figures, "files") == (41, 41, 0, 0, 0, 0)
    assert _row(figures, "bytes") == (_bytes("6.23", MIB), _bytes("6.23", MIB), 0, 0, 0, 0)
    assert figures["time.total_s"] == 0
    assert figures["speed.bytes_per_s"] == 43_311_158  # "43 311 158" with NBSP
    assert figures["speed.mb_per_min"] == 2_478.284  # "2478,284"
    assert figures["elapsed_s"] == 1
    assert _times(parsed) == {_utc(2026, 4, 7, 19, 17, 14)}  # mardi 7 avril 2026 21:17:14, CEST
    assert parsed.run_attributes["options"] == _header(text, "Options")
    assert parsed.run_attributes["source"] == _header(text, "Source")
    # The file list agrees: 41 "Nouveau fichier", 22 "Nouveau rép.", and the
    # sizes listed add up to 6.237 MiB, which robocopy truncates to "6.23 m"
    # (6.54 in decimal megabytes).
    assert figures["files.copied"] == _listed(text, "Nouveau fichier")
    assert figures["dirs.copied"] == _listed(text, "Nouveau rép.")
    listed = _listed_bytes(text, "Nouveau fichier")
    assert figures["bytes.copied"] <= listed < figures["bytes.copied"] + 0.01 * MIB
    # The same file forced to its true code page gives the same figures.
    assert _figures(_parse(_decoded_file(MOHAMED, encoding="cp850"), timezone="Europe/Paris")) == figures


def test_it_reads_the_spanish_log_with_a_12_hour_p_m_and_nbsp() -> None:
    text = _text(DARY)
    decoded = _decoded_file(DARY)
    assert decoded.encoding == "cp1250"  # the generic guess; the bytes are CP850
    parsed = _parse(decoded, timezone="America/Santo_Domingo")
    figures = _figures(parsed)

    assert _row(figures, "dirs") == (258, 239, 42, 0, 0, 2)
    assert _row(figures, "files") == (703, 651, 52, 0, 0, 1)
    assert _row(figures, "bytes") == (
        _bytes("28.13", MIB),
        _bytes("27.67", MIB),
        _bytes("475.1", KIB),
        0,
        0,
        374,
    )
    assert (figures["time.total_s"], figures["time.copied_s"]) == (4, 0)
    assert figures["speed.bytes_per_s"] == 102_900_492
    assert figures["speed.mb_per_min"] == 5_888.014
    assert figures["elapsed_s"] == 0
    assert {item.until for item in _items(parsed)} == {None}  # it ended the second it started
    # martes, 20 de enero de 2026 3:49:12 p. m. (NBSPs inside), UTC-4.
    assert _times(parsed) == {_utc(2026, 1, 20, 19, 49, 12)}
    assert parsed.run_attributes["destination"] == _header(text, "Destino")
    # "Nuevo arch" + "Más reciente" lines are the files copied; EXTRA lines the extras.
    assert figures["files.copied"] == _listed(text, "Nuevo arch") + _listed(text, "Más reciente") == 651
    assert figures["files.extras"] == _listed(text, r"\*Archivo EXTRA")
    assert figures["dirs.extras"] == _listed(text, r"\*Directorio EXTRA")


def test_it_reads_the_portuguese_log_with_its_own_row_labels() -> None:
    text = _text(VALENCALE)
    parsed = _parse(_decoded_file(VALENCALE), timezone="America/Sao_Paulo")
    figures = _figures(parsed)

    assert _row(figures, "dirs") == (7, 2, 5, 0, 0, 15)
    assert _row(figures, "files") == (16, 12, 4, 0, 0, 21)
    assert _row(figures, "bytes") == (
        _bytes("108.6", KIB),
        _bytes("102.2", KIB),
        _bytes("6.3", KIB),
        0,
        0,
        _bytes("3.19", MIB),
    )
    assert figures["time.total_s"] == 0  # the "N.º de Vezes" row
    assert figures["speed.bytes_per_s"] == 9_521_090
    assert figures["speed.mb_per_min"] == 544.801
    assert _times(parsed) == {_utc(2026, 5, 15, 13, 55, 28)}  # sexta-feira, 15 de maio de 2026 10:55:28
    assert parsed.run_attributes["source"] == _header(text, "Origem")
    assert parsed.run_attributes["options"] == _header(text, "Opções")
    assert figures["files.copied"] == _listed(text, "Novo Arquivo")
    assert figures["files.extras"] == _listed(text, r"\*Arquivo EXTRA")
    assert figures["dirs.extras"] == len(re.findall(r"^\t\*Dir EXTRA", text, re.MULTILINE))
    listed = _listed_bytes(text, "Novo Arquivo")
    assert figures["bytes.copied"] <= listed < figures["bytes.copied"] + 0.1 * KIB


def test_it_reads_the_japanese_log_and_ignores_the_error_after_the_summary() -> None:
    text = _text(SOSUKIGARA)
    parsed = _parse(_decoded_file(SOSUKIGARA), timezone="Asia/Tokyo")
    figures = _figures(parsed)

    assert _row(figures, "dirs") == (24, 24, 0, 0, 0, 0)
    assert _row(figures, "files") == (229, 229, 0, 0, 0, 0)
    assert _row(figures, "bytes") == (_bytes("39.08", MIB), _bytes("39.08", MIB), 0, 0, 0, 0)
    assert figures["time.total_s"] == 5
    assert figures["speed.bytes_per_s"] == 191_497_299
    assert figures["speed.mb_per_min"] == 10_957.563
    assert figures["elapsed_s"] == 0
    assert _times(parsed) == {_utc(2026, 1, 13, 8, 59, 24)}  # 2026年1月13日 17:59:24 JST
    assert parsed.run_attributes["error_lines"] == "1"
    assert "partial" not in parsed.run_attributes
    assert parsed.run_attributes["source"] == _header(text, "コピー元")
    assert figures["files.copied"] == _listed(text, "新しいファイル")


def test_it_reads_the_chinese_log_that_copied_nothing_and_has_no_speed() -> None:
    parsed = _parse(_decoded_file(WXZJT), timezone="Asia/Shanghai")
    figures = _figures(parsed)

    assert _row(figures, "dirs") == (7, 0, 7, 0, 0, 0)
    assert _row(figures, "files") == (53, 0, 53, 0, 0, 0)
    assert _row(figures, "bytes") == (_bytes("321.5", KIB), 0, _bytes("321.5", KIB), 0, 0, 0)
    assert not [metric for metric in figures if metric.startswith("speed.")]
    assert figures["elapsed_s"] == 0
    assert _times(parsed) == {_utc(2026, 3, 6, 3, 36, 20)}  # 2026年3月6日 11:36:20 CST
    assert "partial" not in parsed.run_attributes


def test_it_reads_25_appended_chinese_jobs_as_25_runs() -> None:
    text = _text(AOQTYII)
    parsed = _parse(_decoded_file(AOQTYII), timezone="Asia/Shanghai")
    items = _items(parsed)
    jobs = sorted({item.params["job"] for item in items if item.params}, key=int)

    assert len(jobs) == text.count("ROBOCOPY     ::") == 25
    assert all(item.params is not None for item in items)
    first, last = _figures(parsed, "1"), _figures(parsed, "25")
    assert _row(first, "dirs") == (22, 21, 1, 0, 0, 0)
    assert _row(first, "files") == (33, 33, 0, 0, 0, 0)
    assert first["bytes.copied"] == _bytes("2.41", MIB)
    assert first["speed.bytes_per_s"] == 63_230_575
    assert first["speed.mb_per_min"] == 3_618.083
    assert _row(last, "files") == (142, 142, 0, 0, 0, 0)
    assert last["bytes.copied"] == _bytes("327.7", KIB)
    assert last["speed.bytes_per_s"] == 1_075_592
    assert last["speed.mb_per_min"] == 61.546
    assert _figures(parsed, "24")["elapsed_s"] == 1  # 16:17:47 -> 16:17:48
    # Over all jobs the summaries agree with the file list.
    assert sum(_figures(parsed, job)["files.copied"] for job in jobs) == _listed(text, "新文件") == 1780
    assert sum(_figures(parsed, job)["dirs.copied"] for job in jobs) == _listed(text, "新目录") == 547
    # Each job is stamped with its own Started time (China Standard Time).
    times = {job: {item.time for item in items if item.params["job"] == job} for job in jobs}
    assert times["1"] == {_utc(2025, 4, 25, 11, 15, 6)}
    assert times["25"] == {_utc(2025, 4, 26, 8, 17, 48)}

    attributes = parsed.run_attributes
    assert attributes["started_at"] == "2025-04-25T11:15:06+00:00"  # first job's start
    assert attributes["ended_at"] == "2025-04-26T08:17:48+00:00"  # last job's end
    assert attributes["options"] == _header(text, "选项")  # the same in every job
    assert "source" not in attributes  # jobs alternate between two sources ...
    assert len({job["source"] for job in attributes["jobs"]}) == 2  # ... kept per job
    assert [job["job"] for job in attributes["jobs"]] == jobs
    assert "partial" not in attributes


def test_it_refuses_the_garbled_date_log_without_started_at() -> None:
    error = _error(_decoded_file(JW1210), timezone="UTC")
    assert error.line == 6
    assert "'2026317  12:09:37'" in error.message
    assert "started_at" in error.message


def test_it_reads_the_garbled_date_log_with_started_at() -> None:
    parsed = _parse(_decoded_file(JW1210), extra={"started_at": "2026-03-17T12:09:37+08:00"})
    figures = _figures(parsed)

    assert _row(figures, "dirs") == (1, 0, 1, 0, 0, 0)
    assert _row(figures, "files") == (3, 0, 3, 0, 0, 0)
    assert _row(figures, "bytes") == (_bytes("95.9", KIB), 0, _bytes("95.9", KIB), 0, 0, 0)
    assert figures["bytes.total"] == 98_202
    assert [figures[f"time.{c}_s"] for c in ("total", "copied", "failed", "extras")] == [0, 0, 0, 0]
    assert "elapsed_s" not in figures  # the Ended date is garbled too
    assert not [metric for metric in figures if metric.startswith("speed.")]
    assert _times(parsed) == {_utc(2026, 3, 17, 4, 9, 37)}
    assert parsed.run_attributes["started_at"] == "2026-03-17T04:09:37+00:00"
    assert "ended_at" not in parsed.run_attributes


def test_it_refuses_the_truncated_arabic_log_at_its_last_line() -> None:
    text = _text(AHMAD)
    error = _error(_decoded_file(AHMAD), timezone="Asia/Riyadh")
    assert error.message == "the log ends before its summary (truncated?)"
    assert error.line == text.count("\n") == 35


def test_it_repairs_the_arabic_mojibake_date_once_the_log_is_complete() -> None:
    # The truncated Arabic log with the summary it would have had; its Ended
    # line is the Started line's mojibake date one second later.
    text = _text(AHMAD)
    ended = _header(text, "Started").replace("08:46:03", "08:46:04")
    text += (
        "\r\n------------------------------------------------------------------------------\r\n\r\n"
        "               Total    Copied   Skipped  Mismatch    FAILED    Extras\r\n"
        "    Dirs :         1         1         0         0         0         0\r\n"
        "   Files :         6         6         0         0         0         0\r\n"
        "   Bytes :    47.0 k    47.0 k         0         0         0         0\r\n"
        "   Times :   0:00:00   0:00:00                       0:00:00   0:00:00\r\n"
        f"   Ended : {ended}\r\n"
    )
    assert ended.isascii() is False and "08:46:04" in ended
    parsed = _parse(_decoded_bytes(text.encode("utf-16")), timezone="Asia/Riyadh")
    figures = _figures(parsed)
    # "21 يناير, 2026 08:46:03 م" (UTF-8 shown as CP437): 21 January, 8:46:03 PM, UTC+3.
    assert _times(parsed) == {_utc(2026, 1, 21, 17, 46, 3)}
    assert figures["elapsed_s"] == 1
    assert figures["files.copied"] == 6
    assert "partial" not in parsed.run_attributes

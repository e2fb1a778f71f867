"""The robocopy parser against every real log in shared/fixtures/real/robocopy, and broken ones.

The expected summaries below were read off each file by hand; where the file
allows it the test also recomputes them independently of the parser (file
list lines counted per tag, file sizes summed, Speed against Bytes/Times), and
header values such as the source path are taken from the file text so that no
user's path is written here.
"""

from __future__ import annotations

import io
import random
import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.paths import FIXTURES
from workers.pipeline.decode import Decoded, decode
from workers.pipeline.errors import ParseError
from workers.pipeline.parsers.base import ParseContext
from workers.pipeline.parsers.robocopy import RobocopyParser
from workers.pipeline.records import Measurement, Parsed

ROBOCOPY = FIXTURES / "robocopy"
AHMAD = ROBOCOPY / "ahmad_robocopy_utf16_arabic_mojibake_truncated.log"
ANDREW = ROBOCOPY / "andrew_robocopy_utf16_NFL.log"
AOQTYII = ROBOCOPY / "aoqtyii_robocopy_zhCN_gbk_speed.log"
DARY = ROBOCOPY / "dary_robocopy_esDO_latin.log"
JW1210 = ROBOCOPY / "jw1210_robocopy_en_garbled_cjk_date.log"
MARKRAI = ROBOCOPY / "markrai_seen_robocopy_utf16.log"
MOHAMED = ROBOCOPY / "mohamed_robocopy_frFR_cp850.log"
RIPVANNWINKLER = ROBOCOPY / "ripvannwinkler_robocopy_NFL_MT16.log"
SOSUKIGARA = ROBOCOPY / "sosukigara_robocopy_jaJP_cp932_MT32_error.log"
VALENCALE = ROBOCOPY / "valencale_robocopy_ptBR_cp850.log"
WXZJT = ROBOCOPY / "wxzjt_robocopy_zhCN_gbk.log"

# The encoding each file really is in (from the MANIFEST, checked by reading them).
TRUE_ENCODING = {
    AHMAD: "utf-16",
    ANDREW: "utf-16",
    AOQTYII: "gbk",
    DARY: "cp850",
    JW1210: "utf-8",
    MARKRAI: "utf-16",
    MOHAMED: "cp850",
    RIPVANNWINKLER: "utf-8",
    SOSUKIGARA: "cp932",
    VALENCALE: "cp850",
    WXZJT: "gbk",
}

PARSER = RobocopyParser()
KIB, MIB, GIB, TIB = 1024, 1024**2, 1024**3, 1024**4
COLUMNS = ("total", "copied", "skipped", "mismatch", "failed", "extras")


def _decoded_file(path: Path, encoding: str | None = None) -> Decoded:
    return decode(lambda: path.open("rb"), encoding=encoding)


def _decoded_bytes(data: bytes, encoding: str | None = None) -> Decoded:
    return decode(lambda: io.BytesIO(data), encoding=encoding)


def _parse(source: Decoded, **context: Any) -> Parsed:
    parsed = PARSER.parse(source, ParseContext(**context))
    assert parsed.parser == "robocopy"
    assert parsed.tool == "robocopy"
    return parsed


def _error(source: Decoded, **context: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        list(PARSER.parse(source, ParseContext(**context)).measurements)
    assert info.value.parser == "robocopy"
    return info.value


def _figures(parsed: Parsed, job: str | None = None) -> dict[str, float]:
    found: dict[str, float] = {}
    for item in parsed.measurements:
        if (item.params or {}).get("job") == job:
            assert item.metric not in found, f"{item.metric} twice for job {job}"
            found[item.metric] = item.value
    return found


def _items(parsed: Parsed) -> list[Measurement]:
    return list(parsed.measurements)


def _row(figures: dict[str, float], kind: str) -> tuple[float, ...]:
    return tuple(figures[f"{kind}.{column}"] for column in COLUMNS)


def _text(path: Path) -> str:
    """The file read with its true encoding, without the pipeline's decode()."""
    return path.read_bytes().decode(TRUE_ENCODING[path])


def _header(text: str, label: str) -> str:
    match = re.search(rf"^\s*{label}\s*:\s*(.*?)\s*$", text, re.MULTILINE)
    assert match, label
    return match[1]


def _line_of(text: str, pattern: str) -> int:
    """1-based number of the first line matching ``pattern`` (lines end at \\n only)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if re.search(pattern, line):
            return number
    raise AssertionError(pattern)


def _listed(text: str, tag: str) -> int:
    """How many file-list lines carry ``tag`` (e.g. 'New File')."""
    return len(re.findall(rf"^\t\s*{tag}(?=[\s])", text, re.MULTILINE))


def _listed_bytes(text: str, tag: str) -> float:
    """Sum of the sizes robocopy printed on the ``tag`` lines of the file list."""
    total = 0.0
    for match in re.finditer(rf"^\t\s*{tag}\s*\t\t\s*([\d.]+)(?: ([kmg]))?\t", text, re.MULTILINE):
        total += float(match[1]) * {None: 1, "k": KIB, "m": MIB, "g": GIB}[match[2]]
    return total


def _bytes(number: str, unit: int) -> float:
    """``76.290 g`` as robocopy means it: the whole number nearest to 76.290 x 1024^3."""
    return float(round(Decimal(number) * unit))


def _utc(year: int, month: int, day: int, hour: int, minute: int, second: int) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def _times(parsed: Parsed) -> set[datetime]:
    return {item.time for item in parsed.measurements}


# --- detection ---------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(ROBOCOPY.iterdir()), ids=lambda path: path.name[:24])
def test_it_claims_every_real_robocopy_log(path: Path) -> None:
    decoded = _decoded_file(path)
    assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 90


OTHER_FORMATS = sorted(
    path for path in FIXTURES.glob("*/*") if path.parent.name != "robocopy" and path.is_file()
)


@pytest.mark.parametrize("path", OTHER_FORMATS, ids=lambda path: f"{path.parent.name}/{path.name[:24]}")
def test_it_does_not_claim_other_tools_files(path: Path) -> None:
    decoded = _decoded_file(path)
    assert PARSER.detect(decoded.head_bytes, decoded.head_text) == 0


@pytest.mark.parametrize(
    "text",
    [
        "name,started_at,duration_ms\nlogon,2015-07-01T10:15:00+10:00,38412.5\n",
        '[{"name": "logon", "started_at": "2015-07-01T00:20:00Z", "duration_ms": 37990}]',
        "Days              : 0\nHours             : 0\nTotalMilliseconds : 1234.5678\n",
        "",
    ],
    ids=["timings-csv", "timings-json", "measure-command", "empty"],
)
def test_it_does_not_claim_timings_files(text: str) -> None:
    assert PARSER.detect(text.encode(), text) == 0


def test_it_claims_a_summary_without_banner_or_header() -> None:
    text = _text(RIPVANNWINKLER)
    summary = text[text.index("               Total") :]
    assert PARSER.detect(summary.encode(), summary) == 90


# --- the real files ------------------------------------------------------------


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


# --- truncated and partial summaries ------------------------------------------------


def _cut_before(path: Path, pattern: str, extra: str = "") -> tuple[bytes, int]:
    """The file's text up to (not including) the first line matching ``pattern``, re-encoded."""
    text = _text(path)
    kept = _line_of(text, pattern) - 1
    cut = "\n".join(text.split("\n")[:kept]) + "\n" + extra
    encoding = "utf-16" if TRUE_ENCODING[path] == "utf-16" else TRUE_ENCODING[path]
    return cut.encode(encoding), kept


def test_it_refuses_a_log_cut_before_its_summary_on_the_last_line() -> None:
    for path in (RIPVANNWINKLER, MARKRAI, MOHAMED):
        data, kept = _cut_before(path, r"Total\s+Copi")
        error = _error(_decoded_bytes(data), timezone="UTC")
        assert error.message == "the log ends before its summary (truncated?)"
        assert error.line == kept


def test_it_emits_the_complete_rows_of_a_summary_cut_after_files() -> None:
    data, _ = _cut_before(MARKRAI, r"^\s+Bytes :")
    parsed = _parse(_decoded_bytes(data), timezone="UTC")
    figures = _figures(parsed)
    assert sorted(figures) == sorted(f"{kind}.{column}" for kind in ("dirs", "files") for column in COLUMNS)
    assert _row(figures, "files") == (3656, 3655, 1, 0, 0, 2)
    assert parsed.run_attributes["partial"] == "true"
    assert "ended_at" not in parsed.run_attributes
    assert _times(parsed) == {_utc(2025, 12, 9, 20, 39, 53)}


def test_it_does_not_use_a_last_line_cut_mid_way() -> None:
    # The Bytes row cut inside "1.362 g": without its line break it is not trusted.
    text = _text(MARKRAI)
    start = text.index("   Bytes :")
    parsed = _parse(_decoded_bytes(text[: start + 14].encode("utf-16")), timezone="UTC")
    figures = _figures(parsed)
    assert not [metric for metric in figures if metric.startswith("bytes.")]
    assert figures["files.copied"] == 3655
    assert parsed.run_attributes["partial"] == "true"


def test_it_marks_a_summary_without_speed_and_ended_lines_partial() -> None:
    data, _ = _cut_before(RIPVANNWINKLER, r"^\s+Speed :")
    parsed = _parse(_decoded_bytes(data), timezone="UTC")
    figures = _figures(parsed)
    assert figures["bytes.copied"] == 81_915_763_753
    assert figures["time.copied_s"] == 42
    assert not [metric for metric in figures if metric.startswith("speed.") or metric == "elapsed_s"]
    assert parsed.run_attributes["partial"] == "true"


def test_it_keeps_a_summary_whose_file_ends_inside_a_utf16_character() -> None:
    data = ANDREW.read_bytes()[:-1]  # half of the final line feed
    parsed = _parse(_decoded_bytes(data), timezone="UTC")
    assert _figures(parsed)["files.copied"] == 6743
    assert "partial" not in parsed.run_attributes


def test_it_emits_the_finished_jobs_of_a_log_cut_inside_its_last_job() -> None:
    text = _text(AOQTYII)
    last_banner = text.rindex("ROBOCOPY     ::")
    cut = text[: text.index("\n", last_banner + 400) + 1]
    parsed = _parse(_decoded_bytes(cut.encode("gbk")), timezone="Asia/Shanghai")
    jobs = {item.params["job"] for item in _items(parsed) if item.params}
    assert jobs == {str(n) for n in range(1, 25)}
    assert parsed.run_attributes["partial"] == "true"
    last = parsed.run_attributes["jobs"][-1]
    assert (last["job"], last["partial"]) == ("25", "true")
    assert "partial" not in parsed.run_attributes["jobs"][0]


# --- re-encoded, garbage, empty -----------------------------------------------------


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


# --- synthetic variations ---------------------------------------------------------


GERMAN = """
-------------------------------------------------------------------------------
   ROBOCOPY     ::     Robustes Dateikopieren für Windows
-------------------------------------------------------------------------------

  Gestartet : Freitag, 24. Juli 2026 23:58:15
     Quelle : D:\\Daten\\
       Ziel : \\\\fs01\\daten\\

    Dateien : *.*

   Optionen : *.* /S /E /DCOPY:DA /COPY:DAT /MT:8 /R:1 /W:1

------------------------------------------------------------------------------

------------------------------------------------------------------------------

          Insgesamt   KopiertÜbersprungenKeine Übereinstimmung    FEHLER    Extras
Verzeich.:      1021      1020         1         0         0         0
  Dateien:    100003    100000         3         0         0         0
    Bytes:    1.45 t    95.0 g    12.5 m         0   1.000 k         0
   Zeiten:   2:48:26   2:38:08                       0:00:00   0:00:01


Geschwindigkeit:         1.234.567.890 Bytes/Sek.
Geschwindigkeit:           70.642,120 Megabytes/Min.
   Beendet: Samstag, 25. Juli 2026 02:46:41
"""


def test_it_reads_a_german_log_with_dot_grouping_and_t_units() -> None:
    parsed = _parse(_decoded_bytes(GERMAN.encode("cp850")), timezone="Europe/Berlin")
    figures = _figures(parsed)
    assert _row(figures, "dirs") == (1021, 1020, 1, 0, 0, 0)
    assert _row(figures, "files") == (100_003, 100_000, 3, 0, 0, 0)
    assert figures["bytes.total"] == 1_594_291_860_275  # 1.45 x 1024^4 (1.45 TiB, rounded)
    assert figures["bytes.copied"] == 102_005_473_280  # 95.0 x 1024^3
    assert figures["bytes.skipped"] == 13_107_200
    assert figures["bytes.failed"] == 1024
    assert [figures[f"time.{c}_s"] for c in ("total", "copied", "failed", "extras")] == [10_106, 9_488, 0, 1]
    assert figures["speed.bytes_per_s"] == 1_234_567_890
    assert figures["speed.mb_per_min"] == 70_642.12
    assert figures["elapsed_s"] == 2 * 3600 + 48 * 60 + 26  # across midnight
    assert _times(parsed) == {_utc(2026, 7, 24, 21, 58, 15)}  # CEST
    assert parsed.run_attributes["source"] == "D:\\Daten\\"
    assert parsed.run_attributes["destination"] == "\\\\fs01\\daten\\"
    assert parsed.run_attributes["options"].endswith("/MT:8 /R:1 /W:1")


def test_it_reads_an_unknown_language_by_position() -> None:
    # Labels robocopy.labels does not know: the header is read by position,
    # the rows by order and shape, Speed by its "/" unit, Ended as the date after.
    text = (
        "   ROBOCOPY     ::     Xyz\n"
        "  Qqq : Thursday, January 1, 2026 12:30:00 AM\n"
        "  Www : C:\\a\\\n"
        "  Eee : D:\\b\\\n"
        "  Rrr : *.* /E /R:0\n"
        "------------------------------------------------------------------------------\n"
        "  Aaa :         2         2         0         0         0         0\n"
        "  Sss :         5         4         1         0         0         0\n"
        "  Ddd :     1.0 m     1.0 m         0         0         0         0\n"
        "  Fff :   0:00:02   0:00:01                       0:00:00   0:00:00\n"
        "  Ggg :              524288 Zz/yy\n"
        "  Ggg :              30.000 Zz/mmm\n"
        "  Hhh : Thursday, January 1, 2026 12:30:02 AM\n"
    )
    parsed = _parse(_decoded_bytes(text.encode()), timezone="UTC")
    figures = _figures(parsed)
    assert _row(figures, "dirs") == (2, 2, 0, 0, 0, 0)
    assert _row(figures, "files") == (5, 4, 1, 0, 0, 0)
    assert figures["bytes.copied"] == MIB
    assert figures["speed.bytes_per_s"] == 524_288
    assert figures["speed.mb_per_min"] == 30.0
    assert figures["elapsed_s"] == 2
    assert _times(parsed) == {_utc(2026, 1, 1, 0, 30, 0)}  # 12:30 AM is half past midnight
    assert parsed.run_attributes["source"] == "C:\\a\\"
    assert parsed.run_attributes["options"] == "*.* /E /R:0"


def test_it_splits_headerless_appended_summaries_into_jobs() -> None:
    table = (
        "               Total    Copied   Skipped  Mismatch    FAILED    Extras\r\n"
        "    Dirs :         1         1         0         0         0         0\r\n"
        "   Files :         {n}         {n}         0         0         0         0\r\n"
        "   Bytes :       {n}00       {n}00         0         0         0         0\r\n"
        "   Times :   0:00:00   0:00:00                       0:00:00   0:00:00\r\n"
        "   Ended : Monday, March 2, 2026 10:0{n}:00 AM\r\n\r\n"
    )
    text = "".join(table.replace("{n}", str(n)) for n in (1, 2, 3))
    parsed = _parse(_decoded_bytes(text.encode()), timezone="UTC")
    for n in (1, 2, 3):
        assert _figures(parsed, str(n))["files.copied"] == n
        assert _figures(parsed, str(n))["bytes.copied"] == n * 100
    # No Started line (/NJH): each job is stamped with its Ended time.
    assert _times(parsed) == {_utc(2026, 3, 2, 10, n, 0) for n in (1, 2, 3)}


def test_it_reads_space_grouped_cells_by_their_fixed_width() -> None:
    cells = ["1 234 567", "1 234 500", "67", "0", "0", "0"]
    row = "".join(cell.rjust(10) for cell in cells)
    nbsp_row = row.replace(" 234 ", "\u00a0234\u00a0")
    text = (
        "   ROBOCOPY     ::     Robust File Copy for Windows\n"
        "  Started : Monday, March 2, 2026 10:00:00 PM\n"
        "------------------------------------------------------------------------------\n"
        "    Dirs :         1         1         0         0         0         0\n"
        f"   Files :{row}\n"
        f"   Bytes :{nbsp_row}\n"
        "   Times :   0:00:00   0:00:00                       0:00:00   0:00:00\n"
        "   Ended : Monday, March 2, 2026 10:00:00 PM\n"
    )
    parsed = _parse(_decoded_bytes(text.encode()), timezone="UTC")
    figures = _figures(parsed)
    assert _row(figures, "files") == (1_234_567, 1_234_500, 67, 0, 0, 0)
    assert _row(figures, "bytes") == (1_234_567, 1_234_500, 67, 0, 0, 0)
    assert _times(parsed) == {_utc(2026, 3, 2, 22, 0, 0)}


def test_it_tolerates_carriage_returns_and_progress_inside_lines() -> None:
    text = _text(RIPVANNWINKLER).replace("    Dirs :", "  0%  \r 45%  \r100%  \r    Dirs :")
    text = text.replace("   Speed :           1,9", "\r\r   Speed :           1,9")
    figures = _figures(_parse(_decoded_bytes(text.encode()), timezone="UTC"))
    assert _row(figures, "dirs") == (10, 10, 0, 0, 0, 0)
    assert figures["speed.bytes_per_s"] == 1_915_409_756


def test_every_real_speed_pair_agrees_in_mib() -> None:
    for path in (ANDREW, MARKRAI, MOHAMED, DARY, VALENCALE, SOSUKIGARA, RIPVANNWINKLER):
        figures = _figures(_parse(_decoded_file(path), timezone="UTC"))
        assert figures["speed.bytes_per_s"] * 60 / MIB == pytest.approx(
            figures["speed.mb_per_min"], abs=0.001
        )


def test_it_refuses_absurd_figures_and_dates_instead_of_overflowing() -> None:
    text = _text(RIPVANNWINKLER)
    text = text.replace("    Dirs :        10", "    Dirs : " + "9" * 40)  # not a row any more
    text = text.replace("Friday, July 24, 2026 11:08:15 AM", "Monday, January 1, 0001 00:00:01 AM")
    parsed = _parse(_decoded_bytes(text.encode()), timezone="Asia/Tokyo")
    figures = _figures(parsed)
    assert not [metric for metric in figures if metric.startswith("dirs.")]
    assert parsed.run_attributes["partial"] == "true"
    assert "elapsed_s" not in figures
    # The year-1 Started date is not used; the Ended line stamps the figures.
    assert _times(parsed) == {_utc(2026, 7, 24, 2, 9, 6)}


# --- hostile input (found by fuzzing) ------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [" " * 8_000, "\u00a0" * 8_000, "x" + " " * 8_000 + "y", " " * 8_000 + ":", "Dirs" + " " * 8_000 + "x"],
    ids=["spaces", "nbsp", "inside", "before-colon", "after-label"],
)
def test_it_reads_a_summary_after_a_line_of_thousands_of_spaces(line: str) -> None:
    text = _text(RIPVANNWINKLER)
    summary = text[text.index("               Total") :]
    assert PARSER.detect(line.encode(), line) == 0
    padded = line + "\n" + summary
    assert PARSER.detect(padded.encode(), padded) == 90
    padded = text.replace("    Dirs :", line + "\n    Dirs :", 1)
    figures = _figures(_parse(_decoded_bytes(padded.encode()), timezone="UTC"))
    assert _row(figures, "dirs") == (10, 10, 0, 0, 0, 0)


def test_it_reads_a_label_padded_with_thousands_of_spaces_before_its_colon() -> None:
    text = _text(RIPVANNWINKLER).replace("    Dirs :", "    Dirs" + " " * 8_000 + ":", 1)
    figures = _figures(_parse(_decoded_bytes(text.encode()), timezone="UTC"))
    assert _row(figures, "dirs") == (10, 10, 0, 0, 0, 0)
    text = _text(RIPVANNWINKLER).replace("    Dirs :", " " * 8_000 + "Dirs :", 1)
    figures = _figures(_parse(_decoded_bytes(text.encode()), timezone="UTC"))
    assert _row(figures, "dirs") == (10, 10, 0, 0, 0, 0)

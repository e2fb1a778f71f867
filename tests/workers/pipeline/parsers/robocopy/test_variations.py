"""Synthetic robocopy logs: other languages and number formats, headerless jobs, hostile input."""

from __future__ import annotations

import pytest

from tests.workers.pipeline.parsers.robocopy.helpers import (
    ANDREW,
    DARY,
    MARKRAI,
    MIB,
    MOHAMED,
    PARSER,
    RIPVANNWINKLER,
    SOSUKIGARA,
    VALENCALE,
    _decoded_bytes,
    _decoded_file,
    _figures,
    _parse,
    _row,
    _text,
    _times,
    _utc,
)

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

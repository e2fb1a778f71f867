"""Robocopy logs cut short: what the parser keeps of a partial summary or job, and what it refuses."""

from __future__ import annotations

from pathlib import Path

from tests.workers.pipeline.parsers.robocopy.helpers import (
    ANDREW,
    AOQTYII,
    COLUMNS,
    MARKRAI,
    MOHAMED,
    RIPVANNWINKLER,
    TRUE_ENCODING,
    _decoded_bytes,
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

"""One formatting rule for a figure and its unit (issue 20 item 2), with the demo's Adobe Reader XI launch.

On a 2003 SMB 1 server at 50 % CPU the five launches average 85,488 ms with a
stdev of 4,991.435 ms, from 80,225.27 to 90,603.28 ms: the row is printed in
seconds, every figure of it.
"""

from __future__ import annotations

from webapp.analysis.units import number, shown, value_text

ROW = {"mean": 85_488.0, "stdev": 4_991.435, "min": 80_225.27, "max": 90_603.28}


def test_a_row_is_printed_in_one_unit_chosen_from_its_largest_figure():
    unit = shown("ms", ROW.values())
    assert unit == "s"
    assert [number(v, "ms", unit) for v in ROW.values()] == ["85.5", "4.99", "80.2", "90.6"]
    assert value_text(ROW["stdev"], "ms", unit) == "4.99 s"
    # On its own the stdev is short enough for ms: converting is the row's choice, not the figure's.
    assert value_text(ROW["stdev"], "ms") == "4,991 ms"


def test_other_units_keep_their_name_and_small_figures_keep_three_significant_digits():
    assert shown("ms", [9_999.0, None]) == "ms" and shown("ms", [10_000.0]) == "s"
    assert value_text(2_500_000.0, "B/s") == "2.50 MB/s"
    assert value_text(0.35, "ms") == "0.350 ms" and value_text(0.0012, "ms") == "0.00120 ms"
    assert value_text(78.0, "%") == "78.0 %" and value_text(None, "ms") == ""

"""The shared copy comparison: time to complete per technique, data set and options, as the copies page shows it."""

from __future__ import annotations

from typing import Any

from webapp.analysis.copies import copy_comparison
from webapp.core.models import Campaign


def duration_text(seconds: float | None) -> str:
    """``1 h 2 min 5 s``, ``3 min 0 s``, ``51 s`` (whole seconds), as the copies page writes them."""
    if seconds is None:
        return "—"
    whole = round(seconds)
    hours, minutes, secs = whole // 3600, whole % 3600 // 60, whole % 60
    return (f"{hours} h " if hours else "") + (f"{minutes} min " if hours or minutes else "") + f"{secs} s"


def copies_section(campaign: Campaign) -> dict[str, Any]:
    """Rows of the timed copy configurations (mean, fastest, slowest) for the shared report."""
    rows = []
    for k, config in enumerate(copy_comparison(campaign)["configurations"]):
        if config["mean_s"] is None:
            continue
        rows.append(
            {
                "at": f"/configurations/{k}",  # where GET .../copies holds it (the figures' data-key)
                "technique": config["technique"],
                "dataset": config["dataset"] or "(data set not given)",
                "options": config["options"],
                "rounds": config["n"],
                "mean_s": config["mean_s"],
                "min_s": config["min_s"],
                "max_s": config["max_s"],
                "mean": duration_text(config["mean_s"]),
                "fastest": duration_text(config["min_s"]),
                "slowest": duration_text(config["max_s"]),
            }
        )
    return {"rows": rows}

"""Load just in time: the bill as it adds up, call by call, for two just-in-time runs.

Drawn from `run_strategy`: the simulated model on the 24 incident reports,
priced as Opus 5.5. `naive` reads two reports a step and keeps them all;
`cache-aware` reads the same way and clears each result once it is noted.
"""

from __future__ import annotations

from itertools import accumulate

from context_budget.experiment import run_strategy

from _svg import line_chart

CENTS = 100  # the axis is in US cents


def draw() -> str:
    """The figure as SVG text."""
    series = []
    totals = {}
    for label, name in (("just in time", "naive"), ("just in time, trimmed", "cache-aware")):
        run = run_strategy(name)
        spent = list(accumulate(record.cost.total * CENTS for record in run.records))
        series.append((label, list(enumerate(spent, 1))))
        totals[label] = spent[-1]
    return line_chart(
        series,
        title="What the just-in-time runs have cost after each call, in US cents",
        desc="Both runs read the 24 reports two at a time; the trimmed one ends at "
        f"{totals['just in time, trimmed']:.1f} cents against "
        f"{totals['just in time']:.1f} for the one that keeps everything.",
        x_label="model call",
        y_label="US cents so far",
    )

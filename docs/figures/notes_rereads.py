"""Write things down: the context of each call of `clear`, with and without notes.

Drawn from `run_strategy("clear", with_notes=...)`. With notes the run ends
after 15 calls; without them the server clears reports the agent had not
noted, and it reads them again until it gives up.
"""

from __future__ import annotations

from context_budget.experiment import run_strategy

from _svg import line_chart


def draw() -> str:
    """The figure as SVG text."""
    series = []
    runs = {}
    for label, with_notes in (("with notes", True), ("without notes", False)):
        run = run_strategy("clear", with_notes=with_notes)
        runs[label] = run
        series.append((label, [(r.number, r.context) for r in run.records]))
    kept, lost = runs["with notes"], runs["without notes"]
    return line_chart(
        series,
        title="Server-side clearing with and without notes: the context of every call",
        desc=f"With notes the run takes {kept.steps} calls; without them it takes "
        f"{lost.steps}, re-reading {lost.rereads} times.",
        x_label="model call",
        y_label="tokens in the context",
    )

"""Repeated compaction: how many of Lucy's facts each strategy keeps, round after round.

Drawn from `survival_rounds` on Lucy's day (`context_budget.scenarios.lucy`),
four compactions in a row: the lossy `wearing_summary` alone, with the records
pinned, with notes read back after every restart, and the repaired summarizer
`keep_rules_and_decisions`.
"""

from __future__ import annotations

from context_budget.erosion import (
    Strategy,
    keep_rules_and_decisions,
    survival_rounds,
    wearing_summary,
)
from context_budget.scenarios.lucy import LUCY

from _svg import line_chart

ROUNDS = 4
STRATEGIES = [
    Strategy("lossy summary", wearing_summary),
    Strategy("lossy + pinned records", wearing_summary, pinned=True),
    Strategy("lossy + notes read back", wearing_summary, notes=True),
    Strategy("keeps rule and decision lines", keep_rules_and_decisions),
]


def draw() -> str:
    """The figure as SVG text."""
    table = survival_rounds(LUCY, STRATEGIES, ROUNDS)
    series = [
        (label, [(number + 1, len(kept)) for number, kept in enumerate(rounds)])
        for label, rounds in table.items()
    ]
    last = ", ".join(f"{label} {points[-1][1]}" for label, points in series)
    total = len(LUCY.questions)
    return line_chart(
        series,
        title="A lossy summary wears Lucy's facts down with every compaction; "
        "notes and a rule-keeping summary keep them all",
        desc=f"Facts still visible (of {total}) after each of {ROUNDS} successive "
        f"compactions; after the last: {last}.",
        x_label="successive compactions",
        y_label="facts visible",
        hlines=[("all facts", total)],
        x_ticks=list(range(1, ROUNDS + 1)),
    )

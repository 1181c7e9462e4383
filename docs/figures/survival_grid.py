"""Clearing and compaction: which of Lucy's facts the model can still see, per plan.

Drawn from `survival_table` and `survival_grid` on Lucy's day with Unit A's four
plans (`context_budget.scenarios.lucy`), compacted by `compact` with
`keep_numbers`: a filled cell where the fact is still visible, an empty one
where it was lost.
"""

from __future__ import annotations

from context_budget.scenarios.lucy import LUCY, PLANS
from context_budget.survival import survival_grid, survival_table

from _svg import grid


def draw() -> str:
    """The figure as SVG text."""
    table = survival_table(LUCY, PLANS)
    rows = survival_grid(table, LUCY)
    counts = ", ".join(f"{label} {len(row['kept'])}" for label, row in table.items())
    return grid(
        [fact for fact, _, _ in rows],
        list(table),
        [flags for _, _, flags in rows],
        title="Which of Lucy's facts survive each plan: pinned rules outlast any summary",
        desc=f"Eleven facts (rows) under four plans (columns); facts kept of "
        f"{len(rows)}: {counts}.",
        yes="visible",
        no="lost",
    )

"""Clearing and compaction: the size of Lucy's context after each step, for four budgets.

Drawn from Unit A's four plans (`context_budget.scenarios.lucy.PLANS`): the day
as sent (step 0), after `clear_old_tool_results` (step 1), and after the summary
(step 2, `compact` with `keep_numbers`). A plan's line stops at the step where
its context first fits; the dashed line is the 400-token budget. The lines are
nudged sideways a little (`NUDGE` of a step each) so that plans sharing a size
do not hide one another.
"""

from __future__ import annotations

from context_budget import (
    KEEP_TOOL_RESULTS,
    Layers,
    budget_report,
    clear_old_tool_results,
    compact,
    keep_numbers,
)
from context_budget.scenarios.lucy import LUCY, PLANS

from _svg import line_chart

NUDGE = 0.03  # of a step, between neighbouring plans' lines


def sizes() -> list[tuple[str, list[tuple[float, float]]]]:
    """`(plan, [(step, tokens), ...])`: the sizes up to the step where the plan fits."""
    out = []
    for index, plan in enumerate(PLANS):
        budget = plan.tokens(LUCY)
        pinned = list(LUCY.pinned) if plan.pinned else []
        start = Layers(LUCY.system, pinned, LUCY.conversation())
        steps = [budget_report(start)["total"]]
        if steps[-1] > budget:
            cleared = clear_old_tool_results(start.conversation, KEEP_TOOL_RESULTS)
            steps.append(budget_report(Layers(start.system, pinned, cleared))["total"])
        if steps[-1] > budget:
            steps.append(budget_report(compact(start, budget, keep_numbers))["total"])
        shift = (index - (len(PLANS) - 1) / 2) * NUDGE
        points = [(step + shift, float(size)) for step, size in enumerate(steps)]
        out.append((f"{plan.label} ({budget:,})", points))
    return out


def draw() -> str:
    """The figure as SVG text."""
    series = sizes()
    return line_chart(
        series,
        title="Lucy's context after each step of compaction, for the four budgets",
        desc="Tokens of the context as sent (step 0), after clearing old tool results "
        "(step 1) and after the summary (step 2); each line stops where its budget is "
        "met: "
        + "; ".join(
            f"{label}: " + " then ".join(f"{y:,.0f}" for _, y in points) for label, points in series
        )
        + ".",
        x_label="step (0 as sent, 1 cleared, 2 summarized)",
        y_label="tokens (estimate)",
        hlines=[("400-token budget", 400)],
        x_ticks=[0, 1, 2],
    )

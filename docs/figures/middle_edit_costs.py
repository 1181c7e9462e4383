"""Don't edit the middle: what four ways of keeping a history small cost over one run.

Drawn from `middle_run` (`context_budget.scenarios.cache_runs`): a 17-call
reading run on `claude-opus-5`, its cost added up call by call.
"""

from __future__ import annotations

import itertools

from context_budget.scenarios.cache_runs import middle_run

from _svg import line_chart

LABELS = {
    "append": "append only",
    "client_clear": "client-side clear",
    "server_clear": "server-side clear",
    "restart": "restart (summary)",
}


def draw() -> str:
    """The figure as SVG text."""
    runs = {strategy: middle_run(strategy) for strategy in LABELS}
    series = []
    for strategy, calls in runs.items():
        running = itertools.accumulate(call.usd * 100 for call in calls)
        series.append((LABELS[strategy], [(k + 1, usd) for k, usd in enumerate(running)]))
    totals = ", ".join(f"{LABELS[s]} ${sum(c.usd for c in calls):.3f}" for s, calls in runs.items())
    return line_chart(
        series,
        title="Running cost of one run: clearing shrinks the context but rewrites the "
        "cache on every call, so it costs more than keeping everything",
        desc=f"Running total in US cents over 17 calls on claude-opus-5. Client-side clear runs "
        f"clear_old_tool_results before every call; server-side clear keeps 2 tool uses. "
        f"Totals: {totals}.",
        x_label="call",
        y_label="US cents so far",
    )

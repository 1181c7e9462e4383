"""Keep the start stable: the cost of each call with a stable, a timestamped and a reordered start.

Drawn from `prefix_run` (`context_budget.scenarios.cache_runs`): the same
20-call reading run on `claude-opus-5` with automatic caching, priced by
`cost` on `PRICES`. Only the start of the prompt differs.
"""

from __future__ import annotations

from context_budget.scenarios.cache_runs import prefix_run

from _svg import line_chart

LABELS = {
    "stable": "stable start",
    "timestamp": "timestamp in system",
    "reordered": "tools reordered",
}


def draw() -> str:
    """The figure as SVG text."""
    runs = {variant: prefix_run(variant) for variant in LABELS}
    series = [
        (LABELS[v], [(k + 1, call.usd * 100) for k, call in enumerate(calls)])
        for v, calls in runs.items()
    ]
    totals = ", ".join(f"{LABELS[v]} ${sum(c.usd for c in calls):.2f}" for v, calls in runs.items())
    return line_chart(
        series,
        title="Cost of each call: a timestamp in the system prompt makes every call "
        "rewrite the whole prompt; reordering the tools costs one rewrite",
        desc=f"Cost per call in US cents over a 20-call run on claude-opus-5; the tools are "
        f"reordered before call 11. Totals: {totals}.",
        x_label="call",
        y_label="US cents per call",
    )

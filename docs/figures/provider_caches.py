"""Keep the start stable: what a timestamp in the system prompt costs on five providers' caches.

Drawn from `provider_run` (`context_budget.scenarios.cache_runs`): the
chapter's 20-call reading run, its start made long enough for every
provider's minimum, sent to each of `PROVIDER_POLICIES` with a stable start
and with the time in the system prompt; each run is emulated by that
provider's `PromptCache` and priced by `cost` at the model's latest rates.
"""

from __future__ import annotations

import itertools

from context_budget.scenarios.cache_runs import PROVIDER_POLICIES, provider_run

from _svg import line_chart


def draw() -> str:
    """The figure as SVG text."""
    series = []
    ends = []
    for label, model, policy in PROVIDER_POLICIES:
        stable = itertools.accumulate(c.usd for c in provider_run(model, "stable", policy=policy))
        stamped = itertools.accumulate(
            c.usd for c in provider_run(model, "timestamp", policy=policy)
        )
        ratios = [a / b for a, b in zip(stamped, stable, strict=True)]
        series.append((label, [(k + 1, ratio) for k, ratio in enumerate(ratios)]))
        ends.append(f"{label} {ratios[-1]:.2f}x")
    return line_chart(
        series,
        title="What a timestamp in the system prompt costs, as a multiple of a stable start: "
        "the cheaper a provider's reads, the more losing them costs",
        desc="Running cost of the 20-call reading run with the time in the system prompt, "
        "divided by the same run with a stable start, on each provider's cache rules and "
        f"latest rates (DeepSeek off-peak). After 20 calls: {', '.join(ends)}.",
        x_label="call",
        y_label="timestamped cost / stable cost so far",
    )

"""Clearing on the server: what each call of a cleared run reads, writes and sends fresh.

Drawn from `middle_run("server_clear")` (`context_budget.scenarios.cache_runs`):
the emulated `clear_tool_uses_20250919` edit (keep 2) on a 17-call run.
"""

from __future__ import annotations

from context_budget.scenarios.cache_runs import middle_run

from _svg import stacked_bars


def draw() -> str:
    """The figure as SVG text."""
    calls = middle_run("server_clear")
    bars = [
        (
            f"call {k + 1}" + (f" ({c.cleared} cleared)" if c.cleared else ""),
            [
                ("read from cache", c.usage.cache_read_input_tokens),
                ("written to cache", c.usage.cache_creation_input_tokens),
                ("uncached", c.usage.input_tokens),
            ],
        )
        for k, c in enumerate(calls)
    ]
    first = next(k for k, c in enumerate(calls) if c.cleared)
    after = calls[first:]
    most_read = max(c.usage.cache_read_input_tokens for c in after)
    least_written = min(c.usage.cache_creation_input_tokens for c in after)
    return stacked_bars(
        bars,
        title="Once the server starts clearing, every call writes its prompt to the cache "
        "again from the first cleared result: the cut moves each time",
        desc=f"Prompt tokens of each call, split into cache reads, cache writes and uncached "
        f"input. Clearing starts at call {first + 1}; from there a call reads at most "
        f"{most_read:,} tokens and writes at least {least_written:,}.",
        value_label="prompt tokens",
    )

"""Layers: where the tokens of Lucy's request sit, layer by layer, as it is shortened.

Drawn from Lucy's day (`context_budget.scenarios.lucy`) with her rules as
pinned records, measured by `budget_report` and `message_tokens`: the request
as sent, after `clear_old_tool_results`, and after `compact` to 400 tokens.
The conversation layer is split by role; after compaction the summary is a
user message.
"""

from __future__ import annotations

from context_budget import (
    KEEP_TOOL_RESULTS,
    Layers,
    budget_report,
    clear_old_tool_results,
    compact,
    keep_numbers,
    message_tokens,
)
from context_budget.scenarios.lucy import PINNED, SYSTEM, lucy_day

from _svg import stacked_bars

PARTS = (
    "system",
    "pinned",
    "user messages",
    "assistant replies",
    "tool results",
)


def _parts(layers: Layers) -> list[tuple[str, float]]:
    """Tokens per part, in `PARTS` order; the parts add up to the report's total."""
    report = budget_report(layers)

    def by(role: str) -> int:
        return sum(message_tokens(m) for m in layers.conversation if m["role"] == role)

    return [
        ("system", report["system"]),
        ("pinned", report["pinned"]),
        ("user messages", by("user")),
        ("assistant replies", by("assistant")),
        ("tool results", by("tool")),
    ]


def requests() -> list[tuple[str, list[tuple[str, float]]]]:
    """`(stage, [(part, tokens), ...])` for the three stages of the request."""
    sent = Layers(SYSTEM, list(PINNED), lucy_day())
    cleared = Layers(
        SYSTEM,
        list(PINNED),
        clear_old_tool_results(lucy_day(), KEEP_TOOL_RESULTS),
    )
    compacted = compact(sent, 400, keep_numbers)
    return [
        ("as sent", _parts(sent)),
        ("old results cleared", _parts(cleared)),
        ("compacted to 400", _parts(compacted)),
    ]


def draw() -> str:
    """The figure as SVG text."""
    bars = requests()
    totals = {stage: int(sum(v for _, v in parts)) for stage, parts in bars}
    tool_share = dict(bars[0][1])["tool results"] / totals["as sent"]
    return stacked_bars(
        bars,
        title="The tokens of Lucy's request by layer: tool results are most of it, "
        "and clearing and compaction cut them before anything else",
        desc=f"Lucy's day with her rules pinned: {totals['as sent']:,} tokens as sent, "
        f"{tool_share:.0%} of them tool results; {totals['old results cleared']:,} after "
        f"clearing old tool results; {totals['compacted to 400']:,} after compaction to a "
        "400-token budget, where the system prompt and the pinned records are unchanged.",
        value_label="tokens (estimate), stacked by layer",
    )

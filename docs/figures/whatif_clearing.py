"""What it would have cost: clearing at each threshold, on real sessions, per provider.

The shipped real sessions (199 calls) replayed with old tool results cleared
from every request over the threshold, the last 3 tool uses kept, as the
server's `clear_tool_uses` does it; the cost over the replay without clearing.
"""

from __future__ import annotations

from _breakeven import MODELS, label, sweep
from _svg import line_chart


def draw() -> str:
    """The figure as SVG text."""
    data = sweep("clear_at")
    series = [
        (label(name, model), [(t / 1000, ratio) for t, ratio, _ in data[model]])
        for name, model in MODELS
    ]
    lowest = min(ratio for points in data.values() for _, ratio, _ in points)
    return line_chart(
        series,
        title="Clearing at each threshold on the real sessions: the replayed cost over "
        "the cost without clearing, per provider",
        desc=f"Above 1 everywhere (the lowest is {lowest:.3f}): each request past the "
        "threshold clears one more result, and the cache is read only up to it.",
        x_label="clear at (thousand tokens)",
        y_label="cost / cost without",
        hlines=(("no clearing", 1.0),),
    )

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
        (label(name, model, cache), [(t / 1000, ratio) for t, ratio, _ in data[model, cache]])
        for name, model, cache in MODELS
    ]
    lowest = {
        name: min(ratio for _, ratio, _ in data[model, cache]) for name, model, cache in MODELS
    }
    pays = [name for name, ratio in lowest.items() if ratio < 1]
    said = "; ".join(f"{name} {ratio:.3f}" for name, ratio in lowest.items())
    return line_chart(
        series,
        title="Clearing at each threshold on the real sessions: the replayed cost over "
        "the cost without clearing, per provider",
        desc=f"Below 1, clearing pays: only on {', '.join(pays) or 'none'}, whose cache holds "
        "the system prompt alone. Elsewhere each request past the threshold clears one more "
        f"result and the cache is read only up to it. Lowest ratio per provider: {said}.",
        x_label="clear at (thousand tokens)",
        y_label="cost / cost without",
        hlines=(("no clearing", 1.0),),
    )

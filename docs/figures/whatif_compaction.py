"""What it would have cost: compaction at each threshold, on real sessions, per provider.

The shipped real sessions (199 calls) replayed with a client-side compaction
once a request reaches the threshold, each summary 2,000 tokens, the
summarizing call priced; the cost over the replay without compaction.
"""

from __future__ import annotations

from _breakeven import MODELS, label, sweep
from _svg import line_chart


def draw() -> str:
    """The figure as SVG text."""
    data = sweep("compact_at")
    series = [
        (label(name, model), [(t / 1000, ratio) for t, ratio, _ in data[model]])
        for name, model in MODELS
    ]
    best = {name: min(data[model], key=lambda point: point[1]) for name, model in MODELS}
    said = "; ".join(f"{name} {ratio:.3f} at {t:,}" for name, (t, ratio, _) in best.items())
    return line_chart(
        series,
        title="Compaction at each threshold on the real sessions: the replayed cost over "
        "the cost without compaction, per provider",
        desc=f"Below 1, compaction pays. Lowest ratio per provider: {said} tokens.",
        x_label="compact at (thousand tokens)",
        y_label="cost / cost without",
        hlines=(("no compaction", 1.0),),
    )

"""The harness: one run's counter per call, measured two ways, against the threshold.

Drawn from `race_fix.play`: the simulated race-fix task (30 tool calls) in a
4,000-token window with ratio 0.7. The course's counter, `track_usage`, adds every
call's input and output, climbs past the threshold and drops to 0 at each
compaction; the window measure (what the last request carried plus its output)
climbs far more slowly and compacts once.
"""

from __future__ import annotations

from context_budget.scenarios.race_fix import play

from _svg import line_chart

ROUNDS = 30
WINDOW = 4_000  # tokens
RATIO = 0.7


def runs() -> dict[str, list[tuple[int, int]]]:
    """measure -> (call number, counter after the call) for every call, compactions included."""
    out = {}
    for measure in ("accumulated", "window"):
        run, _ = play(ROUNDS, context_window=WINDOW, compact_ratio=RATIO, measure=measure)
        out[measure] = [(call.number, call.tokens_used) for call in run.calls]
    return out


def draw() -> str:
    """The figure as SVG text."""
    series = runs()
    threshold = WINDOW * RATIO
    resets = [n for n, tokens in series["accumulated"] if tokens == 0]
    window_resets = sum(tokens == 0 for _, tokens in series["window"])
    return line_chart(
        [
            ("accumulated", series["accumulated"]),
            ("window", series["window"]),
        ],
        title="The same run counted two ways: the accumulated counter crosses the "
        "threshold and resets, the window measure grows slowly",
        desc="Accumulated: every call's input and output since the last reset. Window: "
        "what the last request carried plus its output. "
        f"{ROUNDS} tool calls in a {WINDOW:,}-token window, threshold "
        f"{threshold:,g} tokens. The accumulated counter drops to 0 at the compaction "
        f"calls {', '.join(map(str, resets))} and the run takes "
        f"{len(series['accumulated'])} calls; measured by the window it takes "
        f"{len(series['window'])} calls and compacts {window_resets} "
        f"time{'' if window_resets == 1 else 's'}.",
        x_label="model call",
        y_label="counter after the call (tokens)",
        hlines=[(f"threshold {threshold:,g}", threshold)],
    )

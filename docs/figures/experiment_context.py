"""The incident experiment: the context each call of the lead agent read, per strategy.

Drawn from `run_all()`: the simulated model on the 24 incident reports, priced
as Opus 5.5. `naive` climbs to the whole pile; `clear` levels off once the
server starts clearing; `compact` falls back after its summary; `chunked`
saws in a few big teeth; `cache-aware` stays at about two reports, since it
clears every result but the newest; the lead of `subagents` makes two calls of
about a thousand tokens. The context axis is logarithmic, so that those two calls,
forty times smaller than naive's peak, are a line of their own and not a stretch
of naive's first calls.
"""

from __future__ import annotations

from context_budget.experiment import run_all

from _svg import line_chart


def draw() -> str:
    """The figure as SVG text."""
    runs = run_all()
    leads = {name: [r for r in run.records if r.agent == "lead"] for name, run in runs.items()}
    series = [
        (name, [(n, r.context) for n, r in enumerate(lead, 1)]) for name, lead in leads.items()
    ]
    naive, clear = runs["naive"], runs["clear"]
    return line_chart(
        series,
        title="Context per call of the lead agent, for each strategy on the incident task",
        desc=f"naive peaks at {naive.peak_context:,} tokens; clear at {clear.peak_context:,}; "
        f"the lead of subagents makes {len(leads['subagents'])} calls and peaks at "
        f"{runs['subagents'].peak_context:,} (a logarithmic axis).",
        x_label="call of the lead agent",
        y_label="tokens in the context (log scale)",
        log_y=True,
    )

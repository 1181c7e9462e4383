"""What it would have cost: the shipped real sessions replayed at each threshold, per model.

Shared by the two break-even figures (`whatif_compaction`, `whatif_clearing`):
the replays run once per process, however many layouts and figures draw them.
The sessions are the real folder of *Read your own bill* (three Claude Code
sessions and their sub-agents, 199 calls); each model's line is the replayed
cost at a threshold over the replayed cost with no clearing or compaction, on
that model's cache rules and prices (each call priced at its time).
"""

from __future__ import annotations

import functools
from pathlib import Path

from context_budget import Policy, read_bill, replay
from context_budget.models import model_for

FOLDER = Path(__file__).resolve().parent.parent / "measured" / "sessions" / "sample-project"
#: (label, model): one model of each provider's cache, as the table of models has it:
#: Anthropic's breakpoints, OpenAI's automatic prefix cache before GPT-5.6 and its paid
#: 30-minute writes from it, Gemini's implicit caching, DeepSeek's prefix units.
MODELS = (
    ("Anthropic Sonnet 4", "claude-sonnet-4"),
    ("OpenAI GPT-5.5", "gpt-5.5"),
    ("OpenAI GPT-5.6 Sol", "gpt-5.6-sol"),
    ("Gemini 3.1 Pro", "gemini-3.1-pro-preview"),
    ("DeepSeek V4 Flash", "deepseek-v4-flash"),
)
#: The thresholds swept, in tokens: the folder's requests reach 42,726 at most.
THRESHOLDS = tuple(range(12_000, 44_000, 4_000))


def label(name: str, model: str) -> str:
    """The series label: the model and its read multiple (its latest rates)."""
    row = model_for(model)
    assert row is not None  # every model of MODELS has a row
    price = row.prices[-1]
    return f"{name} (reads {price.read / price.input:.2g}x)"


@functools.cache
def sweep(kind: str) -> dict[str, list[tuple[int, float, int]]]:
    """Model -> [(threshold, cost over the cost without, times it fired)] for `kind`.

    `kind` is `"compact_at"` or `"clear_at"`.
    """
    bill = read_bill(FOLDER)
    found: dict[str, list[tuple[int, float, int]]] = {}
    for _, model in MODELS:
        base = replay(bill, Policy(model=model)).cost
        points = []
        for threshold in THRESHOLDS:
            done = replay(bill, Policy(model=model, **{kind: threshold}))
            fired = done.compactions if kind == "compact_at" else done.clearings
            points.append((threshold, done.cost / base, fired))
        found[model] = points
    return found

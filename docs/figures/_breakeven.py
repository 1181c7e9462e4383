"""What it would have cost: the shipped real sessions replayed at each threshold, per model.

Shared by the two break-even figures (`whatif_compaction`, `whatif_clearing`):
the replays run once per process, however many layouts and figures draw them.
The sessions are the real folder of *Read your own bill* (three Claude Code
sessions and their sub-agents, 199 calls); each model's line is the replayed
cost at a threshold over the replayed cost with no clearing or compaction, on
that model's cache rules, in the cache mode the line names, and its prices
(each call priced at its time, a Gemini explicit cache's storage by the hour).
"""

from __future__ import annotations

import functools
from pathlib import Path

from context_budget import Policy, read_bill, replay
from context_budget.models import model_for

FOLDER = Path(__file__).resolve().parent.parent / "measured" / "sessions" / "sample-project"
#: (label, model, cache mode): one model of each provider's cache, as the table of
#: models has it, in the mode named (None: the model's default): Anthropic's
#: breakpoints, OpenAI's automatic prefix cache before GPT-5.6 and its paid 30-minute
#: writes from it, Gemini's explicit cache (its storage paid by the hour), DeepSeek's
#: disk cache of prefix units.
MODELS: tuple[tuple[str, str, str | None], ...] = (
    ("Anthropic Sonnet 4", "claude-sonnet-4", None),
    ("OpenAI GPT-5.5", "gpt-5.5", None),
    ("OpenAI GPT-5.6 Sol", "gpt-5.6-sol", None),
    ("Gemini 3.1 Pro", "gemini-3.1-pro-preview", "explicit"),
    ("DeepSeek V4 Flash", "deepseek-v4-flash", None),
)
#: The thresholds swept, in tokens: the folder's requests reach 42,726 at most.
THRESHOLDS = tuple(range(12_000, 44_000, 4_000))


def mode_of(model: str, cache: str | None) -> str:
    """The name of the cache mode a line runs in: `cache`, else the model's default's."""
    row = model_for(model)
    assert row is not None  # every model of MODELS has a row
    if cache is not None:
        return cache
    return next(name for name, rules in row.caches.items() if rules == row.cache)


def label(name: str, model: str, cache: str | None) -> str:
    """The series label: the model, its cache mode and its read multiple (latest rates)."""
    row = model_for(model)
    assert row is not None
    price = row.prices[-1]
    return f"{name}, {mode_of(model, cache)} (reads {price.read / price.input:.2g}x)"


@functools.cache
def sweep(kind: str) -> dict[tuple[str, str | None], list[tuple[int, float, int]]]:
    """(model, cache mode) -> [(threshold, cost over the cost without, times it fired)].

    `kind` is `"compact_at"` or `"clear_at"`.
    """
    bill = read_bill(FOLDER)
    found: dict[tuple[str, str | None], list[tuple[int, float, int]]] = {}
    for _, model, cache in MODELS:
        base = replay(bill, Policy(model=model, cache=cache)).cost
        points = []
        for threshold in THRESHOLDS:
            done = replay(bill, Policy(model=model, cache=cache, **{kind: threshold}))
            fired = done.compactions if kind == "compact_at" else done.clearings
            points.append((threshold, done.cost / base, fired))
        found[model, cache] = points
    return found

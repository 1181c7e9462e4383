"""What it would have cost: the shipped real sessions replayed at each threshold, per model.

Shared by the two break-even figures (`whatif_compaction`, `whatif_clearing`):
the replays run once per process, however many layouts and figures draw them.
The sessions are the real folder of *Read your own bill* (three Claude Code
sessions and their sub-agents, 199 calls); each model's line is the replayed
cost at a threshold over the replayed cost with no clearing or compaction.
"""

from __future__ import annotations

import functools
from pathlib import Path

from context_budget import Policy, read_bill, replay
from context_budget.pricing import price_for

FOLDER = Path(__file__).resolve().parent.parent / "measured" / "sessions" / "sample-project"
#: (label, model): models whose cache reads cost 0.1, 0.05 and 0.025 times their input.
MODELS = (
    ("Sonnet 4", "claude-sonnet-4"),
    ("Opus 5.5", "claude-opus-5-5"),
    ("Fable 5.1", "claude-fable-5-1"),
)
#: The thresholds swept, in tokens: the folder's requests reach 42,726 at most.
THRESHOLDS = tuple(range(12_000, 44_000, 4_000))


def label(name: str, model: str) -> str:
    """The series label: the model and its read multiple."""
    price = price_for(model)
    assert price is not None  # every model of MODELS has a price
    return f"{name} (reads {price.read / price.input:g}x)"


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

"""The survival table on any scenario: plans, measured budgets, the grid, bad input."""

from __future__ import annotations

import pytest

from context_budget.compaction import compact
from context_budget.layers import Layers
from context_budget.messages import Message, tool_message
from context_budget.scenarios.lucy import LUCY, PLANS, QUESTIONS
from context_budget.summarizers import forget_everything, keep_numbers
from context_budget.survival import (
    Plan,
    Scenario,
    format_survival,
    size_after_clearing,
    survival_grid,
    survival_table,
    whole_size,
)


def _shop() -> list[Message]:
    return [
        {"role": "user", "content": "The till code is kestrel."},
        tool_message("stock", {"rows": [f"tub {i}: 12 kg" for i in range(30)]}),
        {"role": "assistant", "content": "Counted."},
        tool_message("stock", {"rows": [f"cone {i}: 40" for i in range(30)]}),
        tool_message("stock", {"rows": ["sprinkles: 3 jars"]}),
        {"role": "user", "content": "Where is the ladder?"},
    ]


SHOP = Scenario(
    system="You help in a shop.",
    pinned=["The till code is kestrel."],
    conversation=_shop,
    questions=[
        ("the till code", "kestrel", "a rule"),
        ("tub 3 weighs 12 kg", "tub 3: 12 kg", "a tool result"),
        ("the question", "ladder", "the last turn"),
    ],
)


def test_a_measured_budget_is_computed_from_the_scenario() -> None:
    assert Plan("all", whole_size).tokens(SHOP) == whole_size(SHOP)
    assert size_after_clearing(SHOP) < whole_size(SHOP)
    assert Plan("fixed", 123).tokens(SHOP) == 123


def test_each_plan_keeps_what_its_budget_allows() -> None:
    plans = [
        Plan("all", whole_size),
        Plan("cleared", size_after_clearing),
        Plan("tight", 50),
        Plan("tight+pinned", 50, pinned=True),
    ]
    table = survival_table(SHOP, plans, compact, forget_everything)
    assert list(table) == ["all", "cleared", "tight", "tight+pinned"]
    assert table["all"]["kept"] == ["the till code", "tub 3 weighs 12 kg", "the question"]
    assert table["cleared"]["kept"] == ["the till code", "the question"]
    assert table["tight"]["kept"] == ["the question"]
    assert table["tight+pinned"]["kept"] == ["the till code", "the question"]
    for row in table.values():
        assert row["tokens"] <= row["budget"]


def test_the_grid_has_one_flag_per_fact_and_plan() -> None:
    table = survival_table(LUCY, PLANS)
    grid = survival_grid(table, LUCY)
    assert [fact for fact, _, _ in grid] == [fact for fact, _, _ in QUESTIONS]
    assert all(len(flags) == len(PLANS) for _, _, flags in grid)
    counts = [sum(flags[i] for _, _, flags in grid) for i in range(len(PLANS))]
    assert counts == [len(row["kept"]) for row in table.values()] == [11, 9, 5, 9]


def test_the_compactor_and_the_summarizer_are_the_callers() -> None:
    kept_numbers = survival_table(LUCY, PLANS, compact, keep_numbers)
    forgot = survival_table(LUCY, PLANS, compact, forget_everything)
    assert len(forgot["400"]["kept"]) < len(kept_numbers["400"]["kept"])

    def untouched(layers: Layers, budget: int, summarize: object) -> Layers:
        return layers

    whole = survival_table(LUCY, PLANS, untouched)
    assert all(len(row["kept"]) == len(QUESTIONS) for row in whole.values())


def test_runs_never_share_a_conversation() -> None:
    def editing(layers: Layers, budget: int, summarize: object) -> Layers:
        layers.conversation.clear()  # a careless candidate
        return layers

    survival_table(SHOP, [Plan("a", 10), Plan("b", 10)], editing)
    assert len(SHOP.conversation()) == 6


def test_repeated_labels_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"repeated: \['x'\]"):
        survival_table(SHOP, [Plan("x", 10), Plan("y", 10), Plan("x", 20)])


def test_format_survival_counts_the_scenarios_own_questions() -> None:
    table = survival_table(SHOP, [Plan("tight", 50)], compact, forget_everything)
    used = table["tight"]["tokens"]
    assert format_survival(table, SHOP).splitlines() == [
        f"tight       budget 50 tokens, used {used}: 1 of 3 facts visible",
        "    LOST  the till code  (a rule)",
        "    LOST  tub 3 weighs 12 kg  (a tool result)",
        "    kept  the question  (the last turn)",
    ]

"""Lucy's day (Unit A): its shape, its needles, and what survives each budget."""

from __future__ import annotations

import re
from typing import Any

import pytest

from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import SUMMARY_PREFIX, compact
from context_budget.history import validate_history
from context_budget.layers import Layers, budget_report
from context_budget.messages import Message, message_text, tool_message
from context_budget.scenarios.lucy import FLAVORS, LUCY, PINNED, PLANS, QUESTIONS, SYSTEM, lucy_day
from context_budget.summarizers import keep_numbers
from context_budget.survival import format_survival, survival_table, survives
from context_budget.tokens import message_tokens

FACTS = [fact for fact, _, _ in QUESTIONS]
NEEDLE = {fact: needle for fact, needle, _ in QUESTIONS}
WHERE = {fact: where for fact, _, where in QUESTIONS}
RULES = [fact for fact in FACTS if WHERE[fact] == "a rule Lucy stated"]
TOOL_ONLY = [fact for fact in FACTS if WHERE[fact] == "only in a tool result"]
CLOSING_TIMES = ["closing time was 6 pm", "closing time is now 7 pm"]
CHOCOLATE = [
    "chocolate was approved from Cacao Hill, PO 5512",
    "chocolate is now approved from Brookside Cocoa, PO 6120",
]
MANGO = "mango is never ordered from Frostline"
A_4817 = "delivery A-4817 was 20 tubs"
SIGN_UP = "the sign-up sheet goes on the corkboard by the door"


def whole_day_tokens() -> int:
    return budget_report(Layers(SYSTEM, [], lucy_day()))["total"]


def after_clearing_tokens() -> int:
    return budget_report(Layers(SYSTEM, [], clear_old_tool_results(lucy_day(), 2)))["total"]


def kept(layers: Layers) -> list[str]:
    return [fact for fact, needle, _ in QUESTIONS if survives(layers, needle)]


def compacted(budget: int, *, pinned: bool = False) -> Layers:
    layers = Layers(SYSTEM, list(PINNED) if pinned else [], lucy_day())
    return compact(layers, budget, keep_numbers)


# --- the day itself -------------------------------------------------------------


def test_lucy_day_is_deterministic_and_new_on_every_call() -> None:
    first, second = lucy_day(), lucy_day()
    assert first == second
    assert first is not second
    assert all(a is not b for a, b in zip(first, second, strict=True))
    first[0]["content"] = "changed"
    assert lucy_day() == second


def test_lucy_day_is_a_valid_history_of_user_assistant_and_tool_messages() -> None:
    day = lucy_day()
    assert validate_history(day) == []
    assert {message["role"] for message in day} == {"user", "assistant", "tool"}
    assert day[0]["role"] == "user"


def test_the_day_is_a_few_thousand_tokens() -> None:
    assert 2_000 <= whole_day_tokens() <= 4_000


def test_tool_results_hold_most_of_the_days_tokens() -> None:
    day = lucy_day()
    tool = sum(message_tokens(m) for m in day if m["role"] == "tool")
    assert tool / whole_day_tokens() > 0.7


def test_the_largest_message_is_a_tool_result() -> None:
    biggest = max(lucy_day(), key=message_tokens)
    assert biggest["role"] == "tool"


def test_flavors_are_ten_distinct_names() -> None:
    assert len(FLAVORS) == len(set(FLAVORS)) == 10


def test_the_seed_facts_are_asked_with_their_exact_wording() -> None:
    assert MANGO in FACTS
    assert A_4817 in FACTS
    assert set(RULES) >= {MANGO}
    assert {WHERE[A_4817]} == {"only in a tool result"}
    assert any("strawberry" in fact for fact in TOOL_ONLY)
    assert WHERE[SIGN_UP] == "the last minute of the day"


def test_every_needle_is_in_the_day() -> None:
    day = Layers("", [], lucy_day())
    assert [fact for fact in FACTS if not survives(day, NEEDLE[fact])] == []


def test_tool_only_needles_appear_only_in_tool_results() -> None:
    for fact in TOOL_ONLY:
        holders = [m["role"] for m in lucy_day() if NEEDLE[fact].lower() in m["content"].lower()]
        assert holders == ["tool"], fact


def test_the_system_prompt_holds_no_needle() -> None:
    assert [fact for fact in FACTS if survives(Layers(SYSTEM, [], []), NEEDLE[fact])] == []


def test_rules_hold_no_digit_anywhere_they_are_stated() -> None:
    # a summary that keeps digit lines must have no way to keep a rule
    lines = [line for m in lucy_day() for line in message_text(m).splitlines()]
    for fact in RULES:
        holders = [line for line in lines if NEEDLE[fact].lower() in line.lower()]
        assert holders, fact
        assert not any(re.search(r"\d", line) for line in holders), fact
    assert not any(re.search(r"\d", record) for record in PINNED)


def test_each_closing_time_and_approval_sits_on_a_digit_line_of_a_user_turn() -> None:
    lines = [line for m in lucy_day() if m["role"] == "user" for line in m["content"].splitlines()]
    for fact in CLOSING_TIMES + CHOCOLATE:
        holders = [line for line in lines if NEEDLE[fact] in line]
        assert len(holders) == 1, fact
        assert re.search(r"\d", holders[0]), fact


def test_the_sign_up_sheet_is_in_the_last_user_turn_only() -> None:
    day = lucy_day()
    users = [m for m in day if m["role"] == "user"]
    needle = NEEDLE[SIGN_UP]
    assert needle in users[-1]["content"]
    assert not any(needle in m["content"] for m in users[:-1])


def test_every_rule_is_a_pinned_record() -> None:
    pinned = Layers("", list(PINNED), [])
    assert [fact for fact in RULES if not survives(pinned, NEEDLE[fact])] == []


# --- what survives each budget (the outcomes Unit A states) -----------------------


def test_at_the_whole_days_size_nothing_changes_and_every_fact_is_kept() -> None:
    out = compacted(whole_day_tokens())
    assert out.conversation == lucy_day()
    assert kept(out) == FACTS


def test_at_the_size_after_clearing_step_one_is_enough() -> None:
    budget = after_clearing_tokens()
    out = compacted(budget)
    assert out.conversation == clear_old_tool_results(lucy_day(), 2)
    assert budget_report(out)["total"] == budget


def test_clearing_keeps_every_rule_and_loses_the_tool_only_facts() -> None:
    survived = kept(compacted(after_clearing_tokens()))
    assert set(RULES) <= set(survived)
    assert [fact for fact in FACTS if fact not in survived] == TOOL_ONLY
    assert A_4817 not in survived


def test_at_400_tokens_the_summary_keeps_only_digit_lines() -> None:
    out = compacted(400)
    assert budget_report(out)["total"] <= 400
    summary = out.conversation[0]["content"]
    assert summary.startswith(SUMMARY_PREFIX)
    assert all(re.search(r"\d", line) for line in summary[len(SUMMARY_PREFIX) :].splitlines())


def test_at_400_tokens_every_rule_is_lost_and_both_changes_are_kept() -> None:
    survived = kept(compacted(400))
    assert [fact for fact in RULES if fact in survived] == []
    assert set(CLOSING_TIMES + CHOCOLATE) <= set(survived)
    assert SIGN_UP in survived
    assert [fact for fact in TOOL_ONLY if fact in survived] == []


def test_at_400_tokens_with_pinned_rules_every_rule_is_kept_and_it_fits() -> None:
    out = compacted(400, pinned=True)  # raises ContextOverflowError if it cannot fit
    assert budget_report(out)["total"] <= 400
    assert out.pinned == PINNED
    survived = kept(out)
    assert set(RULES) <= set(survived)
    assert set(CLOSING_TIMES + CHOCOLATE + [SIGN_UP]) <= set(survived)


def test_the_seeds_four_assertions_hold() -> None:
    table = survival_table(LUCY, PLANS)
    assert len(table["whole day"]["kept"]) == len(QUESTIONS)
    assert A_4817 not in table["clear only"]["kept"]
    assert MANGO in table["clear only"]["kept"]
    assert MANGO not in table["400"]["kept"]
    assert MANGO in table["400+pinned"]["kept"]


def test_survival_table_reports_budgets_and_sizes_in_tokens() -> None:
    table = survival_table(LUCY, PLANS)
    assert list(table) == ["whole day", "clear only", "400", "400+pinned"]
    assert table["whole day"]["budget"] == whole_day_tokens()
    assert table["clear only"]["budget"] == after_clearing_tokens()
    for row in table.values():
        assert row["tokens"] <= row["budget"]
    assert table["400"]["kept"] == kept(compacted(400))


def test_format_survival_marks_each_fact_kept_or_lost() -> None:
    text = format_survival(survival_table(LUCY, PLANS), LUCY)
    lines = text.splitlines()
    assert len(lines) == 4 * (1 + len(QUESTIONS))
    assert lines[0].startswith("whole day ")
    assert f"    LOST  {MANGO}  (a rule Lucy stated)" in lines


# --- survives ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "layers",
    [
        Layers("Pin it on the CORKBOARD.", [], []),
        Layers("", ["pin it on the corkboard"], []),
        Layers("", [], [{"role": "user", "content": "The Corkboard by the door."}]),
        Layers("", [], [tool_message("notes", {"where": "corkboard"})]),
        Layers(
            "",
            [],
            [{"role": "assistant", "content": [{"type": "text", "text": "corkboard"}]}],
        ),
        Layers(
            "",
            [],
            [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": [{"type": "text", "text": "on the corkboard"}],
                        }
                    ],
                }
            ],
        ),
    ],
)
def test_survives_finds_a_needle_in_any_layer_ignoring_case(layers: Layers) -> None:
    assert survives(layers, "Corkboard")


def test_survives_is_false_when_the_needle_is_nowhere() -> None:
    conversation: list[Message] = [{"role": "user", "content": "hello"}]
    assert not survives(Layers("s", ["rule"], conversation), "corkboard")


def test_survives_ignores_block_bookkeeping() -> None:
    block = {"type": "tool_use", "id": "corkboard", "name": "look", "input": {}}
    assert not survives(Layers("", [], [{"role": "assistant", "content": [block]}]), "corkboard")


def test_survives_reads_a_malformed_conversation_without_raising() -> None:
    odd: list[Any] = [{"role": "user"}, None, "loose corkboard text", {"content": 7}]
    assert survives(Layers("", [], odd), "corkboard")
    assert not survives(Layers("", [], odd[:2]), "corkboard")

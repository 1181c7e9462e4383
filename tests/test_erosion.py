"""Erosion: facts worn down by repeated compaction, and the three repairs that stop it."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import keep_numbers
from context_budget.erosion import (
    Strategy,
    format_rounds,
    keep_rules_and_decisions,
    survival_rounds,
    wearing_summary,
)
from context_budget.scenarios.lucy import LUCY, PINNED, QUESTIONS

RULES = [fact for fact, _, where in QUESTIONS if where == "a rule Lucy stated"]
ALL = [fact for fact, _, _ in QUESTIONS]


@pytest.fixture(scope="module")
def table() -> dict[str, list[list[str]]]:
    return survival_rounds(
        LUCY,
        [
            Strategy("lossy", wearing_summary),
            Strategy("pinned", wearing_summary, pinned=True),
            Strategy("notes", wearing_summary, notes=True),
            Strategy("keeps rules", keep_rules_and_decisions),
        ],
        rounds=4,
    )


def test_a_lossy_summary_wears_the_facts_down_round_by_round(table) -> None:  # type: ignore[no-untyped-def]
    counts = [len(kept) for kept in table["lossy"]]
    assert counts == sorted(counts, reverse=True) and counts[-1] < counts[0] < len(ALL)
    assert not set(RULES) & set(table["lossy"][0])  # the rules go in round one


def test_a_fact_once_lost_never_comes_back(table) -> None:  # type: ignore[no-untyped-def]
    for label, rounds in table.items():
        for earlier, later in itertools.pairwise(rounds):
            assert set(later) <= set(earlier), label


def test_pinned_records_keep_the_rules_but_not_the_rest(table) -> None:  # type: ignore[no-untyped-def]
    for kept in table["pinned"]:
        assert set(RULES) <= set(kept)
    assert len(table["pinned"][-1]) < len(ALL)


def test_notes_and_the_rule_keeping_summary_keep_every_fact(table) -> None:  # type: ignore[no-untyped-def]
    assert table["notes"] == table["keeps rules"] == [ALL] * 4


def test_the_table_prints_one_line_per_strategy(table) -> None:  # type: ignore[no-untyped-def]
    lines = format_rounds(table, LUCY).splitlines()
    assert len(lines) == 1 + len(table)
    assert lines[1].split()[1:3] == [str(len(table["lossy"][0])), "of"]


@pytest.mark.parametrize("rounds", [0, 21, True, 2.0])
def test_rounds_out_of_range_are_refused(rounds: object) -> None:
    with pytest.raises(ValueError, match="rounds must be"):
        survival_rounds(LUCY, [Strategy("a", keep_numbers)], rounds)  # type: ignore[arg-type]


def test_repeated_labels_are_refused() -> None:
    with pytest.raises(ValueError, match="repeated"):
        survival_rounds(LUCY, [Strategy("a", keep_numbers), Strategy("a", keep_numbers)])


def test_the_scenario_is_not_changed() -> None:
    before = LUCY.conversation()
    survival_rounds(LUCY, [Strategy("a", wearing_summary, notes=True)], 2)
    assert LUCY.conversation() == before and list(LUCY.pinned) == PINNED


@given(st.lists(st.text(), max_size=6))
def test_the_repaired_summary_is_stable_on_its_own_output(texts: list[str]) -> None:
    messages = [{"role": "user", "content": text} for text in texts]
    once = keep_rules_and_decisions(messages)
    assert keep_rules_and_decisions([{"role": "user", "content": once}]) == once
    assert len(wearing_summary(messages)) <= len(keep_numbers(messages))

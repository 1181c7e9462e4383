"""The deterministic summarizers: keep_numbers and forget_everything."""

from __future__ import annotations

import copy

import pytest
from conversations import LONG, anthropic_day, assistant, call, user

from context_budget import clear_old_tool_results, forget_everything, keep_numbers


def test_keep_numbers_keeps_only_lines_with_a_digit_in_order() -> None:
    day = [
        user("Never order mango from Frostline.\nClosing time is 6 pm."),
        assistant("Noted."),
        user("Make closing 7 pm.\nThe sign-up sheet goes by the door."),
    ]
    assert keep_numbers(day) == "Closing time is 6 pm.\nMake closing 7 pm."


def test_keep_numbers_reads_tool_calls_and_results() -> None:
    summary = keep_numbers([user("q"), call("A-4817")])
    assert summary == 'stock {"flavor":"A-4817"}'
    assert keep_numbers(anthropic_day(1)).splitlines()[:2] == ["q0", 'stock {"flavor":"t0"}']


def test_keep_numbers_skips_clearing_markers() -> None:
    cleared = clear_old_tool_results(LONG, 0)
    assert "cleared" not in keep_numbers(cleared)
    assert keep_numbers(cleared).splitlines() == [f"{kind}{i}" for i in range(8) for kind in "qa"]


def test_keep_numbers_is_deterministic_and_leaves_input_alone() -> None:
    day = anthropic_day(3)
    snapshot = copy.deepcopy(day)
    assert keep_numbers(day) == keep_numbers(day)
    assert day == snapshot


def test_keep_numbers_of_nothing_is_empty() -> None:
    assert keep_numbers([]) == ""
    assert keep_numbers([user("no digits here")]) == ""


def test_forget_everything_keeps_nothing() -> None:
    assert forget_everything(LONG) == ""
    assert forget_everything([]) == ""


def test_a_summary_names_an_embedded_file_instead_of_keeping_its_data() -> None:
    """A screenshot's JSON holds a digit ("base64"), so its whole line, 400,000 characters
    of data, was a fact every digit-keeping summary kept: the summary meant to make room
    carried the screenshot on. The file is named, with its size, as in the transcript a
    compaction sends."""
    from context_budget.summarizers import keep_rules_and_decisions, wearing_summary

    shot = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "QUJD" * 100_000},
    }
    result = {"type": "tool_result", "tool_use_id": "t1", "content": [shot]}
    history = [
        user("Check the 3 charts."),
        call("t1"),
        {"role": "user", "content": [result]},
    ]
    for summarize in (keep_numbers, keep_rules_and_decisions, wearing_summary):
        summary = summarize(history)
        assert len(summary) < 1_000, summarize.__name__
        assert "Check the 3 charts." in summary
    assert "image/png image: 400,000 characters of base64 data left out" in keep_numbers(history)


@pytest.mark.parametrize("given", [None, 5, "We close at 6 pm."])
def test_every_summarizer_names_what_is_no_list_of_messages(given: object) -> None:
    # wearing_summary(None) failed inside list() ("'NoneType' object is not iterable") and
    # read a string as a list of one-letter messages, where the other summarizers name it
    from context_budget.summarizers import keep_rules_and_decisions, wearing_summary

    for summarize in (keep_numbers, keep_rules_and_decisions, wearing_summary):
        with pytest.raises(
            TypeError, match=f"messages must be a list of dicts, got {type(given).__name__}"
        ):
            summarize(given)  # type: ignore[arg-type]

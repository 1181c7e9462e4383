"""validate_history: every broken tool-call pair, with the message that holds it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conversations import LONG, anthropic_day, assistant, call, result_block, results, user

from context_budget import Message, NotesFile, PrefixGuard, run_agent, validate_history
from context_budget.fakes import ScriptedClient, scripted_response
from context_budget.history import HistoryProblem


def test_a_valid_history_has_no_problem() -> None:
    assert validate_history(anthropic_day(5)) == []
    assert validate_history([]) == []


def test_shorthand_tool_messages_are_not_paired() -> None:
    assert validate_history(LONG) == []


def test_a_leading_orphan_result_is_found() -> None:
    # what a trim that drops the oldest messages leaves behind (langchain #33245)
    day = anthropic_day(3)[2:]
    assert validate_history(day) == [HistoryProblem(0, "t0", "orphan result")]


def test_a_result_that_does_not_match_the_preceding_call_is_found() -> None:
    day = [user("q"), call("t1"), results("t2"), assistant("a")]
    assert validate_history(day) == [
        HistoryProblem(1, "t1", "unanswered call"),
        HistoryProblem(2, "t2", "orphan result"),
    ]


def test_an_unanswered_call_is_found() -> None:
    day = [user("q"), call("t1", "t2"), results("t1"), assistant("a")]
    assert validate_history(day) == [HistoryProblem(1, "t2", "unanswered call")]


def test_a_call_followed_by_an_assistant_message_is_unanswered() -> None:
    day = [user("q"), call("t1"), assistant("done")]
    assert validate_history(day) == [HistoryProblem(1, "t1", "unanswered call")]


def test_a_trailing_pending_call_is_not_a_problem() -> None:
    assert validate_history([user("q"), call("t1")]) == []


def test_a_result_far_from_its_call_is_misplaced() -> None:
    day = [user("q"), call("t1"), user("and?"), assistant("thinking it over"), results("t1")]
    assert validate_history(day) == [
        HistoryProblem(1, "t1", "unanswered call"),
        HistoryProblem(4, "t1", "misplaced result"),
    ]


def test_consecutive_assistant_messages_are_one_turn_as_the_api_merges_them() -> None:
    # break 4: text after the call in a second assistant message is the same turn
    day = [user("q"), call("t1"), assistant("thinking it over"), results("t1")]
    assert validate_history(day) == []


def test_a_result_after_text_is_misplaced_but_answers_its_call() -> None:
    late = {"role": "user", "content": [{"type": "text", "text": "here"}, result_block("t1")]}
    assert validate_history([user("q"), call("t1"), late]) == [
        HistoryProblem(2, "t1", "misplaced result")
    ]


def test_a_result_in_an_assistant_message_is_misplaced() -> None:
    wrong = {"role": "assistant", "content": [result_block("t1")]}
    assert validate_history([user("q"), call("t1"), wrong]) == [
        HistoryProblem(1, "t1", "unanswered call"),
        HistoryProblem(2, "t1", "misplaced result"),
    ]


def test_a_call_answered_twice_is_misplaced_the_second_time() -> None:
    twice = {"role": "user", "content": [result_block("t1"), result_block("t1")]}
    assert validate_history([user("q"), call("t1"), twice]) == [
        HistoryProblem(2, "t1", "misplaced result")
    ]


def test_problems_come_in_message_order_and_print_readably() -> None:
    day = [results("t0"), call("t1"), user("no results"), call("t2"), results("t3")]
    problems = validate_history(day)
    assert [p.index for p in problems] == sorted(p.index for p in problems)
    assert [str(p) for p in problems] == [
        "message 0: orphan result t0",
        "message 1: unanswered call t1",
        "message 3: unanswered call t2",
        "message 4: orphan result t3",
    ]


def test_a_reused_call_id_is_reported_where_it_is_reused() -> None:
    def calls(*ids: str) -> dict:
        blocks = [{"type": "tool_use", "id": i, "name": "stock", "input": {}} for i in ids]
        return {"role": "assistant", "content": blocks}

    def answers(*ids: str) -> dict:
        blocks = [{"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids]
        return {"role": "user", "content": blocks}

    history = [
        {"role": "user", "content": "q"},
        calls("t1", "t1"),
        answers("t1"),
        calls("t2"),
        answers("t2"),
        calls("t2"),
        answers("t2"),
    ]
    found = [(p.index, p.tool_use_id, p.problem) for p in validate_history(history)]
    assert found == [(1, "t1", "duplicate call id"), (5, "t2", "duplicate call id")]


def test_a_parallel_call_split_across_messages_is_judged_as_one_turn() -> None:
    # break 4: how Claude Code writes a parallel call, and what the API merges
    day = [user("q"), call("t1"), call("t2"), results("t1"), results("t2"), assistant("a")]
    assert validate_history(day) == []


def test_a_split_parallel_call_with_one_answer_missing_names_the_call() -> None:
    day = [user("q"), call("t1"), call("t2"), results("t1"), assistant("a")]
    assert validate_history(day) == [HistoryProblem(2, "t2", "unanswered call")]


def test_a_split_answer_with_text_between_results_is_misplaced() -> None:
    day = [user("q"), call("t1", "t2"), results("t1", text="and"), results("t2")]
    assert validate_history(day) == [HistoryProblem(3, "t2", "misplaced result")]


def test_a_tool_use_outside_an_assistant_message_is_reported() -> None:
    # break 4: a call in a user message used to pass unseen
    stray = {"role": "user", "content": call("t1")["content"]}
    assert validate_history([stray, assistant("a")]) == [HistoryProblem(0, "t1", "misplaced call")]


def test_a_trailing_call_after_which_the_turn_moved_on_is_unanswered() -> None:
    assert validate_history([user("q"), call("t1"), call("t2")]) == []
    assert validate_history([user("q"), call("t1"), assistant("done")]) == [
        HistoryProblem(1, "t1", "unanswered call")
    ]


def test_thousands_of_parallel_calls_answered_in_one_message_are_valid() -> None:
    # break 3 was quadratic here (30 s at 32,000 calls); the time is measured
    # outside the tests, this only checks the answer on the same shape
    ids = [f"t{n}" for n in range(32_000)]
    day = [user("q"), call(*ids), results(*ids[:-1]), assistant("a")]
    assert validate_history(day) == [HistoryProblem(1, ids[-1], "unanswered call")]


# ---------------------------------------------------------------- every result type the SDK lists


def _reference(tool_id: str) -> dict[str, Any]:
    content = [{"type": "tool_reference", "tool_name": "mcp__ci__run_tests"}]
    return {"role": "user", "content": [result_block(tool_id, content)]}


def test_a_tool_reference_result_pairs_and_passes_the_strict_guard() -> None:
    # a bug: a tool_reference block in a result was refused by every check of a history
    day = [user("q"), call("t1"), _reference("t1"), assistant("found it")]
    assert validate_history(day) == []
    guard = PrefixGuard(strict=True)
    assert guard.check(day[:3]).kind == "first"
    assert guard.check(day).kind == "append"


def test_strict_run_agent_accepts_a_history_holding_a_tool_reference(tmp_path: Path) -> None:
    def as_reference(messages: list[Message]) -> list[Message]:
        # what a tool search leaves in the history: its result names a tool
        return [
            _reference(message["content"][0]["tool_use_id"])
            if message["role"] == "user"
            and isinstance(message["content"], list)
            and message["content"][0].get("content") == "ref"
            else message
            for message in messages
        ]

    call_block = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}}
    run = run_agent(
        "find the test runner",
        [{"name": "search", "description": "search tools", "input_schema": {"type": "object"}}],
        {"search": lambda _: "ref"},
        client=ScriptedClient(
            [
                scripted_response(call_block, input_tokens=10, output_tokens=1),
                scripted_response("found it", input_tokens=10, output_tokens=1),
            ]
        ),
        model="m",
        context_window=10_000,
        compact_ratio=0.9,
        notes=NotesFile(tmp_path / "NOTES.md"),
        edit_history=as_reference,
        strict=True,
    )
    assert run.stop_reason == "end_turn"

"""The simulated model: the response's shape, statelessness, and whole runs of the task."""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from incident_driver import (
    PLACEHOLDER,
    SUMMARY_QUESTION,
    blank,
    keep_last,
    restart_message,
    results,
    run,
)
from profiles import cases

from context_budget import estimate_tokens
from context_budget.fakes import SimulatedModel, simulated
from context_budget.scenarios.incidents import FILES, TASK, TOOLS, TOOLS_NO_NOTES, is_correct


def first_request(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "tools": TOOLS, "messages": [{"role": "user", "content": TASK}], **extra}


def text_of(response: dict[str, Any]) -> str:
    return "".join(block["text"] for block in response["content"] if block["type"] == "text")


# --- one response -------------------------------------------------------------------


def test_the_response_has_the_api_shape() -> None:
    response = SimulatedModel().respond(first_request())
    assert set(response) == {
        "id",
        "type",
        "role",
        "model",
        "content",
        "stop_reason",
        "stop_sequence",
        "usage",
    }
    assert (response["type"], response["role"], response["model"]) == ("message", "assistant", "m")
    assert response["stop_reason"] == "tool_use" and response["stop_sequence"] is None
    assert set(response["usage"]) == {"input_tokens", "output_tokens"}
    use = response["content"][-1]
    assert use["type"] == "tool_use" and use["name"] == "list_files" and use["input"] == {}


def test_output_tokens_are_the_estimate_of_what_it_wrote() -> None:
    run_ = run()
    for response in run_.responses:
        expected = estimate_tokens(text_of(response)) + sum(
            estimate_tokens(json.dumps({"name": b["name"], "input": b["input"]}))
            for b in response["content"]
            if b["type"] == "tool_use"
        )
        assert response["usage"]["output_tokens"] == expected


def test_the_same_request_gets_the_same_response() -> None:
    request = run().requests[5]
    assert SimulatedModel().respond(request) == SimulatedModel().respond(copy.deepcopy(request))


def test_responding_never_changes_the_request() -> None:
    for request in run(view=keep_last(2), compact_every=5).requests:
        before = copy.deepcopy(request)
        SimulatedModel().respond(request)
        assert request == before


def test_tool_ids_are_unique_across_a_run() -> None:
    ids = [
        block["id"]
        for response in run(compact_every=3).responses
        for block in response["content"]
        if block["type"] == "tool_use"
    ]
    assert len(ids) == len(set(ids)) > 24


def test_the_model_name_falls_back_to_its_own() -> None:
    request = first_request()
    del request["model"]
    assert SimulatedModel(model="sim-x").respond(request)["model"] == "sim-x"


def test_a_small_max_tokens_stops_the_response() -> None:
    response = SimulatedModel().respond(first_request(max_tokens=3))
    assert response["stop_reason"] == "max_tokens"
    assert response["usage"]["output_tokens"] == 3
    assert all(block["type"] == "text" for block in response["content"])


def test_with_tools_off_it_answers_instead_of_calling_them() -> None:
    response = SimulatedModel().respond(first_request(tool_choice={"type": "none"}))
    assert response["stop_reason"] == "end_turn"
    assert "could not see any incident report" in text_of(response)


# --- whole runs ---------------------------------------------------------------------


def test_the_naive_run_reads_each_report_once_and_answers_right() -> None:
    result = run()
    assert result.stop_reason == "end_turn" and is_correct(result.answer)
    assert result.answer.startswith("auth had the most downtime: 760 minutes")
    assert result.reads() == list(FILES)
    assert (
        len(result.notes) == 24
        and result.notes[6] == "INC-1007: payments, 230 min, third-party outage"
    )
    assert result.responses[0]["content"][-1]["name"] == "list_files"
    assert all(
        len(r) <= 2
        for r in (
            [b for b in x["content"] if b.get("name") == "read_file"] for x in result.responses
        )
    )


@pytest.mark.parametrize(
    "settings_",
    [{}, {"view": keep_last(2)}, {"compact_every": 4}, {"with_notes": False}],
    ids=["naive", "clear", "compact", "no-notes"],
)
def test_a_fresh_model_for_every_call_gives_the_same_run(settings_: dict[str, Any]) -> None:
    def new_model(step: int) -> SimulatedModel:
        simulated._parse_text.cache_clear()  # not even the parsing cache carries over
        return SimulatedModel()

    kept = run(SimulatedModel(), **settings_)
    fresh = run(new_model, fresh=True, **settings_)
    assert fresh.requests == kept.requests and fresh.responses == kept.responses
    assert fresh.answer == kept.answer and is_correct(kept.answer)


def test_after_clearing_it_reads_again_and_still_answers_right() -> None:
    # three reads a step against two results kept: one per step is cleared unseen
    result = run(SimulatedModel(reads_per_step=3), view=keep_last(2))
    assert is_correct(result.answer)
    again = [name for name in FILES if result.reads().count(name) > 1]
    assert again and all(result.reads().count(name) == 2 for name in again)
    assert "again, because their results were cleared" in result.answer
    assert sorted(note.split(":")[0] for note in result.notes) == [f[:-3] for f in FILES]


@pytest.mark.parametrize("placeholder", [PLACEHOLDER, "[cleared]", "", "🗑️ gone"])
def test_any_placeholder_counts_as_cleared(placeholder: str) -> None:
    result = run(SimulatedModel(reads_per_step=3), view=keep_last(2, placeholder=placeholder))
    assert is_correct(result.answer) and len(result.reads()) > 24


def test_clearing_that_keeps_up_with_the_notes_costs_no_rereads() -> None:
    result = run(view=keep_last(2))
    assert result.reads() == list(FILES) and is_correct(result.answer)
    assert "again" not in result.answer


def test_a_compaction_request_gets_a_summary_and_the_restart_finishes() -> None:
    result = run(compact_every=4)
    assert len(result.summaries) >= 3 and is_correct(result.answer)
    first = result.summaries[0]
    assert first.startswith("Progress: 4 of 24 reports done.")
    assert "INC-1005: notifications, 75 min, queue backlog" in first  # read, not yet noted
    assert "Still to read: INC-1007.md" in first
    summary_calls = [r for r in result.requests if r.get("tool_choice") == {"type": "none"}]
    assert all(r["messages"][-1]["content"] == SUMMARY_QUESTION for r in summary_calls)
    # facts carried only by a summary are noted with a mark, and the answer says so
    assert "INC-1005: notifications, 75 min, queue backlog (from memory" in "\n".join(result.notes)
    assert "after their reports had left my context" in result.answer
    assert "read those reports again before trusting the result" in result.answer


def test_a_summary_keeps_within_its_word_limit() -> None:
    result = run(with_notes=False, compact_every=11)
    assert result.summaries and all(len(s.split()) < 150 for s in result.summaries)
    assert "Facts so far:" in result.summaries[0]


@pytest.mark.parametrize(
    "ask",
    [
        "In under 80 words, summarize progress. Do not call any tools.",
        "Summarise where you are, without using tools.",
        "SUMMARY please; no tool calls this time.",
    ],
)
def test_a_summary_asked_for_in_words_is_written_with_the_tools_still_offered(ask: str) -> None:
    first = {"role": "user", "content": "Which service was down longest?"}
    listing = SimulatedModel().respond({"tools": TOOLS, "messages": [first]})
    results = [
        {"type": "tool_result", "tool_use_id": b["id"], "content": "\n".join(FILES)}
        for b in listing["content"]
        if b["type"] == "tool_use"
    ]
    history = [first, {"role": "assistant", "content": listing["content"]}]
    history.append({"role": "user", "content": [*results, {"type": "text", "text": ask}]})
    reply = SimulatedModel().respond({"tools": TOOLS, "messages": history})
    assert reply["stop_reason"] == "end_turn"
    assert reply["content"][0]["text"].startswith("Progress: 0 of 24 reports done.")
    # the same question without the words keeps the tools in use
    history[-1] = {"role": "user", "content": [*results, {"type": "text", "text": "Summarize."}]}
    assert SimulatedModel().respond({"tools": TOOLS, "messages": history})["stop_reason"] == (
        "tool_use"
    )


def test_a_restart_by_hand_continues_to_the_right_answer() -> None:
    notes = [f"INC-{1001 + i}: x{i}, 1 min, y" for i in range(20)]
    summary = (
        "Progress: 20 of 24 reports done.\n"
        "Still to read: INC-1021.md, INC-1022.md, INC-1023.md, INC-1024.md"
    )
    request = {"tools": TOOLS, "messages": [restart_message(summary, notes)]}
    response = SimulatedModel().respond(request)
    reads = [b["input"]["path"] for b in response["content"] if b["type"] == "tool_use"]
    assert reads == ["INC-1021.md", "INC-1022.md"]


def test_without_notes_clearing_forces_rereads_and_a_flagged_answer() -> None:
    result = run(with_notes=False, view=keep_last(2))
    assert result.tool_calls("save_note") == [] and result.notes == []
    assert len(result.reads()) > 24
    assert "missing from these totals and the answer may be wrong" in result.answer


def test_without_notes_and_without_clearing_it_answers_from_the_reports() -> None:
    result = run(with_notes=False)
    assert result.reads() == list(FILES) and is_correct(result.answer)
    assert all(tool["name"] != "save_note" for tool in TOOLS_NO_NOTES)


def test_a_failed_save_is_not_counted_as_a_note() -> None:
    use = {
        "type": "tool_use",
        "id": "s1",
        "name": "save_note",
        "input": {"note": "INC-1001: a, 5 min, b"},
    }
    failed = {"type": "tool_result", "tool_use_id": "s1", "content": "disk full", "is_error": True}
    messages = [
        {"role": "user", "content": "Saved notes:\n"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [failed]},
    ]
    view_files = {"role": "user", "content": "Still to read: INC-1001.md"}
    response = SimulatedModel().respond({"tools": TOOLS, "messages": [view_files, *messages]})
    assert [b["input"] for b in response["content"] if b["type"] == "tool_use"] == [
        {"path": "INC-1001.md"}
    ]


def test_a_cleared_listing_is_recovered_from_its_own_plan() -> None:
    history = run(max_steps=4).history[:-1]  # three rounds, answered
    listing = [(i, b) for i, b, name in results(history) if name == "list_files"]
    response = SimulatedModel().respond({"tools": TOOLS, "messages": blank(history, listing)})
    assert "list_files" not in [b.get("name") for b in response["content"]]


# --- random clearing ----------------------------------------------------------------


@cases(0.1)
@given(seed=st.integers(0, 2**32 - 1), share=st.floats(0.0, 1.0), reads=st.integers(1, 3))
def test_random_clearing_of_old_results_never_breaks_the_run(
    seed: int, share: float, reads: int
) -> None:
    def view(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # any result older than the newest round may be cleared; the newest never is
        rng = random.Random(f"{seed}:{len(history)}")
        old = [(i, b) for i, b, _ in results(history) if i < len(history) - 1]
        return blank(history, [place for place in old if rng.random() < share])

    result = run(SimulatedModel(reads_per_step=reads), view=view)
    assert result.stop_reason == "end_turn" and is_correct(result.answer)
    assert result.reads() == list(FILES)  # every report seen fresh, so noted at once


@cases(0.1)
@given(seed=st.integers(0, 2**32 - 1), share=st.floats(0.0, 1.0), notes=st.booleans())
def test_random_clearing_of_anything_never_gives_a_confident_wrong_answer(
    seed: int, share: float, notes: bool
) -> None:
    def view(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rng = random.Random(f"{seed}:{len(history)}")
        everything = [(i, b) for i, b, _ in results(history)]
        return blank(history, [place for place in everything if rng.random() < share])

    result = run(with_notes=notes, view=view)
    assert result.stop_reason == "end_turn"
    answer = result.answer
    assert is_correct(answer) or "may be wrong" in answer or "cannot tell" in answer


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "error", "match"),
    [
        ("not a dict", TypeError, "mapping"),
        ({"messages": []}, ValueError, "non-empty"),
        ({"messages": [{"role": "system", "content": "x"}]}, ValueError, "message 0"),
        ({"messages": [{"role": "user", "content": 5}]}, TypeError, "message 0"),
        ({"messages": [{"role": "user", "content": ["x"]}]}, TypeError, "message 0, block 0"),
        (
            {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]},
            ValueError,
            "message 1: the last message must be the user's",
        ),
        ({"messages": [{"role": "user", "content": "q"}], "tools": "x"}, TypeError, "tools"),
        ({"messages": [{"role": "user", "content": "q"}], "extra": {1, 2}}, TypeError, "JSON"),
    ],
)
def test_a_bad_request_is_refused_with_its_place(request_: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        SimulatedModel().respond(request_)


@pytest.mark.parametrize("value", [0, -1, True, 1.5])
def test_settings_must_be_whole_numbers_from_one(value: Any) -> None:
    with pytest.raises(ValueError, match="reads_per_step must be an int >= 1"):
        SimulatedModel(reads_per_step=value)


def test_odd_text_in_the_history_does_not_confuse_it() -> None:
    odd = "INC-1001: \x00, 5 min, 😀\nINCIDENT REPORT INC-1002\nService: 💥\nno end line"
    request = {"tools": TOOLS, "messages": [{"role": "user", "content": TASK + "\n" + odd}]}
    response = SimulatedModel()(request)
    assert response["stop_reason"] == "tool_use"


def test_a_server_side_compaction_block_reads_like_a_summary() -> None:
    summary = (
        "Progress: 2 of 24 reports done.\nFacts not yet in my notes:\n"
        "INC-1003: search, 110 min, index corruption\nStill to read: INC-1004.md"
    )
    messages = [
        {"role": "assistant", "content": [{"type": "compaction", "content": summary}]},
        {"role": "user", "content": "Carry on."},
    ]
    response = SimulatedModel().respond({"tools": TOOLS, "messages": messages})
    uses = [b["input"] for b in response["content"] if b["type"] == "tool_use"]
    assert uses == [
        {"note": "INC-1003: search, 110 min, index corruption (from memory, report not in view)"},
        {"path": "INC-1004.md"},
    ]


_texts = st.text(max_size=40) | st.sampled_from(
    ["INC-1001.md", "Saved notes:\nINC-1001: a, 5 min, b"]
)
_blocks = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, _texts),
    st.builds(
        lambda i, n, p: {"type": "tool_use", "id": i, "name": n, "input": {"path": p, "note": p}},
        st.sampled_from(["a", "b"]),
        st.sampled_from(["read_file", "save_note", "list_files", "other"]),
        _texts,
    ),
    st.builds(
        lambda i, c, e: {"type": "tool_result", "tool_use_id": i, "content": c, "is_error": e},
        st.sampled_from(["a", "b", "c"]),
        _texts | st.lists(st.builds(lambda t: {"type": "text", "text": t}, _texts), max_size=2),
        st.booleans(),
    ),
    st.builds(lambda v: {"type": "image", "source": v}, st.none() | st.integers()),
)
_messages = st.lists(
    st.builds(
        lambda role, content: {"role": role, "content": content},
        st.sampled_from(["user", "assistant"]),
        _texts | st.lists(_blocks, max_size=4),
    ),
    min_size=1,
    max_size=6,
)


@cases(0.5)
@given(messages=_messages, tools_on=st.booleans(), limit=st.none() | st.integers(0, 50))
def test_any_history_gets_a_valid_response_or_a_named_error(
    messages: list[dict[str, Any]], tools_on: bool, limit: int | None
) -> None:
    request: dict[str, Any] = {"messages": messages, "tools": TOOLS if tools_on else []}
    if limit is not None:
        request["max_tokens"] = limit
    try:
        response = SimulatedModel().respond(request)
    except ValueError as error:
        assert "message" in str(error)
        return
    assert response["stop_reason"] in {"tool_use", "end_turn", "max_tokens"}
    assert response["usage"]["output_tokens"] >= 0
    uses = [b for b in response["content"] if b["type"] == "tool_use"]
    assert (response["stop_reason"] == "tool_use") == bool(uses)
    assert not uses or tools_on


def test_behind_the_emulated_server_it_reports_the_output_it_says_it_wrote() -> None:
    """The simulated model passed to `EmulatedClient` as its responder: the server bills
    the prompt from its cache and the output the model reported, one figure for one
    reply (it counted the reply's blocks again, another way: 13 tokens where the model
    said 18)."""
    from context_budget.fakes import EmulatedClient

    model = SimulatedModel()
    request = first_request(model="claude-sonnet-4-6", max_tokens=1_000)
    own = model.respond(request)
    served = EmulatedClient("claude-sonnet-4-6", model).messages.create(**request)
    assert served["content"] == own["content"]
    assert served["usage"]["output_tokens"] == own["usage"]["output_tokens"]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (
            {"messages": [{"role": "user", "content": "Which service? \ud800"}]},
            "the request must be JSON data UTF-8 can encode: a string holds a lone surrogate",
        ),
        ({"tools": {}}, "tools must be a list of tool definitions, got dict"),
        ({"tools": ""}, "tools must be a list of tool definitions, got str"),
    ],
    ids=["lone-surrogate", "tools-empty-dict", "tools-blank"],
)
def test_a_request_no_api_could_take_is_named(extra: dict[str, Any], words: str) -> None:
    """A lone surrogate failed as the codec's own error from inside the model's hash of
    the request; tools of {} were read as none."""
    with pytest.raises(TypeError, match=re.escape(words)):
        SimulatedModel().respond(first_request(**extra))

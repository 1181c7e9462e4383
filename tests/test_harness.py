"""run_agent: the three positions of the loop, tools, stop reasons and the storm guard.

The opening run (`race_fix.opening_script`, window 2,000, ratio 0.7) pins the
three lines of the loop: moving the check before the append, dropping the
wholesale replacement or dropping the reset each makes one test below fail.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from context_budget import (
    CompactionStormError,
    MiddleEditError,
    NotesFile,
    PrefixGuard,
    ScriptExhaustedError,
    Usage,
    append_tool_results,
    clear_old_tool_results,
    compact_history,
    message_text,
    run_agent,
)
from context_budget.errors import MalformedResponseError
from context_budget.fakes import ScriptedClient, scripted_response
from context_budget.harness import (
    COMPACT_INSTRUCTION,
    HANDOFF_PREFIX,
    MAX_PAUSES,
    NOTES_PREFIX,
    AgentRun,
    AppendOnlyCompaction,
    TranscriptCompaction,
)
from context_budget.scenarios import race_fix


def _opening(tmp_path: Path, **options: Any) -> tuple[AgentRun, ScriptedClient, NotesFile]:
    notes = NotesFile(tmp_path / "NOTES.md")
    client = ScriptedClient(race_fix.opening_script())
    run = run_agent(
        race_fix.TASK,
        race_fix.TOOLS,
        race_fix.tool_impls(notes),
        client=client,
        model="claude-sonnet-5",
        context_window=2_000,
        compact_ratio=0.7,
        notes=notes,
        **options,
    )
    return run, client, notes


def _call(number: int, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": tool_input}


def _run(script: list[Any], tmp_path: Path, tool_impls: Any = None, **options: Any) -> AgentRun:
    notes = NotesFile(tmp_path / "NOTES.md")
    settings: dict[str, Any] = {"context_window": 2_000, "compact_ratio": 0.7, **options}
    return run_agent(
        "go",
        race_fix.TOOLS,
        race_fix.tool_impls(notes) if tool_impls is None else tool_impls,
        client=settings.pop("client", ScriptedClient(script)),
        model="m",
        notes=notes,
        **settings,
    )


def test_the_opening_run_counts_400_1050_1850_then_resets(tmp_path: Path) -> None:
    run, _, notes = _opening(tmp_path)
    assert [c.tokens_used for c in run.calls] == [400, 1_050, 1_850, 0, 280, 490]
    assert [c.kind for c in run.calls] == ["turn"] * 3 + ["compaction"] + ["turn"] * 2
    assert run.compactions == (4,)
    assert run.stop_reason == "end_turn"
    assert run.text == race_fix.REPLY
    assert notes.read() == race_fix.FINAL_NOTES


def test_the_check_sits_after_the_append_so_the_summary_sees_the_latest_results(
    tmp_path: Path,
) -> None:
    _, client, _ = _opening(tmp_path)
    compaction = client.requests[3]
    text = message_text(compaction["messages"][0])
    assert text.startswith(COMPACT_INSTRUCTION)
    # call 3 asked for the tests; their result is in what the summary was asked to keep
    assert "41 passed, 1 failed" in text
    assert "tools" not in compaction


def test_no_over_threshold_history_is_sent_once_more(tmp_path: Path) -> None:
    _, client, _ = _opening(tmp_path)
    # call 3 crossed the threshold; the very next request is the summarizing one
    assert message_text(client.requests[3]["messages"][0]).startswith(COMPACT_INSTRUCTION)
    assert all(len(r["messages"]) <= 6 for r in client.requests[:3])


def test_compaction_replaces_the_history_wholesale(tmp_path: Path) -> None:
    _, client, _ = _opening(tmp_path)
    restart = client.requests[4]["messages"]
    assert len(restart) == 1
    assert restart[0]["role"] == "user"
    assert restart[0]["content"].startswith(HANDOFF_PREFIX)
    assert race_fix.SUMMARY in restart[0]["content"]
    # the notes written at call 2 are read back after the summary
    assert restart[0]["content"].endswith(f"{NOTES_PREFIX}\n{race_fix.FIRST_NOTES}")
    assert "41 passed" not in restart[0]["content"]


def test_the_counter_restarts_from_zero_after_compaction(tmp_path: Path) -> None:
    run, _, _ = _opening(tmp_path)
    after = [c.tokens_used for c in run.calls[run.compactions[0] :]]
    assert after == [280, 490]  # 1,850 carried over would read 2,130 and compact again


def test_on_compact_runs_once_per_compaction(tmp_path: Path) -> None:
    seen: list[str] = []
    run, _, _ = _opening(tmp_path, on_compact=lambda: seen.append("compacted"))
    assert seen == ["compacted"] * len(run.compactions) == ["compacted"]


def test_the_log_prints_one_line_per_call(tmp_path: Path) -> None:
    run, _, _ = _opening(tmp_path)
    lines = run.log().splitlines()
    assert lines[2] == "call  3  tool_use    counter  1,850  >= 1,400"
    assert lines[3] == "call  4  compaction  #1, counter reset to 0"
    assert lines[-1] == "6 calls, 1 compaction (call 4)"
    assert lines[-2] == f"reply: {race_fix.REPLY}"


def test_compact_history_leaves_its_input_alone(tmp_path: Path) -> None:
    notes = NotesFile(tmp_path / "NOTES.md")
    history = [{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "ok"}]
    before = [dict(m) for m in history]
    client = ScriptedClient([scripted_response("summary", input_tokens=9, output_tokens=3)])
    restart = compact_history(client, history, notes)
    assert history == before
    assert restart == [
        {
            "role": "user",
            "content": f"{HANDOFF_PREFIX}\n\nsummary\n\n{NOTES_PREFIX}\n(NOTES.md is still empty)",
        }
    ]
    sent = client.requests[0]
    assert sent["model"] == "claude-sonnet-5" and sent["max_tokens"] == 2048
    assert "[user] fix it" in sent["messages"][0]["content"]


def test_parallel_tool_calls_are_answered_in_one_message_in_order(tmp_path: Path) -> None:
    script = [
        scripted_response(
            _call(1, "read_file", path="a.py"),
            _call(2, "run_tests"),
            _call(3, "read_file", path="b.py"),
            input_tokens=100,
            output_tokens=10,
        ),
        scripted_response("done", input_tokens=100, output_tokens=10),
    ]
    client = ScriptedClient(script)
    _run(script, tmp_path, client=client)
    last = client.requests[1]["messages"][-1]
    assert last["role"] == "user"
    assert [b["tool_use_id"] for b in last["content"]] == ["toolu_1", "toolu_2", "toolu_3"]
    assert "a.py:" in last["content"][0]["content"] and "b.py:" in last["content"][2]["content"]
    assert not any(b.get("is_error") for b in last["content"])


def test_an_unknown_tool_becomes_an_error_result_that_stays(tmp_path: Path) -> None:
    script = [
        scripted_response(_call(1, "deploy"), input_tokens=100, output_tokens=10),
        scripted_response(_call(2, "run_tests"), input_tokens=100, output_tokens=10),
        scripted_response("done", input_tokens=100, output_tokens=10),
    ]
    client = ScriptedClient(script)
    run = _run(script, tmp_path, client=client)
    error = client.requests[1]["messages"][-1]["content"][0]
    assert error["is_error"] is True
    assert "unknown tool 'deploy'" in error["content"] and "read_file" in error["content"]
    assert error in client.requests[2]["messages"][2]["content"]
    assert run.text == "done"


def test_a_tool_that_raises_becomes_an_error_result(tmp_path: Path) -> None:
    def broken(tool_input: dict[str, Any]) -> str:
        raise OSError(f"cannot read {tool_input['path']}")

    script = [
        scripted_response(_call(1, "read_file", path="gone.py"), input_tokens=10, output_tokens=1),
        scripted_response("gave up", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    _run(script, tmp_path, tool_impls={"read_file": broken}, client=client)
    result = client.requests[1]["messages"][-1]["content"][0]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "OSError: cannot read gone.py",
        "is_error": True,
    }


def test_a_tool_returning_a_non_string_is_sent_as_text(tmp_path: Path) -> None:
    script = [
        scripted_response(_call(1, "count"), input_tokens=10, output_tokens=1),
        scripted_response("ok", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    _run(script, tmp_path, tool_impls={"count": lambda _: 42}, client=client)
    assert client.requests[1]["messages"][-1]["content"][0]["content"] == "42"


def _one_result(tmp_path: Path, impl: Any) -> dict[str, Any]:
    """The tool_result the loop sends back for one call of `impl`."""
    script = [
        scripted_response(_call(1, "look"), input_tokens=10, output_tokens=1),
        scripted_response("ok", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    _run(script, tmp_path, tool_impls={"look": impl}, client=client)
    result: dict[str, Any] = client.requests[1]["messages"][-1]["content"][0]
    return result


def test_a_tool_returning_content_blocks_sends_them_as_blocks(tmp_path: Path) -> None:
    """A screenshot tool returns an image block, as the API takes a tool result's content;
    it used to go out as the Python text of the list, `"[{'type': 'image', ..."`."""
    source = {"type": "base64", "media_type": "image/png", "data": "iVBO"}
    image = {"type": "image", "source": source}
    blocks = [{"type": "text", "text": "the login page"}, image]
    given = copy.deepcopy(blocks)
    result = _one_result(tmp_path, lambda _: given)
    assert result["content"] == blocks and "is_error" not in result
    given[1]["source"]["data"] = "changed"  # the history holds its own copy
    assert result["content"] == blocks


def test_the_summary_request_names_an_image_instead_of_spelling_out_its_data(
    tmp_path: Path,
) -> None:
    """A screenshot's base64 went into the transcript as text: 400,000 characters, some
    100,000 tokens by the estimate, in a request meant to fit the window."""
    data = "iVBORw0K" * 50_000
    source = {"type": "base64", "media_type": "image/png", "data": data}
    script = [
        scripted_response(_call(1, "look"), input_tokens=900, output_tokens=10),
        scripted_response("summary", input_tokens=10, output_tokens=10),
        scripted_response("done", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    look = {
        "look": lambda _: [
            {"type": "text", "text": "the page"},
            {"type": "image", "source": source},
        ]
    }
    run = _run(script, tmp_path, tool_impls=look, client=client, context_window=1_000)
    assert run.compactions == (2,)
    transcript = client.requests[1]["messages"][0]["content"]
    assert data not in transcript and len(transcript) < 2_000
    assert "the page\n[image/png image: 400,000 characters of base64 data left out]" in transcript


def test_the_summary_request_keeps_a_plain_text_document_whole(tmp_path: Path) -> None:
    """A document of plain text is words the summary needs, not base64 to leave out."""
    source = {"type": "text", "media_type": "text/plain", "data": "Rule: never ship on Friday."}
    script = [
        scripted_response(_call(1, "look"), input_tokens=900, output_tokens=10),
        scripted_response("summary", input_tokens=10, output_tokens=10),
        scripted_response("done", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    look = {"look": lambda _: [{"type": "document", "source": source}]}
    _run(script, tmp_path, tool_impls=look, client=client, context_window=1_000)
    assert "never ship on Friday" in client.requests[1]["messages"][0]["content"]


def _forgot_to_return(request: dict[str, Any]) -> None:
    request["cache_control"] = {"type": "ephemeral"}  # and no `return request`


@pytest.mark.parametrize(
    ("hooks", "words"),
    [
        ({"plan": _forgot_to_return}, "plan must return the request to send (a dict), got None"),
        ({"plan": lambda request: [request]}, "plan must return the request to send (a dict)"),
        (
            {"plan": lambda request: {k: v for k, v in request.items() if k != "messages"}},
            "the request plan returned holds no messages (a list of messages), got None",
        ),
        (
            {"edit_history": lambda messages: None},
            "edit_history must return the messages to send (a list), got None",
        ),
        (
            {"edit_history": lambda messages: "x"},
            "edit_history must return the messages to send (a list), got 'x'",
        ),
    ],
    ids=["plan-none", "plan-list", "plan-no-messages", "edit-none", "edit-str"],
)
def test_a_hook_that_returns_no_request_is_named_before_anything_is_sent(
    tmp_path: Path, hooks: dict[str, Any], words: str
) -> None:
    """A plan that forgot `return request` failed with "'NoneType' object is not
    iterable"; a history edit returning "x" sent the messages ['x']; a plan that dropped
    the messages sent a request without any."""
    client = ScriptedClient([scripted_response("done", input_tokens=10, output_tokens=1)])
    with pytest.raises(TypeError, match=re.escape(words)):
        _run([], tmp_path, client=client, **hooks)
    assert client.requests == []


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        (("", list), ValueError, "question must hold some text, got ''"),
        ((None, list), TypeError, "question must be a str, got NoneType"),
        (("Sum up.", None), TypeError, "restart_with must be a function (summary -> messages)"),
        (("Sum up.", list, "no"), TypeError, "tools_off must be True or False, got 'no'"),
    ],
    ids=["blank-question", "no-question", "no-restart", "tools-off-text"],
)
def test_an_append_only_step_names_a_bad_setting_when_made(
    arguments: tuple[Any, ...], error: type[Exception], words: str
) -> None:
    """Each was taken and failed, if at all, at the first compaction: a blank question
    went out as an empty user message, and "no" turned the tools off."""
    with pytest.raises(error, match=re.escape(words)):
        AppendOnlyCompaction(*arguments)


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ({"compact_ratio": 0.8}, "compact_ratio 0.8 compacts by default, which reads"),
        ({"compact_ratio": None, "notes_in_system": True}, "notes_in_system reads"),
    ],
    ids=["compaction", "notes-in-system"],
)
def test_a_missing_notes_file_is_asked_for_with_the_argument_that_needs_it(
    options: dict[str, Any], why: str
) -> None:
    # the error said only "notes must be a NotesFile, got NoneType None"
    client = ScriptedClient([scripted_response("hi", input_tokens=1, output_tokens=1)])
    with pytest.raises(TypeError, match=r"^notes must be a NotesFile, got NoneType None: ") as got:
        run_agent("task", [], {}, client=client, model="m", context_window=1_000, **options)
    assert why in str(got.value)


@pytest.mark.parametrize("notes", [None, "NOTES.md"])
def test_a_transcript_step_names_notes_that_are_no_notes_file(notes: object) -> None:
    """It failed at the first restart, on `.read()`, after the summary was paid for."""
    with pytest.raises(TypeError, match=r"^notes must be a NotesFile, got "):
        TranscriptCompaction(notes)  # type: ignore[arg-type]


def test_a_compaction_step_whose_summary_request_is_none_is_named(tmp_path: Path) -> None:
    """A step that forgot to return its request failed inside the send, on `"betas" in None`."""

    class Forgetful(TranscriptCompaction):
        def summary_request(  # type: ignore[override]
            self, request: dict[str, Any], messages: Any
        ) -> None:
            super().summary_request(request, messages)

    script = [
        scripted_response(_call(1, "read_file", path="a.py"), input_tokens=1_500, output_tokens=1),
        scripted_response("summary", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    step = Forgetful(NotesFile(tmp_path / "N.md"))
    with pytest.raises(TypeError, match=r"^the compaction step's summary_request must return"):
        _run(script, tmp_path, client=client, compaction=step)
    assert len(client.requests) == 1  # the turn, and no summary request


@pytest.mark.parametrize(
    ("management", "words"),
    [
        ({"applied_edits": 5}, "context_management.applied_edits is 5, not a list"),
        (
            {"applied_edits": [{"cleared_tool_uses": "x"}]},
            "context_management.applied_edits[0].cleared_tool_uses is 'x', not a whole number",
        ),
        (
            {"applied_edits": [{"cleared_tool_uses": -4}]},
            "context_management.applied_edits[0].cleared_tool_uses is -4, not a whole number",
        ),
        (
            {"applied_edits": [{"cleared_tool_uses": 2.7}]},
            "context_management.applied_edits[0].cleared_tool_uses is 2.7, not a whole number",
        ),
    ],
    ids=["edits-int", "count-text", "count-negative", "count-float"],
)
def test_a_malformed_applied_edit_is_a_named_response_error(
    tmp_path: Path, management: dict[str, Any], words: str
) -> None:
    """The loop read these with `int()`: a TypeError or ValueError of its own, or a
    count of -4 or 2 (from 2.7) cleared tool uses recorded as if the server said so."""
    reply = scripted_response("done", input_tokens=10, output_tokens=1)
    reply["context_management"] = management
    with pytest.raises(MalformedResponseError, match=re.escape(words)):
        _run([reply], tmp_path)


@pytest.mark.parametrize(
    "blocks",
    [
        [{"type": "tool_use", "id": "t9", "name": "x", "input": {}}],
        [{"type": "text"}],
        [{"type": "text", "text": "a\ud800"}],
    ],
    ids=["a-call", "text-without-text", "surrogate"],
)
def test_a_tool_returning_blocks_no_result_may_hold_is_an_error_result(
    tmp_path: Path, blocks: list[dict[str, Any]]
) -> None:
    result = _one_result(tmp_path, lambda _: blocks)
    assert result["is_error"] is True
    assert result["content"].startswith("TypeError: the tool returned blocks no tool result")


@pytest.mark.parametrize(
    "rows",
    [[{"flavor": "mint", "tubs": 3}], [{"type": "vanilla", "tubs": 12}]],
    ids=["rows", "typed"],
)
def test_a_tool_returning_records_sends_their_text_as_before(
    tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    """A list of records is data, not blocks, even when a record has a `type` of its own."""
    result = _one_result(tmp_path, lambda _: rows)
    assert result["content"] == str(rows) and "is_error" not in result


@pytest.mark.parametrize(
    ("output", "sent"),
    [
        ("caf\udce9 menu", "caf\\udce9 menu"),
        (OSError("no file \udcff"), "OSError: no file \\udcff"),
    ],
    ids=["text", "error"],
)
def test_a_lone_surrogate_in_a_tool_s_text_goes_out_escaped(
    tmp_path: Path, output: object, sent: str
) -> None:
    """Text read with `errors="surrogateescape"` (a file name, a process's output) holds
    lone surrogates, which UTF-8 cannot encode: the history could not be sent again."""

    def tool(_: dict[str, Any]) -> object:
        if isinstance(output, Exception):
            raise output
        return output

    assert _one_result(tmp_path, tool)["content"] == sent


@pytest.mark.parametrize("reason", ["max_tokens", "refusal", "stop_sequence"])
def test_another_stop_reason_ends_the_run_with_that_reason(tmp_path: Path, reason: str) -> None:
    script = [
        scripted_response(_call(1, "run_tests"), input_tokens=10, output_tokens=1),
        scripted_response("half a rep", input_tokens=10, output_tokens=1, stop_reason=reason),
    ]
    run = _run(script, tmp_path)
    assert (run.stop_reason, run.text, len(run.calls)) == (reason, "half a rep", 2)
    assert run.messages[-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "half a rep"}],
    }


def test_a_run_with_no_reply_text_says_why_it_stopped(tmp_path: Path) -> None:
    script = [scripted_response(input_tokens=10, output_tokens=0, stop_reason="max_tokens")]
    run = _run(script, tmp_path)
    assert run.text == ""
    assert run.log().splitlines()[-2:] == ["stopped: max_tokens", "1 call, 0 compactions"]


def test_a_short_script_fails_with_the_exhaustion_error(tmp_path: Path) -> None:
    script = race_fix.opening_script()[:3]
    with pytest.raises(ScriptExhaustedError, match="holds 3 responses and call 4"):
        _run(script, tmp_path)


def _storm_script(sizes: list[int]) -> list[Any]:
    """A turn of 1,500 tokens, then per size: a summary and a turn of that size."""
    script = [scripted_response(_call(0, "run_tests"), input_tokens=1_450, output_tokens=50)]
    for number, size in enumerate(sizes, start=1):
        script.append(scripted_response("summary", input_tokens=50, output_tokens=5))
        call = _call(number, "run_tests")
        script.append(scripted_response(call, input_tokens=size - 50, output_tokens=50))
    script.append(scripted_response("finished", input_tokens=50, output_tokens=5))
    return script


def test_three_failed_compactions_in_a_row_stop_the_run(tmp_path: Path) -> None:
    with pytest.raises(CompactionStormError) as caught:
        _run(_storm_script([1_500, 1_600, 1_450, 1_500]), tmp_path)
    assert caught.value.threshold == 1_400
    assert caught.value.sizes == [1_500, 1_600, 1_450]
    assert "3 compactions in a row" in str(caught.value)
    assert "threshold of 1,400 tokens" in str(caught.value)
    assert "1,500, 1,600, 1,450 tokens" in str(caught.value)


def test_a_compaction_that_makes_room_resets_the_failure_count(tmp_path: Path) -> None:
    # two failures, a success (300), a turn that crosses again (+1,200), two more failures
    script = _storm_script([1_500, 1_600, 300])[:-1]
    script.append(scripted_response(_call(8, "run_tests"), input_tokens=1_150, output_tokens=50))
    script += _storm_script([1_500])[1:-1]
    script.append(scripted_response("summary", input_tokens=50, output_tokens=5))
    script.append(scripted_response("finished", input_tokens=1_450, output_tokens=50))
    run = _run(script, tmp_path)
    turns = [c.tokens_used for c in run.calls if c.kind == "turn"]
    assert turns == [1_500, 1_500, 1_600, 300, 1_500, 1_500, 1_500]
    assert run.compactions == (2, 4, 6, 9, 11)
    assert run.text == "finished"


def test_the_storm_guard_also_watches_the_window_measure(tmp_path: Path) -> None:
    # a system prompt bigger than the threshold: no compaction can make room
    with pytest.raises(CompactionStormError, match="threshold of 1,400"):
        notes = NotesFile(tmp_path / "NOTES.md")
        run_agent(
            race_fix.TASK,
            race_fix.TOOLS,
            race_fix.tool_impls(notes),
            client=ScriptedClient(race_fix.simulated_model(20)),
            model="m",
            context_window=2_000,
            compact_ratio=0.7,
            notes=notes,
            measure="window",
            system="rule " * 2_000,
        )


def test_the_window_measure_counts_the_last_request_with_cache_reads(tmp_path: Path) -> None:
    script = [
        scripted_response(
            _call(1, "run_tests"),
            input_tokens=100,
            output_tokens=20,
            cache_read_input_tokens=700,
            cache_creation_input_tokens=30,
        ),
        scripted_response("done", input_tokens=150, output_tokens=20, cache_read_input_tokens=700),
    ]
    window = _run(script, tmp_path, measure="window")
    accumulated = _run(script, tmp_path)
    assert [c.tokens_used for c in window.calls] == [850, 870]
    assert [c.tokens_used for c in accumulated.calls] == [120, 290]
    assert window.measure == "window" and accumulated.measure == "accumulated"


def test_notes_in_the_system_prompt_go_out_with_every_request(tmp_path: Path) -> None:
    _, client, _ = _opening(tmp_path, notes_in_system=True, system="Keep notes.")
    systems = [r.get("system") for r in client.requests]
    assert systems[0] == f"Keep notes.\n\n{NOTES_PREFIX}\n(NOTES.md is still empty)"
    assert systems[2].endswith(race_fix.FIRST_NOTES)  # written by call 2
    assert systems[3] is None  # the summarizing call has no system prompt
    assert systems[5].endswith(race_fix.FINAL_NOTES)


def test_the_loop_sends_model_tools_and_limits(tmp_path: Path) -> None:
    _, client, _ = _opening(tmp_path, max_tokens=512)
    turns = [r for i, r in enumerate(client.requests) if i != 3]
    assert all(r["model"] == "claude-sonnet-5" and r["max_tokens"] == 512 for r in turns)
    assert all(r["tools"] == race_fix.TOOLS for r in turns)
    assert client.requests[3]["max_tokens"] == 1024


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"measure": "tokens"},
            "measure must be 'accumulated', 'window' or 'prompt', got 'tokens'",
        ),
        ({"compact_ratio": 1.5}, "compact_ratio must be strictly between 0 and 1, got 1.5"),
        ({"context_window": 0}, "context_window must be a positive int, got 0"),
    ],
)
def test_bad_settings_are_refused_before_any_call(
    tmp_path: Path, options: dict[str, Any], message: str
) -> None:
    client = ScriptedClient([])
    with pytest.raises(ValueError, match=message):
        _run([], tmp_path, client=client, **options)
    assert client.requests == []


def test_the_caller_s_tools_are_not_changed(tmp_path: Path) -> None:
    tools = [dict(t) for t in race_fix.TOOLS]
    _opening(tmp_path)
    assert tools == race_fix.TOOLS


def test_strict_mode_passes_append_only_and_the_restart_after_compaction(
    tmp_path: Path,
) -> None:
    guard = PrefixGuard(strict=True)
    run, _, _ = _opening(tmp_path, guard=guard)
    assert [call.tokens_used for call in run.calls] == [400, 1_050, 1_850, 0, 280, 490]
    # five loop requests were checked (the compaction call goes out on its own)
    assert [report.kind for report in guard.reports] == [
        "first",
        "append",
        "append",
        "replaced",
        "append",
    ]


def test_strict_mode_refuses_a_client_side_clear_in_the_middle(tmp_path: Path) -> None:
    def clear(history: list[Any]) -> list[Any]:
        return clear_old_tool_results(history, keep_last=1)

    with pytest.raises(MiddleEditError) as caught:
        _opening(tmp_path, edit_history=clear, strict=True)
    report = caught.value.report
    assert report.kind == "edited" and report.part == "messages"
    assert report.first_changed is not None and report.first_changed >= 1
    assert report.lost_tokens > 0


def test_a_reporting_guard_sees_each_edit_and_the_loop_keeps_its_own_history(
    tmp_path: Path,
) -> None:
    guard = PrefixGuard()

    def clear(history: list[Any]) -> list[Any]:
        return clear_old_tool_results(history, keep_last=1)

    run, client, _ = _opening(tmp_path, edit_history=clear, guard=guard)
    assert "edited" in [report.kind for report in guard.reports]
    sent = [message_text(m) for m in client.requests[2]["messages"]]
    kept = [message_text(m) for m in run.messages]
    assert any("cleared to save context" in text for text in sent)
    assert not any("cleared to save context" in text for text in kept)


def test_strict_with_a_guard_that_only_reports_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="strict guard"):
        _opening(tmp_path, guard=PrefixGuard(), strict=True)


def test_strict_mode_passes_a_restart_equal_to_the_last_request_s_first_message(
    tmp_path: Path,
) -> None:
    # two compactions with the same summary and the same notes: the second restart
    # message is the first message of the request before it, and that is no edit
    script = [
        scripted_response(_call(1, "run_tests"), input_tokens=1_450, output_tokens=50),
        scripted_response("summary", input_tokens=50, output_tokens=5),
        scripted_response(_call(2, "run_tests"), input_tokens=250, output_tokens=50),
        scripted_response(_call(3, "run_tests"), input_tokens=1_450, output_tokens=50),
        scripted_response("summary", input_tokens=50, output_tokens=5),
        scripted_response("finished", input_tokens=50, output_tokens=5),
    ]
    guard = PrefixGuard(strict=True)
    client = ScriptedClient(script)
    run = _run(script, tmp_path, client=client, guard=guard)
    assert run.compactions == (2, 5) and run.text == "finished"
    before, restart = client.requests[3]["messages"], client.requests[5]["messages"]
    assert len(before) == 3 and restart == before[:1]  # the same summary and notes
    kinds = [(report.kind, report.first_changed) for report in guard.reports]
    assert kinds == [("first", None), ("replaced", 0), ("append", None), ("replaced", 1)]


def test_strict_mode_passes_a_restart_after_client_side_edits_too(tmp_path: Path) -> None:
    script = [
        scripted_response(_call(1, "run_tests"), input_tokens=1_450, output_tokens=50),
        scripted_response("summary", input_tokens=50, output_tokens=5),
        scripted_response(_call(2, "run_tests"), input_tokens=250, output_tokens=50),
        scripted_response(_call(3, "run_tests"), input_tokens=1_450, output_tokens=50),
        scripted_response("summary", input_tokens=50, output_tokens=5),
        scripted_response("finished", input_tokens=50, output_tokens=5),
    ]
    run = _run(script, tmp_path, strict=True, edit_history=lambda history: history)
    assert run.compactions == (2, 5) and run.text == "finished"


def _iterations_response(*blocks: Any) -> dict[str, Any]:
    """A server-tool response: the top level sums three iterations (251,400 tokens)."""
    response = scripted_response(*blocks, input_tokens=6_000, output_tokens=2_400)
    response["usage"]["cache_read_input_tokens"] = 243_000
    response["usage"]["iterations"] = [
        {
            "type": "message",
            "input_tokens": 2_000,
            "output_tokens": 700,
            "cache_read_input_tokens": 60_000,
        },
        {
            "type": "message",
            "input_tokens": 2_000,
            "output_tokens": 700,
            "cache_read_input_tokens": 61_000,
        },
        {
            "type": "message",
            "input_tokens": 2_000,
            "output_tokens": 1_000,
            "cache_read_input_tokens": 61_350,
        },
    ]
    return response


def test_the_window_measure_reads_the_last_message_iteration(tmp_path: Path) -> None:
    first = _iterations_response(_call(1, "run_tests"))
    assert Usage.of(first).window_tokens == 251_400
    script = [first, scripted_response("done", input_tokens=300, output_tokens=20)]
    run = _run(script, tmp_path, measure="window", context_window=200_000)
    assert [call.tokens_used for call in run.calls] == [64_350, 320]
    assert run.compactions == ()  # 251,400 would have crossed 140,000 after call 1
    assert run.calls[0].usage.cache_read_input_tokens == 243_000  # billing stays top-level


# ---------------------------------------------------------------- hostile responses


def test_tool_use_without_a_tool_use_block_is_a_named_error_and_nothing_empty_goes_out(
    tmp_path: Path,
) -> None:
    script = [
        scripted_response(_call(1, "run_tests"), input_tokens=10, output_tokens=1),
        scripted_response(
            "thinking aloud", input_tokens=10, output_tokens=1, stop_reason="tool_use"
        ),
        scripted_response("unreachable", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    with pytest.raises(MalformedResponseError, match="response of call 2: content holds no"):
        _run(script, tmp_path, client=client)
    assert len(client.requests) == 2


def test_an_empty_reply_is_not_kept_as_an_empty_assistant_turn(tmp_path: Path) -> None:
    script = [
        scripted_response(_call(1, "run_tests"), input_tokens=10, output_tokens=1),
        scripted_response(input_tokens=10, output_tokens=0),
    ]
    run = _run(script, tmp_path)
    assert (run.text, run.stop_reason) == ("", "end_turn")
    assert run.messages[-1]["role"] == "user"
    assert all(message["content"] for message in run.messages)


def test_empty_text_blocks_are_dropped_before_the_turn_is_sent_back(tmp_path: Path) -> None:
    script = [
        scripted_response("", _call(1, "run_tests"), input_tokens=10, output_tokens=1),
        scripted_response("done", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    _run(script, tmp_path, client=client)
    turn = client.requests[1]["messages"][1]
    assert turn == {"role": "assistant", "content": [_call(1, "run_tests")]}


def test_a_tool_id_used_twice_in_one_response_is_refused(tmp_path: Path) -> None:
    script = [
        scripted_response(
            _call(1, "run_tests"),
            _call(1, "read_file", path="a.py"),
            input_tokens=10,
            output_tokens=1,
        ),
        scripted_response("done", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    with pytest.raises(MalformedResponseError) as caught:
        _run(script, tmp_path, client=client)
    assert (caught.value.field, caught.value.call) == ("content[1].id", 1)
    assert "repeats 'toolu_1', the id of content[0]" in str(caught.value)
    assert len(client.requests) == 1


def test_a_tool_id_reused_from_an_earlier_turn_is_refused(tmp_path: Path) -> None:
    script = [
        scripted_response(_call(1, "run_tests"), input_tokens=10, output_tokens=1),
        scripted_response(_call(1, "run_tests"), input_tokens=10, output_tokens=1),
        scripted_response("done", input_tokens=10, output_tokens=1),
    ]
    with pytest.raises(MalformedResponseError, match=r"call 2: content\[0\]\.id repeats"):
        _run(script, tmp_path)


@pytest.mark.parametrize(
    ("drop", "field"),
    [("id", "content[0].id"), ("name", "content[0].name"), ("input", "content[0].input")],
)
def test_a_tool_use_missing_a_field_is_a_named_error(tmp_path: Path, drop: str, field: str) -> None:
    call = _call(1, "run_tests")
    del call[drop]
    script = [scripted_response(call, input_tokens=10, output_tokens=1)]
    with pytest.raises(MalformedResponseError) as caught:
        _run(script, tmp_path)
    assert (caught.value.field, caught.value.call) == (field, 1)
    assert "is missing" in str(caught.value)


@pytest.mark.parametrize(
    ("block", "field"),
    [
        ({"type": "tool_use", "id": "", "name": "run_tests", "input": {}}, "content[0].id"),
        ({"type": "tool_use", "id": "t", "name": 7, "input": {}}, "content[0].name"),
        ({"type": "tool_use", "id": "t", "name": "run_tests", "input": "x"}, "content[0].input"),
        ({"type": "text", "text": None}, "content[0].text"),
    ],
)
def test_a_block_with_a_field_of_the_wrong_kind_is_a_named_error(
    tmp_path: Path, block: dict[str, Any], field: str
) -> None:
    script = [scripted_response(block, input_tokens=10, output_tokens=1, stop_reason="tool_use")]
    with pytest.raises(MalformedResponseError) as caught:
        _run(script, tmp_path)
    assert caught.value.field == field


def test_unreadable_usage_is_a_named_error(tmp_path: Path) -> None:
    response = scripted_response("hi", input_tokens=10, output_tokens=1)
    del response["usage"]["output_tokens"]
    with pytest.raises(MalformedResponseError, match="response of call 1: usage is unreadable"):
        _run([response], tmp_path)


class _CountedUsage(dict):  # type: ignore[type-arg]
    """A usage dict that counts how often each field is read."""

    reads: dict[str, int]

    def get(self, key: Any, default: Any = None) -> Any:
        self.reads[key] = self.reads.get(key, 0) + 1
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self.reads[key] = self.reads.get(key, 0) + 1
        return super().__getitem__(key)


@pytest.mark.parametrize("measure", ["accumulated", "window", "prompt"])
@pytest.mark.parametrize("iterations", [False, True])
def test_the_loop_reads_each_turn_s_usage_once(
    tmp_path: Path, measure: str, iterations: bool
) -> None:
    first = (
        _iterations_response(_call(1, "run_tests"))
        if iterations
        else scripted_response(_call(1, "run_tests"), input_tokens=10, output_tokens=1)
    )
    script = [first, scripted_response("done", input_tokens=10, output_tokens=1)]
    once = []  # what one reading of each usage reads, field by field
    for response in script:
        alone = _CountedUsage(response["usage"])
        alone.reads = {}
        Usage.of(alone)
        once.append({key: alone.reads.get(key, 0) for key in ("input_tokens", "output_tokens")})
        response["usage"] = _CountedUsage(response["usage"])
        response["usage"].reads = {}
    answers = iter(script)  # handed out as they are (a list script would be copied)
    client = ScriptedClient(lambda request: next(answers))
    run = _run([], tmp_path, client=client, measure=measure, context_window=10**6)
    assert run.text == "done"
    for response, expected_reads in zip(script, once, strict=True):
        reads = response["usage"].reads
        assert {key: reads.get(key, 0) for key in expected_reads} == expected_reads
    last_prompt = 2_000 + 61_350 if iterations else 10  # the last message iteration's
    expected = {
        "accumulated": 6_000 + 2_400 if iterations else 10 + 1,
        "window": last_prompt + (1_000 if iterations else 1),
        "prompt": last_prompt,
    }
    assert run.calls[0].tokens_used == expected[measure]


@pytest.mark.parametrize(
    ("change", "error", "words"),
    [
        ({"messages": None}, TypeError, "messages must be a list of dicts, got NoneType"),
        ({"notes": None}, TypeError, "notes must be a NotesFile, got NoneType None"),
        ({"notes": "NOTES.md"}, TypeError, "notes must be a NotesFile, got str 'NOTES.md'"),
        ({"client": None}, TypeError, "client must have messages.create(**request), got None"),
        ({"model": None}, TypeError, "model must be a str, got NoneType None"),
        ({"max_tokens": 0}, ValueError, "max_tokens must be a positive int, got 0"),
        ({"max_tokens": "5"}, TypeError, "max_tokens must be an int, got str '5'"),
        ({"messages": []}, ValueError, "messages holds no message, so nothing to summarize"),
    ],
    ids=[
        "messages",
        "notes-none",
        "notes-path",
        "client",
        "model",
        "max-tokens-0",
        "max-tokens-str",
        "messages-empty",
    ],
)
def test_compact_history_names_a_bad_argument_before_any_call(
    tmp_path: Path, change: dict[str, Any], error: type[Exception], words: str
) -> None:
    """A notes path given for the notes file failed only after the summary was paid for
    (an AttributeError on `.read`); a bad model or limit went out to the API, and so did
    an empty history (a call paid to summarize nothing)."""
    client = ScriptedClient([scripted_response("summary", input_tokens=9, output_tokens=3)])
    arguments: dict[str, Any] = {
        "client": client,
        "messages": [{"role": "user", "content": "fix it"}],
        "notes": NotesFile(tmp_path / "NOTES.md"),
    }
    arguments.update(change)
    positional = [arguments.pop(name) for name in ("client", "messages", "notes")]
    with pytest.raises(error, match=re.escape(words)):
        compact_history(*positional, **arguments)
    assert client.requests == []


def test_compact_history_refuses_an_empty_summary_as_the_loop_does(tmp_path: Path) -> None:
    """The loop's compaction refuses a summary with no text; this one restarted from it,
    a history that said nothing of the work."""
    client = ScriptedClient([scripted_response("  ", input_tokens=9, output_tokens=3)])
    with pytest.raises(MalformedResponseError, match="holds no summary text"):
        compact_history(client, [{"role": "user", "content": "fix it"}], NotesFile(tmp_path / "N"))


@pytest.mark.parametrize(
    ("messages", "impls", "error", "words"),
    [
        ("hello", {}, TypeError, "messages must be a list of dicts, got str"),
        (None, {}, TypeError, "messages must be a list of dicts, got NoneType"),
        ([], None, TypeError, "tool_impls must be a dict of name -> function, got None"),
        ([], ["look"], TypeError, "tool_impls must be a dict of name -> function, got ['look']"),
    ],
    ids=["messages-str", "messages-none", "impls-none", "impls-list"],
)
def test_append_tool_results_names_a_bad_history_or_tool_table(
    messages: Any, impls: Any, error: type[Exception], words: str
) -> None:
    """A string history came back as its letters, one "message" each."""
    response = {"content": [{"type": "tool_use", "id": "t1", "name": "look", "input": {}}]}
    with pytest.raises(error, match=re.escape(words)):
        append_tool_results(messages, response, impls)


def test_append_tool_results_refuses_a_response_without_calls() -> None:
    with pytest.raises(MalformedResponseError, match=r"^response: content holds no tool_use"):
        append_tool_results([], {"content": [{"type": "text", "text": "hm"}]}, {})


# ---------------------------------------------------------------- pause_turn


def _pause(*blocks: Any) -> dict[str, Any]:
    return scripted_response(*blocks, input_tokens=10, output_tokens=1, stop_reason="pause_turn")


SEARCH = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}


def test_a_paused_turn_is_sent_back_as_it_is_and_resumed(tmp_path: Path) -> None:
    script = [
        scripted_response(_call(1, "run_tests"), input_tokens=10, output_tokens=1),
        _pause("Searching.", SEARCH),
        scripted_response("found it", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    run = _run(script, tmp_path, client=client)
    assert (run.stop_reason, run.text, len(run.calls)) == ("end_turn", "found it", 3)
    resumed = client.requests[2]["messages"]
    assert resumed[:3] == client.requests[1]["messages"]
    assert resumed[3] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Searching."}, SEARCH],
    }
    assert len(resumed) == 4  # no user turn was added
    assert run.messages[-2:] == (
        resumed[3],
        {"role": "assistant", "content": [{"type": "text", "text": "found it"}]},
    )


def test_a_model_that_always_pauses_ends_the_run_after_max_pauses(tmp_path: Path) -> None:
    client = ScriptedClient(lambda request: _pause("still searching"))
    run = _run([], tmp_path, client=client)
    assert run.stop_reason == "pause_turn"
    assert len(run.calls) == MAX_PAUSES + 1
    assert len(client.requests[-1]["messages"]) == 1 + MAX_PAUSES


def test_a_pause_with_nothing_in_it_ends_the_run_rather_than_send_an_empty_turn(
    tmp_path: Path,
) -> None:
    client = ScriptedClient([_pause(), scripted_response("late", input_tokens=1, output_tokens=1)])
    run = _run([], tmp_path, client=client)
    assert (run.stop_reason, len(client.requests)) == ("pause_turn", 1)


def test_a_pause_in_strict_mode_is_an_append(tmp_path: Path) -> None:
    script = [
        _pause("Searching.", SEARCH),
        scripted_response("found", input_tokens=1, output_tokens=1),
    ]
    guard = PrefixGuard(strict=True)
    _run(script, tmp_path, guard=guard)
    assert [report.kind for report in guard.reports] == ["first", "append"]


# ---------------------------------------------------------------- copies


def test_an_edit_in_place_cannot_rewrite_the_loop_s_history(tmp_path: Path) -> None:
    def vandal(history: list[Any]) -> list[Any]:
        for message in history:
            message["content"] = "EDITED"
        return history

    client = ScriptedClient(race_fix.opening_script())
    notes = NotesFile(tmp_path / "NOTES.md")
    run = run_agent(
        race_fix.TASK,
        race_fix.TOOLS,
        race_fix.tool_impls(notes),
        client=client,
        model="m",
        context_window=2_000,
        compact_ratio=0.7,
        notes=notes,
        edit_history=vandal,
    )
    assert all(message_text(m) == "EDITED" for m in client.requests[1]["messages"])
    assert run.messages[0]["content"].startswith(HANDOFF_PREFIX)
    assert "EDITED" not in [message_text(m) for m in run.messages]
    summarized = message_text(client.requests[3]["messages"][0])
    assert "41 passed" in summarized  # the summary saw the real history, not the edited copy


def test_a_tool_that_changes_its_input_leaves_the_recorded_call_alone(tmp_path: Path) -> None:
    def greedy(tool_input: dict[str, Any]) -> str:
        tool_input.pop("path")
        tool_input["extra"] = [1]
        return "read"

    script = [
        scripted_response(_call(1, "read_file", path="a.py"), input_tokens=10, output_tokens=1),
        scripted_response("done", input_tokens=10, output_tokens=1),
    ]
    client = ScriptedClient(script)
    run = _run(script, tmp_path, tool_impls={"read_file": greedy}, client=client)
    assert client.requests[1]["messages"][1]["content"] == [_call(1, "read_file", path="a.py")]
    assert run.messages[1]["content"] == [_call(1, "read_file", path="a.py")]


# ---------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"user_input": 123}, TypeError, "user_input must be a str, got int 123"),
        ({"user_input": None}, TypeError, "user_input must be a str, got NoneType None"),
        ({"user_input": ""}, ValueError, "user_input must hold some text, got ''"),
        ({"user_input": " \n"}, ValueError, "user_input must hold some text"),
        (
            {"user_input": "fix \ud800"},
            ValueError,
            "user_input holds a lone surrogate \\(U\\+D800\\) at character 4",
        ),
        ({"max_tokens": -5}, ValueError, "max_tokens must be a positive int, got -5"),
        ({"max_tokens": 0}, ValueError, "max_tokens must be a positive int, got 0"),
        ({"max_tokens": True}, TypeError, "max_tokens must be an int, got bool True"),
        ({"max_tokens": 10.0}, TypeError, "max_tokens must be an int, got float 10.0"),
        ({"model": None}, TypeError, "model must be a str, got NoneType None"),
        ({"model": " "}, ValueError, "model must name a model, got ' '"),
        (
            {"model": "claude-\ud800"},
            ValueError,
            "model holds a lone surrogate \\(U\\+D800\\) at character 7",
        ),
        (
            {"tools": [{"name": "read_file"}, {"name": "grep"}, {"name": "read_file"}]},
            ValueError,
            "tools\\[2\\] repeats the name 'read_file' of tools\\[0\\]",
        ),
        ({"system": 5}, TypeError, "system must be a str or None, got int 5"),
        ({"system": "be \udfff"}, ValueError, "system holds a lone surrogate"),
        ({"notes": "N.md"}, TypeError, "notes must be a NotesFile, got str 'N.md'"),
        ({"compact_ratio": "0.5"}, TypeError, "compact_ratio must be a number, got str '0.5'"),
        ({"compact_ratio": float("nan")}, ValueError, "compact_ratio must be strictly between"),
        ({"context_window": True}, TypeError, "context_window must be an int, got True"),
        ({"tools": "read_file"}, TypeError, "tools must be a list of tool definitions"),
        (
            {"tools": [{"description": "x"}]},
            TypeError,
            "tools\\[0\\] must be a dict with a str 'name'",
        ),
        ({"tool_impls": ["read_file"]}, TypeError, "tool_impls must be a dict"),
        (
            {"tool_impls": {"read_file": "cat"}},
            TypeError,
            "tool_impls\\['read_file'\\] must map a str to a function",
        ),
        ({"client": object()}, TypeError, "client must have messages.create"),
        ({"on_compact": 1}, TypeError, "on_compact must be a function or None, got 1"),
        ({"edit_history": "clear"}, TypeError, "edit_history must be a function or None"),
        ({"strict": "yes"}, TypeError, "strict must be True or False, got 'yes'"),
        ({"notes_in_system": 1}, TypeError, "notes_in_system must be True or False, got 1"),
        ({"guard": "strict"}, TypeError, "guard must be a PrefixGuard or None, got 'strict'"),
        ({"notes": None}, TypeError, "notes must be a NotesFile, got NoneType None"),
        (
            {"notes": "N.md", "compact_ratio": None},
            TypeError,
            "notes must be a NotesFile or None, got str",
        ),
        (
            {"notes": None, "compact_ratio": None, "notes_in_system": True},
            TypeError,
            "notes must be a NotesFile, got NoneType",
        ),
        ({"plan": "mark"}, TypeError, "plan must be a function or None, got 'mark'"),
        ({"compaction": "wholesale"}, TypeError, "compaction must have summary_request"),
        ({"max_calls": 0}, ValueError, "max_calls must be a positive int or None, got 0"),
        ({"max_calls": True}, ValueError, "max_calls must be a positive int or None, got True"),
    ],
)
def test_every_argument_is_checked_before_any_call(
    tmp_path: Path, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    client = ScriptedClient([scripted_response("hi", input_tokens=1, output_tokens=1)])
    arguments: dict[str, Any] = {
        "user_input": "go",
        "tools": race_fix.TOOLS,
        "tool_impls": {"read_file": lambda _: "x"},
        "client": client,
        "model": "m",
        "context_window": 2_000,
        "compact_ratio": 0.7,
        "notes": NotesFile(tmp_path / "NOTES.md"),
        **options,
    }
    with pytest.raises(error, match=message):
        run_agent(
            arguments.pop("user_input"),
            arguments.pop("tools"),
            arguments.pop("tool_impls"),
            **arguments,
        )
    assert client.requests == []


def test_strict_mode_hashes_and_checks_each_message_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from context_budget import prefix_guard as module

    seen = {"hashed": 0, "checked": 0}
    hash_, check = module._fingerprint, module.check_message

    def counting_hash(value: object) -> str:
        seen["hashed"] += 1
        return hash_(value)

    def counting_check(message: object, index: int | None = None) -> None:
        seen["checked"] += 1
        check(message, index)

    monkeypatch.setattr(module, "_fingerprint", counting_hash)
    monkeypatch.setattr(module, "check_message", counting_check)
    turns = 60
    script = [
        scripted_response(_call(n, "run_tests"), input_tokens=1, output_tokens=1)
        for n in range(turns)
    ]
    client = ScriptedClient([*script, scripted_response("done", input_tokens=1, output_tokens=1)])
    _run([], tmp_path, client=client, strict=True, context_window=10**9)
    sent = len(client.requests[-1]["messages"])
    assert sent == 1 + 2 * turns
    # once per message, plus the tools and the (empty) system prompt once each
    assert seen == {"hashed": sent + 2, "checked": sent}


def test_a_paused_turn_holding_a_client_call_is_a_named_error(tmp_path: Path) -> None:
    client = ScriptedClient([_pause("Searching.", _call(1, "run_tests"))])
    with pytest.raises(MalformedResponseError) as caught:
        _run([], tmp_path, client=client)
    assert (caught.value.field, caught.value.call) == ("content[1]", 1)
    assert len(client.requests) == 1


# ---------------------------------------------------------------- plans, compaction steps, limits


class _BetaClient(ScriptedClient):
    """A scripted client that notes which calls came through `beta.messages.create`."""

    def __init__(self, responses: Any) -> None:
        super().__init__(responses)
        self.beta_calls: list[int] = []

    def _create(self, request: dict[str, Any], *, beta: bool) -> Any:
        if beta:
            self.beta_calls.append(len(self.requests) + 1)
        return super()._create(request, beta=beta)


def _reads(turns: int) -> list[Any]:
    script = [
        scripted_response(_call(n, "read_file", path=f"{n}.py"), input_tokens=100, output_tokens=10)
        for n in range(1, turns + 1)
    ]
    return [*script, scripted_response("done", input_tokens=100, output_tokens=10)]


def test_a_plan_marks_the_copy_it_sends_and_never_the_loop_s_history(tmp_path: Path) -> None:
    def mark_the_last(request: dict[str, Any]) -> dict[str, Any]:
        last = request["messages"][-1]
        if isinstance(last["content"], list):
            last["content"][-1]["cache_control"] = {"type": "ephemeral"}  # in place, on the copy
        return {**request, "system": [{"type": "text", "text": "planned"}]}

    client = ScriptedClient(_reads(2))
    run = _run([], tmp_path, client=client, plan=mark_the_last, context_window=10**6)
    assert run.text == "done"
    assert [r["messages"][-1]["content"][-1].get("cache_control") for r in client.requests[1:]] == [
        {"type": "ephemeral"}
    ] * 2
    assert all(r["system"] == [{"type": "text", "text": "planned"}] for r in client.requests)
    assert not any(
        "cache_control" in block
        for message in run.messages
        if isinstance(message["content"], list)
        for block in message["content"]
    )


def test_a_request_with_betas_goes_through_the_beta_endpoint(tmp_path: Path) -> None:
    def clear_from_the_second(request: dict[str, Any]) -> dict[str, Any]:
        if len(request["messages"]) == 1:
            return request
        return {**request, "betas": ["context-management-2025-06-27"]}

    client = _BetaClient(_reads(2))
    run = _run([], tmp_path, client=client, plan=clear_from_the_second, context_window=10**6)
    assert run.text == "done" and client.beta_calls == [2, 3]
    assert "betas" not in client.requests[0] and "betas" in client.requests[2]


def test_the_append_only_compaction_asks_at_the_end_of_the_next_request(tmp_path: Path) -> None:
    from context_budget.harness import AppendOnlyCompaction

    restarts: list[str] = []

    def restart(summary: str) -> list[dict[str, Any]]:
        restarts.append(summary)
        return [{"role": "user", "content": f"again, knowing: {summary}"}]

    def read(n: int, size: int) -> dict[str, Any]:
        return scripted_response(
            _call(n, "read_file", path=f"{n}.py"), input_tokens=size, output_tokens=10
        )

    script = [
        read(1, 150),
        read(2, 250),  # a prompt of 250 >= 400 * 0.5: compact after this round
        scripted_response("two read", input_tokens=300, output_tokens=10),
        read(3, 100),
        scripted_response("done", input_tokens=120, output_tokens=10),
    ]
    step = AppendOnlyCompaction("Summarize; call no tool.", restart)
    client = ScriptedClient(script)
    run = _run(
        [],
        tmp_path,
        client=client,
        compaction=step,
        measure="prompt",
        context_window=400,
        compact_ratio=0.5,
        system="rules",
        plan=lambda request: {**request, "cache_control": {"type": "ephemeral"}},
    )
    assert run.compactions == (3,) and restarts == ["two read"] and run.text == "done"
    asked, before = client.requests[2], client.requests[1]["messages"]
    assert asked["messages"][: len(before)] == before
    assert asked["messages"][len(before)]["content"] == [_call(2, "read_file", path="2.py")]
    assert asked["messages"][-2]["content"][0]["tool_use_id"] == "toolu_2"
    assert asked["messages"][-1] == {"role": "user", "content": "Summarize; call no tool."}
    assert (asked["system"], asked["tools"], asked["cache_control"]) == (
        "rules",
        race_fix.TOOLS,
        {"type": "ephemeral"},
    )
    assert "tool_choice" not in asked
    restarted = client.requests[3]["messages"][0]
    assert restarted == {"role": "user", "content": "again, knowing: two read"}
    assert [c.tokens_used for c in run.calls] == [150, 250, 0, 100, 120]


def test_the_append_only_compaction_can_turn_tools_off_in_the_api(tmp_path: Path) -> None:
    from context_budget.harness import AppendOnlyCompaction

    step = AppendOnlyCompaction(
        "Sum up.", lambda s: [{"role": "user", "content": s}], tools_off=True
    )
    request = {"model": "m", "messages": [], "cache_control": {"type": "ephemeral"}}
    asked = step.summary_request(request, [])
    assert asked["tool_choice"] == {"type": "none"} and "cache_control" not in asked
    assert request == {"model": "m", "messages": [], "cache_control": {"type": "ephemeral"}}
    assert step.restart("s") == [{"role": "user", "content": "s"}]


def test_the_default_compaction_is_the_transcript_restart(tmp_path: Path) -> None:
    from context_budget.harness import TranscriptCompaction

    default, _, _ = _opening(tmp_path)
    notes = NotesFile(tmp_path / "OTHER.md")
    client = ScriptedClient(race_fix.opening_script())
    chosen = run_agent(
        race_fix.TASK,
        race_fix.TOOLS,
        race_fix.tool_impls(notes),
        client=client,
        model="claude-sonnet-5",
        context_window=2_000,
        compact_ratio=0.7,
        compaction=TranscriptCompaction(notes),
    )
    assert chosen.log() == default.log() and chosen.messages == default.messages
    assert client.requests[3]["max_tokens"] == 2 * client.requests[0]["max_tokens"]


def test_without_a_ratio_the_loop_never_compacts(tmp_path: Path) -> None:
    client = ScriptedClient(_reads(5))
    run = run_agent(
        "go",
        race_fix.TOOLS,
        {"read_file": lambda _: "x" * 4_000},
        client=client,
        model="m",
        context_window=10,
        compact_ratio=None,
    )
    assert run.compactions == () and run.text == "done" and run.threshold == float("inf")


def test_the_call_limit_stops_before_a_call_and_runs_no_tool_no_one_would_read(
    tmp_path: Path,
) -> None:
    ran: list[str] = []
    client = ScriptedClient(_reads(5))
    run = _run(
        [],
        tmp_path,
        {"read_file": lambda i: ran.append(i["path"]) or "x"},
        client=client,
        max_calls=3,
        context_window=10**6,
    )
    assert (run.stop_reason, run.text, len(run.calls), len(client.requests)) == (
        "max_calls",
        "",
        3,
        3,
    )
    assert ran == ["1.py", "2.py"]
    assert run.messages[-1] == {
        "role": "assistant",
        "content": [_call(3, "read_file", path="3.py")],
    }
    assert run.log().splitlines()[-2] == "stopped: max_calls"


def test_the_call_limit_counts_a_compaction_call(tmp_path: Path) -> None:
    run, client, _ = _opening(tmp_path, max_calls=4)
    assert run.stop_reason == "max_calls" and run.compactions == (4,) and len(client.requests) == 4
    assert len(run.messages) == 1 and message_text(run.messages[0]).startswith(HANDOFF_PREFIX)
    before, _, _ = _opening(
        tmp_path / "x" if (tmp_path / "x").mkdir() is None else tmp_path, max_calls=3
    )
    assert before.compactions == () and before.messages[-1]["role"] == "assistant"


def test_the_prompt_measure_is_the_last_prompt_without_output(tmp_path: Path) -> None:
    script = [
        scripted_response(
            _call(1, "run_tests"),
            input_tokens=50,
            output_tokens=40,
            cache_read_input_tokens=300,
            cache_creation_input_tokens=20,
        ),
        scripted_response("done", input_tokens=10, output_tokens=5),
    ]
    run = _run(script, tmp_path, measure="prompt", context_window=10**6)
    assert [c.tokens_used for c in run.calls] == [370, 10]


def test_a_compaction_step_may_say_itself_when_it_is_due(tmp_path: Path) -> None:
    from context_budget.harness import TranscriptCompaction

    notes = NotesFile(tmp_path / "NOTES.md")

    class EveryTwoRounds(TranscriptCompaction):
        def due(self, rounds: int) -> bool:
            return rounds >= 2

    script = _reads(3)
    script.insert(2, scripted_response("summary", input_tokens=5, output_tokens=5))
    client = ScriptedClient(script)
    run = run_agent(
        "go",
        race_fix.TOOLS,
        {"read_file": lambda _: "x"},
        client=client,
        model="m",
        context_window=10**6,
        compact_ratio=None,
        compaction=EveryTwoRounds(notes),
    )
    assert run.compactions == (3,) and run.text == "done"
    assert [c.kind for c in run.calls] == ["turn", "turn", "compaction", "turn", "turn"]
    assert message_text(client.requests[3]["messages"][0]).startswith(HANDOFF_PREFIX)

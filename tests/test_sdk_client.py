"""run_agent on the real Anthropic SDK, answered offline by httpx2's mock transport.

The transport replays the opening script as the API would send it (ids,
model, `null` cache fields), and records each request the SDK puts on the
wire. Nothing leaves the machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_budget import NotesFile, Usage, run_agent
from context_budget.harness import COMPACT_INSTRUCTION, HANDOFF_PREFIX, AgentRun
from context_budget.scenarios import race_fix


def _sdk() -> tuple[Any, Any]:
    """(the anthropic module, the httpx2 module), imported when a test here first runs: the
    SDK takes seconds to import, which every test process would pay while collecting."""
    return pytest.importorskip("anthropic"), pytest.importorskip("httpx2")


MODEL = "claude-sonnet-4-6"


def _wire(response: dict[str, Any], number: int, *, null_cache: bool) -> dict[str, Any]:
    """A scripted response as the API's JSON: ids, model, and perhaps `null` cache fields."""
    usage = dict(response["usage"])
    if null_cache:
        usage["cache_creation_input_tokens"] = None
        usage["cache_read_input_tokens"] = None
    return {
        **response,
        "id": f"msg_{number:02}",
        "model": MODEL,
        "stop_sequence": None,
        "usage": usage,
    }


def _run(tmp_path: Path, script: list[dict[str, Any]]) -> tuple[AgentRun, list[dict[str, Any]]]:
    anthropic, httpx2 = _sdk()
    sent: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:
        assert request.url.path == "/v1/messages"
        body = json.loads(request.content)
        sent.append(body)
        if len(sent) > len(script):
            return httpx2.Response(500, json={"type": "error", "error": {"type": "api_error"}})
        return httpx2.Response(200, json=script[len(sent) - 1])

    client = anthropic.Anthropic(
        api_key="test-key",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    notes = NotesFile(tmp_path / "NOTES.md")
    run = run_agent(
        race_fix.TASK,
        race_fix.TOOLS,
        race_fix.tool_impls(notes),
        client=client,
        model=MODEL,
        context_window=2_000,
        compact_ratio=0.7,
        notes=notes,
    )
    return run, sent


def _script(*, null_cache: bool = True) -> list[dict[str, Any]]:
    return [_wire(r, n, null_cache=null_cache) for n, r in enumerate(race_fix.opening_script(), 1)]


def test_the_sdk_run_counts_like_the_scripted_one(tmp_path: Path) -> None:
    run, sent = _run(tmp_path, _script())
    assert [c.tokens_used for c in run.calls] == [400, 1_050, 1_850, 0, 280, 490]
    assert run.compactions == (4,)
    assert run.text == race_fix.REPLY
    assert len(sent) == 6


def test_none_cache_fields_read_as_zero(tmp_path: Path) -> None:
    run, _ = _run(tmp_path, _script(null_cache=True))
    assert run.calls[0].usage == Usage(input_tokens=350, output_tokens=50)


def test_cache_reads_and_writes_come_through_the_sdk(tmp_path: Path) -> None:
    script = _script(null_cache=False)
    script[0]["usage"].update(
        cache_read_input_tokens=1_200,
        cache_creation_input_tokens=248,
        cache_creation={"ephemeral_5m_input_tokens": 148, "ephemeral_1h_input_tokens": 100},
    )
    run, _ = _run(tmp_path, script)
    first = run.calls[0].usage
    assert (first.cache_read_input_tokens, first.cache_creation_input_tokens) == (1_200, 248)
    assert (first.ephemeral_5m_input_tokens, first.ephemeral_1h_input_tokens) == (148, 100)
    assert run.calls[0].tokens_used == 400  # the lesson's counter adds input and output only


def test_every_turn_sends_the_model_and_the_tools(tmp_path: Path) -> None:
    _, sent = _run(tmp_path, _script())
    turns = [body for i, body in enumerate(sent) if i != 3]
    assert all(body["model"] == MODEL and body["max_tokens"] == 1024 for body in turns)
    assert all(body["tools"] == race_fix.TOOLS for body in turns)
    assert "tools" not in sent[3]


def test_the_messages_go_out_in_order_with_results_after_their_calls(tmp_path: Path) -> None:
    _, sent = _run(tmp_path, _script())
    third = sent[2]["messages"]
    assert [m["role"] for m in third] == ["user", "assistant", "user", "assistant", "user"]
    assert third[0] == {"role": "user", "content": race_fix.TASK}
    # the SDK's blocks went back as the API's JSON, no None fields
    assert third[1]["content"] == race_fix.opening_script()[0]["content"]
    assert third[2]["content"][0]["tool_use_id"] == "toolu_1"
    assert third[4]["content"][0]["content"] == "NOTES.md updated"


def test_the_restart_after_compaction_is_one_message(tmp_path: Path) -> None:
    _, sent = _run(tmp_path, _script())
    summarize = sent[3]["messages"]
    assert len(summarize) == 1 and summarize[0]["content"].startswith(COMPACT_INSTRUCTION)
    restart = sent[4]["messages"]
    assert len(restart) == 1
    assert restart[0]["content"].startswith(HANDOFF_PREFIX)
    assert restart[0]["content"].endswith(race_fix.FIRST_NOTES)
    assert len(sent[5]["messages"]) == 3  # restart, the notes call, its result


def test_an_api_error_reaches_the_caller(tmp_path: Path) -> None:
    anthropic, _ = _sdk()
    with pytest.raises(anthropic.InternalServerError):
        _run(tmp_path, _script()[:2])

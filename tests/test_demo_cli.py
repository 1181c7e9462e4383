"""`context-budget demo`: the text, the JSON, the errors, and the real path through the SDK."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from context_budget import PromptCache
from context_budget.cli import main
from context_budget.cli._demo import run
from context_budget.experiment import CONTEXT_BETA, MODEL, STRATEGIES
from context_budget.fakes import SimulatedModel
from context_budget.fakes.emulated import EmulatedClient


def test_one_strategy_prints_steps_and_totals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--strategy", "naive"]) == 0
    out = capsys.readouterr().out
    steps = [line for line in out.splitlines() if line.startswith("step ")]
    assert len(steps) > 10 and all("tok  cached" in line and "#" in line for line in steps)
    for label in ("peak context", "tokens read", "from cache", "cost", "answer", "correct"):
        assert label in out
    assert "correct       yes" in out


def test_json_has_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--strategy", "clear", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("strategy", "steps", "peak_context", "tokens_read", "cache_read_share"):
        assert key in data
    assert data["strategy"] == "clear" and data["correct"] is True
    assert len(data["per_step"]) == data["steps"]
    assert data["cost_usd"] == pytest.approx(sum(s["cost_usd"] for s in data["per_step"]), abs=1e-4)


def test_all_prints_the_comparison_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--strategy", "all"]) == 0
    out = capsys.readouterr().out
    rows = [line.split()[0] for line in out.splitlines()[1:] if line.split()[:1]]
    assert [r for r in rows if r in STRATEGIES] == list(STRATEGIES)
    assert "x floor" in out


def test_no_notes_is_marked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--strategy", "compact", "--no-notes"]) == 0
    assert "(no notes)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [["demo", "--strategy", "bogus"], ["demo", "--frobnicate"], ["demo", "--strategy"]],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("context-budget: error:")


def test_model_without_a_key_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["demo", "--model", MODEL]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ANTHROPIC_API_KEY" in err


def test_model_without_prices_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--model", "gpt-unknown"]) == 2
    err = capsys.readouterr().err
    assert "'gpt-unknown'" in err
    assert "claude-sonnet-4-5" in err and "gpt-5" not in err  # the models it can run on


@pytest.mark.parametrize("model", ["gpt-5", "gemini-3.5-flash", "deepseek-chat"])
def test_a_model_of_another_provider_is_refused_before_any_call(
    model: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the demo calls Anthropic's API alone: gpt-5 was sent to it (with a key set), or the
    # run asked for ANTHROPIC_API_KEY, and '--model ""' listed gpt-5 among models to give
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    assert main(["demo", "--model", model]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--model {model}: " in err and "Anthropic" in err


# ---------------------------------------------------------------- the real path


def _server() -> tuple[Any, list[tuple[dict[str, str], dict[str, Any]]]]:
    """An SDK client whose transport answers like the API, from the emulated server."""
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")
    model = SimulatedModel()

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        response = model.respond(request)
        return {
            "content": response["content"],
            "stop_reason": response["stop_reason"],
            "output_tokens": response["usage"]["output_tokens"],
        }

    server = EmulatedClient(MODEL, reply, cache=PromptCache(MODEL))
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []

    def handler(request: Any) -> Any:
        assert request.url.path == "/v1/messages"
        body = json.loads(request.content)
        headers = {k.lower(): v for k, v in request.headers.items()}
        seen.append((headers, body))
        if "anthropic-beta" in headers:
            answer = server.beta.messages.create(betas=[headers["anthropic-beta"]], **body)
        else:
            answer = server.messages.create(**body)
        return httpx2.Response(200, json=answer)

    client = anthropic.Anthropic(
        api_key="test-key",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    return client, seen


def _args(strategy: str) -> argparse.Namespace:
    return argparse.Namespace(strategy=strategy, no_notes=False, json=True, model=MODEL)


def test_real_path_naive_sends_breakpoints_and_no_beta() -> None:
    client, seen = _server()
    data = json.loads(run(_args("naive"), client=client))
    assert data["correct"] is True and data["cache_read_share"] > 0.5
    assert all("anthropic-beta" not in headers for headers, _ in seen)
    assert all(body["cache_control"] == {"type": "ephemeral"} for _, body in seen)
    assert all("context_management" not in body for _, body in seen)


def test_real_path_clear_sends_the_beta_and_reads_applied_edits() -> None:
    client, seen = _server()
    data = json.loads(run(_args("clear"), client=client))
    assert data["correct"] is True
    assert all(headers.get("anthropic-beta") == CONTEXT_BETA for headers, _ in seen)
    edit = seen[0][1]["context_management"]["edits"][0]
    assert edit["type"] == "clear_tool_uses_20250919"
    assert edit["keep"] == {"type": "tool_uses", "value": 2}
    assert edit["exclude_tools"] == ["save_note"]
    assert sum(step["cleared"] for step in data["per_step"]) > 0


def test_real_path_compact_asks_for_the_summary_in_words_and_keeps_the_prefix() -> None:
    client, seen = _server()
    data = json.loads(run(_args("compact"), client=client))
    assert data["correct"] is True
    summaries = [
        (index, body)
        for index, (_, body) in enumerate(seen)
        if isinstance(body["messages"][-1]["content"], str)
        and "do not call any tools" in body["messages"][-1]["content"]
    ]
    assert summaries
    for index, body in summaries:
        before = seen[index - 1][1]
        # append-only: the same tools and settings, the previous messages as a prefix
        assert "tool_choice" not in body and body["tools"] == before["tools"]
        assert body["cache_control"] == {"type": "ephemeral"}
        assert body["messages"][: len(before["messages"])] == before["messages"]
        assert data["per_step"][index]["kind"] == "summary"
        assert data["per_step"][index]["cached"] > 0
    assert all("anthropic-beta" not in headers for headers, _ in seen)


def test_real_path_cache_aware_marks_the_newest_turns_and_keeps_their_uses() -> None:
    client, seen = _server()
    data = json.loads(run(_args("cache-aware"), client=client))
    assert data["correct"] is True
    assert "context_management" not in seen[0][1]
    for headers, body in seen[1:]:
        assert headers.get("anthropic-beta") == CONTEXT_BETA
        assert "cache_control" not in body  # no automatic breakpoint on the newest results
        turns = [m for m in body["messages"] if m["role"] == "assistant"]
        marked = [m for m in turns if "cache_control" in m["content"][-1]]
        assert marked == turns[-2:]
        newest = sum(block["type"] == "tool_use" for block in turns[-1]["content"])
        edit = body["context_management"]["edits"][0]
        assert edit["keep"] == {"type": "tool_uses", "value": newest}
    assert sum(step["cleared"] for step in data["per_step"]) > 0


def test_client_with_a_key_is_the_sdks(monkeypatch: pytest.MonkeyPatch) -> None:
    anthropic = pytest.importorskip("anthropic")
    from context_budget.cli._demo import _client

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    assert isinstance(_client(MODEL), anthropic.Anthropic)


def test_client_without_the_extra_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from context_budget.cli._demo import DemoError, _client

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(DemoError, match="anthropic extra"):
        _client(MODEL)


def _failing_client(answer: Any) -> Any:
    """An SDK client whose transport answers every request with `answer(request)`."""
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")
    return anthropic.Anthropic(
        api_key="bad-key",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(answer)),
    )


def _unauthorized(request: Any) -> Any:
    import httpx2

    body = {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    }
    return httpx2.Response(401, json=body)


def _offline(request: Any) -> Any:
    import httpx2

    raise httpx2.ConnectError("[Errno -3] Temporary failure in name resolution", request=request)


@pytest.mark.parametrize(
    ("answer", "fragments"),
    [
        (_unauthorized, ["AuthenticationError", "401", "invalid x-api-key"]),
        (_offline, ["APIConnectionError", "Connection error"]),
    ],
    ids=["bad key", "no network"],
)
def test_an_api_error_under_model_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: Any,
    fragments: list[str],
) -> None:
    from context_budget.cli import _demo

    client = _failing_client(answer)
    monkeypatch.setattr(_demo, "_client", lambda model: client)
    assert main(["demo", "--model", MODEL]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith(f"context-budget: error: --model {MODEL}: the API call failed: ")
    for fragment in fragments:
        assert fragment in err

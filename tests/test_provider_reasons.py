"""The provider's own diagnosis of a cache miss, read from the session beside the bill's cause.

Anthropic's API can attach `diagnostics.cache_miss_reason` to a response, and
Claude Code keeps the response in its line (`message.diagnostics`). The API
compares the structure of two requests: it names an edit or a compaction
(`messages_changed`) but sees nothing wrong when only a lifetime ran out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_budget import read_bill
from context_budget.cli import main

SYNTHETIC = (
    Path(__file__).resolve().parent.parent
    / "docs"
    / "measured"
    / "sessions"
    / "synthetic"
    / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
)


def _line(number: int, minute: int, read: int, write: int, diagnostics: Any = None) -> str:
    message: dict[str, Any] = {
        "id": f"msg{number}",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "ok"}],
        "usage": {
            "input_tokens": 3,
            "output_tokens": 100,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": write,
        },
    }
    if diagnostics is not None:
        message["diagnostics"] = diagnostics
    record = {
        "type": "assistant",
        "uuid": f"u{number}",
        "sessionId": "d1a90000-0000",
        "timestamp": f"2026-03-02T09:{minute:02d}:00Z",
        "requestId": f"req{number}",
        "message": message,
    }
    return json.dumps(record, separators=(",", ":")) + "\n"


def _reason(kind: object) -> dict[str, Any]:
    return {"cache_miss_reason": {"type": kind, "cache_missed_input_tokens": 9_000}}


def test_a_rebuild_carries_the_reason_the_response_recorded(tmp_path: Path) -> None:
    path = tmp_path / "d1a90000-0000.jsonl"
    path.write_text(
        _line(1, 0, 0, 10_000, _reason("system_changed"))  # a cold start with a reason
        + _line(2, 1, 10_000, 500)
        + _line(3, 2, 0, 10_600, _reason("tools_changed"))  # a rebuild, named by the API
        + _line(4, 3, 10_600, 400, {"cache_miss_reason": None})  # no divergence found
        + _line(5, 4, 11_000, 300, _reason("messages_changed"))  # lost nothing: not a rebuild
        + _line(6, 5, 11_300, 200, _reason(["not", "a", "type"])),  # not a type: ignored
        encoding="utf-8",
    )
    bill = read_bill(path)
    assert [c.provider_reason for c in bill.calls] == [
        "system_changed",
        None,
        "tools_changed",
        None,
        "messages_changed",
        None,
    ]
    (rebuild,) = bill.rebuilds()
    assert (rebuild.call, rebuild.cause, rebuild.provider_reason) == (
        3,
        "prefix-changed",
        "tools_changed",
    )
    assert bill.provider_reasons() == {"messages_changed": 1, "system_changed": 1}


def test_the_reason_on_one_line_of_a_response_reaches_its_call(tmp_path: Path) -> None:
    """One response on two lines: the reason on the first, the larger output on the second."""
    path = tmp_path / "d1a90000-0000.jsonl"
    first = _line(1, 0, 0, 10_000, _reason("model_changed"))
    second = json.loads(_line(1, 0, 0, 10_000))
    second["message"]["usage"]["output_tokens"] = 500
    path.write_text(first + json.dumps(second) + "\n", encoding="utf-8")
    (call,) = read_bill(path).calls
    assert (call.output_tokens, call.provider_reason) == (500, "model_changed")


def test_the_synthetic_session_shows_where_the_two_agree_and_differ() -> None:
    bill = read_bill(SYNTHETIC)
    assert [(r.call, r.cause, r.provider_reason) for r in bill.rebuilds()] == [
        (4, "ttl", None),
        (6, "prefix-changed", "messages_changed"),
        (8, "compaction", "messages_changed"),
        (10, "ttl", None),
    ]
    assert bill.provider_reasons() == {"system_changed": 1}


def test_the_command_prints_both(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bill", str(SYNTHETIC), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["provider_reason"] for r in data["rebuilds"]] == [
        None,
        "messages_changed",
        "messages_changed",
        None,
    ]
    assert data["provider_reasons"] == {"system_changed": 1}
    assert main(["bill", str(SYNTHETIC)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(
        line.startswith("rebuild: call 6 ")
        and "prefix-changed (the provider says messages_changed)" in line
        for line in out
    )
    assert "the provider's miss reasons on calls that are not rebuilds: system_changed 1" in out

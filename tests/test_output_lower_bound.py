"""Calls whose file kept only the output count their response's stream began with.

Some Claude Code builds write each line of a response with the output count of
the stream's start (the API's `message_start`, a token or two) and never the
final one: no line then names a `stop_reason`. The bill marks such a call, as
its real output (and cost) is higher than the file says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_budget.bills import read_bill
from context_budget.cli import main
from context_budget.sessions.claude_code import START_OUTPUT_MOST

SAMPLE = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
ROLLOUT = SAMPLE / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"


def _line(
    ident: str, second: int, output: int, stop: str | None, *, sidechain: bool = False
) -> str:
    message: dict[str, Any] = {
        "id": ident,
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": stop,
        "usage": {
            "input_tokens": 3,
            "output_tokens": output,
            "cache_read_input_tokens": 1_000,
            "cache_creation_input_tokens": 100,
        },
    }
    record = {
        "type": "assistant",
        "uuid": f"u{ident}{second}",
        "sessionId": "0b0e0000-0000",
        "isSidechain": sidechain,
        "timestamp": f"2026-03-02T09:00:{second:02d}Z",
        "requestId": f"req-{ident}",
        "message": message,
    }
    return json.dumps(record, separators=(",", ":")) + "\n"


def _bill(tmp_path: Path, *lines: str) -> Any:
    path = tmp_path / "0b0e0000-0000.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return read_bill(path)


def test_a_response_whose_every_line_is_a_stream_start_is_marked(tmp_path: Path) -> None:
    bill = _bill(
        tmp_path,
        _line("a", 1, 1, None),  # a response on two lines, both at its start's count
        _line("a", 2, 2, None),
        _line("b", 3, START_OUTPUT_MOST, None),  # the most a start gives
        _line("c", 4, START_OUTPUT_MOST + 1, None),  # more than a start gives: its count
        _line("d", 5, 3, "end_turn"),  # a short reply that says how it ended
    )
    assert [call.output_lower_bound for call in bill.calls] == [True, True, False, False]
    assert bill.output_lower_bounds() == (1, 2)
    assert bill.figures().output_lower_bounds == (1, 2)


@pytest.mark.parametrize("order", ["ended first", "ended last"])
def test_one_line_that_names_how_the_response_ended_clears_the_mark(
    tmp_path: Path, order: str
) -> None:
    """The line that says how the response ended may be the better one or not: the
    call is no lower bound either way."""
    start, end = _line("a", 1, 1, None), _line("a", 2, 1, "tool_use")
    bill = _bill(tmp_path, *([end, start] if order == "ended first" else [start, end]))
    (call,) = bill.calls
    assert not call.output_lower_bound
    assert bill.output_lower_bounds() == ()


def test_a_sub_agent_call_copied_in_progress_lines_is_marked_as_its_lines_say(
    tmp_path: Path,
) -> None:
    """A sub-agent's call known only from the `progress` lines of its session."""

    def progress(ident: str, second: int, output: int, stop: str | None) -> str:
        inner = json.loads(_line(ident, second, output, stop, sidechain=True))
        record = {
            "type": "progress",
            "uuid": f"p{ident}{second}",
            "sessionId": "0b0e0000-0000",
            "timestamp": inner["timestamp"],
            "data": {"type": "agent_progress", "agentId": "a1", "message": inner},
        }
        return json.dumps(record, separators=(",", ":")) + "\n"

    main_line = _line("m", 0, 400, "tool_use")
    bill = _bill(
        tmp_path,
        main_line,
        progress("s", 1, 2, None),
        progress("s", 2, 2, None),
        progress("t", 3, 2, None),
        progress("t", 4, 300, "end_turn"),  # a later copy, its final count
        progress("u", 5, 5, None),
        progress("u", 6, 5, "end_turn"),  # a later copy no larger, that says how it ended
    )
    marks = {call.usage.output_tokens: call.output_lower_bound for call in bill.calls}
    assert marks == {400: False, 2: True, 300: False, 5: False}


def test_other_formats_never_mark_a_call() -> None:
    bill = read_bill(ROLLOUT)
    assert bill.calls and bill.output_lower_bounds() == ()


def test_the_command_names_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "0b0e0000-0000.jsonl"
    path.write_text(_line("a", 1, 1, None) + _line("d", 5, 300, "end_turn"), encoding="utf-8")
    assert main(["bill", str(path), "--json", "--calls", "--timezone", "UTC"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["output_lower_bound_calls"] == 1
    assert data["output_lower_bound_call_numbers"] == [1]
    assert [row["output_lower_bound"] for row in data["per_call"]] == [True, False]
    assert main(["bill", str(path), "--timezone", "UTC"]) == 0
    out = capsys.readouterr().out
    (said,) = [line for line in out.splitlines() if "lower bound" in line]
    assert said.startswith("  output a lower bound: 1 call (1) kept only")
    assert f"at most {START_OUTPUT_MOST} tokens" in said
    page = tmp_path / "bill.html"
    assert main(["bill", str(path), "--timezone", "UTC", "--html", str(page)]) == 0
    capsys.readouterr()
    assert "<p>The output of 1 call (1) is a lower bound" in page.read_text(encoding="utf-8")
    path.write_text(_line("d", 5, 300, "end_turn"), encoding="utf-8")
    assert main(["bill", str(path), "--timezone", "UTC", "--html", str(page)]) == 0
    assert "lower bound" not in capsys.readouterr().out
    assert "lower bound" not in page.read_text(encoding="utf-8")


def test_the_sample_sessions_hold_such_calls() -> None:
    """Claude Code 1.0.98 wrote them too: a sentence and a tool call that count 1 token."""
    bill = read_bill(SAMPLE / "sample-project" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    low = bill.output_lower_bounds()
    assert low == (2, 168, 170)
    assert [bill.calls[n - 1].output_tokens for n in low] == [1, 1, 10]

"""Codex rollouts as real folders hold them: forks that replay their parent, ids that are clocks.

The rollout fields are those of the Codex CLI (`session_meta`, `turn_context`,
`response_item`, `event_msg` `token_count` with a cumulative
`total_token_usage`). A fork starts with its own `session_meta` carrying
`forked_from_id`, then copies the parent's `session_meta` and its history,
`token_count` events included, stamped no later than the fork's creation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_budget import read_bill

PARENT = "019a7c2e-8f10-7d3a-9a51-2b7c0e4d1a01"
FORK = "019a7c2f-0b44-7e21-8c3d-5f1a9e7b2c02"


def _line(when: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps(
        {"timestamp": f"2026-11-20T10:{when}Z", "type": kind, "payload": payload},
        separators=(",", ":"),
    )


def _total(sent: int, cached: int, output: int) -> dict[str, Any]:
    usage = {"input_tokens": sent, "cached_input_tokens": cached, "output_tokens": output}
    return {"type": "token_count", "info": {"total_token_usage": usage}}


def _turn(when: str, text: str) -> list[str]:
    return [
        _line(when, "turn_context", {"model": "gpt-5-codex"}),
        _line(
            when,
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        ),
    ]


def _parent_history(when: str) -> list[str]:
    """The parent's two calls: 9,000 sent (none cached) then 11,000 more (9,000 cached)."""
    meta = {"id": PARENT, "timestamp": "2026-11-20T10:00:00.000Z"}
    return [
        _line(when, "session_meta", meta),
        *_turn(when, "Fix the parser."),
        _line(when, "event_msg", _total(9_000, 0, 400)),
        _line(when, "event_msg", _total(20_000, 9_000, 700)),
    ]


def _fork(tmp_path: Path) -> Path:
    created = "05:00.000"
    meta = {"id": FORK, "forked_from_id": PARENT, "timestamp": f"2026-11-20T10:{created}Z"}
    lines = [
        _line(created, "session_meta", meta),
        *_parent_history(created),
        *_turn("05:30.000", "Now try another approach."),
        _line("05:40.000", "event_msg", _total(42_040, 29_000, 1_000)),
    ]
    path = tmp_path / f"rollout-2026-11-20T10-05-00-{FORK}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_fork_bills_only_its_own_calls(tmp_path: Path) -> None:
    bill = read_bill(_fork(tmp_path))
    assert len(bill.calls) == 1
    (call,) = bill.calls
    assert (call.input_tokens, call.cache_read_input_tokens, call.output_tokens) == (
        2_040,
        20_000,
        300,
    )


def test_a_fork_is_its_own_thread_not_its_parents(tmp_path: Path) -> None:
    bill = read_bill(_fork(tmp_path))
    assert set(bill.threads) == {f"{FORK}/main"}


def test_two_rollouts_started_the_same_minute_are_two_threads(tmp_path: Path) -> None:
    paths = []
    for number, ident in enumerate((PARENT, PARENT[:-1] + "9"), 1):
        lines = [
            _line(f"0{number}:00.000", "session_meta", {"id": ident}),
            *_turn(f"0{number}:01.000", "Hello."),
            _line(f"0{number}:02.000", "event_msg", _total(9_000, 0, 400)),
            _line(f"0{number}:03.000", "event_msg", _total(12_000, 0, 500)),
        ]
        path = tmp_path / f"rollout-{number}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    bill = read_bill(paths)
    assert len(bill.threads) == 2
    assert bill.rebuilds() == []


def test_a_fork_whose_creation_is_not_a_time_stops_the_bill_naming_the_line(
    tmp_path: Path,
) -> None:
    path = _fork(tmp_path)
    text = path.read_text(encoding="utf-8").replace("2026-11-20T10:05:00.000Z", "soon", 2)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="line 1 session_meta timestamp"):
        read_bill(path)

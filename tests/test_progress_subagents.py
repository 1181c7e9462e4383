"""Sub-agent calls a Claude Code session file copies into its `progress` lines.

A main session file carries each sub-agent's records inside `progress` lines
(`data.type: "agent_progress"`, `data.agentId`, the sub-agent's own record at
`data.message`). When `<session>/subagents/agent-<id>.jsonl` is present they
are copies; when it is missing they are the only record of those calls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from context_budget import read_bill

SESSION = "7b2e9c41-0d3a-4f6e-8a15-3c9d2e7f1b60"
AGENT = "a51c0de"


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"))


def _usage(read: int, written: int, output: int) -> dict[str, Any]:
    return {
        "input_tokens": 3,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": written,
        "cache_creation": {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0},
        "output_tokens": output,
    }


def _assistant(
    uuid: str, when: str, ident: str, usage: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": SESSION,
        "timestamp": f"2026-11-30T09:{when}.000Z",
        "requestId": f"req_{ident}",
        "message": {
            "id": ident,
            "role": "assistant",
            "model": "claude-haiku-4-5-20251001",
            "content": [{"type": "text", "text": "done"}],
            "usage": usage,
        },
        **extra,
    }


#: The sub-agent's two calls, the second written twice as Claude Code streams it.
AGENT_RECORDS = [
    _assistant("s1", "00:10", "msg_s1", _usage(0, 12_000, 50), isSidechain=True, agentId=AGENT),
    _assistant("s2", "00:20", "msg_s2", _usage(12_000, 800, 5), isSidechain=True, agentId=AGENT),
    _assistant("s3", "00:20", "msg_s2", _usage(12_000, 800, 400), isSidechain=True, agentId=AGENT),
]


def _main_file(tmp_path: Path) -> Path:
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": SESSION,
            "timestamp": "2026-11-30T09:00:00.000Z",
            "message": {"role": "user", "content": "Look into the flaky test."},
        },
        _assistant("m1", "00:05", "msg_m1", _usage(0, 20_000, 100)),
    ]
    for number, record in enumerate(AGENT_RECORDS, 1):
        lines.append(
            {
                "type": "progress",
                "uuid": f"p{number}",
                "parentUuid": "m1",
                "sessionId": SESSION,
                "timestamp": record["timestamp"],
                "parentToolUseID": "toolu_task",
                "data": {"type": "agent_progress", "agentId": AGENT, "message": record},
            }
        )
    lines.append(_assistant("m2", "00:30", "msg_m2", _usage(20_000, 600, 80)))
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(_dump(r) for r in lines) + "\n", encoding="utf-8")
    return path


def _agent_file(tmp_path: Path) -> Path:
    folder = tmp_path / SESSION / "subagents"
    folder.mkdir(parents=True)
    path = folder / f"agent-{AGENT}.jsonl"
    path.write_text("\n".join(_dump(r) for r in AGENT_RECORDS) + "\n", encoding="utf-8")
    return path


def test_sub_agent_calls_only_in_progress_lines_are_counted(tmp_path: Path) -> None:
    bill = read_bill(_main_file(tmp_path))
    assert len(bill.calls) == 4
    agent = [call for call in bill.calls if call.sidechain]
    assert [call.output_tokens for call in agent] == [50, 400]  # the streamed copy kept once
    assert {call.thread.name for call in agent} == {f"{SESSION[:8]}/agent-{AGENT}"}


def test_with_the_sub_agents_file_the_progress_copies_are_not_counted_again(
    tmp_path: Path,
) -> None:
    _main_file(tmp_path)
    _agent_file(tmp_path)
    with_file = read_bill(tmp_path)
    assert len(with_file.calls) == 4
    tmp_other = tmp_path / "alone"
    tmp_other.mkdir()
    alone = read_bill(_main_file(tmp_other))
    assert with_file.tokens() == alone.tokens()
    assert round(with_file.cost().total, 9) == round(alone.cost().total, 9)
    assert set(with_file.threads) == set(alone.threads)

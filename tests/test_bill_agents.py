"""`--by agent`: the calls by who made them, the main thread first, then each sub-agent type.

A sub-agent's type is the `subagent_type` of the call that started it (matched
by its prompt, the sub-agent's first message) or, for a sub-agent with a file
of its own, the `agentType` of the `.meta.json` beside it. A sub-agent no file
types (one seen only in the main file's `progress` lines, say) is counted apart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_budget import read_bill
from context_budget.bills import MAIN_AGENT, UNTYPED_AGENT
from context_budget.cli import main

SESSION = "a9e70000-1111-4000-8000-000000000000"
EXPLORE_PROMPT = "Find where the date parser is tested."


def _usage(read: int, write: int) -> dict[str, int]:
    return {
        "input_tokens": 3,
        "output_tokens": 50,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
    }


def _record(kind: str, uuid: str, parent: str | None, at: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": SESSION,
        "timestamp": f"2026-03-02T09:{at}Z",
        "isSidechain": False,
        **fields,
    }


def _assistant(uuid: str, parent: str, at: str, read: int, write: int, **fields: Any) -> Any:
    message = {
        "id": f"msg-{uuid}",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": fields.pop("content", [{"type": "text", "text": "ok"}]),
        "usage": _usage(read, write),
    }
    return _record("assistant", uuid, parent, at, message=message, requestId=f"r-{uuid}", **fields)


def _folder(tmp_path: Path) -> Path:
    """A session whose main thread starts a `Plan` sub-agent inline and an `Explore` one in a
    file of its own, and whose `progress` lines carry a third sub-agent no file types."""
    task = {
        "type": "tool_use",
        "id": "toolu_plan",
        "name": "Task",
        "input": {"description": "Plan it", "prompt": "Plan the fix.", "subagent_type": "Plan"},
    }
    explore = {
        "type": "tool_use",
        "id": "toolu_explore",
        "name": "Task",
        "input": {"description": "Look", "prompt": EXPLORE_PROMPT, "subagent_type": "Explore"},
    }
    user = {"role": "user", "content": "Fix the parser."}
    progress_call = _assistant("p1", "x", "03:00.000", 0, 9_000)
    lines = [
        _record("user", "u1", None, "00:00.000", message=user),
        _assistant("a1", "u1", "00:01.000", 0, 12_000, content=[task, explore]),
        _record(
            "user",
            "s1",
            None,
            "00:02.000",
            isSidechain=True,
            message={"role": "user", "content": "Plan the fix."},
        ),
        _assistant("s2", "s1", "00:03.000", 0, 8_000, isSidechain=True),
        _assistant("s3", "s2", "00:04.000", 8_000, 500, isSidechain=True),
        _assistant("a2", "a1", "01:00.000", 12_000, 700),
        _record(
            "progress",
            "g1",
            "a2",
            "03:00.000",
            data={"type": "agent_progress", "agentId": "untyped", "message": progress_call},
        ),
    ]
    folder = tmp_path / "projects" / "-work-demo"
    agents = folder / SESSION / "subagents"
    agents.mkdir(parents=True)
    (folder / f"{SESSION}.jsonl").write_text(
        "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines), "utf-8"
    )
    explorer = [
        _record(
            "user",
            "e1",
            None,
            "00:02.500",
            isSidechain=True,
            message={"role": "user", "content": EXPLORE_PROMPT},
        ),
        _assistant("e2", "e1", "00:03.500", 11_000, 1_000, isSidechain=True),
        _assistant("e3", "e2", "00:05.500", 12_000, 400, isSidechain=True),
    ]
    (agents / "agent-e7.jsonl").write_text(
        "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in explorer), "utf-8"
    )
    return folder


def test_calls_group_by_who_made_them(tmp_path: Path) -> None:
    bill = read_bill(_folder(tmp_path))
    groups = bill.groups("agent")
    assert [(g.key, g.calls) for g in groups] == [  # the main thread, then most costly first
        (MAIN_AGENT, 2),
        ("Plan", 2),
        (UNTYPED_AGENT, 1),
        ("Explore", 2),
    ]
    assert sum(g.cost or 0.0 for g in groups) == pytest.approx(bill.cost().total)
    explore = groups[3]
    assert explore.cache_read_share == pytest.approx(23_000 / (23_000 + 1_400 + 6))


def test_a_sub_agent_file_takes_its_type_from_its_meta_json(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    agent = folder / SESSION / "subagents" / "agent-e7.jsonl"
    lines = agent.read_text("utf-8").replace(EXPLORE_PROMPT, "Something no call asked.")
    agent.write_text(lines, "utf-8")
    assert "Explore" not in [g.key for g in read_bill(folder).groups("agent")]
    (agent.parent / "agent-e7.meta.json").write_text(
        json.dumps({"agentType": "code-reviewer", "description": "Review"}), "utf-8"
    )
    keys = [g.key for g in read_bill(folder).groups("agent")]
    assert "code-reviewer" in keys and keys[0] == MAIN_AGENT


def test_the_command_shows_the_agent_table_with_hit_rates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    assert main(["bill", str(folder), "--by", "agent", "--json", "--timezone", "UTC"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [g["key"] for g in data["groups"]] == [MAIN_AGENT, "Plan", UNTYPED_AGENT, "Explore"]
    assert all(0.0 <= g["cache_read_share"] <= 1.0 for g in data["groups"])
    assert main(["bill", str(folder), "--by", "agent", "--timezone", "UTC"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(k for k, line in enumerate(lines) if line.startswith("agent "))
    assert "hit rate" in lines[head]
    assert [line.split()[0] for line in lines[head + 1 : head + 3]] == ["main", "Plan"]

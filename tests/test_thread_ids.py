"""A thread's identity is a value (`ThreadId`): its parts are read, its name is derived.

Every reader builds one per thread; the bill's views read its session, kind
and sub-agent type instead of cutting its name apart, and the names the bill's
`threads` keys and `inspect` print are the strings they always were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_budget import read_bill
from context_budget.cli import main
from context_budget.sessions import ThreadId

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = ROOT / "docs" / "measured" / "sessions"
PROJECT = SESSIONS / "sample-project"
SESSION = "7b2e9c41-0d3a-4f6e-8a15-3c9d2e7f1b60"


@pytest.mark.parametrize(
    ("ident", "name"),
    [
        (ThreadId("fe5e1c67"), "fe5e1c67/main"),
        (ThreadId("fe5e1c67", "sidechain", index=3), "fe5e1c67/sidechain-3"),
        (ThreadId("5c0375b4", "agent", agent="test-hash-123"), "5c0375b4/agent-test-hash-123"),
        (ThreadId("", "agent", agent="a51c0de"), "agent-a51c0de"),
        (ThreadId(), "main"),
    ],
)
def test_a_thread_id_is_named_from_its_parts(ident: ThreadId, name: str) -> None:
    assert ident.name == name
    assert str(ident) == name
    assert f"{ident:>30}" == f"{name:>30}"


def test_the_sub_agent_type_is_known_of_a_thread_not_part_of_who_it_is() -> None:
    plain = ThreadId("fe5e1c67", "sidechain", index=1)
    typed = ThreadId("fe5e1c67", "sidechain", index=1, agent_type="Explore")
    assert plain == typed
    assert {plain: 1}[typed] == 1
    assert plain != ThreadId("fe5e1c67", "sidechain", index=2)


def test_each_format_names_its_threads_as_before() -> None:
    bills = {
        "mini-swe-agent": read_bill(
            SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
        ),
        "openhands": read_bill(SESSIONS / "openhands" / "basic_gui_mode.json"),
        "codex": read_bill(SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"),
    }
    assert list(bills["mini-swe-agent"].threads) == ["astropy__astropy-12907/main"]
    assert list(bills["openhands"].threads) == ["basic_gui_mode/main"]
    (codex,) = bills["codex"].calls[:1]
    assert codex.thread.kind == "main"
    assert codex.thread.name == f"{codex.thread.session}/main"
    assert "-" in codex.thread.session  # a rollout's whole id, not its first part


def test_inline_sub_agents_carry_the_type_their_task_call_named() -> None:
    bill = read_bill(PROJECT)
    kinds = {call.thread.name: call.thread.agent_type for call in bill.calls}
    sidechains = {name: kind for name, kind in kinds.items() if "/sidechain-" in name}
    assert len(sidechains) == 7  # five in fe5e1c67, two in 5c0375b4: each matched in its own
    assert set(sidechains.values()) == {"general-purpose"}
    assert {kinds["fe5e1c67/main"], kinds["5c0375b4/main"]} == {""}
    threads = {thread.name: thread for thread in bill.sessions[0].threads}
    assert threads["5c0375b4/sidechain-1"].id.agent_type == "general-purpose"
    assert threads["5c0375b4/sidechain-1"].description == "Check package configuration"


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"))


def _line(kind: str, uuid: str, when: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": SESSION,
        "timestamp": f"2026-11-30T09:00:{when}.000Z",
        **fields,
    }


def _reply(uuid: str, when: str, content: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 9_000, "output_tokens": 40}
    message = {
        "id": f"msg_{uuid}",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": content,
        "usage": usage,
    }
    return _line("assistant", uuid, when, requestId=f"req_{uuid}", message=message, **fields)


def _task(ident: str, kind: str) -> dict[str, Any]:
    prompt = f"Look around ({kind})."
    task = {"description": f"A {kind} look", "prompt": prompt, "subagent_type": kind}
    return {"type": "tool_use", "id": ident, "name": "Task", "input": task}


def _session(folder: Path, extra: list[dict[str, Any]]) -> Path:
    ask = {"role": "user", "content": "Find the flaky test."}
    lines = [
        _line("user", "u1", "00", message=ask),
        _reply("m1", "01", [_task("toolu_explore", "Explore"), _task("toolu_plan", "Plan")]),
        *extra,
    ]
    path = folder / f"{SESSION}.jsonl"
    path.write_text("\n".join(map(_dump, lines)) + "\n", encoding="utf-8")
    return path


def test_a_sub_agent_file_takes_its_type_from_its_meta_file(tmp_path: Path) -> None:
    _session(tmp_path, [])
    folder = tmp_path / SESSION / "subagents"
    folder.mkdir(parents=True)
    text = {"type": "text", "text": "found it"}
    agent = [_reply("s1", "05", [text], isSidechain=True, agentId="a1")]
    (folder / "agent-a1.jsonl").write_text("\n".join(map(_dump, agent)) + "\n", encoding="utf-8")
    meta = {"agentType": "Explore", "description": "Find it", "toolUseId": "toolu_explore"}
    (folder / "agent-a1.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    bill = read_bill(tmp_path)
    (call,) = [call for call in bill.calls if call.thread.kind == "agent"]
    assert (call.thread.name, call.thread.agent_type) == (f"{SESSION[:8]}/agent-a1", "Explore")


def test_a_sub_agent_known_from_progress_lines_takes_the_type_of_its_task_call(
    tmp_path: Path,
) -> None:
    text = {"type": "text", "text": "planned"}
    inner = _reply("s1", "05", [text], isSidechain=True, agentId="p1")
    data = {"type": "agent_progress", "agentId": "p1", "message": inner}
    progress = _line("progress", "p1", "05", parentToolUseID="toolu_plan", data=data)
    bill = read_bill(_session(tmp_path, [progress]))
    (call,) = [call for call in bill.calls if call.thread.kind == "agent"]
    assert (call.thread.name, call.thread.agent_type) == (f"{SESSION[:8]}/agent-p1", "Plan")


def test_the_bill_names_its_threads_as_strings(capsys: pytest.CaptureFixture[str]) -> None:
    path = PROJECT / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    assert main(["bill", str(path), "--json", "--calls"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data["threads"])[:2] == ["fe5e1c67/main", "fe5e1c67/sidechain-1"]
    assert {row["thread"] for row in data["per_call"]} == set(data["threads"])
    assert all(isinstance(r["thread"], str) for r in data["rebuilds"])


def test_two_sessions_whose_ids_share_8_hex_digits_are_two_threads(tmp_path: Path) -> None:
    """They were one thread, `1af7fc5e/main`, with a rebuild made up between them."""
    source = PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    first, second = source.stem, "1af7fc5e-9999-4414-9ccd-011d40f70b2b"
    text = source.read_text(encoding="utf-8")
    (tmp_path / source.name).write_text(text, encoding="utf-8")
    copied = text.replace(first, second).replace('"msg_', '"msg_B').replace('"req_', '"req_B')
    (tmp_path / f"{second}.jsonl").write_text(copied, encoding="utf-8")
    bill, alone = read_bill(tmp_path), read_bill(source)
    assert sorted(bill.threads) == ["1af7fc5e-9999/main", "1af7fc5e/main"]
    assert len(bill.rebuilds()) == 2 * len(alone.rebuilds())
    assert {call.thread.session for call in bill.calls} == {"1af7fc5e", "1af7fc5e-9999"}

"""`inspect` and `bill` read a file once, through one reader: they agree on what it holds.

For every shipped session and fixture the two commands name the same format,
the same threads and the same compaction boundaries, and count the same
messages. The cases below them are the seams two readers left: a byte-order
mark, a compaction marked only by its summary, an OpenHands event without an
id, and a file given twice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_budget.bills import read_bill
from context_budget.cli import main
from context_budget.conversations import load_transcript

ROOT = Path(__file__).resolve().parents[1]
SESSIONS = ROOT / "docs" / "measured" / "sessions"
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
PROJECT = SESSIONS / "sample-project"
FE5E = PROJECT / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
ROLLOUT = SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"
TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
OPENHANDS = SESSIONS / "openhands" / "basic_gui_mode.json"

#: Every shipped file both commands read (a file with usage), and the folders of one session.
BILLED = [
    *sorted(PROJECT.glob("[0-9a-f]*.jsonl")),
    *sorted((SESSIONS / "synthetic").glob("*.jsonl")),
    TRAJECTORY,
    OPENHANDS,
    *sorted((FIXTURES / "openhands").glob("*.json")),
    FIXTURES / "mini-swe-agent" / "astropy__astropy-12907.traj.json",
    FIXTURES / "synthetic" / "codex_rollout.jsonl",
    FIXTURES / "synthetic" / "claude-code-compacted",
    FIXTURES / "claude_code_representative.jsonl",
]


def _inspect(capsys: pytest.CaptureFixture[str], *paths: Path | str) -> dict[str, Any]:
    assert main(["inspect", *map(str, paths), "--json"]) == 0, capsys.readouterr().err
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def _bill(capsys: pytest.CaptureFixture[str], *paths: Path | str) -> dict[str, Any]:
    assert main(["bill", *map(str, paths), "--json"]) == 0, capsys.readouterr().err
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def _billed_ids(paths: list[Path]) -> list[str]:
    return [path.name for path in paths]


@pytest.mark.parametrize("path", BILLED, ids=_billed_ids(BILLED))
def test_inspect_and_bill_agree_on_format_threads_boundaries_and_messages(
    capsys: pytest.CaptureFixture[str], path: Path
) -> None:
    seen = _inspect(capsys, path)
    bill = _bill(capsys, path)
    assert seen["format"] == bill["format"]
    read = read_bill(path)
    (session,) = read.sessions
    named = {session.main.name, *(thread["name"] for thread in seen["threads"])}
    assert set(bill["threads"]) <= named, (sorted(bill["threads"]), sorted(named))
    assert [thread["name"] for thread in seen["threads"]] == [t.name for t in session.threads]
    assert [thread["messages"] for thread in seen["threads"]] == [
        len(t.messages) for t in session.threads
    ]
    assert seen["messages"] == len(session.layers.conversation)
    cuts = [segment["line"] for segment in seen["segments"][1:]]
    assert cuts == [boundary.line for boundary in session.boundaries]
    main_calls = [call for call in read.calls if call.thread == session.main]
    assert max((call.segment for call in main_calls), default=0) <= len(session.boundaries)


def _claude_line(kind: str, uuid: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    line: dict[str, Any] = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "5e55a000-0000-4000-8000-000000000000",
        "isSidechain": False,
        "timestamp": fields.pop("timestamp", "2026-01-01T00:00:00Z"),
    }
    line.update(fields)
    return line


def _reply(uuid: str, parent: str, read: int, write: int, when: str) -> dict[str, Any]:
    usage = {
        "input_tokens": 3,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
        "output_tokens": 20,
    }
    message = {
        "id": f"msg-{uuid}",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "ok"}],
        "usage": usage,
    }
    return _claude_line("assistant", uuid, parent, message=message, timestamp=when)


def _ask(uuid: str, parent: str | None, text: str, **fields: Any) -> dict[str, Any]:
    return _claude_line("user", uuid, parent, message={"role": "user", "content": text}, **fields)


def _write_lines(path: Path, lines: list[dict[str, Any]], bom: bool = False) -> Path:
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode())
    return path


def test_a_session_saved_with_a_byte_order_mark_is_read_by_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / FE5E.name
    copy.write_bytes(b"\xef\xbb\xbf" + FE5E.read_bytes())
    assert _inspect(capsys, copy)["messages"] == _inspect(capsys, FE5E)["messages"]
    assert _bill(capsys, copy)["calls"] == 170


def test_a_compaction_marked_only_by_its_summary_is_a_compaction_in_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        _ask("u1", None, "start"),
        _reply("a1", "u1", 0, 30_000, "2026-01-01T00:00:01Z"),
        _ask("u2", "a1", "go on"),
        _reply("a2", "u2", 30_000, 2_000, "2026-01-01T00:00:30Z"),
        _ask("u3", None, "Summary of the work so far.", isCompactSummary=True),
        _reply("a3", "u3", 0, 6_000, "2026-01-01T00:01:00Z"),
    ]
    path = _write_lines(tmp_path / "s.jsonl", lines)
    assert len(_inspect(capsys, path)["segments"]) == 2
    (rebuild,) = _bill(capsys, path)["rebuilds"]
    assert rebuild["cause"] == "compaction"


def test_an_openhands_event_without_an_id_is_read_by_both(tmp_path: Path) -> None:
    events = json.loads(OPENHANDS.read_text(encoding="utf-8"))
    del events[0]["id"]
    path = tmp_path / "events.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    assert load_transcript(path).conversation
    assert len(read_bill(path).calls) == len(read_bill(OPENHANDS).calls)


def test_the_sub_agent_threads_have_one_name_in_both(capsys: pytest.CaptureFixture[str]) -> None:
    inspected = [thread["name"] for thread in _inspect(capsys, FE5E)["threads"]]
    billed = [name for name in _bill(capsys, FE5E)["threads"] if not name.endswith("/main")]
    assert inspected == billed == [f"fe5e1c67/sidechain-{n}" for n in range(1, 6)]


# ---------------------------------------------------------------- a file given twice


@pytest.mark.parametrize("path", [ROLLOUT, TRAJECTORY, OPENHANDS, FE5E], ids=lambda p: p.name)
def test_a_file_listed_twice_is_billed_once(path: Path) -> None:
    once = read_bill(path)
    twice = read_bill([path, path])
    assert len(twice.calls) == len(once.calls)
    assert twice.recorded_cost == once.recorded_cost
    assert twice.cost().total == pytest.approx(once.cost().total)


def test_a_folder_and_one_of_its_files_bill_the_file_once(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    copy = folder / ROLLOUT.name
    copy.write_bytes(ROLLOUT.read_bytes())
    assert len(read_bill([folder, copy]).calls) == len(read_bill(ROLLOUT).calls)
    assert len(read_bill([folder, tmp_path / "runs" / ".." / "runs" / copy.name]).calls) == len(
        read_bill(ROLLOUT).calls
    )


# ---------------------------------------------------------------- sub-agent files


def _compaction_agent(tmp_path: Path) -> Path:
    """A compaction sub-agent's file: its first records point into the main session."""
    sidechain = {"isSidechain": True}
    lines = [
        _ask("c1", "outside-1", "Summarize the conversation.", **sidechain),
        _ask("c2", "outside-2", "Keep the file names.", **sidechain),
        _ask("c3", "outside-3", "And the open questions.", **sidechain),
        {**_reply("c4", "c3", 20_000, 1_000, "2026-01-01T00:02:00Z"), **sidechain},
    ]
    return _write_lines(tmp_path / "agent-acompact-4f2a9c.jsonl", lines)


def test_a_compaction_sub_agent_file_alone_is_one_thread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _compaction_agent(tmp_path)
    assert len(load_transcript(path).conversation) == 4
    seen = _inspect(capsys, path)
    assert seen["threads"] == []
    assert list(_bill(capsys, path)["threads"]) == [read_bill(path).sessions[0].main.name]


def test_a_sub_agent_file_given_first_is_still_a_sub_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    session = PROJECT / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    agent = PROJECT / "agent-test-hash-123.jsonl"
    first = _inspect(capsys, session, agent)
    second = _inspect(capsys, agent, session)
    assert second["messages"] == first["messages"]
    assert second["threads"] == first["threads"]


# ---------------------------------------------------------------- codex ids


def _rollout(path: Path, session: str, minute: int) -> Path:
    when = f"2026-03-02T09:{minute:02d}:"
    usage = {"input_tokens": 9_000, "cached_input_tokens": 8_000, "output_tokens": 50}
    lines = [
        {"timestamp": when + "00Z", "type": "session_meta", "payload": {"id": session}},
        {"timestamp": when + "01Z", "type": "turn_context", "payload": {"model": "gpt-5"}},
        {
            "timestamp": when + "02Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"text": "hi"}]},
        },
        {
            "timestamp": when + "03Z",
            "type": "event_msg",
            "payload": {"type": "token_count", "info": {"total_token_usage": usage}},
        },
    ]
    return _write_lines(path, lines)


def test_two_codex_rollouts_started_in_the_same_minute_are_two_threads(tmp_path: Path) -> None:
    first = _rollout(tmp_path / "rollout-a.jsonl", "019a4f3e-7c10-7aa1-9b2e-0c5d7f3e1a01", 0)
    second = _rollout(tmp_path / "rollout-b.jsonl", "019a4f3e-9d22-7bb2-8c3f-1d6e8a4f2b02", 0)
    bill = read_bill([first, second])
    assert len(bill.threads) == 2
    assert bill.rebuilds() == []


# ---------------------------------------------------------------- one price path


def test_a_recorded_call_and_a_live_one_are_priced_alike_when_the_split_does_not_add_up(
    tmp_path: Path,
) -> None:
    from context_budget.pricing import PRICES, cost

    line = _reply("a1", "u1", 2_000, 1_000, "2026-01-01T00:00:01Z")
    split = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 900}
    line["message"]["usage"]["cache_creation"] = split
    path = _write_lines(tmp_path / "s.jsonl", [_ask("u1", None, "start"), line])
    live = cost(line["message"]["usage"], PRICES["claude-sonnet-4-5"])
    assert read_bill(path).cost() == live
    assert live.cache_writes == pytest.approx((100 * 3.75 + 900 * 6.0) / 1e6)

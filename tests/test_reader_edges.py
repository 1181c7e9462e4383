"""The readers at the edges of real folders: copies, reruns, odd lines, links and nesting.

Each case is a folder a user may really have: the same trajectory run twice,
a file copied into a backup folder, a sub-agent file with one stray JSON
value on a line, a project linked in from elsewhere, a rollout filed by day.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import json
import os
import shutil
from datetime import datetime, timedelta
from pathlib import Path, PurePath
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openhands_files import CONVERSATION, EVALUATION
from profiles import cases

from context_budget import read_bill
from context_budget.cli import main
from context_budget.conversations import load_transcript
from context_budget.sessions.claude_code import is_agent_file
from context_budget.sessions.folders import searched_folders
from context_budget.sessions.text import _meta_path

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = ROOT / "docs" / "measured" / "sessions"
TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
EVENTS = SESSIONS / "openhands" / "basic_gui_mode.json"
ROLLOUT = SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"
PROJECT = SESSIONS / "sample-project"
SESSION = "7b2e9c41-0d3a-4f6e-8a15-3c9d2e7f1b60"


def _dump(record: object) -> str:
    return json.dumps(record, separators=(",", ":"))


def _later(stamp: str, days: int = 1) -> str:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(days=days)
    shifted = moment.isoformat()
    return shifted.replace("+00:00", "Z") if stamp.endswith("Z") else shifted


def _rerun_trajectory(path: Path) -> Path:
    """The shipped trajectory as a second run a day later (times moved, ids new)."""
    data = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    for message in data["messages"]:
        extra = message.get("extra") or {}
        if isinstance(extra.get("timestamp"), int | float):
            extra["timestamp"] += 86_400
        response = extra.get("response")
        if isinstance(response, dict) and isinstance(response.get("id"), str):
            response["id"] = "run2-" + response["id"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _rerun_events(path: Path) -> Path:
    """The shipped OpenHands events as a second run a day later."""
    events = json.loads(EVENTS.read_text(encoding="utf-8"))
    for event in events:
        if isinstance(event.get("timestamp"), str):
            event["timestamp"] = _later(event["timestamp"])
        response = (event.get("tool_call_metadata") or {}).get("model_response")
        if isinstance(response, dict):
            response["id"] = "run2-" + str(response.get("id"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(events), encoding="utf-8")
    return path


# ---------------------------------------------------------------- reruns and copies


@pytest.mark.parametrize(
    ("shipped", "rerun"), [(TRAJECTORY, _rerun_trajectory), (EVENTS, _rerun_events)]
)
def test_two_runs_with_one_name_are_two_threads(tmp_path: Path, shipped: Path, rerun: Any) -> None:
    first = tmp_path / "run1" / shipped.name
    first.parent.mkdir()
    shutil.copy(shipped, first)
    second = rerun(tmp_path / "run2" / shipped.name)
    alone = read_bill(first)
    both = read_bill([first, second])
    assert len(both.calls) == 2 * len(alone.calls)
    (name,) = alone.threads
    session, main = name.split("/")
    assert list(both.threads) == [name, f"{session}#2/{main}"]
    assert [r.cause for r in both.rebuilds()] == [r.cause for r in alone.rebuilds()] * 2
    assert not any(r.cause == "ttl" and r.lost_tokens > 30_000 for r in both.rebuilds())


@pytest.mark.parametrize("shipped", [TRAJECTORY, EVENTS, ROLLOUT], ids=lambda p: p.name)
def test_a_file_copied_into_a_second_folder_is_billed_once(tmp_path: Path, shipped: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(shipped, tmp_path / folder / shipped.name)
    alone = read_bill(shipped)
    both = read_bill([tmp_path / "a" / shipped.name, tmp_path / "b" / shipped.name])
    assert len(both.calls) == len(alone.calls)
    assert both.tokens() == alone.tokens()
    assert both.cost().total == pytest.approx(alone.cost().total, abs=1e-12)
    assert list(both.threads) == list(alone.threads)


def test_a_claude_code_copy_is_billed_once_as_before(tmp_path: Path) -> None:
    name = "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(PROJECT / name, tmp_path / folder / name)
    assert len(read_bill(tmp_path).calls) == len(read_bill(PROJECT / name).calls) == 170


def test_a_copy_taken_while_a_run_was_written_adds_only_the_later_calls(tmp_path: Path) -> None:
    data = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    (tmp_path / "a").mkdir()
    shutil.copy(TRAJECTORY, tmp_path / "a" / TRAJECTORY.name)
    data["messages"] = data["messages"][:40]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / TRAJECTORY.name).write_text(json.dumps(data), encoding="utf-8")
    bill = read_bill([tmp_path / "b" / TRAJECTORY.name, tmp_path / "a" / TRAJECTORY.name])
    assert len(bill.calls) == len(read_bill(TRAJECTORY).calls)
    assert len(bill.threads) == 1


# ---------------------------------------------------------------- odd values and lines


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": ["user"], "content": "hi"}],
        [{"role": {"a": 1}, "content": "hi"}, {"role": "assistant", "content": "ok"}],
    ],
)
def test_a_role_that_is_not_a_string_is_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], messages: list[dict[str, Any]]
) -> None:
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    for command in (["bill", str(path)], ["inspect", str(path)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.startswith("context-budget: error: ") and err.count("\n") == 1


def _main_line() -> dict[str, Any]:
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 9_000, "output_tokens": 40}
    return {
        "type": "assistant",
        "uuid": "m1",
        "parentUuid": None,
        "sessionId": SESSION,
        "timestamp": "2026-11-30T09:00:05.000Z",
        "requestId": "req_m1",
        "message": {
            "id": "msg_m1",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": "ok"}],
            "usage": usage,
        },
    }


def _agent_line(uuid: str, when: str, ident: str, output: int, **extra: Any) -> dict[str, Any]:
    line = _main_line()
    line["message"] = {**line["message"], "id": ident}
    line["message"]["usage"] = {**line["message"]["usage"], "output_tokens": output}
    return {
        **line,
        "uuid": uuid,
        "isSidechain": True,
        "timestamp": f"2026-11-30T09:00:{when}.000Z",
        **extra,
    }


@pytest.mark.parametrize("stray", ["[]", "42", "null", '"text"', "true"])
def test_a_json_line_that_is_no_record_is_skipped_like_a_broken_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stray: str
) -> None:
    (tmp_path / f"{SESSION}.jsonl").write_text(_dump(_main_line()) + "\n", encoding="utf-8")
    folder = tmp_path / SESSION / "subagents"
    folder.mkdir(parents=True)
    lines = [_dump(_agent_line("s1", "10", "msg_s1", 20)), stray]
    lines.append(_dump(_agent_line("s2", "20", "msg_s2", 30)))
    (folder / "agent-a1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    bill = read_bill(tmp_path)
    assert len(bill.calls) == 3
    assert [(s.kind, s.place) for s in bill.skipped] == [("bad line", "agent-a1.jsonl:2")]
    assert main(["bill", str(tmp_path)]) == 0
    assert "1 bad line (agent-a1.jsonl:2)" in capsys.readouterr().err
    assert main(["bill", str(tmp_path), "--strict"]) == 2


@pytest.mark.parametrize("first_has_request", [True, False])
def test_one_response_with_and_without_a_request_id_is_one_call(
    tmp_path: Path, first_has_request: bool
) -> None:
    first = _main_line()
    second = {**_main_line(), "uuid": "m2"}
    second["message"] = {**first["message"], "usage": {**first["message"]["usage"]}}
    second["message"]["usage"]["output_tokens"] = 400
    del (second if first_has_request else first)["requestId"]
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text(_dump(first) + "\n" + _dump(second) + "\n", encoding="utf-8")
    bill = read_bill(path)
    assert len(bill.calls) == 1
    assert bill.calls[0].output_tokens == 400


def test_two_requests_of_one_message_id_stay_two_calls(tmp_path: Path) -> None:
    first = _main_line()
    second = {**_main_line(), "uuid": "m2", "requestId": "req_other"}
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text(_dump(first) + "\n" + _dump(second) + "\n", encoding="utf-8")
    assert len(read_bill(path).calls) == 2


# ---------------------------------------------------------------- folders


def test_a_linked_sub_folder_is_read(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "sample-project"
    shutil.copytree(PROJECT, elsewhere)
    projects = tmp_path / "projects"
    projects.mkdir()
    (projects / "sample-project").symlink_to(elsewhere, target_is_directory=True)
    assert len(read_bill(projects).calls) == len(read_bill(PROJECT).calls)


def test_a_loop_of_linked_folders_is_read_once(tmp_path: Path) -> None:
    folder = tmp_path / "projects"
    shutil.copytree(PROJECT, folder / "p")
    (folder / "p" / "again").symlink_to(folder, target_is_directory=True)
    (folder / "p" / "self").symlink_to(folder / "p", target_is_directory=True)
    assert len(read_bill(folder).calls) == len(read_bill(PROJECT).calls)


def test_a_codex_project_is_the_rollouts_working_folder(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "03" / "02"
    day.mkdir(parents=True)
    lines = ROLLOUT.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    meta["payload"]["cwd"] = "/home/dev/shop"
    (day / ROLLOUT.name).write_text("\n".join([_dump(meta), *lines[1:]]) + "\n", encoding="utf-8")
    groups = read_bill(tmp_path / "sessions").groups("project")
    assert [group.key for group in groups] == ["/home/dev/shop"]


def test_a_sub_agent_nested_in_another_is_filed_under_the_project(tmp_path: Path) -> None:
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    (project / f"{SESSION}.jsonl").write_text(_dump(_main_line()) + "\n", encoding="utf-8")
    outer = project / SESSION / "subagents"
    inner = outer / "agent-a1" / "subagents"
    inner.mkdir(parents=True)
    outer_line = _dump(_agent_line("s1", "10", "msg_s1", 20))
    (outer / "agent-a1.jsonl").write_text(outer_line + "\n", encoding="utf-8")
    inner_line = _dump(_agent_line("s2", "20", "msg_s2", 30))
    (inner / "agent-b2.jsonl").write_text(inner_line + "\n", encoding="utf-8")
    bill = read_bill(project)
    assert len(bill.calls) == 3
    assert [group.key for group in bill.groups("project")] == ["shop"]


def test_a_sub_agent_known_only_from_progress_lines_is_a_thread_of_inspect_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ask = {"role": "user", "content": "Look into it."}
    user = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": SESSION}
    user |= {"timestamp": "2026-11-30T09:00:00.000Z", "message": ask}
    task = {"type": "tool_use", "id": "toolu_t", "name": "Task"}
    task["input"] = {
        "description": "Look",
        "prompt": "Look at the test.",
        "subagent_type": "Explore",
    }
    main_line = _main_line()
    main_line["message"] = {**main_line["message"], "content": [task]}
    prompt = {"type": "user", "isSidechain": True, "agentId": "p1", "uuid": "s0"}
    prompt |= {"message": {"role": "user", "content": "Look at the test."}}
    prompt |= {"timestamp": "2026-11-30T09:00:06.000Z", "sessionId": SESSION}
    reply = _agent_line("s1", "10", "msg_s1", 20, agentId="p1")
    lines = [user, main_line]
    for number, record in enumerate([prompt, reply], 1):
        data = {"type": "agent_progress", "agentId": "p1", "message": record}
        lines.append(
            {
                "type": "progress",
                "uuid": f"p{number}",
                "parentUuid": "m1",
                "sessionId": SESSION,
                "timestamp": record["timestamp"],
                "parentToolUseID": "toolu_t",
                "data": data,
            }
        )
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(map(_dump, lines)) + "\n", encoding="utf-8")
    assert main(["bill", str(path), "--json"]) == 0
    billed = set(json.loads(capsys.readouterr().out)["threads"])
    assert main(["inspect", str(path), "--json"]) == 0
    seen = json.loads(capsys.readouterr().out)
    named = {seen_thread["name"] for seen_thread in seen["threads"]}
    assert billed - {f"{SESSION[:8]}/main"} == named == {f"{SESSION[:8]}/agent-p1"}
    (thread,) = seen["threads"]
    assert (thread["messages"], thread["description"]) == (2, "Look")
    assert len(load_transcript(path).conversation) == 2


def test_a_linked_file_is_read_as_before(tmp_path: Path) -> None:
    link = tmp_path / "linked.jsonl"
    os.symlink(ROLLOUT, link)
    assert len(read_bill(tmp_path).calls) == len(read_bill(ROLLOUT).calls)


def test_a_folder_bills_every_session_file_of_every_format() -> None:
    files = sorted(p for p in SESSIONS.rglob("*") if p.suffix in (".jsonl", ".json"))
    each = sum(len(read_bill(path).calls) for path in files)
    bill = read_bill(SESSIONS)
    assert len(bill.calls) == each == 281
    assert bill.format == "mixed" and not bill.skipped


@pytest.mark.parametrize(
    "text", ['{"settings": {"theme": "dark"}}', "[1, 2, 3]", "{not json", ""], ids=repr
)
def test_a_json_file_of_no_session_format_is_a_named_skip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    shutil.copy(TRAJECTORY, tmp_path / TRAJECTORY.name)
    (tmp_path / "settings.json").write_text(text, encoding="utf-8")
    bill = read_bill(tmp_path)
    assert len(bill.calls) == 64
    assert [(s.kind, s.place) for s in bill.skipped] == [("not a session", "settings.json")]
    assert main(["bill", str(tmp_path), "--strict"]) == 2
    err = capsys.readouterr().err
    assert "settings.json" in err and err.count("\n") == 1


def test_a_sub_agents_meta_file_is_no_session_file(tmp_path: Path) -> None:
    shutil.copytree(PROJECT, tmp_path / "p")
    meta = {"agentType": "Explore", "description": "Look", "toolUseId": "toolu_1"}
    (tmp_path / "p" / "agent-test-hash-123.meta.json").write_text(json.dumps(meta))
    bill = read_bill(tmp_path, strict=True)
    assert len(bill.calls) == len(read_bill(PROJECT).calls)


# ---------------------------------------------------------------- the default folders


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


def test_with_no_path_the_bill_reads_the_agents_home_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(tmp_path, monkeypatch)
    shutil.copytree(PROJECT, home / ".claude" / "projects" / "sample-project")
    day = home / ".codex" / "sessions" / "2026" / "03" / "02"
    day.mkdir(parents=True)
    shutil.copy(ROLLOUT, day / ROLLOUT.name)
    conversations = home / ".openhands" / "conversations"
    shutil.copytree(CONVERSATION, conversations / CONVERSATION.name)
    assert main(["bill", "--json"]) == 0
    captured = capsys.readouterr()
    first = captured.err.splitlines()[0]
    assert first == (
        f"context-budget: reading {home}/.claude/projects, {home}/.codex/sessions, "
        f"{home}/.openhands/conversations"
    )
    assert len(captured.err.splitlines()) == 1  # no event file skipped
    every = read_bill([PROJECT, ROLLOUT, CONVERSATION])
    assert json.loads(captured.out)["calls"] == len(every.calls)


def test_the_claude_config_variable_names_several_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(tmp_path, monkeypatch)
    shutil.copytree(PROJECT, home / ".claude" / "projects" / "ignored")
    for name in ("one", "two"):
        shutil.copytree(PROJECT, tmp_path / name / "projects" / "sample-project")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{tmp_path / 'one'}, {tmp_path / 'two'}")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    assert main(["bill", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines()[0] == (
        f"context-budget: reading {tmp_path}/one/projects, {tmp_path}/two/projects"
    )
    assert json.loads(captured.out)["calls"] == len(read_bill(PROJECT).calls)  # copies once


def test_with_no_path_and_no_folder_the_bill_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(tmp_path, monkeypatch)
    assert main(["bill"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("context-budget: error: no session folder found")
    assert f"{home}/.claude/projects" in err and f"{home}/.codex/sessions" in err
    assert f"{home}/.codex/archived_sessions" in err
    assert f"{home}/.openhands/conversations" in err


def test_an_empty_home_folder_is_passed_over_not_the_bill_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent installed and never run leaves its folder empty: a ~/.codex/sessions with
    no rollout stopped the bill of every Claude Code session beside it ('a folder with no
    session file'); with every folder empty, the bill says none was found, in one line."""
    home = _home(tmp_path, monkeypatch)
    for empty in (".codex/sessions/2026", ".codex/archived_sessions", ".openhands/conversations"):
        (home / empty).mkdir(parents=True)
    (home / ".claude" / "projects" / "empty-project").mkdir(parents=True)
    assert main(["bill"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("context-budget: error: no session folder")
    shutil.copytree(PROJECT, home / ".claude" / "projects" / "sample-project")
    assert main(["bill", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"context-budget: reading {home}/.claude/projects"]
    assert json.loads(captured.out)["calls"] == len(read_bill(PROJECT).calls)


def test_an_archived_codex_conversation_is_billed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Archiving moves a rollout from sessions/ into the flat archived_sessions/: the bill
    reads both; a rollout in both (copied, not moved) is billed once."""
    home = _home(tmp_path, monkeypatch)
    archived = home / ".codex" / "archived_sessions"
    archived.mkdir(parents=True)
    shutil.copy(ROLLOUT, archived / ROLLOUT.name)
    calls = len(read_bill(ROLLOUT).calls)
    assert main(["bill", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"context-budget: reading {archived}"]
    assert json.loads(captured.out)["calls"] == calls
    day = home / ".codex" / "sessions" / "2026" / "03" / "02"
    day.mkdir(parents=True)
    shutil.copy(ROLLOUT, day / ROLLOUT.name)
    assert main(["bill", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"context-budget: reading {home}/.codex/sessions, {archived}"
    ]
    assert json.loads(captured.out)["calls"] == calls


def test_codex_home_gives_both_of_its_session_folders(tmp_path: Path) -> None:
    environ = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(tmp_path / "codex")}
    searched = searched_folders(environ)
    assert searched[2:4] == [
        tmp_path / "codex" / "sessions",
        tmp_path / "codex" / "archived_sessions",
    ]
    assert searched_folders({"HOME": str(tmp_path)})[2:4] == [
        tmp_path / ".codex" / "sessions",
        tmp_path / ".codex" / "archived_sessions",
    ]


# ---------------------------------------------------------------- any value anywhere

_SMALL = {
    "claude-code": PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "compacted": SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl",
    "codex": ROLLOUT,
}
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _documents() -> dict[str, tuple[bool, list[Any]]]:
    """Each small shipped session as (JSON Lines?, its records or its one document)."""
    found: dict[str, tuple[bool, list[Any]]] = {
        name: (True, [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()])
        for name, path in _SMALL.items()
    }
    events = json.loads(EVENTS.read_text(encoding="utf-8"))[:20]
    trajectory = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    trajectory["messages"] = trajectory["messages"][:8]
    found["openhands"] = (False, [events])
    found["mini-swe-agent"] = (False, [trajectory])
    instance = json.loads(EVALUATION.read_text(encoding="utf-8").splitlines()[0])
    instance["history"] = instance["history"][:20]
    found["openhands-output"] = (True, [instance, {**instance, "instance_id": "second"}])
    found["openhands-state"] = (False, [json.loads((CONVERSATION / "base_state.json").read_text())])
    return found


_DOCUMENTS = _documents()


def _replace_somewhere(value: Any, data: st.DataObject, new: Any) -> Any:
    """`value` with one node somewhere in it (itself, possibly) replaced by `new`."""
    if not isinstance(value, dict | list) or not value or data.draw(st.integers(0, 3)) == 0:
        return new
    keys = list(value) if isinstance(value, dict) else list(range(len(value)))
    key = data.draw(st.sampled_from(keys))
    copied = dict(value) if isinstance(value, dict) else list(value)
    copied[key] = _replace_somewhere(value[key], data, new)
    return copied


@cases(0.5)
@given(st.sampled_from(sorted(_DOCUMENTS)), _JSON_VALUES, st.data())
def test_any_json_value_anywhere_in_a_session_is_a_bill_or_one_error_line(
    tmp_path_factory: pytest.TempPathFactory, name: str, new: Any, data: st.DataObject
) -> None:
    lines, records = _DOCUMENTS[name]
    at = data.draw(st.integers(0, len(records) - 1))
    changed = list(records)
    changed[at] = _replace_somewhere(records[at], data, new)
    folder = tmp_path_factory.mktemp("mutated")
    path = folder / (f"{name}.jsonl" if lines else f"{name}.json")
    text = "\n".join(map(_dump, changed)) if lines else _dump(changed[0])
    path.write_text(text + "\n", encoding="utf-8")
    for command in (["bill", str(path), "--json"], ["bill", str(folder)], ["inspect", str(path)]):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(command)
        assert status in (0, 2), (command, err.getvalue())
        if status == 2:
            assert err.getvalue().startswith("context-budget: error: ")
            assert err.getvalue().count("\n") == 1


def test_a_folded_response_keeps_every_field_but_where_it_began() -> None:
    """The quick copy a fold makes is what `dataclasses.replace` gives, every field of a
    call set away from its default (a field added to `Call` and missed there fails)."""
    from dataclasses import fields, replace

    from context_budget.sessions.claude_code import _begun
    from context_budget.sessions.session import Call, ThreadId
    from context_budget.usage import Usage

    call = Call(
        ThreadId("s", "agent", agent="a", agent_type="Explore"),
        5.0,
        "claude-sonnet-4-5",
        Usage(1, 2, 3, 4, 3, 0),
        sidechain=True,
        segment=2,
        recorded_cost=0.5,
        message="m",
        file="f.jsonl",
        project="/p",
        provider_reason="system_changed",
        output_lower_bound=True,
    )
    defaults = Call(ThreadId(), None, "", Usage())
    assert all(getattr(call, f.name) != getattr(defaults, f.name) for f in fields(Call))
    folded = _begun(call, 1.0, "first", "model_changed", True)
    assert folded == replace(call, timestamp=1.0, message="first", provider_reason="model_changed")
    cleared = _begun(call, 1.0, "first", "model_changed", False)
    assert cleared == replace(folded, output_lower_bound=False)


@pytest.mark.parametrize("reads", ["os.pread", "open"])
def test_a_line_read_again_is_the_line_the_reader_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: str
) -> None:
    """Every line of a file with a byte-order mark, Windows line ends, a blank line and a
    last line with no line feed is read again as `text.line_spans` cuts it, by its line
    feeds or from where the read found it starts, on a system with `os.pread` and on one
    without; a line past the end is nothing."""
    from array import array

    from context_budget.sessions.claude_code import _LinePlaces
    from context_budget.sessions.text import FileSource, line_spans

    if reads == "open":
        monkeypatch.delattr(os, "pread", raising=False)
    lines = [b'{"type":"user","n":1}', b"", b'{"type":"system","content":"x\\r"}', b"{}"]
    for ending, bom in ((b"\n", b""), (b"\r\n", codecs.BOM_UTF8)):
        path = tmp_path / f"s{len(ending)}.jsonl"
        path.write_bytes(bom + ending.join(lines))
        body = path.read_bytes()[len(bom) :]
        expected = [body[start:stop] for start, stop in line_spans(body)]
        starts = array("q", [0, *(at + 1 for at, byte in enumerate(body) if byte == 10)])
        places = _LinePlaces([FileSource(str(path))], {0: starts})
        assert [places._from_file(0, str(path), n) for n in range(1, 5)] == expected
        scanned = _LinePlaces([FileSource(str(path))])  # no starts: by its line feeds
        assert [scanned._from_file(0, str(path), n) for n in range(1, 5)] == expected
        assert expected[2] == lines[2]
        with pytest.raises(IndexError):
            scanned._from_file(0, str(path), 6)


#: Path parts a user's folders may hold: the sub-agent prefix, separators, dots.
_PARTS = st.sampled_from(["agent-", "agent", "a", "x.jsonl", "/", "//", ".", "..", "\\", " ", ""])


@given(st.lists(_PARTS, max_size=8).map("".join))
def test_a_sub_agent_file_is_named_as_its_paths_last_part_says(name: str) -> None:
    assert is_agent_file(name) == PurePath(name).name.startswith("agent-"), name


@given(st.lists(_PARTS, max_size=8).map("".join))
def test_a_files_meta_json_is_where_its_path_names_it(name: str) -> None:
    try:
        expected: object = Path(name).with_name(Path(name).stem + ".meta.json")
    except ValueError as error:  # a path with no name part has no meta file beside it
        expected = type(error)
    try:
        found: object = PurePath(_meta_path(name))
    except ValueError as error:
        found = type(error)
    assert found == expected, name

"""A bill's read of Claude Code files on two cores ends as the one-pass read ends.

The files are cut in two; a forked child reads the second part and this
process folds what it found into its own reader. Every session here is read
both ways and compared field by field: the calls (their thread's type too),
every usage line, the threads, the boundaries, where each message sits (read
back from its line), the skipped records and the errors. Generated folders
mix what can join the two parts: a response or a `progress` copy recorded in
both, two files of one session, a sidechain whose parent is in the other
part, a session of one file whose sub-agents' files are all read by the
child, a malformed figure, a line that is no record.
"""

from __future__ import annotations

import json
import marshal
import os
import pickle
from collections.abc import Iterator
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from forking import LINUX, split_every_read
from hypothesis import given
from hypothesis import strategies as st
from profiles import cases

import context_budget.sessions.claude_code as claude_code
from benchmarks.bill import generate_project
from context_budget.cli import main
from context_budget.layers import Layers
from context_budget.sessions._packed import packed, packed_session, unpacked, unpacked_session
from context_budget.sessions.session import Call, Session, ThreadId
from context_budget.sessions.text import FileSource
from context_budget.usage import Usage

ROOT = Path(__file__).resolve().parent.parent
SPLIT_BYTES = claude_code.SPLIT_BYTES  # as shipped: each test here splits every read
pytestmark = pytest.mark.skipif(not LINUX, reason="children are made on Linux alone")


@pytest.fixture(autouse=True, params=["forked", "here"])
def _split_every_read(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[None]:
    """Every read of two files or more split, by a forked child or by its steps run here
    (where coverage measures them)."""
    with split_every_read(monkeypatch, claude_code, request.param):
        yield


def _split(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """A list that notes, for each read from now on, whether it was split: the child's
    part joined to this process's."""
    noted: list[bool] = []
    halves = claude_code._read_halves

    def noting(sources: Any, work: Any = None) -> Any:
        found = halves(sources, work)
        noted.append(found is not None and not found.rest)
        return found

    monkeypatch.setattr(claude_code, "_read_halves", noting)
    return noted


def _seen(session: Session) -> tuple[Any, ...]:
    """Everything a read leaves, as values to compare (a thread's type is no part of its
    id's equality, so it is compared on its own)."""
    places = session.places
    return (
        session.calls,
        [(call.thread.agent_type, call.thread.parent) for call in session.calls],
        session.usage_records,
        [(call.thread.agent_type, call.file) for call in session.usage_records],
        session.threads,
        [(thread.id.agent_type, thread.description) for thread in session.threads],
        session.main,
        session.boundaries,
        session.skipped,
        session.files,
        list(places),
        [places[ident] for ident in places],
        repr(session.conversation_error),
        repr(session.usage_error),
        session.bad_lines,
        {index: list(starts) for index, starts in _starts(places).items()},
    )


def _starts(places: Any) -> dict[int, Any]:
    """Where the read found each line of each file, kept to read a line again."""
    return getattr(getattr(places, "_line", None), "_starts", None) or {}


def _both(monkeypatch: pytest.MonkeyPatch, sources: list[FileSource]) -> tuple[Any, Any, bool]:
    """(the split read, the one-pass read, whether the first was split): each a `_seen`,
    or the error it raised as (type, message)."""

    def read() -> Any:
        try:
            return _seen(claude_code.read(sources, messages=False))
        except ValueError as error:
            return (type(error), str(error))

    noted = _split(monkeypatch)
    split = read()
    monkeypatch.setattr(claude_code, "can_fork", lambda: False)
    alone = read()
    return split, alone, noted[0]


def _sources(folder: Path) -> list[FileSource]:
    return [FileSource(str(path)) for path in sorted(folder.rglob("*.jsonl"))]


def test_a_generated_project_reads_the_same_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generate_project(tmp_path, target_bytes=1_500_000, turns=160)
    split, alone, was_split = _both(monkeypatch, _sources(tmp_path))
    assert was_split
    assert split == alone
    assert len(split[0]) > 100  # calls
    assert len(split[-1]) == len(_sources(tmp_path))  # each file's lines found where read


def test_the_bill_of_a_generated_project_is_the_same_bytes_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    generate_project(tmp_path, target_bytes=1_500_000, turns=160)
    outputs = []
    noted = _split(monkeypatch)
    for fork in (True, False):
        monkeypatch.setattr(claude_code, "can_fork", lambda fork=fork: fork)
        for argv in (["--json", "--calls"], ["--by", "agent"], []):
            assert main(["bill", str(tmp_path), "--timezone", "UTC", *argv]) == 0
        outputs.append(capsys.readouterr().out)
    assert noted[0] and not any(noted[3:])
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("cut_off", [0, -1], ids=["first-file", "last-file"])
def test_a_live_folder_with_a_half_written_line_bills_the_same_split(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cut_off: int,
    capsys: pytest.CaptureFixture[str],
) -> None:
    generate_project(tmp_path, target_bytes=1_500_000, turns=160)
    session_files = sorted(path for path in tmp_path.glob("*.jsonl"))
    live = session_files[cut_off]
    live.write_bytes(live.read_bytes() + b'{"type":"assistant","message":{"id":"msg_')
    outputs = []
    noted = _split(monkeypatch)
    for fork in (True, False):
        monkeypatch.setattr(claude_code, "can_fork", lambda fork=fork: fork)
        assert main(["bill", str(tmp_path), "--timezone", "UTC", "--json", "--calls"]) == 0
        captured = capsys.readouterr()
        outputs.append((captured.out, captured.err))
    assert noted[0]
    assert outputs[0] == outputs[1]
    assert "1 skipped: 1 half-written line" in outputs[0][1]


@pytest.mark.parametrize(
    "folder", [ROOT / "docs" / "measured" / "sessions", ROOT / "tests" / "fixtures" / "transcripts"]
)
def test_the_shipped_sessions_bill_the_same_bytes_split(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = []
    noted = _split(monkeypatch)
    for fork in (True, False):
        monkeypatch.setattr(claude_code, "can_fork", lambda fork=fork: fork)
        for argv in (["--json", "--calls"], ["--by", "thread"], ["--by", "agent", "--json"]):
            assert main(["bill", str(folder), "--timezone", "UTC", *argv]) == 0
        outputs.append(capsys.readouterr().out)
    assert noted[0]  # real sessions, read on two cores
    assert outputs[0] == outputs[1]


def _record(kind: str, session: str, uuid: str, parent: str | None, **more: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": session,
        "timestamp": f"2026-11-0{1 + len(uuid) % 9}T10:{len(uuid) % 60:02d}:00.000Z",
        **more,
    }


def _user(session: str, uuid: str, parent: str | None, *, side: bool = False) -> dict[str, Any]:
    message = {"role": "user", "content": f"question {uuid}"}
    return _record("user", session, uuid, parent, isSidechain=side, message=message)


def _reply(
    session: str,
    uuid: str,
    parent: str | None,
    ident: str,
    *,
    side: bool = False,
    request: str | None = "req",
    tokens: int = 100,
    content: Any = None,
) -> dict[str, Any]:
    usage = {
        "input_tokens": tokens,
        "output_tokens": 7,
        "cache_creation_input_tokens": 3 * tokens,
        "cache_read_input_tokens": 5 * tokens,
    }
    message = {
        "id": ident,
        "model": "claude-sonnet-4-5",
        "role": "assistant",
        "content": content or [{"type": "text", "text": f"answer {uuid}"}],
        "usage": usage,
    }
    more: dict[str, Any] = {"isSidechain": side, "message": message}
    if request is not None:
        more["requestId"] = f"{request}-{ident}"
    return _record("assistant", session, uuid, parent, **more)


def _progress(session: str, uuid: str, agent: str, ident: str, task: str) -> dict[str, Any]:
    inner = _reply(session, f"{uuid}-inner", None, ident, side=True)
    copied = {"type": "assistant", "timestamp": inner["timestamp"], "message": inner["message"]}
    data = {"type": "agent_progress", "agentId": agent, "message": copied}
    return _record("progress", session, uuid, None, parentToolUseID=task, data=data)


def _write(path: Path, records: list[Any]) -> FileSource:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r, separators=(",", ":")) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return FileSource(str(path))


def _session(path: Path, session: str, turns: int, *extra: Any) -> FileSource:
    """A session file of `turns` exchanges (each reply two lines of one response), then
    `extra` records."""
    records: list[Any] = []
    parent = None
    for turn in range(turns):
        records.append(_user(session, f"{session}-u{turn}", parent))
        ident = f"msg-{session}-{turn}"
        records.append(_reply(session, f"{session}-a{turn}", f"{session}-u{turn}", ident))
        records.append(_reply(session, f"{session}-b{turn}", f"{session}-a{turn}", ident))
        parent = f"{session}-b{turn}"
    return _write(path, [*records, *extra])


def test_a_response_recorded_in_both_parts_is_one_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _session(tmp_path / "s1.jsonl", "s1", 30)
    copy = _reply("s2", "s2-copy", None, "msg-s1-3", tokens=900)  # s1's response, larger
    second = _session(tmp_path / "s2.jsonl", "s2", 20, copy)
    split, alone, was_split = _both(monkeypatch, [first, second])
    assert was_split and split == alone
    assert len(split[0]) == 50  # 30 + 20 responses, the copy folded into s1's
    assert split[0][3].usage.input_tokens == 900  # the larger copy wins, in s1's place


def _task(session: str, tool: str, kind: str) -> dict[str, Any]:
    """A main-thread reply that starts a sub-agent of type `kind` by a `Task` call."""
    task = {"type": "tool_use", "id": tool, "name": "Task"}
    task["input"] = {"prompt": f"look {tool}", "description": "a look", "subagent_type": kind}
    return _reply(session, f"{session}-{tool}", None, f"msg-{tool}", content=[task])


def test_a_progress_copy_in_both_parts_is_held_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _progress("s1", "p1", "a1", "m-p", "toolu_1")
    first = _session(tmp_path / "s1.jsonl", "s1", 30, _task("s1", "toolu_1", "Explore"), held)
    again = _progress("s2", "p2", "a1", "m-p", "toolu_1")  # a copy of the same response
    own = _progress("s2", "p3", "a2", "m-q", "toolu_2")
    second = _session(tmp_path / "s2.jsonl", "s2", 20, _task("s2", "toolu_2", "Plan"), again, own)
    split, alone, was_split = _both(monkeypatch, [first, second])
    assert was_split and split == alone
    assert {"Explore", "Plan"} <= {agent for agent, _ in split[1]}


def test_sub_agent_files_under_a_session_join_it_split_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main_file = _session(tmp_path / "one.jsonl", "one-session", 40)
    agents = [
        _write(
            tmp_path / "one" / "subagents" / f"agent-{n}.jsonl",
            [_reply("other-id", f"g{n}-{k}", None, f"g{n}-{k}", side=True) for k in range(5)],
        )
        for n in range(3)
    ]
    later = _session(tmp_path / "two.jsonl", "two-session", 40)
    split, alone, was_split = _both(monkeypatch, [main_file, *agents, later])
    assert was_split and split == alone
    sides = {call.thread.session for call in split[0] if call.sidechain}
    assert sides == {"one"}  # the session's whose folder holds them, not their own


def test_two_files_of_one_session_cut_apart_are_read_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _session(tmp_path / "a.jsonl", "same", 30)
    second = _session(tmp_path / "b.jsonl", "same", 20)
    split, alone, was_split = _both(monkeypatch, [first, second])
    assert not was_split and split == alone


def test_parts_that_touch_are_read_on_here_and_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the child's part cannot be joined, this process reads the rest after its own
    part, as the one pass does: each file once, not its own part a second time."""
    first = _session(tmp_path / "a" / "same.jsonl", "same", 30)
    second = _session(tmp_path / "b" / "same.jsonl", "same", 20)
    walked: list[int] = []
    walk = claude_code._walk

    def noting(reader: Any, sources: Any, order: Any = None, ids: Any = None) -> Any:
        if type(reader) is claude_code._Reader:  # this process's reader, not the child's
            walked.extend(claude_code._read_order(sources) if order is None else order)
        return walk(reader, sources, order, ids)

    monkeypatch.setattr(claude_code, "_walk", noting)
    split, alone, was_split = _both(monkeypatch, [first, second])
    assert not was_split and split == alone
    assert walked == [0, 1, 0, 1]  # the split read, then the one pass it is compared with


def test_a_sidechain_whose_parent_the_first_part_holds_is_read_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    side = _user("s1", "side-root", "s1-b2", side=True)
    first = _session(tmp_path / "s1.jsonl", "s1", 30, side)
    child = _reply("s2", "side-child", "side-root", "side-msg", side=True)
    second = _session(tmp_path / "s2.jsonl", "s2", 20, child)
    split, alone, was_split = _both(monkeypatch, [first, second])
    assert not was_split and split == alone
    assert sum(1 for call in split[0] if call.thread.kind == "sidechain") == 1


@pytest.mark.parametrize("where", [0, 1])
@pytest.mark.parametrize("bad", ["not json at all", '{"type":"assistant","message":{"id":"m",'])
def test_a_line_that_is_no_record_raises_as_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: int, bad: str
) -> None:
    files = [_session(tmp_path / f"s{n}.jsonl", f"s{n}", 30 - 10 * n) for n in range(2)]
    path = Path(files[where].name)
    path.write_text(path.read_text(encoding="utf-8") + bad + "\n" + "{}\n", encoding="utf-8")
    split, alone, was_split = _both(monkeypatch, files)
    assert not was_split and split == alone
    assert split[0] is ValueError and path.name in split[1]


@pytest.mark.parametrize("where", [0, 1])
def test_a_malformed_figure_is_named_as_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: int
) -> None:
    broken = _reply(f"s{where}", "broken", None, "broken-msg", tokens=-5)
    files = [
        _session(tmp_path / f"s{n}.jsonl", f"s{n}", 30 - 10 * n, *([broken] if n == where else []))
        for n in range(2)
    ]
    split, alone, was_split = _both(monkeypatch, files)
    assert not was_split and split == alone
    assert "input_tokens" in split[-2][0].reason  # the line whose usage is refused


def test_a_read_under_the_size_is_not_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [_session(tmp_path / f"s{n}.jsonl", f"s{n}", 20) for n in range(3)]
    monkeypatch.setattr(claude_code, "SPLIT_BYTES", sum(os.path.getsize(f.name) for f in files) + 1)
    split, alone, was_split = _both(monkeypatch, files)
    assert not was_split and split == alone


def test_the_size_at_which_a_read_is_split_is_the_one_the_docs_give() -> None:
    mib = SPLIT_BYTES / 2**20
    cli = " ".join((ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8").split())
    assert f"Claude Code files of {mib:g} MiB or more, all told, are read in two parts" in cli
    source = (ROOT / "src" / "context_budget" / "sessions" / "claude_code.py").read_text("utf-8")
    assert f"(`SPLIT_BYTES`, {mib:g} MiB or more, all told)" in source


# ------------------------------------------------------------ generated folders

_IDS = st.sampled_from([f"m{n}" for n in range(12)])
_UUIDS = st.sampled_from([f"u{n}" for n in range(20)])


@st.composite
def _line(draw: st.DrawFn, session: str, agent: bool) -> Any:
    """One record of a file of `session` (a sub-agent's own when `agent`)."""
    kind = draw(st.sampled_from(["user", "reply", "reply", "side", "progress", "boundary", "odd"]))
    uuid = f"{session}-{draw(st.integers(0, 10**6))}"
    parent = draw(st.one_of(st.none(), _UUIDS))
    if kind == "user":
        return _user(session, draw(_UUIDS), parent, side=agent)
    if kind in ("reply", "side"):
        request = draw(st.sampled_from([None, "r1", "r2"]))
        tokens = draw(st.integers(0, 2_000))
        side = agent or kind == "side"
        return _reply(
            session, draw(_UUIDS), parent, draw(_IDS), side=side, request=request, tokens=tokens
        )
    if kind == "progress":
        agent_id = draw(st.sampled_from(["a1", "a2", "a3"]))
        return _progress(session, uuid, agent_id, draw(_IDS), draw(st.sampled_from(["t1", "t2"])))
    if kind == "boundary":
        return _record("system", session, uuid, parent, subtype="compact_boundary")
    return draw(
        st.sampled_from(
            [
                {"type": "summary", "summary": "s", "leafUuid": "u1"},
                _reply(session, uuid, parent, "bad", tokens=-1),
                "not a record",
                {"type": "file-history-snapshot", "messageId": "x"},
            ]
        )
    )


@st.composite
def _folder(draw: st.DrawFn, root: Path) -> list[FileSource]:
    sessions = draw(st.lists(st.sampled_from(["s1", "s2", "s3", "s4"]), min_size=2, max_size=5))
    sources = []
    for number, session in enumerate(sessions):
        lines = draw(st.lists(_line(session, False), min_size=1, max_size=12))
        if draw(st.integers(0, 5)):  # most lines that are no record left out
            lines = [line for line in lines if line != "not a record"] or [
                _user(session, "u0", None)
            ]
        sources.append(_write(root / f"{number}-{session}.jsonl", lines))
    for number in range(draw(st.integers(0, 3))):
        lines = draw(
            st.lists(_line(draw(st.sampled_from(["s1", "x"])), True), min_size=1, max_size=6)
        )
        lines = [line for line in lines if line != "not a record"] or [_user("x", "u0", None)]
        sources.append(_write(root / "sub" / f"agent-a{number + 1}.jsonl", lines))
    return draw(st.permutations(sources))


@cases(0.3)
@given(data=st.data(), share=st.floats(0.05, 0.95))
def test_any_folder_reads_the_same_split(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, share: float
) -> None:
    sources = data.draw(_folder(tmp_path_factory.mktemp("folder")))
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(claude_code, "_CHILD_SHARE", share)
        split, alone, _ = _both(monkeypatch, sources)
    assert split == alone


# ------------------------------------------------------------ calls sent between processes

_COUNT = st.integers(0, 10**7)
_USAGE = st.builds(
    Usage,
    _COUNT,
    _COUNT,
    st.just(0),
    _COUNT,
    speed=st.sampled_from(["", "fast"]),
    inference_geo=st.sampled_from(["", "us"]),
    web_search_requests=st.integers(0, 5),
)
_THREADS = st.builds(
    ThreadId,
    st.sampled_from(["", "fe5e1c67", "rollout-1"]),
    st.sampled_from(["main", "sidechain", "agent"]),
    st.integers(0, 3),
    st.sampled_from(["", "a1"]),
    st.sampled_from(["", "Explore"]),
    st.sampled_from(["", "parent"]),
)
_CALLS = st.builds(
    Call,
    _THREADS,
    st.one_of(st.none(), st.floats(0, 2e9)),
    st.text(max_size=8),
    st.one_of(_USAGE, st.builds(lambda parts: Usage(iterations=tuple(parts)), st.lists(_USAGE))),
    st.booleans(),
    st.integers(0, 4),
    st.one_of(st.none(), st.floats(0, 10)),
    st.one_of(st.none(), st.text(max_size=5)),
    st.text(max_size=5),
    st.text(max_size=5),
    st.sampled_from([None, "model_changed"]),
)


@cases(0.3)
@given(st.lists(_CALLS, max_size=6), st.data())
def test_calls_come_back_from_a_pipe_as_they_went(calls: list[Call], data: st.DataObject) -> None:
    if calls:  # some calls sharing another's usage object, as a folded call shares its line's
        donors = data.draw(st.lists(st.integers(0, len(calls) - 1), max_size=len(calls)))
        calls = [
            replace(c, usage=calls[d].usage) for c, d in zip(calls, donors, strict=False)
        ] + calls[len(donors) :]
    back = unpacked(*marshal.loads(marshal.dumps(packed(calls))))
    assert back == calls
    assert [c.thread.agent_type for c in back] == [c.thread.agent_type for c in calls]
    assert [c.thread.parent for c in back] == [c.thread.parent for c in calls]
    assert [_state(c) for c in back] == [_state(c) for c in calls]
    shared = [[a.usage is b.usage for b in calls] for a in calls]
    assert [[a.usage is b.usage for b in back] for a in back] == shared


def test_a_session_comes_back_from_a_pipe_with_its_calls_and_lines() -> None:
    thread = ThreadId("fe5e1c67")
    lines = [Call(thread, float(n), "claude-sonnet-4-5", Usage(n, 1)) for n in range(4)]
    folded = replace(lines[1], timestamp=0.5)  # a call of its own, sharing a line's usage
    session = Session("claude-code", Layers("", [], []), calls=(lines[0], folded, lines[3]))
    session = replace(session, usage_records=tuple(lines), files=("a.jsonl",))
    bare, data = packed_session(session)
    back = unpacked_session(*pickle.loads(pickle.dumps((bare, data))))
    assert back == session and back.files == ("a.jsonl",)
    assert back.calls[0] is back.usage_records[0] and back.calls[2] is back.usage_records[3]
    assert back.calls[1] is not back.usage_records[1]
    assert back.calls[1].usage is back.usage_records[1].usage


def _state(call: Call) -> list[tuple[str, type, object]]:
    """Each field of a call, its value's type and its value."""
    return [(f.name, type(v), v) for f in fields(call) for v in [getattr(call, f.name)]]


@pytest.mark.parametrize("parts", [("a", "b"), ("a", "a", "b")])
def test_sessions_whose_ids_share_their_first_part_are_named_apart_split_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parts: tuple[str, ...]
) -> None:
    """Two session ids that share their first 8 hex digits were one thread, `1af7fc5e/main`:
    named apart in one pass, and where the child reads the second, its name is the one
    one pass gives (else its part is read again)."""
    ids = [f"1af7fc5e-{n}{part * 3}-4000-8000-00000000000{n}" for n, part in enumerate(parts)]
    files = [_session(tmp_path / f"s{n}.jsonl", ident, 20 - n) for n, ident in enumerate(ids)]
    split, alone, _ = _both(monkeypatch, files)
    assert split == alone
    names = {call.thread.session for call in split[0]}
    assert names == {"1af7fc5e", *(ident[:13] for ident in ids[1:])}

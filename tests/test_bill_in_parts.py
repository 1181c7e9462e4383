"""A bill read in parts of whole sessions gives the report one pass gives, byte for byte.

Where a bill's Claude Code files are read on two cores and each part holds
whole sessions (a session file and the sub-agents' files under its folder),
each process works out its own part's figures as soon as its read ends; the
child's calls are joined to this process's only when something asks for them
(`--calls`, a view, a window, `Bill.sessions`). These tests read folders both
ways: the report is the same bytes, its figures were added up from the parts
without the calls being joined, and the calls, once joined, are the one-pass
read's. Where the parts touch (a response, a `progress` copy or a record in
both, a parent only the other part holds, a thread named in both), the bill
is worked out from the joined read, and is the same again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from forking import LINUX, split_every_read
from hypothesis import given
from hypothesis import strategies as st
from profiles import cases
from test_read_halves import _progress, _record, _reply, _user, _write

import context_budget.bills as bills
import context_budget.sessions.claude_code as claude_code
from benchmarks.bill import generate_project
from context_budget.bills import read_bill
from context_budget.cli._bill import report
from context_budget.sessions.text import Source
from context_budget.zones import UTC_ZONE

pytestmark = pytest.mark.skipif(not LINUX, reason="children are made on Linux alone")


@pytest.fixture(autouse=True, params=["forked", "here"])
def _split_every_read(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[None]:
    """Every read of two session files or more split, by a forked child or by its steps
    run here (where coverage measures them)."""
    with split_every_read(monkeypatch, claude_code, request.param):
        yield


def _reports(bill: bills.Bill) -> list[str]:
    """The bill's reports: the summary's first (before any asks for the calls), then with
    every call and by each view."""
    shown = [report(bill, zone=UTC_ZONE)]
    shown.append(report(bill, calls=True, zone=UTC_ZONE))
    shown += [report(bill, by=view, zone=UTC_ZONE) for view in ("day", "thread", "agent")]
    return [json.dumps(data) for data in shown]


def _both(folder: Path | list[Path]) -> tuple[bills.Bill, list[str], list[str], bool]:
    """(the bill read on two cores, its reports, the one-pass reports, whether its figures
    came from its parts with its calls still apart when the summary was made)."""
    paths = folder if isinstance(folder, list) else [folder]
    split = read_bill([str(path) for path in paths], lazy=True)  # the command's read
    first = report(split, zone=UTC_ZONE)
    apart = isinstance(split, bills._InParts) and "_later" in split.__dict__
    shown = [json.dumps(first), *_reports(split)[1:]]
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(claude_code, "can_fork", lambda: False)
        alone = read_bill([str(path) for path in paths])
    assert not isinstance(alone, bills._InParts)
    return split, shown, _reports(alone), apart


def test_a_generated_project_bills_the_same_in_parts(tmp_path: Path) -> None:
    generate_project(tmp_path, target_bytes=1_500_000, turns=160)
    split, shown, alone, apart = _both(tmp_path)
    assert apart  # worked out from the parts, the child's calls not joined
    assert shown == alone
    assert type(split) is bills.Bill  # joined once the calls were asked for
    again = read_bill([str(tmp_path)], lazy=True)
    assert isinstance(again, bills._InParts)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(claude_code, "can_fork", lambda: False)
        one = read_bill([str(tmp_path)])
    assert again._lines == one._lines  # a field with a default asked first: joined too
    assert again.calls == one.calls and again._origin == one._origin
    assert again.places == one.places and again.sessions_read == one.sessions_read
    assert json.loads(shown[0])["calls"] > 300


def test_calls_tied_in_time_keep_the_order_one_pass_reads_them(tmp_path: Path) -> None:
    """Calls of two sessions at the same instant: the first session's, then its sub-agent's,
    then the second's, in either part."""
    files = []
    for session in ("s1", "s2"):
        replies = [_reply(session, f"{session}-a{k}", None, f"{session}-m{k}") for k in range(4)]
        first = _user(session, f"{session}-u", None)
        files.append(_write(tmp_path / f"{session}.jsonl", [first, *replies]))
        agent = [
            _reply(session, f"{session}-g{k}", None, f"{session}-g{k}", side=True) for k in (1, 2)
        ]
        _write(tmp_path / session / "subagents" / "agent-1.jsonl", agent)
    split, shown, alone, apart = _both(tmp_path)
    assert apart and shown == alone
    threads = [call.thread.name for call in split.calls]
    assert threads.index("s1/agent-1") < threads.index("s2/main")


def _children() -> set[str]:
    """The ids of this process's child processes, as Linux lists them."""
    pid = os.getpid()
    return set(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())


def test_read_bill_gives_every_call_and_leaves_no_child_waiting(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A library user's `read_bill` of a folder read on two cores is a plain `Bill` with
    every call in it, no child left holding its part; a lazy read (the command's) keeps
    the child waiting till the calls are asked for."""
    generate_project(tmp_path, target_bytes=1_500_000, turns=160)
    before = _children()
    bill = read_bill([str(tmp_path)])
    assert type(bill) is bills.Bill and "_later" not in bill.__dict__
    assert _children() == before
    lazy = read_bill([str(tmp_path)], lazy=True)
    assert "_later" in lazy.__dict__
    if request.node.callspec.params["_split_every_read"] == "forked":
        assert _children() > before  # the child, waiting to be asked for its calls
    assert lazy.calls == bill.calls
    assert _children() == before


def test_a_held_call_tied_with_the_later_parts_call_comes_after_it(tmp_path: Path) -> None:
    """One pass holds a sub-agent call seen only in `progress` lines till every file is
    read: tied in time with the second session's call, it comes after it."""
    held = _progress("s1", "s1-p", "a1", "s1-mp", "toolu_1")  # its call's record: "s1-p-inner"
    tied = _reply("s2", "s2-a123456", None, "s2-m")  # an id as long: the same time
    assert held["data"]["message"]["timestamp"] == tied["timestamp"]
    _write(tmp_path / "s1.jsonl", [_user("s1", "s1-u", None), held])
    _write(tmp_path / "s2.jsonl", [_user("s2", "s2-u", None), tied])
    split, shown, alone, apart = _both(tmp_path)
    assert apart and shown == alone
    assert [call.thread.session for call in split.calls] == ["s2", "s1"]


def _touching(tmp_path: Path, later: list[Any], into: str = "s2") -> Path:
    """A folder of two sessions, the records of the one named `into` followed by `later`."""
    for session in ("s1", "s2"):
        records: list[Any] = [_user(session, f"{session}-u0", None)]
        for turn in range(6):
            up = f"{session}-u{turn}" if not turn else f"{session}-a{turn - 1}"
            records.append(_reply(session, f"{session}-a{turn}", up, f"{session}-m{turn}"))
        _write(tmp_path / f"{session}.jsonl", [*records, *(later if session == into else [])])
    return tmp_path


@pytest.mark.parametrize(
    ("into", "later"),
    [
        ("s2", [_reply("s2", "s2-copy", None, "s1-m3", tokens=900)]),  # a response of s1's
        ("s2", [_progress("s2", "s2-p", "a1", "s1-m2", "toolu_1")]),  # a copy of one
        ("s1", [_progress("s1", "s1-p", "a1", "s2-m2", "toolu_1")]),  # a copy of s2's
        ("s1", [_progress("s1", "s1-p", "a1", "m-p", "t1")]),  # a copy, and in s2 too
        ("s2", [_user("s2", "s1-a4", "s2-a5")]),  # a record of s1's, copied
        ("s2", [_user("s2", "s2-late", "s1-a5")]),  # a parent only s1 holds
        ("s1", [_user("s1", "s1-late", "s2-a5")]),  # a parent only s2 holds
    ],
    ids=[
        "response",
        "progress",
        "progress-first",
        "progress-both",
        "record",
        "parent",
        "parent-first",
    ],
)
def test_parts_that_touch_bill_as_one_pass_bills(
    tmp_path: Path, into: str, later: list[Any]
) -> None:
    folder = _touching(tmp_path, later, into)
    if later[0]["uuid"] == "s1-p" and later[0]["data"]["message"]["message"]["id"] == "m-p":
        with (folder / "s2.jsonl").open("a", encoding="utf-8") as file:
            file.write(json.dumps(_progress("s2", "s2-p", "a1", "m-p", "t1")) + "\n")
    _, shown, alone, apart = _both(folder)
    assert not apart and shown == alone


def test_parts_that_do_not_touch_are_not_joined(tmp_path: Path) -> None:
    """The same folders, their last records their own: worked out from the parts."""
    _, shown, alone, apart = _both(_touching(tmp_path, [_user("s2", "s2-late", "s2-a5")]))
    assert apart and shown == alone


def test_a_sub_agent_file_beside_the_sessions_is_read_whole(tmp_path: Path) -> None:
    """A sub-agent's file not under its session's folder may be either part's: the bill is
    worked out from the joined read."""
    folder = _touching(tmp_path, [])
    _write(folder / "agent-1.jsonl", [_reply("s1", "g1", None, "g1", side=True)])
    _, shown, alone, apart = _both(folder)
    assert not apart and shown == alone


def test_sessions_named_apart_only_together_are_worked_out_whole(tmp_path: Path) -> None:
    """Two sessions whose ids share their first part, in two folders: each part alone
    names its session otherwise than one pass does, and the bill is worked out from
    the joined read."""
    one = _touching(tmp_path / "a", [])
    two = tmp_path / "b"
    for path in one.glob("*.jsonl"):
        text = path.read_text(encoding="utf-8").replace('"s1', '"s1-x').replace('"s2', '"s2-x')
        (two / path.name).parent.mkdir(parents=True, exist_ok=True)
        (two / path.name).write_text(text, encoding="utf-8")
    _, shown, alone, apart = _both([one, two])
    assert not apart and shown == alone


def test_parts_that_name_a_thread_alike_are_not_added_up(tmp_path: Path) -> None:
    """Two parts whose threads share a name cannot be added up as one bill's threads
    are (by name): the bill is left to be worked out from the joined read."""
    session = read_bill([str(_touching(tmp_path, []))]).sessions_read[0]
    side = bills._side(session, len(session.calls))
    found: Any = SimpleNamespace(mine=side, theirs=side)
    assert bills._in_parts(found, (), []) is None
    first, second = bills._numbers([side, side])  # each call tied with its twin
    assert sorted(first + second) == list(range(1, 2 * len(first) + 1))
    assert all(a < b for a, b in zip(first, second, strict=True))  # the first part's first


def test_a_bill_read_in_parts_joins_its_calls_for_a_window(tmp_path: Path) -> None:
    generate_project(tmp_path, target_bytes=1_500_000, turns=160)
    split = read_bill([str(tmp_path)], lazy=True)
    assert "_later" in split.__dict__
    day = split.calls[len(split.calls) // 2].timestamp
    assert day is not None and type(split) is bills.Bill
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(claude_code, "can_fork", lambda: False)
        alone = read_bill([str(tmp_path)])
    window = split.between("2026-05-30", "2026-06-02")
    assert report(window) == report(alone.between("2026-05-30", "2026-06-02"))


# ------------------------------------------------------------ generated folders

_TURNS = st.integers(1, 8)


@st.composite
def _session_lines(draw: st.DrawFn, session: str, shared: bool, agent: bool) -> list[Any]:
    """The records of a file of `session`: their ids its own unless `shared`."""
    own = "" if shared else f"{session}-"
    lines: list[Any] = []
    parent: str | None = None
    for turn in range(draw(_TURNS)):
        kind = draw(st.sampled_from(["reply", "reply", "user", "progress", "side", "boundary"]))
        uuid = f"{own}u{draw(st.integers(0, 30))}"
        ident = f"{own}m{draw(st.integers(0, 12))}"
        if kind == "reply" or agent:
            tokens = draw(st.integers(0, 3_000))
            request = draw(st.sampled_from([None, "r1", "r2"]))
            lines.append(
                _reply(session, uuid, parent, ident, side=agent, tokens=tokens, request=request)
            )
        elif kind == "user":
            lines.append(_user(session, uuid, parent))
        elif kind == "progress":
            agent_id = draw(st.sampled_from(["a1", "a2"]))
            lines.append(_progress(session, f"{own}p{turn}", agent_id, ident, "t1"))
        elif kind == "side":
            lines.append(
                _reply(session, uuid, draw(st.sampled_from([None, parent])), ident, side=True)
            )
        else:
            lines.append(_record("system", session, uuid, parent, subtype="compact_boundary"))
        parent = uuid
    return lines or [_user(session, f"{own}u0", None)]


@st.composite
def _folder(draw: st.DrawFn, root: Path) -> Path:
    """Two to five session files (a name may come twice), each with up to two sub-agents'
    files under its folder; their ids mostly their own."""
    names = draw(st.lists(st.sampled_from(["s1", "s2", "s3", "s4", "s5"]), min_size=2, max_size=5))
    for number, session in enumerate(names):
        shared = draw(st.integers(0, 4)) == 0
        stem = f"{number}-{session}"
        lines = draw(_session_lines(session, shared, False))
        lines.append(_reply(session, f"{stem}-last", None, f"{stem}-m"))  # a call at least
        _write(root / f"{stem}.jsonl", lines)
        for agent in range(draw(st.integers(0, 2))):
            records = draw(_session_lines(session, shared, True))
            _write(root / stem / "subagents" / f"agent-{stem}-{agent}.jsonl", records)
    return root


@cases(0.3)
@given(data=st.data(), share=st.floats(0.05, 0.95))
def test_any_folder_bills_the_same_in_parts(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, share: float
) -> None:
    folder = data.draw(_folder(tmp_path_factory.mktemp("folder")))
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(claude_code, "_CHILD_SHARE", share)
        _, shown, alone, _ = _both(folder)
    assert shown == alone


def test_a_read_is_cut_between_two_folders_where_one_is_near() -> None:
    """Sessions of two projects: the cut falls between the projects, whose sessions share
    no call, where that is near the share of bytes aimed at; else at that share."""
    sizes = {"a/1.jsonl": 45, "a/2.jsonl": 10, "b/3.jsonl": 30, "b/4.jsonl": 15}
    sources = [Source(name, "x" * size) for name, size in sizes.items()]
    order = claude_code._read_order(sources)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(claude_code, "SPLIT_BYTES", 0)
        monkeypatch.setattr(claude_code, "_CHILD_SHARE", 0.53)  # 47 bytes here: b is 55 in
        assert claude_code._cut(sources, order) == 2
        monkeypatch.setattr(claude_code, "_CHILD_SHARE", 0.2)  # 80 here: b is 25 off
        assert claude_code._cut(sources, order) == 3


def test_a_part_that_bills_nothing_alone_is_worked_out_whole(tmp_path: Path) -> None:
    """A part whose sessions record no call cannot be billed alone: the bill is worked out
    from the joined read, as one pass bills it."""
    folder = _touching(tmp_path, [])
    _write(folder / "t.jsonl", [_user("t1", f"t1-u{k}", None) for k in range(40)])
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(claude_code, "_CHILD_SHARE", 0.01)  # the child: t.jsonl alone
        _, shown, alone, apart = _both(folder)
    assert not apart and shown == alone


def _growing(session: str, untimed: int) -> list[dict[str, Any]]:
    """A session's thread of four replies, each reading what the one before read and
    wrote (no rebuild), reply `untimed` with no time."""
    records: list[dict[str, Any]] = [_user(session, f"{session}-u", None)]
    parent = f"{session}-u"
    for k in range(4):
        reply = _reply(session, f"{session}-a{k}", parent, f"{session}-m{k}", tokens=100)
        usage = reply["message"]["usage"]
        usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"] = 1000 * k, 1000
        if k == untimed:  # unpriced too: the summary names its number
            del reply["timestamp"]
            reply["message"]["model"] = "a-model-with-no-price"
        else:
            reply["timestamp"] = f"2026-11-02T10:0{k}:00.000Z"
        records.append(reply)
        parent = reply["uuid"]
    return records


@pytest.mark.parametrize("untimed", [0, 1, 3])
def test_a_call_without_a_time_keeps_its_place_in_its_thread(tmp_path: Path, untimed: int) -> None:
    """Sorted last, it read less than the call before it: a rebuild that never happened."""
    for session in ("s1", "s2"):
        _write(tmp_path / f"{session}.jsonl", _growing(session, untimed))
    split, shown, alone, apart = _both(tmp_path)
    assert apart and shown == alone  # its figures from the parts: the same places
    for session in ("s1", "s2"):
        mine = [call for call in split.calls if call.thread.session == session]
        assert [call.cache_read_input_tokens for call in mine] == [0, 1000, 2000, 3000]
        assert [call.timestamp is None for call in mine] == [k == untimed for k in range(4)]
    assert split.rebuilds() == []
    numbers = json.loads(shown[0])["unpriced_call_numbers"]
    assert [split.calls[n - 1].timestamp for n in numbers] == [None, None]
    assert numbers == [n for n, call in enumerate(split.calls, 1) if call.timestamp is None]

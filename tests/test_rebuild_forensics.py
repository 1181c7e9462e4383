"""Why a prefix changed, named from the file, and the what-ifs split by what a cache choice avoids.

The fixtures use Claude Code's fields: a call's first record points at the last
message its request carried (`parentUuid`); a `<task-notification>` user line
and an `/mcp` reconnect sit in that chain like any line.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from context_budget import PRICES, pricing, read_bill
from context_budget.cli import main

SHIPPED = Path(__file__).resolve().parents[1] / "docs" / "measured" / "sessions"
SESSION = "3f0c9a2d-6b1e-4c8a-9d7f-1e2b3c4d5e6f"


def _record(kind: str, uuid: str, parent: str | None, second: int, **fields: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": SESSION,
        "timestamp": f"2026-11-30T10:00:{second:02d}.000Z",
        **fields,
    }


def _call(uuid: str, parent: str, second: int, read: int, written: int) -> dict[str, Any]:
    usage = {
        "input_tokens": 5,
        "output_tokens": 50,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": written,
    }
    message = {
        "id": f"msg_{uuid}",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "ok"}],
        "usage": usage,
    }
    return _record("assistant", uuid, parent, second, requestId=f"req_{uuid}", message=message)


def _user(uuid: str, parent: str | None, second: int, text: str) -> dict[str, Any]:
    return _record("user", uuid, parent, second, message={"role": "user", "content": text})


def _session(tmp_path: Path, middle: list[dict[str, Any]], read_after: int) -> Path:
    """A call, the `middle` lines, then a call that reads only `read_after` cached tokens."""
    last = middle[-1]["uuid"] if middle else "a1"
    lines = [
        _user("u1", None, 0, "Start."),
        _call("a1", "u1", 1, 0, 30_000),
        *middle,
        _call("a2", last, 20, read_after, 30_000 - read_after + 200),
    ]
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(json.dumps(r, separators=(",", ":")) for r in lines) + "\n")
    return path


def test_a_task_notification_before_the_call_is_named_with_its_line(tmp_path: Path) -> None:
    note = "<task-notification><task-id>b1</task-id><status>completed</status></task-notification>"
    path = _session(tmp_path, [_user("n1", "a1", 10, note)], read_after=4_000)
    (rebuild,) = read_bill(path).rebuilds()
    assert rebuild.cause == "prefix-changed"
    assert rebuild.trigger is not None and "<task-notification>" in rebuild.trigger
    assert rebuild.line == 3
    assert rebuild.partial  # the system-and-tools part was still read


@pytest.mark.parametrize(
    "shape",
    ["plain", "byte-order mark", "carriage returns", "blank lines", "half-written last line"],
)
def test_a_trigger_is_read_again_where_the_read_found_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    """The line a trigger names is read again from where the first read found it, without
    the file read whole again, and reads as the whole file read again gives it."""
    from context_budget.sessions import claude_code

    note = "<task-notification><task-id>b1</task-id><status>done</status></task-notification>"
    path = _session(tmp_path, [_user("n1", "a1", 10, note), _user("m1", "n1", 11, "More.")], 4_000)
    lines = path.read_bytes().split(b"\n")
    if shape == "carriage returns":
        lines = [line + b"\r" if line else line for line in lines]
    if shape == "blank lines":
        lines = [lines[0], b"", *lines[1:3], b"", *lines[3:]]
    if shape == "half-written last line":
        lines = [*lines[:-1], b'{"type":"assistant","uuid":"x']
    body = b"\n".join(lines)
    path.write_bytes(b"\xef\xbb\xbf" + body if shape == "byte-order mark" else body)
    with monkeypatch.context() as scanned:  # every line found again by its line feeds
        scanned.setattr(claude_code, "_line_places", lambda s, f: claude_code._LinePlaces(s))
        whole = read_bill(path).rebuilds()

    class NoScan:
        def finditer(self, *_: object) -> None:
            raise AssertionError("the file was read whole again for its line feeds")

    if shape != "half-written last line":  # a mended file's lines are found again so
        monkeypatch.setattr(claude_code, "_FEED", NoScan())
    found = read_bill(path).rebuilds()
    (rebuild,) = found
    assert found == whole and rebuild.trigger is not None and "task-notification" in rebuild.trigger
    assert rebuild.line == (4 if shape == "blank lines" else 3)


def test_an_mcp_reconnect_is_named(tmp_path: Path) -> None:
    command = _user("c1", "a1", 8, "<command-name>/mcp</command-name>")
    said = _record(
        "system", "s1", "c1", 9, subtype="local_command", content="Reconnected to github."
    )
    path = _session(tmp_path, [command, said, _user("u2", "s1", 12, "Go on.")], read_after=0)
    (rebuild,) = read_bill(path).rebuilds()
    assert rebuild.trigger is not None and "MCP reconnect" in rebuild.trigger
    assert rebuild.line == 4  # the nearest event line before the call: "Reconnected to"
    assert not rebuild.partial


def test_a_tool_list_change_is_named_with_the_tools_it_added_and_removed(tmp_path: Path) -> None:
    delta = {
        "type": "deferred_tools_delta",
        "addedNames": ["mcp__github__search_issues", "mcp__github__get_issue"],
        "removedNames": ["mcp__jira__search"],
    }
    change = _record("attachment", "t1", "a1", 9, attachment=delta)
    path = _session(tmp_path, [change, _user("u2", "t1", 12, "Go on.")], read_after=4_000)
    (rebuild,) = read_bill(path).rebuilds()
    assert rebuild.trigger is not None and "\n" not in rebuild.trigger
    assert "tool list change" in rebuild.trigger
    assert "+mcp__github__search_issues" in rebuild.trigger
    assert "-mcp__jira__search" in rebuild.trigger
    assert rebuild.line == 3


def test_an_mcp_server_joining_is_named_as_a_tool_list_change(tmp_path: Path) -> None:
    joined = {"type": "mcp_instructions_delta", "addedNames": ["context7"], "removedNames": []}
    change = _record("attachment", "t1", "a1", 9, attachment=joined)
    path = _session(tmp_path, [change, _user("u2", "t1", 12, "Go on.")], read_after=0)
    (rebuild,) = read_bill(path).rebuilds()
    assert rebuild.trigger is not None and "context7" in rebuild.trigger
    assert "tool list change" in rebuild.trigger and rebuild.line == 3
    empty = {"type": "deferred_tools_delta", "addedNames": [], "removedNames": []}
    nothing = _record("attachment", "t1", "a1", 9, attachment=empty)
    path = _session(tmp_path, [nothing, _user("u2", "t1", 12, "Go on.")], read_after=0)
    (rebuild,) = read_bill(path).rebuilds()
    assert rebuild.trigger is not None and "no message changed" in rebuild.trigger


def test_without_an_event_the_line_the_request_ended_with_is_named(tmp_path: Path) -> None:
    path = _session(tmp_path, [_user("u2", "a1", 12, "Go on.")], read_after=0)
    (rebuild,) = read_bill(path).rebuilds()
    assert rebuild.trigger is not None and "no message changed" in rebuild.trigger
    assert rebuild.line == 3


def test_every_prefix_change_in_the_shipped_sessions_names_its_trigger(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bill = read_bill(SHIPPED)
    changed = [r for r in bill.rebuilds() if r.cause == "prefix-changed"]
    assert changed
    for rebuild in changed:
        assert rebuild.trigger and "\n" not in rebuild.trigger
        assert isinstance(rebuild.line, int) and rebuild.line >= 1
    # and as `bill --json` writes them, file by file as a user would run it
    for path in sorted(SHIPPED.glob("*/*")):
        if path.name == "SOURCES":
            continue
        assert main(["bill", str(path), "--json"]) == 0
        written = json.loads(capsys.readouterr().out)["rebuilds"]
        for rebuild in (r for r in written if r["cause"] == "prefix-changed"):
            assert rebuild["trigger"] and isinstance(rebuild["line"], int), (path, rebuild)


def test_the_rebuilds_what_if_reads_only_the_avoidable_ones() -> None:
    bill = read_bill(SHIPPED)
    rebuilds = bill.rebuilds()
    causes = {r.cause for r in rebuilds}
    assert "compaction" in causes
    what_if = bill.what_if()
    avoidable = sum(r.extra_usd or 0.0 for r in rebuilds if r.cause in ("ttl", "prefix-changed"))
    forced = sum(r.extra_usd or 0.0 for r in rebuilds if r.cause in ("compaction", "model-switch"))
    assert forced > 0
    assert what_if.rebuilds_read == pytest.approx(what_if.actual - avoidable)
    assert what_if.unavoidable_rebuilds == pytest.approx(forced)


def test_the_lifetime_what_if_prices_each_thread_on_its_own_gaps() -> None:
    synthetic = SHIPPED / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
    bill = read_bill(synthetic)
    (lifetime,) = bill.lifetimes()
    what = bill.what_if()
    # every write is a 5-minute one and no call reads after a gap over 300 s: as recorded
    assert lifetime.five_minutes == pytest.approx(what.actual)
    # at 1 hour both ttl rebuilds (738 s and 1,468 s) read what they rewrote: every
    # write repriced at the 1-hour rate, less those two rewrites read instead
    price = PRICES["claude-sonnet-4-5"]
    saved = (14_300 + 14_500) * (price.write_1h - price.read) / 1e6
    repriced = 0.0
    for call in bill.calls:
        usage = call.usage  # every write a 1-hour one
        written = replace(
            usage,
            ephemeral_5m_input_tokens=0,
            ephemeral_1h_input_tokens=usage.cache_creation_input_tokens,
        )
        hour = pricing.cost(written, price)
        repriced += hour.uncached_input + hour.cache_writes + hour.cache_reads
    assert lifetime.one_hour == pytest.approx(repriced - saved)
    assert (lifetime.cheaper, round(lifetime.saving, 4)) == ("1h", 0.0503)
    # and the what-if of 1-hour writes is that advice, not the repricing alone
    assert what.all_writes_1h == lifetime.one_hour
    assert round(what.all_writes_1h, 4) == 0.1663


def test_on_short_gaps_five_minute_writes_are_cheaper() -> None:
    bill = read_bill(SHIPPED / "sample-project" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    main = next(life for life in bill.lifetimes() if life.thread.name == "fe5e1c67/main")
    assert main.cheaper == "5m" and main.saving > 0

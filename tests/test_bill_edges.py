"""The bill's edges: a part priced, a window of recorded costs, the page's target, bounds, years.

Each case is an input a user can give that once printed the wrong figure or a
traceback: one fast-mode call on a model with no fast rate hid every other
call's dollars; a window kept the whole file's recorded cost; `--html` could
overwrite the session it billed; `Bill.between` took a datetime for a later
day and a string for an error; times on the first and last day of the
calendar were refused.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from context_budget import read_bill
from context_budget.cli import main
from context_budget.sessions import detect

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"

#: 5 uncached, 20,000 read, 1,000 written for 5 minutes, 300 output.
USAGE = {
    "input_tokens": 5,
    "output_tokens": 300,
    "cache_read_input_tokens": 20_000,
    "cache_creation_input_tokens": 1_000,
    "cache_creation": {"ephemeral_5m_input_tokens": 1_000, "ephemeral_1h_input_tokens": 0},
}


@pytest.fixture(autouse=True)
def _far_from_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's zone 14 hours from UTC: a check that forgets to name its zone fails."""
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")


def _line(number: int, at: str, model: str = "claude-opus-4-5", **usage: Any) -> str:
    record = {
        "type": "assistant",
        "uuid": f"u{number}",
        "parentUuid": f"u{number - 1}" if number > 1 else None,
        "sessionId": "5e55a0a0-0000",
        "timestamp": at,
        "requestId": f"req{number}",
        "message": {
            "id": f"msg{number}",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "ok"}],
            "usage": {**USAGE, **usage},
        },
    }
    return json.dumps(record, separators=(",", ":")) + "\n"


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main(["bill", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ---------------------------------------------------------------- a part priced


def _fast_session(tmp_path: Path) -> Path:
    """Three calls on Opus 4.5 (no fast-mode rate), the second in fast mode."""
    path = tmp_path / "5e55a0a0-0000.jsonl"
    path.write_text(
        _line(1, "2026-03-02T09:00:00Z")
        + _line(2, "2026-03-02T09:01:00Z", speed="fast")
        + _line(3, "2026-03-02T09:02:00Z"),
        encoding="utf-8",
    )
    return path


def test_one_unpriced_fast_call_leaves_the_others_priced_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _fast_session(tmp_path)
    bill = read_bill(path)
    status, out, _ = _run(capsys, path, "--json", "--timezone", "UTC", "--by", "model")
    data = json.loads(out)
    assert status == 0
    assert bill.unpriced_calls() == (2,)
    assert data["cost_usd"] == round(bill.cost().total, 6) and data["cost_usd"] > 0
    assert data["unpriced_models"] == ["claude-opus-4-5 (fast)"]
    assert (data["unpriced_calls"], data["unpriced_call_numbers"]) == (1, [2])
    (group,) = data["groups"]
    assert group["cost_usd"] == data["cost_usd"] and group["unpriced_calls"] == 1


def test_one_unpriced_fast_call_is_named_in_the_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, _fast_session(tmp_path))
    assert status == 0
    assert "no call is on a model with a list price" not in out
    cost = next(line for line in out.splitlines() if line.startswith("cost: "))
    assert cost.startswith("cost: $0.0")
    unpriced = next(line for line in out.splitlines() if "not priced" in line)
    assert unpriced.endswith("claude-opus-4-5 (fast); 1 call: 2")


def test_a_group_with_no_priced_call_is_null_and_a_mixed_one_counts_its_unpriced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A day of an unpriced model beside a day of priced calls, one of them fast."""
    path = tmp_path / "5e55a0a0-0000.jsonl"
    path.write_text(
        _line(1, "2026-03-01T09:00:00Z", model="imaginary-9")
        + _line(2, "2026-03-02T09:00:00Z")
        + _line(3, "2026-03-02T09:01:00Z", speed="fast"),
        encoding="utf-8",
    )
    status, out, _ = _run(capsys, path, "--json", "--by", "day", "--timezone", "UTC")
    days = {g["key"]: g for g in json.loads(out)["groups"]}
    assert status == 0
    assert (days["2026-03-01"]["cost_usd"], days["2026-03-01"]["unpriced_calls"]) == (None, 1)
    assert days["2026-03-02"]["cost_usd"] > 0 and days["2026-03-02"]["unpriced_calls"] == 1
    _, text, _ = _run(capsys, path, "--by", "day", "--timezone", "UTC")
    row = next(line for line in text.splitlines() if line.startswith("2026-03-01"))
    assert row.split()[-2:] == ["unpriced", "1"]


def test_every_group_carries_its_cache_read_share(capsys: pytest.CaptureFixture[str]) -> None:
    bill = read_bill(SYNTHETIC)
    for by in ("day", "week", "month", "model", "thread"):
        status, out, _ = _run(capsys, SYNTHETIC, "--json", "--by", by, "--timezone", "UTC")
        (group,) = json.loads(out)["groups"]
        assert status == 0 and group["cache_read_share"] == round(bill.cache_read_share, 4)
    _, text, _ = _run(capsys, SYNTHETIC, "--by", "day", "--timezone", "UTC")
    head = next(line for line in text.splitlines() if line.startswith("day (UTC)"))
    row = next(line for line in text.splitlines() if line.startswith("2026-03-02"))
    assert "hit rate" in head and f"{bill.cache_read_share:.1%}" in row.split()


# ---------------------------------------------------------------- recorded cost, windowed


def _two_day_trajectory(tmp_path: Path, per_call: bool) -> Path:
    """The shipped trajectory with its calls spread over two days; per-call costs kept or not."""
    data = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    start = datetime(2026, 3, 1, 12, tzinfo=UTC).timestamp()
    calls = [m for m in data["messages"] if m.get("role") == "assistant"]
    for number, message in enumerate(calls):
        message["extra"]["timestamp"] = start + (86_400 if number >= len(calls) // 2 else 0)
        if not per_call:
            message["extra"].pop("cost", None)
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_window_keeps_the_recorded_cost_of_its_own_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _two_day_trajectory(tmp_path, per_call=True)
    bill = read_bill(path)
    second = bill.between(date(2026, 3, 2))
    assert len(second.calls) == len(bill.calls) // 2
    expected = sum(call.recorded_cost or 0.0 for call in second.calls)
    assert second.recorded_cost == pytest.approx(expected)
    assert second.recorded_cost < 0.9 * (bill.recorded_cost or 0.0)
    window = ["--since", "2026-03-02", "--timezone", "UTC", "--json"]
    status, out, _ = _run(capsys, path, *window)
    data = json.loads(out)
    assert status == 0 and data["recorded_cost_usd"] == round(expected, 6)
    assert data["recorded_cost_reason"] is None


def test_a_window_of_a_file_that_records_only_its_total_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _two_day_trajectory(tmp_path, per_call=False)
    bill = read_bill(path)
    assert bill.recorded_cost is not None  # the run's total, instance_cost
    second = bill.between("2026-03-02")
    assert second.recorded_cost is None and "only its total" in (second.recorded_cost_reason or "")
    assert bill.between("2026-03-01", "2026-03-02").recorded_cost == bill.recorded_cost
    status, out, _ = _run(capsys, path, "--since", "2026-03-02", "--timezone", "UTC", "--json")
    data = json.loads(out)
    assert status == 0 and data["recorded_cost_usd"] is None
    assert "only its total" in data["recorded_cost_reason"]
    _, text, _ = _run(capsys, path, "--since", "2026-03-02", "--timezone", "UTC")
    assert "cost the file recorded itself: unknown (the window cuts a file" in text


def test_a_recorded_cost_says_how_many_calls_it_covers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trajectory that records its cost beside a Claude Code session that records none:
    the text said `cost the file recorded itself: $…` as if for every call."""
    trajectory = _two_day_trajectory(tmp_path, per_call=True)
    session = tmp_path / SYNTHETIC.name
    session.write_bytes(SYNTHETIC.read_bytes())
    alone = read_bill(trajectory)
    both = read_bill([trajectory, session])
    assert both.recorded_cost == alone.recorded_cost
    assert (both.recorded_calls(), len(both.calls)) == (len(alone.calls), len(alone.calls) + 10)
    assert alone.recorded_calls() == len(alone.calls) and read_bill(session).recorded_calls() == 0
    status, out, _ = _run(capsys, trajectory, session, "--timezone", "UTC", "--json")
    assert status == 0 and json.loads(out)["recorded_cost_calls"] == len(alone.calls)
    _, text, _ = _run(capsys, trajectory, session, "--timezone", "UTC")
    said = f"cost the files recorded themselves, for the {len(alone.calls)} of the "
    assert said + f"{len(both.calls)} calls in files that record one: $" in text


# ---------------------------------------------------------------- the page's target


@pytest.mark.parametrize("how", ["same", "dotted", "linked", "in the folder"])
def test_the_page_never_overwrites_a_file_the_bill_reads(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    session = folder / "5e55a0a0-0000.jsonl"
    session.write_bytes(SYNTHETIC.read_bytes())
    before = session.read_bytes()
    monkeypatch.chdir(folder)
    billed, target = {
        "same": (session, session),
        "dotted": (session.name, f"./{session.name}"),
        "linked": (session, tmp_path / "link.jsonl"),
        "in the folder": (folder, Path("..") / "project" / session.name),
    }[how]
    if how == "linked":
        os.symlink(session, target)
    status, out, err = _run(capsys, billed, "--html", target)
    assert status == 2 and out == ""
    assert err.startswith("context-budget: error: --html ") and err.count("\n") == 1
    assert "a file the bill reads" in err
    assert session.read_bytes() == before


@pytest.mark.parametrize("command", ["bill", "whatif"])
def test_the_page_never_overwrites_an_event_file_of_a_conversation(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An OpenHands conversation is read from its state file and the event files beside
    it; `bill FOLDER --html <an event file>` wrote the page over that event."""
    fixtures = Path(__file__).resolve().parent / "fixtures" / "transcripts"
    folder = tmp_path / "conversations"
    shutil.copytree(fixtures / "openhands-conversation", folder)
    (event, *_) = sorted(folder.glob("*/events/event-*.json"))
    before = event.read_bytes()
    zone = ["--timezone", "UTC"] if command == "bill" else []
    status = main([command, str(folder), "--html", str(event), *zone])
    err = capsys.readouterr().err
    assert status == 2 and "a file the bill reads" in err and err.count("\n") == 1
    assert event.read_bytes() == before


def test_a_page_beside_the_sessions_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / SYNTHETIC.name).write_bytes(SYNTHETIC.read_bytes())
    status, _, _ = _run(capsys, folder, "--html", folder / "bill.html", "--timezone", "UTC")
    assert status == 0 and (folder / "bill.html").read_text(encoding="utf-8").startswith("<!doc")


@pytest.mark.parametrize("target", ["", ".", "pipe.html"])
def test_a_page_target_that_is_no_file_is_one_line_and_left_as_it_was(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    os.mkfifo("pipe.html")  # as a device such as /dev/null: never renamed over
    status, out, err = _run(capsys, SYNTHETIC, "--html", target, "--timezone", "UTC")
    assert status == 2 and out == ""
    assert err.startswith("context-budget: error: ") and err.count("\n") == 1
    assert "cannot write the page" in err
    assert Path("pipe.html").is_fifo() and os.listdir(tmp_path) == ["pipe.html"]


@pytest.mark.parametrize("folder", [".", "./"])
@pytest.mark.parametrize("command", ["bill", "whatif"])
def test_a_page_for_the_folder_one_is_in_is_written(
    folder: str,
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`bill . --html ../bill.html` in a project folder ended in a traceback (`.` has no
    name, so no sibling `.meta.json` to look for)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / SYNTHETIC.name).write_bytes(SYNTHETIC.read_bytes())
    monkeypatch.chdir(project)
    status = main([command, folder, "--html", "../bill.html"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert captured.out.endswith("page: ../bill.html\n")
    assert (tmp_path / "bill.html").read_text(encoding="utf-8").startswith("<!doc")


def test_a_lone_surrogate_in_a_model_name_is_written_escaped_on_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON may escape half a surrogate pair (`"\\ud800"`); the page's UTF-8 could not hold
    it, and `bill --html` ended in a traceback."""
    path = tmp_path / "5e55a0a0-0000.jsonl"
    path.write_text(_line(1, "2026-03-02T09:00:00Z", model="claude-opus-4-5\ud800"), "utf-8")
    page = tmp_path / "bill.html"
    status, out, err = _run(capsys, path, "--html", page, "--timezone", "UTC")
    assert status == 0, err
    assert "claude-opus-4-5\\ud800" in out and "claude-opus-4-5\\ud800" in page.read_text("utf-8")


# ---------------------------------------------------------------- Bill.between's bounds


def test_between_takes_a_datetime_as_an_instant_and_a_string_as_a_day() -> None:
    bill = read_bill(SYNTHETIC)  # 10 calls on 2026-03-02, from 09:00:02 to 09:40:00 UTC
    assert len(bill.between(date(2026, 3, 2)).calls) == 10
    assert len(bill.between(datetime(2026, 3, 2)).calls) == 10  # midnight, UTC
    assert len(bill.between("2026-03-02").calls) == 10
    assert len(bill.between(datetime(2026, 3, 2, 9, 20, tzinfo=UTC)).calls) == 1
    assert len(bill.between(until="2026-03-02T09:13:00Z").calls) == 4
    paris = timezone(timedelta(hours=1))
    assert len(bill.between(datetime(2026, 3, 2, 10, 20), zone="Europe/Paris").calls) == 1
    assert len(bill.between(until=datetime(2026, 3, 2, 10, 13, tzinfo=paris)).calls) == 4
    assert len(bill.between("2026-03-03", zone="Pacific/Kiritimati").calls) == 0
    assert len(bill.between("2026-03-02", "2026-03-02", zone="Pacific/Kiritimati").calls) == 10


@pytest.mark.parametrize("day", ["20260302", "2026-W10-1", "2026W101"])
def test_every_iso_form_of_a_day_is_a_whole_day(day: str) -> None:
    """A day in ISO 8601's basic or week form was read as its midnight, an instant: as
    `until` it left out the whole day it names."""
    bill = read_bill(SYNTHETIC)  # 10 calls on 2026-03-02, a Monday
    assert len(bill.between(until=day).calls) == 10
    assert len(bill.between(day, day).calls) == 10


@pytest.mark.parametrize(
    ("since", "error", "said"),
    [
        ("yesterday", ValueError, "since must be a day (YYYY-MM-DD) or an ISO time"),
        ("2026-02-30", ValueError, "since must be a day"),
        (20260302, TypeError, "since must be a date, a datetime or a string, got 20260302"),
        ([2026, 3, 2], TypeError, "since must be a date"),
    ],
)
def test_a_bound_between_cannot_read_is_named(since: object, error: type, said: str) -> None:
    with pytest.raises(error, match=said.replace("(", r"\(").replace(")", r"\)")):
        read_bill(SYNTHETIC).between(since)  # type: ignore[arg-type]


def test_an_unknown_zone_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        read_bill(SYNTHETIC).groups("day", zone="Mars/Olympus")


# ---------------------------------------------------------------- the calendar's edges


def _edges(tmp_path: Path) -> Path:
    path = tmp_path / "5e55a0a0-0000.jsonl"
    path.write_text(
        _line(1, "0001-01-01T00:00:00Z")
        + _line(2, "2026-03-02T09:00:00Z")
        + _line(3, "9999-12-31T23:00:00Z")
        + _line(4, "9999-12-31T23:59:59.999Z"),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("zone", "days"),
    [
        ("UTC", ["0001-01-01", "2026-03-02", "9999-12-31"]),
        ("Europe/Paris", ["0001-01-01", "2026-03-02", "10000-01-01"]),
        ("America/New_York", ["0000-12-31", "2026-03-02", "9999-12-31"]),
    ],
)
def test_the_first_and_last_days_of_the_calendar_are_read_in_any_zone(
    zone: str, days: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _edges(tmp_path)
    bill = read_bill(path)
    assert len(bill.calls) == 4
    assert [g.key for g in bill.groups("day", zone=zone)] == days
    for by in ("day", "week", "month"):
        status, out, err = _run(capsys, path, "--by", by, "--calls", "--timezone", zone)
        assert status == 0, err
        assert "9999-12-31T23:59:59Z" in out and "0001-01-01T00:00:00Z" in out
    status, out, _ = _run(capsys, path, "--json", "--by", "day", "--timezone", zone)
    assert [g["key"] for g in json.loads(out)["groups"]] == days
    html = tmp_path / "edges.html"
    assert _run(capsys, path, "--html", html, "--timezone", zone)[0] == 0
    status, out, _ = _run(capsys, path, "--until", "9999-12-31", "--timezone", zone, "--json")
    assert status == 0 and json.loads(out)["calls"] == (2 if zone == "Europe/Paris" else 4)


# ---------------------------------------------------------------- --timezone


def test_days_follow_the_zone_named(capsys: pytest.CaptureFixture[str]) -> None:
    """The synthetic session runs 09:00 to 09:40 UTC: the next day east of +14:20."""
    status, out, _ = _run(capsys, SYNTHETIC, "--json", "--by", "day", "--timezone", "UTC")
    assert [g["key"] for g in json.loads(out)["groups"]] == ["2026-03-02"]
    status, out, _ = _run(capsys, SYNTHETIC, "--json", "--by", "day")  # the machine's: TZ
    data = json.loads(out)
    assert status == 0
    assert data["timezone"] == "Pacific/Kiritimati"
    assert [g["key"] for g in data["groups"]] == ["2026-03-02"]  # 23:00 to 23:40 there
    status, out, _ = _run(capsys, SYNTHETIC, "--by", "day", "--timezone", "Asia/Tokyo")
    assert status == 0
    assert next(line for line in out.splitlines() if line.startswith("day (Asia/Tokyo)"))


def test_a_los_angeles_afternoon_in_winter_is_that_day_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "5e55a0a0-0000.jsonl"
    path.write_text(_line(1, "2026-01-15T16:30:00-08:00"), encoding="utf-8")
    for zone, day, week, month in (
        ("UTC", "2026-01-16", "2026-01-12", "2026-01"),
        ("America/Los_Angeles", "2026-01-15", "2026-01-12", "2026-01"),
    ):
        for by, key in (("day", day), ("week", week), ("month", month)):
            status, out, _ = _run(capsys, path, "--json", "--by", by, "--timezone", zone)
            assert status == 0
            assert [g["key"] for g in json.loads(out)["groups"]] == [key], (zone, by)


@pytest.mark.parametrize("name", ["Mars/Olympus", "europe/paris", "../../etc/passwd", ""])
def test_an_unknown_zone_is_one_line_and_exit_2(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _run(capsys, SYNTHETIC, "--timezone", name)
    assert status == 2 and out == ""
    assert err.startswith("context-budget: error: --timezone: ") and err.count("\n") == 1


def test_without_a_zone_database_the_command_says_so_and_counts_in_utc(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in the browser's Python, which has no zone files: a named zone falls back to UTC."""
    import context_budget.cli._bill as bill_command
    import context_budget.zones as zones

    def nothing(name: str) -> zones.Zone:
        if name == "UTC":
            return zones.UTC_ZONE
        raise ValueError("no time zone database in this Python")

    monkeypatch.setattr(bill_command, "find_zone", nothing)
    monkeypatch.setattr(bill_command, "has_zone_database", lambda: False)
    status, out, err = _run(capsys, SYNTHETIC, "--json", "--by", "day", "--timezone", "Asia/Tokyo")
    assert status == 0 and json.loads(out)["timezone"] == "UTC"
    assert err == (
        "context-budget: warning: no time zone database in this Python: --timezone "
        "'Asia/Tokyo' cannot be read, days are in UTC\n"
    )


def test_a_bill_made_by_hand_is_windowed_too() -> None:
    """A `Bill` built from calls alone (no sessions read): its total is kept when the window
    keeps every call, and said to be unknown when it cuts calls that record no cost."""
    from context_budget import Bill

    read = read_bill(SYNTHETIC)
    bill = Bill(calls=read.calls, format="claude-code", recorded_cost=1.0)
    assert bill.between("2026-03-02").recorded_cost == 1.0
    early = bill.between(until="2026-03-02T09:13:00Z")
    assert len(early.calls) == 4 and early.recorded_cost is None
    assert "only its total" in (early.recorded_cost_reason or "")


def test_bounds_of_two_kinds_are_compared_and_an_unreadable_instant_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time

    from context_budget.zones import Zone

    bill = read_bill(SYNTHETIC)
    with pytest.raises(ValueError, match="is after until"):
        bill.between("2026-03-03", "2026-03-02T12:00:00Z")
    assert len(bill.between("2026-03-02", "2026-03-02T09:13:00Z").calls) == 4
    monkeypatch.setenv("TZ", "JST-9")  # a zone the C library reads, no database name
    time.tzset()
    try:
        with pytest.raises(ValueError, match=r"since: .* is no instant this machine can read"):
            bill.between(datetime(1, 1, 1), zone=Zone("JST-9", None))
    finally:
        monkeypatch.undo()
        time.tzset()


def test_the_browser_s_python_says_its_days_are_utc(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.delenv("TZ")
    monkeypatch.setattr(sys, "platform", "emscripten")
    status, out, err = _run(capsys, SYNTHETIC, "--json")
    assert status == 0 and err == ""  # no day in the output: nothing to say
    status, out, err = _run(capsys, SYNTHETIC, "--json", "--by", "week")
    assert status == 0 and json.loads(out)["timezone"] == "UTC"
    assert err == (
        "context-budget: warning: this Python cannot see the machine's time zone: days are in UTC\n"
    )


# ---------------------------------------------------------------- a folder's files


def test_each_file_is_billed_once_however_it_is_reached(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    session = folder / SYNTHETIC.name
    session.write_bytes(SYNTHETIC.read_bytes())
    os.symlink(folder, tmp_path / "linked")  # the folder again, through a link
    os.symlink(session, tmp_path / "alias.jsonl")  # the file again, through a link
    assert detect._files([folder, tmp_path / "linked", tmp_path / "alias.jsonl", session]) == [
        session
    ]
    once = read_bill(folder)
    again = read_bill([tmp_path / "linked", folder, tmp_path / "alias.jsonl", session])
    assert len(again.calls) == len(once.calls) and again.tokens() == once.tokens()


@pytest.mark.parametrize("wide", ["first", "last", "both", "neither"])
def test_a_glance_at_lines_longer_than_it_reads_at_first_tells_what_reading_tells(
    tmp_path: Path, wide: str
) -> None:
    lines = SYNTHETIC.read_text(encoding="utf-8").splitlines()
    padding = "x" * (3 * detect._GLANCE_BYTES)
    first, last = json.loads(lines[0]), json.loads(lines[-1])
    if wide in ("first", "both"):
        first["padding"] = padding
    if wide in ("last", "both"):
        last["padding"] = padding
    path = tmp_path / SYNTHETIC.name
    path.write_text("\n".join([json.dumps(first), *lines[1:-1], json.dumps(last)]) + "\n")
    assert detect._glance(path, "auto") == "claude-code"
    path.write_text("\n".join([json.dumps(first), *lines[1:-1], json.dumps(last)[:-9]]) + "\n")
    assert detect._glance(path, "auto") is None  # the last line cut: read whole


def test_writing_the_page_reads_no_conversation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's target was checked against the files the sessions read by reading every
    session's conversation again (a second read of the whole folder); their names are
    known from the bill's own read."""
    from context_budget.sessions import Session

    def refused(self: Session) -> Session:
        raise AssertionError("the conversation was read")

    monkeypatch.setattr(Session, "with_messages", refused)
    page = tmp_path / "bill.html"
    status, _, err = _run(capsys, SESSIONS, "--html", page, "--timezone", "UTC")
    assert status == 0, err
    assert page.read_text(encoding="utf-8").startswith("<!doc")
    status, _, err = _run(capsys, SESSIONS, "--html", SYNTHETIC, "--timezone", "UTC")
    assert status == 2 and "a file the bill reads" in err


@pytest.mark.parametrize(
    ("zone", "error", "said"),
    [("Nope/x", ValueError, "unknown time zone 'Nope/x'"), (5, TypeError, "got 5")],
)
def test_a_bad_zone_is_refused_with_no_bound_too(zone: Any, error: type, said: str) -> None:
    """The zone was read only when a bound was given: without one, any value passed."""
    bill = read_bill(SYNTHETIC)
    with pytest.raises(error, match=said):
        bill.between(zone=zone)
    assert bill.between(zone="UTC") is bill


def test_figures_of_what_is_no_bill_names_it() -> None:
    """It failed on a missing attribute of the value given."""
    from context_budget.bills import figures_of

    with pytest.raises(TypeError, match="bill must be a Bill, got None"):
        figures_of(None)  # type: ignore[arg-type]

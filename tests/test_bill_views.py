"""Views of a bill: `--by` tables, `--since`/`--until`, and a summary that stays readable."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from context_budget import read_bill
from context_budget.bills import VIEWS
from context_budget.cli import main
from context_budget.cli._bill import SHOWN

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
PROJECT = SESSIONS / "sample-project"
SYNTHETIC = SESSIONS / "synthetic"
FE5E = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
SMALL = PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"


@pytest.fixture(autouse=True)
def _far_from_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's zone 14 hours from UTC: a check that forgets to name its zone fails."""
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["bill", *argv, "--timezone", "UTC", "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


@pytest.mark.parametrize("by", VIEWS)
def test_every_view_adds_up_to_the_whole(by: str) -> None:
    bill = read_bill([PROJECT, SYNTHETIC])
    groups = bill.groups(by)
    assert sum(g.calls for g in groups) == len(bill.calls)
    for kind, total in bill.tokens().items():
        assert sum(g.tokens[kind] for g in groups) == total
    assert sum(g.cost for g in groups) == pytest.approx(bill.cost().total, abs=1e-9)
    assert len({g.key for g in groups}) == len(groups)


def test_the_day_and_project_views_name_what_the_files_hold() -> None:
    """A project is the working folder a session started in: the synthetic Claude Code
    session and the Codex rollout, both run in `/synthetic/project`, are one project
    (read from their folders, they were two: `synthetic` and `/synthetic/project`);
    a session that moved to another folder later (`/path/to/Demo/todo-app`) stays in
    the one it started in."""
    bill = read_bill([PROJECT, SYNTHETIC])
    assert [g.key for g in bill.groups("day")] == ["2025-09-03", "2025-09-07", "2026-03-02"]
    assert [(g.key, g.calls) for g in bill.groups("project")] == [
        ("/path/to/Demo", 199),
        ("/synthetic/project", 14),
    ]


def test_a_session_is_its_whole_id_sub_agent_files_included() -> None:
    groups = read_bill(PROJECT).groups("session")
    assert [g.key for g in groups] == [
        FE5E,
        "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
        "1af7fc5e-8455-4414-9ccd-011d40f70b2a",
    ]
    assert groups[0].calls == len(read_bill(PROJECT / f"{FE5E}.jsonl").calls)


def test_a_trajectorys_session_is_its_id_without_the_files_suffixes() -> None:
    """`<id>.traj.json` is the session `<id>`, as its thread names it, in every format's file."""
    bill = read_bill(SESSIONS)
    sessions = {call.thread.session for call in bill.calls}
    keys = [group.key for group in bill.groups("session")]
    assert "astropy__astropy-12907" in sessions and "astropy__astropy-12907" in keys
    for key in keys:
        assert "." not in key and any(key.startswith(session) for session in sessions), key


def _without_cwd(source: Path, target: Path) -> None:
    """`source`'s lines written to `target` with no `cwd`: a file that names no folder."""
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line.pop("cwd", None)
    target.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_a_project_whose_files_name_no_folder_is_the_folder_under_projects(
    tmp_path: Path,
) -> None:
    folder = tmp_path / ".claude" / "projects" / "-home-me-demo" / FE5E / "subagents"
    folder.mkdir(parents=True)
    _without_cwd(PROJECT / f"{FE5E}.jsonl", folder.parent.parent / f"{FE5E}.jsonl")
    _without_cwd(PROJECT / "agent-test-hash-123.jsonl", folder / "agent-test-hash-123.jsonl")
    groups = read_bill(tmp_path / ".claude" / "projects").groups("project")
    assert [g.key for g in groups] == ["-home-me-demo"]


def test_a_sub_agent_started_after_a_cd_is_in_its_sessions_project(tmp_path: Path) -> None:
    """A sub-agent started once the session had moved to another folder names that folder;
    its calls are still its session's project, not a row of their own."""
    folder = tmp_path / "demo" / FE5E / "subagents"
    folder.mkdir(parents=True)
    (folder.parent.parent / f"{FE5E}.jsonl").write_bytes((PROJECT / f"{FE5E}.jsonl").read_bytes())
    agent = (PROJECT / "agent-test-hash-123.jsonl").read_text(encoding="utf-8")
    moved = agent.replace('"cwd":"/path/to/Demo"', '"cwd":"/path/to/Demo/todo-app"')
    assert moved != agent
    (folder / "agent-test-hash-123.jsonl").write_text(moved, encoding="utf-8")
    groups = read_bill(tmp_path / "demo").groups("project")
    assert [g.key for g in groups] == ["/path/to/Demo"]


def test_a_sub_agent_file_under_its_session_is_in_the_sessions_project(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "projects" / "-home-me-demo" / FE5E / "subagents"
    folder.mkdir(parents=True)
    main_file = folder.parent.parent / f"{FE5E}.jsonl"
    main_file.write_bytes((PROJECT / f"{FE5E}.jsonl").read_bytes())
    (folder / "agent-test-hash-123.jsonl").write_bytes(
        (PROJECT / "agent-test-hash-123.jsonl").read_bytes()
    )
    groups = read_bill(tmp_path / ".claude" / "projects").groups("project")
    assert [g.key for g in groups] == ["/path/to/Demo"]


def test_json_groups_add_up_to_cost_usd_after_rounding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three calls of 4 read tokens each: $0.0000012 apiece, $0.0000036 in all."""
    lines = [
        {
            "type": "assistant",
            "sessionId": "abcd1234-0000",
            "timestamp": f"2026-01-0{day}T00:00:00Z",
            "requestId": f"r{day}",
            "message": {
                "id": f"m{day}",
                "model": "claude-sonnet-4-6",
                "usage": {"input_tokens": 0, "cache_read_input_tokens": 4, "output_tokens": 0},
            },
        }
        for day in (1, 2, 3)
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    data = _json(capsys, str(path), "--by", "day")
    costs = [g["cost_usd"] for g in data["groups"]]
    assert data["cost_usd"] == 0.000004
    assert sum(round(g.cost, 6) for g in read_bill(path).groups("day")) != pytest.approx(4e-6)
    assert round(sum(costs), 6) == data["cost_usd"] and all(round(c, 6) == c for c in costs)


@pytest.mark.parametrize("by", VIEWS)
def test_json_keeps_its_keys_and_adds_groups(by: str, capsys: pytest.CaptureFixture[str]) -> None:
    plain = _json(capsys, str(PROJECT))
    grouped = _json(capsys, str(PROJECT), "--by", by)
    assert "groups" not in plain and set(plain) <= set(grouped)
    keys = {"key", "calls", "tokens", "cost_usd", "unpriced_calls", "cache_read_share"}
    assert all(set(g) == keys for g in grouped["groups"])
    assert round(sum(g["cost_usd"] for g in grouped["groups"]), 6) == grouped["cost_usd"]


def test_the_table_is_sorted_with_a_totals_row(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bill", str(PROJECT), str(SYNTHETIC), "--by", "day", "--timezone", "UTC"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(k for k, line in enumerate(lines) if line.startswith("day (UTC) "))
    days = [line.split()[0] for line in lines[head + 1 : head + 4]]
    assert days == sorted(days) and lines[head + 4].startswith("---")
    total = lines[head + 5].split()
    assert total[0] == "total" and total[1] == "213"
    shown = sum(float(line.split()[-1].strip("$")) for line in lines[head + 1 : head + 4])
    assert f"${shown:.4f}" == total[-1]


def test_since_and_until_keep_the_calls_of_those_days(capsys: pytest.CaptureFixture[str]) -> None:
    bill = read_bill([PROJECT, SYNTHETIC])
    window = bill.between(date(2025, 9, 4), date(2026, 3, 2))
    assert len(window.calls) == 20 + 14
    assert window.groups("day")[0].key == "2025-09-07"
    data = _json(capsys, str(PROJECT), str(SYNTHETIC), "--since", "2026-03-02")
    assert data["calls"] == 14 and data["rebuilds"] == _json(capsys, str(SYNTHETIC))["rebuilds"]
    assert _json(capsys, str(PROJECT), "--until", "2025-09-03")["calls"] == 179


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--since", "2025-13-01"], "--since must be a day as YYYY-MM-DD, got '2025-13-01'"),
        (["--until", "yesterday"], "--until must be a day as YYYY-MM-DD, got 'yesterday'"),
        (["--since", "20250903"], "--since must be a day as YYYY-MM-DD, got '20250903'"),
        (["--since", "2025-09-08", "--until", "2025-09-01"], "is after --until 2025-09-01"),
        (["--since", "2030-01-01"], "no call from 2030-01-01 to the last"),
    ],
)
def test_a_bad_or_empty_window_is_one_line_exit_2(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bill", str(PROJECT), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("context-budget: error: ") and said in captured.err


def test_the_summary_stays_readable_with_many_threads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """400 sessions of one call each: the threads line names the top ones, then a count."""
    lines = []
    for k in range(400):
        usage = {"input_tokens": 5, "cache_read_input_tokens": 0, "output_tokens": k + 1}
        lines.append(
            {
                "type": "assistant",
                "sessionId": f"{k:08x}-0000",
                "timestamp": "2026-01-01T00:00:00Z",
                "requestId": f"r{k}",
                "message": {"id": f"m{k}", "model": "claude-sonnet-4-6", "usage": usage},
            }
        )
    for k in range(400):
        path = tmp_path / f"{k:08x}-0000.jsonl"
        path.write_text(json.dumps(lines[k]) + "\n", encoding="utf-8")
    assert main(["bill", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    threads = next(line for line in out.splitlines() if line.startswith("threads:"))
    assert threads.startswith("threads: 400: ")
    assert threads.endswith(f" … and {400 - SHOWN} more") and len(threads) < 300
    assert max(len(line) for line in out.splitlines()) < 300


def _line(k: int, at: str | None, model: str = "claude-sonnet-4-6", read: int = 0) -> str:
    usage = {"input_tokens": 5, "cache_read_input_tokens": read, "output_tokens": 1}
    usage["cache_creation_input_tokens"] = 20_000 - read
    record: dict[str, Any] = {
        "type": "assistant",
        "sessionId": "abcd1234-0000",
        "requestId": f"r{k}",
        "message": {"id": f"m{k}", "model": model, "usage": usage},
    }
    if at is not None:
        record["timestamp"] = at
    return json.dumps(record) + "\n"


def test_a_call_without_a_time_is_a_day_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "abcd1234-0000.jsonl"
    path.write_text(_line(1, None) + _line(2, "2026-01-01T00:00:00Z", read=20_000), "utf-8")
    bill = read_bill(path)
    assert [g.key for g in bill.groups("day")] == ["2026-01-01", "(no time)"]
    assert len(bill.between(date(2026, 1, 1)).calls) == 1
    with pytest.raises(ValueError, match="by must be one of day, week, month, session"):
        bill.groups("fortnight")


def test_a_rebuild_without_a_time_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "abcd1234-0000.jsonl"
    path.write_text(_line(1, None) + _line(2, None), "utf-8")  # the second rewrites it all
    assert main(["bill", str(path), "--timezone", "UTC"]) == 0
    rebuild = next(line for line in capsys.readouterr().out.splitlines() if "rebuild:" in line)
    assert rebuild.startswith("rebuild: call 2 (abcd1234/main, no time recorded): ")
    assert "None" not in rebuild


def test_a_sub_agent_file_outside_projects_joins_its_session_folder(tmp_path: Path) -> None:
    """Its file names no working folder: the project is the folder above its session's."""
    folder = tmp_path / "demo" / FE5E / "subagents"
    folder.mkdir(parents=True)
    _without_cwd(PROJECT / "agent-test-hash-123.jsonl", folder / "agent-test-hash-123.jsonl")
    groups = read_bill(folder / "agent-test-hash-123.jsonl").groups("project")
    assert [g.key for g in groups] == ["demo"]


def test_many_rebuilds_show_the_costliest_then_a_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fifteen calls an hour apart: fourteen ttl rebuilds."""
    path = tmp_path / "abcd1234-0000.jsonl"
    path.write_text(
        "".join(_line(k, f"2026-01-01T{k:02d}:00:00Z") for k in range(15)), encoding="utf-8"
    )
    assert main(["bill", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    rebuilds = [number for number, line in enumerate(out) if line.startswith("rebuild: ")]
    assert len(rebuilds) == SHOWN
    # the count closes the list: the line after the last rebuild shown (and its notes)
    after = next(line for line in out[rebuilds[-1] + 1 :] if not line.startswith("  "))
    assert after.startswith(f"… and {14 - SHOWN} more rebuilds")


def test_a_model_with_no_price_is_unpriced_in_its_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "abcd1234-0000.jsonl"
    path.write_text(
        _line(1, "2026-01-01T00:00:00Z") + _line(2, "2026-01-01T00:01:00Z", "imaginary-9"), "utf-8"
    )
    assert main(["bill", str(path), "--by", "model"]) == 0
    rows = capsys.readouterr().out.splitlines()
    row = next(r for r in rows if r.startswith("imaginary-9")).split()
    assert row[-2:] == ["unpriced", "1"]  # no dollars, and its one call counted as unpriced


@pytest.mark.parametrize(("view", "step"), [("session", "_session_id"), ("project", "_project")])
def test_a_view_of_files_reads_each_files_name_once(
    monkeypatch: pytest.MonkeyPatch, view: str, step: str
) -> None:
    """The session and project of a call come from its file's path, which pathlib took
    apart again for every call (0.8 s a view on a folder of 38,657 calls)."""
    import context_budget.bills as bills

    bill = read_bill(SESSIONS)
    expected = bill.groups(view)
    seen: list[tuple[Any, ...]] = []
    real = getattr(bills, step)

    def counted(*args: Any) -> str:
        seen.append(args)
        return str(real(*args))

    monkeypatch.setattr(bills, step, counted)
    assert bill.groups(view) == expected
    assert len(seen) == len(set(seen)) and 0 < len(seen) < len(bill.calls) / 5


def test_an_empty_window_says_how_many_calls_record_no_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trajectory written with no times: `--since` kept none of its 64 calls and said
    only that no call fell in the window, as if the days were wrong."""
    trajectory = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    for message in trajectory["messages"]:
        extra = message.get("extra") or {}
        extra.pop("timestamp", None)
        if isinstance(extra.get("response"), dict):
            extra["response"].pop("created", None)
    untimed = tmp_path / "untimed.traj.json"
    untimed.write_text(json.dumps(trajectory), encoding="utf-8")
    assert main(["bill", str(untimed), str(SMALL), "--since", "2030-01-01"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no call from 2030-01-01 to the last" in err
    assert "64 calls record no time, and no window holds them" in err
    assert main(["bill", str(SMALL), "--since", "2030-01-01"]) == 2
    assert "record no time" not in capsys.readouterr().err

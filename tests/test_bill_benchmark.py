"""The bill benchmark's wiring: a small generated folder, its table, the page region."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bill import (
    BILL_FAST,
    BILL_STANDARD,
    CCUSAGE,
    GOAL_SECONDS,
    MANY_NAMES,
    REPORT_FLOOR_FAST,
    REPORT_FLOORS,
    RESULTS,
    TOKSCALE,
    SideBySide,
    bill_argv,
    bill_region,
    bill_totals,
    generate_project,
    generate_sessions,
    many_table,
    peer_table,
    render,
    sessions_words,
    time_bill,
)
from benchmarks.page import PAGE
from benchmarks.peer import PeerError, Run, run_process, tokscale_home, tokscale_totals
from context_budget import read_bill
from context_budget.bills import Bill


def test_the_generated_folder_is_the_same_on_every_run(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    assert generate_project(one, 600_000) == generate_project(two, 600_000)
    names = sorted(p.relative_to(one) for p in one.rglob("*.jsonl"))
    assert names == sorted(p.relative_to(two) for p in two.rglob("*.jsonl"))
    assert all((one / n).read_bytes() == (two / n).read_bytes() for n in names)
    assert any("subagents" in str(n) for n in names)


def test_the_generated_folder_has_rebuilds_of_each_kind_it_plants(tmp_path: Path) -> None:
    generate_project(tmp_path, 1_500_000)
    rebuilds = read_bill(tmp_path).rebuilds()
    assert {rebuild.cause for rebuild in rebuilds} == {"compaction", "ttl", "prefix-changed"}
    changed = [r for r in rebuilds if r.cause == "prefix-changed"]
    assert all((r.trigger or "").startswith("a <task-notification> user line at ") for r in changed)


def _peer_output(totals: dict[str, float]) -> str:
    """What ccusage prints for a folder, in its documented shape, with these totals."""
    keys = {
        "inputTokens": totals["input"],
        "cacheReadTokens": totals["cache_read"],
        "cacheCreationTokens": totals["cache_write"],
        "outputTokens": totals["output"],
        "totalCost": totals["cost_usd"],
    }
    return json.dumps({"sessions": [], "totals": keys})


@dataclass(frozen=True)
class Billed:
    """A generated folder, its bill timed once and the real runs the table checks share.

    Attributes:
        folder: the generated Claude Code project folder.
        size: its bytes.
        seconds: the best wall seconds of `time_bill` (one run).
        data: the bill's `--json` object, from that run.
        bill: one more whole-process run of the bill, the row `_side_by_side` reports.
        floors: each report floor's name -> its one run on the folder.
    """

    folder: Path
    size: int
    seconds: float
    data: dict[str, Any]
    bill: Run
    floors: dict[str, Run]


@pytest.fixture(scope="module")
def billed(tmp_path_factory: pytest.TempPathFactory) -> Billed:
    """One generated folder of 300 kB, timed with `time_bill` and run through the bill and
    every report floor once, for every check of the table below: each run is a Python
    process of its own, and the checks differ only in what the other rows said."""
    folder = tmp_path_factory.mktemp("billed")
    size = generate_project(folder, 300_000)
    seconds, data = time_bill(folder, repeats=1)
    floors = {}
    for name in REPORT_FLOORS:
        decoder = "msgspec" if "msgspec" in name else "json"
        cores = ["two-cores"] if "two cores" in name else []
        floor = [sys.executable, "-m", "benchmarks.floor", str(folder), decoder, "report", *cores]
        floors[name] = run_process(floor)
    return Billed(folder, size, seconds, data, run_process(bill_argv(folder)), floors)


def _side_by_side(
    billed: Billed, peer: dict[str, float], seconds: float, quarter: float | None = None
) -> SideBySide:
    """The bill and the report floors as they ran for real; every other row a run of
    `seconds` that said `peer`. A fresh `SideBySide` each time, over the shared runs."""
    bill = [billed.bill]
    data = json.loads(bill[0].stdout)
    other = Run(seconds=seconds, peak_mib=60.0, stdout=_peer_output(peer))
    names = [BILL_STANDARD, "floor (msgspec)", "floor (json)", CCUSAGE, TOKSCALE]
    runs = {BILL_FAST: bill, **{name: [other] for name in names}}
    totals = {BILL_FAST: bill_totals(data), **{name: dict(peer) for name in names}}
    for name in REPORT_FLOORS:
        runs[name] = [billed.floors[name]]
        totals[name] = dict(peer)
    if quarter is None:
        return SideBySide(runs, totals, data)
    small = {name: [Run(quarter, 50.0, "")] for name in (BILL_FAST, BILL_STANDARD)}
    return SideBySide(runs, totals, data, small, (4 * 2**20, 2**20))


def test_the_table_and_the_page_region(billed: Billed) -> None:
    size, seconds, data = billed.size, billed.seconds, billed.data
    assert seconds < GOAL_SECONDS
    result = _side_by_side(billed, bill_totals(data), seconds=1e6)
    text = render(size, 2, result)
    many = render(size, 2, result, ("3 sessions", result))  # the folder of many sessions too
    assert "short sessions" not in text and "On a folder of many short sessions (3 sessions" in many
    assert f"| {data['calls']:,} |" in text and "under 60 s: **met**" in text
    assert f"- {CCUSAGE} and {BILL_FAST}: tokens of every kind equal; costs equal" in text
    assert f"- {BILL_FAST}: at most 1.25× ccusage's time: 0.00×, **met**" in text
    for floor in REPORT_FLOORS:  # its work, done right
        every = data["every_line_cost_usd"]
        assert f"- {floor} and {BILL_FAST}: every-line bill equal (${every:,.6f})" in text
        assert f"no-caching input side equal (${data['what_if']['no_caching']:,.6f})." in text
    assert bill_region(PAGE.read_text(encoding="utf-8")) == RESULTS.read_text(encoding="utf-8")


def test_a_disagreement_and_a_slower_bill_are_said(billed: Billed) -> None:
    data = billed.data
    peer = bill_totals(data) | {"output": 1, "cost_usd": data["cost_usd"] + 0.01}
    said = "\n".join(peer_table(_side_by_side(billed, peer, seconds=1e-6)))
    assert f"- {TOKSCALE} and {BILL_FAST}: tokens differ in output" in said
    assert f"costs ${data['cost_usd']:,.6f} and ${data['cost_usd'] + 0.01:,.6f}" in said
    fast = next(line for line in said.splitlines() if line.startswith(f"- {BILL_FAST}: "))
    assert fast.split(";")[0].endswith("**missed**")  # a real bill is slower than 1 µs


def test_a_report_floor_that_prices_other_figures_is_said(billed: Billed) -> None:
    data = billed.data
    result = _side_by_side(billed, bill_totals(data), seconds=1.0)
    floor = json.loads(result.runs[REPORT_FLOOR_FAST][0].stdout)
    floor["every_line_cost_usd"] += 0.01
    result.runs[REPORT_FLOOR_FAST] = [Run(1.0, 50.0, json.dumps(floor))]
    said = "\n".join(peer_table(result))
    ours, theirs = floor["every_line_cost_usd"], data["every_line_cost_usd"]
    assert f"every-line bill ${ours:,.6f} against ${theirs:,.6f}" in said
    assert f"- {BILL_FAST}: at most 1.25× ccusage's time: " in said
    assert re.search(r"1\.00× with the report's work, and [0-9.]+× with that work on two co", said)


def test_time_linear_in_the_folders_size_is_judged_per_megabyte(billed: Billed) -> None:
    result = _side_by_side(billed, bill_totals(billed.data), seconds=1.0, quarter=10.0)
    said = "\n".join(peer_table(result))
    best = min(run.seconds for run in result.runs[BILL_FAST])
    growth = (best / 4) / 10.0
    assert f"seconds per MB on 4 MB over those on 1 MB: {growth:.2f}, at most 1.25: **met**" in said


def test_tokscale_is_given_the_packages_prices_where_it_keeps_the_ones_it_fetches(
    tmp_path: Path,
) -> None:
    claude = tmp_path / "claude"
    claude.mkdir()
    entry = tmp_path / "bin" / "tokscale"
    env = tokscale_home(tmp_path / "home", claude, ["claude-sonnet-4-20250514"], entry)
    assert (Path(env["HOME"]) / ".claude").resolve() == claude.resolve()
    cached = json.loads(
        (Path(env["XDG_CACHE_HOME"]) / "tokscale" / "pricing-litellm.json").read_text()
    )
    sonnet = cached["data"]["claude-sonnet-4-20250514"]
    assert sonnet["input_cost_per_token"] == pytest.approx(3e-6)
    assert sonnet["cache_read_input_token_cost"] == pytest.approx(0.3e-6)
    assert env["PATH"].startswith(str(entry.parent))
    totals = tokscale_totals(
        json.dumps(
            {
                "totalInput": 1,
                "totalOutput": 2,
                "totalCacheRead": 3,
                "totalCacheWrite": 4,
                "totalCost": 0.5,
            }
        )
    )
    assert totals == {
        "input": 1,
        "cache_read": 3,
        "cache_write": 4,
        "output": 2,
        "cost_usd": 0.5,
    }


def test_a_whole_process_run_reports_its_own_peak_memory() -> None:
    small = run_process([sys.executable, "-c", "print(1)"])
    big = run_process([sys.executable, "-c", "b = bytearray(200 * 2**20); print(len(b))"])
    assert (small.stdout, big.stdout) == ("1\n", f"{200 * 2**20}\n")
    assert small.peak_mib < 100 < 200 <= big.peak_mib


def test_a_failing_command_names_itself_and_its_last_line() -> None:
    with pytest.raises(PeerError, match=r"exited 3: gone"):
        run_process(
            [sys.executable, "-c", "import sys; print('gone', file=sys.stderr); sys.exit(3)"]
        )


def test_a_command_that_cannot_start_is_named() -> None:
    with pytest.raises(PeerError, match=r"no-such-command-here exited 1: FileNotFoundError"):
        run_process(["no-such-command-here"])


def test_the_rebuild_benchmark_plants_a_prefix_change_at_every_call(tmp_path: Path) -> None:
    from benchmarks.rebuilds import RESULTS as REBUILDS
    from benchmarks.rebuilds import generate_session, rebuild_region, render, time_rebuilds

    path = tmp_path / "s.jsonl"
    generate_session(path, 50)
    causes = {rebuild.cause for rebuild in read_bill(path).rebuilds()}
    assert causes == {"prefix-changed"}
    seconds, found = time_rebuilds(path, repeats=1)
    assert found == 49
    assert "| 50 | 49 |" in render([(50, found, seconds), (200, 199, seconds * 4)])
    assert rebuild_region(PAGE.read_text(encoding="utf-8")) == REBUILDS.read_text(encoding="utf-8")


def test_the_rebuild_benchmark_times_its_sizes_in_turns(tmp_path: Path) -> None:
    from benchmarks import rebuilds

    paths = [tmp_path / "small.jsonl", tmp_path / "large.jsonl"]
    for path, calls in zip(paths, (20, 80), strict=True):
        rebuilds.generate_session(path, calls)
    order: list[int] = []
    real = rebuilds._timed

    def timed(bill: Bill) -> tuple[float, int]:
        order.append(len(bill.calls))
        return real(bill)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rebuilds, "_timed", timed)
        rows = rebuilds.time_sizes(paths, repeats=3)
    assert order == [20, 80] * 3  # a burst of load slows both sizes, not one
    assert [found for _, found in rows] == [19, 79]
    assert rebuilds.MOST_RATIO == 5.0  # x4 work in at most x5 time


def test_the_report_floor_on_two_cores_prints_what_it_prints_on_one(tmp_path: Path) -> None:
    generate_project(tmp_path, 8_000_000)  # two sessions: a half each
    assert len(list(tmp_path.rglob("*.jsonl"))) > 2
    for decoder in ("msgspec", "json"):
        floor = [sys.executable, "-m", "benchmarks.floor", str(tmp_path), decoder, "report"]
        one = json.loads(run_process(floor).stdout)
        two = json.loads(run_process([*floor, "two-cores"]).stdout)
        # the usage lines are priced in two sums, added: the same to the millionth
        assert two.pop("every_line_cost_usd") == pytest.approx(one.pop("every_line_cost_usd"))
        assert two == one and one["calls"] > 0


def test_the_report_floor_on_two_cores_refuses_halves_that_share_a_response(
    tmp_path: Path,
) -> None:
    # each half's figures are its own calls' only where no response is in both halves
    generate_project(tmp_path, 100_000)
    session = max(tmp_path.glob("*.jsonl"), key=lambda path: path.stat().st_size)
    folder = tmp_path / "copied"
    folder.mkdir()
    for name in ("a.jsonl", "b.jsonl"):  # the same session twice: a half each
        (folder / name).write_bytes(session.read_bytes())
    floor = [sys.executable, "-m", "benchmarks.floor", str(folder), "msgspec", "report"]
    assert json.loads(run_process(floor).stdout)["calls"] > 0  # one process folds them
    with pytest.raises(PeerError, match="the two halves of the files share a response"):
        run_process([*floor, "two-cores"])


def test_the_folder_of_many_sessions_is_read_and_said_beside_ccusage(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    size = generate_sessions(one, sessions=30, projects=4, turns=2)
    assert size == generate_sessions(two, sessions=30, projects=4, turns=2)
    names = sorted(p.relative_to(one) for p in one.rglob("*.jsonl"))
    assert len(names) == 30 and len({name.parent for name in names}) == 4
    assert all((one / n).read_bytes() == (two / n).read_bytes() for n in names)
    fast = run_process(bill_argv(one))
    data = json.loads(fast.stdout)
    assert data["calls"] == 30 * 2 and data["skipped"] == []
    peer = Run(seconds=0.5, peak_mib=60.0, stdout=_peer_output(bill_totals(data)))
    standard = Run(seconds=1.0, peak_mib=90.0, stdout=_peer_output(bill_totals(data)))
    runs = {BILL_FAST: [fast], BILL_STANDARD: [standard], CCUSAGE: [peer]}
    assert tuple(runs) == MANY_NAMES
    many = SideBySide(runs, {name: bill_totals(data) for name in runs}, data)
    text = "\n".join(many_table(sessions_words(size, 30, 2, 4), many))
    assert f"(30 sessions of 2 turns in 4 projects, {size / 2**20:,.0f} MB, 60 calls)" in text
    assert f"- {CCUSAGE} and {BILL_FAST}: tokens of every kind equal; costs equal" in text
    assert f"- {BILL_STANDARD}: 2.00× ccusage's time, 1.50× its peak memory." in text

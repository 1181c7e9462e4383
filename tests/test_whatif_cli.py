"""`context-budget whatif`: the replay from the command line, its JSON and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from context_budget import read_bill
from context_budget.cli import main

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
PROJECT = SESSIONS / "sample-project"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
ROLLOUT = SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"
ROW_KEYS = {
    "call",
    "thread",
    "time",
    "model",
    "input",
    "cache_read",
    "cache_write_5m",
    "cache_write_1h",
    "output",
    "cost_usd",
}


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["whatif", *args, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_the_json_keeps_the_bills_conventions(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, str(PROJECT), "--calls")
    bill = read_bill(PROJECT)
    assert data["bill_usd"] == round(bill.cost().total, 6)
    assert data["threads"] == bill.threads
    assert isinstance(data["replayed_usd"], float)
    assert abs(data["replayed_usd"] / data["bill_usd"] - 1) < 0.02  # type: ignore[operator]
    assert (data["clearings"], data["compactions"]) == (0, 0)
    assert isinstance(data["assumption"], str) and data["assumption"].endswith(".")
    rows = data["per_call"]
    assert isinstance(rows, list) and len(rows) == len(bill.calls)
    assert all(set(row) >= ROW_KEYS for row in rows)
    rent = data["rent"]
    assert isinstance(rent, list)
    assert set(rent[0]) == {"tool", "results", "tokens", "cost_usd"}
    costs = [r["cost_usd"] for r in rent]
    assert costs == sorted(costs, reverse=True)


def test_clearing_and_compaction_say_how_often_they_fired(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plain = _json(capsys, str(PROJECT))
    cleared = _json(capsys, str(PROJECT), "--clear-at", "20000", "--keep", "5")
    compacted = _json(capsys, str(PROJECT), "--compact-at", "25,000", "--calls")
    assert cleared["clearings"] and cleared["policy"]["keep"] == 5  # type: ignore[index]
    assert compacted["compactions"]
    assert plain["replayed_usd"] not in (cleared["replayed_usd"], compacted["replayed_usd"])
    rows = compacted["per_call"]
    assert isinstance(rows, list)
    summaries = [row for row in rows if row["summarizing"]]
    assert len(summaries) == compacted["summarizing_calls"] > 0


def test_the_text_names_the_ten_costliest_results_and_where_they_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["whatif", str(PROJECT)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = lines.index("rent: the 10 costliest tool results")
    named = lines[start + 1 : start + 11]
    assert len(named) == 10 and all(".jsonl:" in line for line in named)
    assert lines[start + 11].startswith("rent by tool: Read ")
    assert "assumption: The replay keeps each session's trajectory" in out
    assert "departs from the bill on 7 of 199 calls:" in out


def test_one_hour_writes_on_the_synthetic_session(capsys: pytest.CaptureFixture[str]) -> None:
    five = _json(capsys, str(SYNTHETIC))
    hour = _json(capsys, str(SYNTHETIC), "--ttl", "1h")
    assert five["rebuilds"] == {"ttl": 2, "prefix-changed": 1, "compaction": 1}
    assert hour["rebuilds"] == {"prefix-changed": 1, "compaction": 1}
    assert hour["replayed_usd"] < five["replayed_usd"]  # type: ignore[operator]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([str(ROLLOUT), "--ttl", "1h"], "gpt-5-codex's provider offers no choice"),
        ([str(PROJECT), "--keep", "2"], "--keep needs --clear-at"),
        ([str(PROJECT), "--summary-tokens", "900"], "--summary-tokens needs --compact-at"),
        ([str(PROJECT), "--model", "gpt-9"], "model 'gpt-9': no row with prices in the table"),
        ([str(PROJECT), "--clear-at", "0"], "must be >= 1 token"),
        ([str(PROJECT), "--compact-at", "lots"], "not a whole number of tokens"),
        ([str(PROJECT), "--ttl", "2h"], "invalid choice: '2h'"),
        (["no/such/folder"], "no/such/folder"),
        (["README.md"], "not a session in a format bills read"),
    ],
)
def test_bad_input_is_one_line_and_exit_two(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main(["whatif", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("context-budget: error: ")
    assert said in captured.err and captured.err.count("\n") == 1


def test_the_files_are_only_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / SYNTHETIC.name
    copy.write_bytes(SYNTHETIC.read_bytes())
    before = copy.read_bytes()
    assert main(["whatif", str(copy), "--compact-at", "14000", "--clear-at", "12000"]) == 0
    assert copy.read_bytes() == before
    assert list(tmp_path.iterdir()) == [copy]


def _cold_copy(tmp_path: Path, source: Path) -> Path:
    """`source` with every call's prompt recorded as uncached input: a session that cached
    nothing, so the replay, which caches, departs from it on almost every call."""
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        usage = (record.get("message") or {}).get("usage") if isinstance(record, dict) else None
        if isinstance(usage, dict):
            prompt = (
                usage["input_tokens"]
                + usage.get("cache_read_input_tokens", 0)
                + usage.get("cache_creation_input_tokens", 0)
            )
            usage.update(input_tokens=prompt, cache_read_input_tokens=0)
            usage.update(cache_creation_input_tokens=0)
            usage.pop("cache_creation", None)
        lines.append(json.dumps(record, separators=(",", ":")))
    copy = tmp_path / source.name
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return copy


def test_the_text_names_ten_departures_then_how_many_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cold = _cold_copy(tmp_path, PROJECT / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    assert main(["whatif", str(cold)]) == 0
    out = capsys.readouterr().out
    start = next(k for k, line in enumerate(out.splitlines()) if line.startswith("departs"))
    lines = out.splitlines()[start:]
    assert lines[0].startswith("departs from the bill on ") and lines[0].endswith(" of 170 calls:")
    assert all(line.startswith("  call ") for line in lines[1:11])
    assert lines[11].startswith("  … and ") and lines[11].endswith(" more (--json lists them)")


def test_calls_on_a_model_the_table_lacks_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unknown = tmp_path / SYNTHETIC.name
    unknown.write_text(
        SYNTHETIC.read_text(encoding="utf-8").replace("claude-sonnet-4-5-20250929", "acme-7"),
        encoding="utf-8",
    )
    assert main(["whatif", str(unknown)]) == 0
    out = capsys.readouterr().out
    assert "  not replayed (no cache model): acme-7" in out
    assert "replayed: no replayed call is on a model with a price" in out
    data = _json(capsys, str(unknown))
    assert data["replayed_usd"] is None and data["unreplayed_models"] == ["acme-7"]


def test_the_page_is_written_whole_and_said_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from context_budget.cli._whatif import page

    target = tmp_path / "whatif.html"
    assert main(["whatif", str(SYNTHETIC), "--html", str(target)]) == 0
    assert capsys.readouterr().out.endswith(f"page: {target}\n")
    html = target.read_text(encoding="utf-8")
    assert "<h2>What it would have cost</h2>" in html and "<script" not in html
    assert main(["whatif", str(SYNTHETIC), "--html", str(target), "--json"]) == 0
    assert "page:" not in capsys.readouterr().out
    said: list[str] = []
    assert page([str(SYNTHETIC)], said.append) == html
    assert said[0] == "reading the files" and said[1].startswith("replaying 1 of 7: ")
    assert main(["whatif", str(SYNTHETIC), "--html", str(tmp_path / "no" / "page.html")]) == 2
    assert "cannot write the page" in capsys.readouterr().err


@pytest.mark.parametrize(("keep", "said"), [("x", "not a whole number"), ("-1", "must be >= 0")])
def test_keep_is_a_whole_number_of_tool_uses(
    capsys: pytest.CaptureFixture[str], keep: str, said: str
) -> None:
    assert main(["whatif", str(SYNTHETIC), "--clear-at", "1000", "--keep", keep]) == 2
    assert said in capsys.readouterr().err


def test_gpt_5_5_reads_in_128_token_steps_and_writes_for_free(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _json(capsys, str(PROJECT), "--model", "gpt-5.5", "--calls")
    rows = data["per_call"]
    assert isinstance(rows, list) and {row["model"] for row in rows} == {"gpt-5.5"}
    reads = [row["cache_read"] for row in rows if row["cache_read"]]
    assert len(reads) > 150 and all((read - 1_024) % 128 == 0 for read in reads)
    assert all(row["cache_write_5m"] + row["cache_write_1h"] == 0 for row in rows)
    assert data["replayed_usd"] != data["bill_usd"]

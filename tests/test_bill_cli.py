"""`context-budget bill`: the summary, `--json`, `--calls`, and bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from context_budget.cli import main

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
FE5E = SESSIONS / "sample-project" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
KEYS = {
    "format",
    "calls",
    "models",
    "threads",
    "tokens",
    "cost_usd",
    "cost",
    "cache_read_share",
    "rebuilds",
    "what_if",
}


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["bill", *argv, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_json_has_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, str(FE5E))
    assert set(data) >= KEYS
    assert data["calls"] == 170 and data["format"] == "claude-code"
    assert data["tokens"] == {
        "input": 818,
        "cache_read": 3_647_854,
        "cache_write_5m": 137_976,
        "cache_write_1h": 0,
        "output": 51_933,
    }
    assert round(data["cost_usd"], 2) == 2.39  # type: ignore[arg-type]
    assert data["cache_read_share"] == 0.9633
    assert data["rebuilds"] == []


def test_json_reports_the_synthetic_rebuilds(capsys: pytest.CaptureFixture[str]) -> None:
    rebuilds = _json(capsys, str(SYNTHETIC))["rebuilds"]
    assert isinstance(rebuilds, list)
    assert [r["cause"] for r in rebuilds] == ["ttl", "prefix-changed", "compaction", "ttl"]
    assert {"call", "thread", "cause", "lost_tokens", "gap_seconds", "extra_usd"} <= set(
        rebuilds[0]
    )


def test_the_summary_and_the_calls_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bill", str(SYNTHETIC), "--calls"]) == 0
    out = capsys.readouterr().out
    assert "calls: 10 (from 20 usage lines)" in out
    assert "rebuild: call 6 at 2026-03-02T09:14:02Z (synthetic/main): prefix-changed" in out
    rows = [line for line in out.splitlines() if line.startswith(("   1 ", "  10 "))]
    assert len(rows) == 2 and rows[1].endswith("<- ttl")


def test_an_unpriced_bill_shows_tokens_and_the_recorded_cost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
    data = _json(capsys, str(path))
    assert data["cost_usd"] is None and data["unpriced_models"] == ["deepseek-v4-flash"]
    assert data["recorded_cost_usd"] == pytest.approx(0.042822, abs=1e-6)
    assert main(["bill", str(path)]) == 0
    assert "cost: no call is on a model with a list price" in capsys.readouterr().out


@pytest.mark.parametrize("content", ["", "not json\n", '{"x": 1}\n', "[]\n"])
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    path = tmp_path / "bad\nname.jsonl"
    path.write_text(content, encoding="utf-8")
    assert main(["bill", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("context-budget: error: ")


def test_a_missing_path_and_a_bad_format_are_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bill", str(tmp_path / "nope")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["bill", str(FE5E), "--format", "aider"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["bill"]) == 2


def test_a_binary_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["bill", str(path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


DEEP = '{"type": "assistant", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
LONG_NUMBER = '{"type": "assistant", "n": ' + "9" * 5_000 + "}\n"


@pytest.mark.parametrize("format", ["auto", "claude-code", "codex"])
@pytest.mark.parametrize(
    ("content", "said"),
    [
        (DEEP, "nested too deeply"),
        (LONG_NUMBER, "digits"),
        (b"\xff\xfe bad\n", "not UTF-8 text"),
    ],
    ids=["nested 100,000 deep", "a 5,000-digit number", "not UTF-8"],
)
def test_json_no_parser_can_take_is_one_line_naming_the_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    format: str,
    content: str | bytes,
    said: str,
) -> None:
    """Not a RecursionError traceback: the file (and, read as a session, the line) is named."""
    path = tmp_path / "hostile.jsonl"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    assert main(["bill", str(path), "--format", format]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hostile.jsonl" in err, err
    if format != "auto" or said == "not UTF-8 text":
        assert said in err, err

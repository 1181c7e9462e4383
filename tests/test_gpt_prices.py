"""GPT models priced from their own dated rows, in the one price path.

The rates are those of each model's page on developers.openai.com (standard
tier); the write rule is the prompt-caching guide's: no extra fee before the
GPT-5.6 family, 1.25 times the uncached input rate from it on. A Codex
`token_count` total counts cached (and written) tokens inside `input_tokens`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from context_budget import PRICES, Usage, cost, price_for, read_bill
from context_budget.models import MODELS
from context_budget.pricing import OPENAI_PRICES

ROOT = Path(__file__).resolve().parents[1]
ROLLOUT = ROOT / "docs/measured/sessions/synthetic/rollout-2026-03-02T09-00-00-synthetic.jsonl"
NO_ROW = ROOT / "tests/fixtures/transcripts/synthetic/codex_rollout.jsonl"


def _rollout(tmp_path: Path, model: str, totals: list[dict[str, int]]) -> Path:
    """A rollout of one turn per total, each with its cumulative `token_count`."""
    lines: list[dict[str, Any]] = [
        {
            "timestamp": "2026-11-20T10:00:00.000Z",
            "type": "session_meta",
            "payload": {"id": "019a7c2e-8f10-7d3a-9a51-2b7c0e4d1a01", "cwd": "/repo"},
        },
        {
            "timestamp": "2026-11-20T10:00:00.500Z",
            "type": "turn_context",
            "payload": {"model": model},
        },
    ]
    for second, total in enumerate(totals, start=1):
        stamp = f"2026-11-20T10:00:{second:02d}.000Z"
        said = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "go"}],
        }
        info = {"type": "token_count", "info": {"total_token_usage": total}}
        lines.append({"timestamp": stamp, "type": "response_item", "payload": said})
        lines.append({"timestamp": stamp, "type": "event_msg", "payload": info})
    path = tmp_path / "rollout-2026-11-20T10-00-00-test.jsonl"
    path.write_text("\n".join(json.dumps(r, separators=(",", ":")) for r in lines) + "\n")
    return path


def test_a_codex_rollout_is_priced_by_hand_from_its_row() -> None:
    """gpt-5-codex: $1.25 input, $0.125 cached input, $10 output per million tokens."""
    bill = read_bill(ROLLOUT)
    assert bill.unpriced_models() == ()
    # the last total: 42,600 input of which 29,952 cached, 1,550 output
    by_hand = (12_648 * 1.25 + 29_952 * 0.125 + 1_550 * 10.0) / 1e6
    assert bill.cost().total == pytest.approx(by_hand) == pytest.approx(0.035054)


def test_a_gpt_model_without_a_row_stays_unpriced(tmp_path: Path) -> None:
    """A GPT id the table lacks is not billed at a neighbour's rate, however close the name."""
    assert price_for("gpt-5.1") is not None and price_for("gpt-5.1-codex") is not None
    assert price_for("gpt-5.1-codex-max") is None
    path = tmp_path / "rollout.jsonl"
    path.write_text(NO_ROW.read_text().replace("gpt-5.1-codex", "gpt-5.1-codex-max"))
    bill = read_bill(path)
    assert bill.unpriced_models() == ("gpt-5.1-codex-max",)
    assert bill.cost().total == 0.0


def test_the_shipped_gpt_5_1_codex_rollout_is_priced_at_gpt_5_1_rates() -> None:
    bill = read_bill(NO_ROW)
    assert bill.unpriced_models() == ()
    price = OPENAI_PRICES["gpt-5.1-codex"]
    assert (price.input, price.read, price.output) == (1.25, 0.125, 10.0)
    assert "was not read" in price.source  # the row says its rates are GPT-5.1's


def test_a_dated_snapshot_finds_its_model() -> None:
    assert price_for("gpt-5.1-2025-11-13") is OPENAI_PRICES["gpt-5.1"]
    assert price_for("openai/gpt-5-codex") is OPENAI_PRICES["gpt-5-codex"]


def test_every_row_is_dated_and_sourced_and_writes_follow_the_caching_rule() -> None:
    assert {"gpt-5-codex", "gpt-5.5", "gpt-5.6-sol", "gpt-6.2-sol"} <= set(OPENAI_PRICES)
    assert set(OPENAI_PRICES) <= set(PRICES)  # a view of the one table
    for model, row in MODELS.items():
        if row.provider != "openai":
            continue
        for price in row.prices:
            assert price.as_of.startswith("2026-12") and price.source, model
            named = "developers.openai.com" in price.source  # the model's own page, or
            assert named or price.source.startswith("secondary: "), model  # who else said
            newer = model.startswith(("gpt-5.6", "gpt-6"))
            write = price.write_30m if newer else price.write_5m
            assert write == pytest.approx(price.input * (1.25 if newer else 1.0)), model
            assert (price.write_30m is None) is not newer, model
            assert price.read < price.input, model


@pytest.mark.parametrize(
    ("model", "expected"),
    [  # 40,000 sent, 30,000 of them cached, 1,000 out: 10,000 x in + 30,000 x read + out
        ("gpt-5.2", 0.0367500),
        ("gpt-5.2-codex", 0.0367500),
        ("gpt-5.3-codex", 0.0367500),
        ("gpt-5.4", 0.0475000),
        ("gpt-5.4-mini", 0.0142500),
        ("gpt-5.4-nano", 0.0038500),
    ],
)
def test_the_codex_models_of_2026_are_priced(tmp_path: Path, model: str, expected: float) -> None:
    total = {"input_tokens": 40_000, "cached_input_tokens": 30_000, "output_tokens": 1_000}
    bill = read_bill(_rollout(tmp_path, model, [total]))
    assert bill.unpriced_models() == ()
    assert round(bill.cost().total, 7) == expected


def test_gpt_5_4_past_272k_pays_its_long_context_rates_on_the_whole_request() -> None:
    short = {"input_tokens": 272_000, "cached_input_tokens": 100_000, "output_tokens": 1_000}
    long = {**short, "input_tokens": 272_001}
    row = MODELS["gpt-5.4"]
    assert round(cost(short, row).total, 6) == round(
        (172_000 * 2.5 + 100_000 * 0.25 + 15_000) / 1e6, 6
    )
    # past the band's start every rate moves: input and cached input twice, output 1.5 times
    assert round(cost(long, row).total, 6) == round((172_001 * 5 + 100_000 * 0.5 + 22_500) / 1e6, 6)


def test_gpt_5_6_cache_writes_are_billed_at_a_quarter_more_than_input(tmp_path: Path) -> None:
    """A total that counts `cache_write_input_tokens` has them inside `input_tokens`."""
    total = {
        "input_tokens": 50_000,
        "cached_input_tokens": 30_000,
        "cache_write_input_tokens": 12_000,
        "output_tokens": 2_000,
    }
    bill = read_bill(_rollout(tmp_path, "gpt-5.6-sol", [total]))
    (call,) = bill.calls
    assert (call.input_tokens, call.cache_read, call.cache_write) == (8_000, 30_000, 12_000)
    # 2026-11-20: Sol's promotional rates ($4 input, $0.40 cached, $20 output), writes 1.25x
    by_hand = (8_000 * 4.0 + 12_000 * 5.0 + 30_000 * 0.40 + 2_000 * 20.0) / 1e6
    assert bill.cost().total == pytest.approx(by_hand)
    assert call.usage.ephemeral_30m_input_tokens == 12_000  # OpenAI's writes live 30 minutes


def test_past_272k_input_the_whole_request_pays_the_long_context_rates() -> None:
    """gpt-6.2-sol: input and cache rates double, output costs 1.5 times, for the whole request."""
    price = OPENAI_PRICES["gpt-6.2-sol"]
    short = Usage(input_tokens=72_000, cache_read_input_tokens=200_000, output_tokens=1_000)
    long = Usage(input_tokens=72_001, cache_read_input_tokens=200_000, output_tokens=1_000)
    assert cost(short, price).total == pytest.approx((72_000 * 2 + 200_000 * 0.1 + 10_000) / 1e6)
    by_hand = (72_001 * 4 + 200_000 * 0.2 + 1_000 * 15) / 1e6
    assert cost(long, price).total == pytest.approx(by_hand)


def test_dollars_come_from_pricing_cost_alone() -> None:
    """No module but `pricing` turns tokens into dollars: no per-million division, no raw rate."""
    package = ROOT / "src" / "context_budget"
    per_million = re.compile(r"/\s*(?:1_000_000|1e6|1000000)\b|\b_PER\b")
    raw_rate = re.compile(r"\bprice\w*\.(?:input|output|read|write_5m|write_1h|fast|us_only)\b")
    found = [
        f"{path.relative_to(package)}:{number}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "pricing.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if per_million.search(line) or raw_rate.search(line)
    ]
    assert found == []


def test_a_gpt_5_6_bill_counts_its_30_minute_writes_in_every_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from context_budget.cli import main

    total = {
        "input_tokens": 50_000,
        "cached_input_tokens": 30_000,
        "cache_write_input_tokens": 12_000,
        "output_tokens": 2_000,
    }
    path = _rollout(tmp_path, "gpt-5.6-sol", [total])
    assert main(["bill", str(path), "--json", "--calls", "--by", "model"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tokens"]["cache_write_30m"] == data["per_call"][0]["cache_write_30m"] == 12_000
    assert data["groups"][0]["tokens"]["cache_write_30m"] == 12_000
    assert data["tokens"]["cache_write_5m"] == data["tokens"]["cache_write_1h"] == 0
    assert main(["bill", str(path), "--by", "model"]) == 0
    out = capsys.readouterr().out
    assert "written 30m 12,000" in out
    assert "12,000" in next(line for line in out.splitlines() if line.startswith("gpt-5.6-sol"))

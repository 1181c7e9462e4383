"""The pricing page's rules beyond the token rates, each checked on its own worked example.

Rates and rules: https://docs.anthropic.com/en/docs/about-claude/pricing (fast
mode, data residency, long context, server tools) and
https://docs.anthropic.com/en/docs/build-with-claude/compaction (iterations).
A call recorded with these fields keeps them on its `Usage`, so the bill of a
saved session applies them too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from context_budget import PRICES, Usage, cost, read_bill

#: 5 uncached, 20,000 read, 1,000 written for 5 minutes, 300 output.
CALL = {
    "input_tokens": 5,
    "output_tokens": 300,
    "cache_read_input_tokens": 20_000,
    "cache_creation_input_tokens": 1_000,
    "cache_creation": {"ephemeral_5m_input_tokens": 1_000, "ephemeral_1h_input_tokens": 0},
}
#: 10 uncached, 240,000 read, 5,000 written for 5 minutes, 2,000 output: 245,010 input.
LONG = {
    "input_tokens": 10,
    "output_tokens": 2_000,
    "cache_read_input_tokens": 240_000,
    "cache_creation_input_tokens": 5_000,
}


def test_fast_mode_doubles_every_rate_on_opus_4_8() -> None:
    standard = cost(CALL, PRICES["claude-opus-4-8"]).total
    fast = cost({**CALL, "speed": "fast"}, PRICES["claude-opus-4-8"]).total
    assert round(standard, 6) == 0.023775
    assert round(fast, 6) == 0.047550


def test_a_fast_call_on_a_model_with_no_fast_rate_is_refused_not_guessed() -> None:
    with pytest.raises(ValueError, match="fast"):
        cost({**CALL, "speed": "fast"}, PRICES["claude-sonnet-4-5"])


def test_us_only_inference_is_a_tenth_more_on_opus_4_6_and_nothing_on_sonnet_4() -> None:
    us = {**CALL, "inference_geo": "us"}
    assert round(cost(us, PRICES["claude-opus-4-6"]).total, 7) == 0.0261525
    assert cost(us, PRICES["claude-sonnet-4"]).total == cost(CALL, PRICES["claude-sonnet-4"]).total
    assert cost({**CALL, "inference_geo": "global"}, PRICES["claude-opus-4-6"]).total == (
        cost(CALL, PRICES["claude-opus-4-6"]).total
    )


def test_past_200k_input_the_whole_request_is_at_the_long_context_rate() -> None:
    assert round(cost(LONG, PRICES["claude-sonnet-4-5"]).total, 5) == 0.22656
    assert round(cost(LONG, PRICES["claude-sonnet-4"]).total, 5) == 0.22656
    assert round(cost(LONG, PRICES["claude-sonnet-4-6"]).total, 5) == 0.12078


def test_exactly_200k_input_stays_at_the_standard_rate() -> None:
    at_edge = {**LONG, "cache_read_input_tokens": 200_000 - 5_010}
    price = PRICES["claude-sonnet-4-5"]
    assert Usage.of(at_edge).prompt_tokens == 200_000
    assert cost(at_edge, price).total == pytest.approx(
        (10 * 3 + 194_990 * 0.3 + 5_000 * 3.75 + 2_000 * 15) / 1e6
    )


def test_web_search_requests_cost_ten_dollars_a_thousand() -> None:
    searched = {**CALL, "server_tool_use": {"web_search_requests": 3}}
    bill = cost(searched, PRICES["claude-opus-4-8"])
    assert bill.server_tools == pytest.approx(0.03)
    assert bill.total == pytest.approx(0.023775 + 0.03)


def test_iterations_are_billed_as_their_sum_and_kept_on_the_usage() -> None:
    usage = {
        "input_tokens": 40,
        "output_tokens": 60,
        "iterations": [
            {"type": "compaction", "input_tokens": 1_000, "output_tokens": 100},
            {"type": "message", "input_tokens": 40, "output_tokens": 60},
        ],
    }
    kept = Usage.of(usage)
    assert len(kept.iterations) == 2
    price = PRICES["claude-opus-4-8"]
    assert cost(kept, price).total == pytest.approx((1_040 * 5 + 160 * 25) / 1e6)


def test_a_usage_keeps_the_fields_the_rules_read() -> None:
    usage = Usage.of(
        {
            **CALL,
            "speed": "fast",
            "inference_geo": "us",
            "server_tool_use": {"web_search_requests": 2},
        }
    )
    assert (usage.speed, usage.inference_geo, usage.web_search_requests) == ("fast", "us", 2)
    with pytest.raises(ValueError, match="speed"):
        Usage(speed=3)  # type: ignore[arg-type]


def _line(usage: dict[str, object], number: int) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "uuid": f"a{number}",
            "parentUuid": None,
            "sessionId": "5e55",
            "timestamp": f"2026-12-01T10:0{number}:00.000Z",
            "requestId": f"req{number}",
            "message": {
                "id": f"msg{number}",
                "role": "assistant",
                "model": "claude-opus-4-8",
                "content": [{"type": "text", "text": "ok"}],
                "usage": usage,
            },
        },
        separators=(",", ":"),
    )


def test_a_saved_claude_code_session_is_billed_with_the_rules(tmp_path: Path) -> None:
    path = tmp_path / "5e55.jsonl"
    rows = [
        {**CALL, "speed": "fast"},
        {**CALL, "server_tool_use": {"web_search_requests": 1}},
    ]
    path.write_text("\n".join(_line(u, n) for n, u in enumerate(rows, 1)) + "\n")
    bill = read_bill(path)
    assert bill.calls[0].usage.speed == "fast"
    assert round(bill.cost().total, 6) == round(0.047550 + 0.023775 + 0.01, 6)


def test_fast_calls_on_a_model_with_no_fast_rate_are_left_out_and_named(tmp_path: Path) -> None:
    path = tmp_path / "5e55.jsonl"
    lines = [_line(CALL, 1), _line({**CALL, "speed": "fast"}, 2)]
    path.write_text("\n".join(lines).replace("claude-opus-4-8", "claude-opus-4-5") + "\n")
    bill = read_bill(path)
    assert bill.unpriced_models() == ("claude-opus-4-5 (fast)",)
    assert bill.call_cost(2) is None
    assert round(bill.cost().total, 6) == 0.023775


def test_the_bill_command_shows_web_search_as_a_part_of_the_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from context_budget.cli import main

    path = tmp_path / "5e55.jsonl"
    searched = {**CALL, "server_tool_use": {"web_search_requests": 2}}
    path.write_text(_line(searched, 1) + "\n")
    assert main(["bill", str(path)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("cost:"))
    assert line.endswith("+ web search $0.0200")
    assert main(["bill", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cost"]["server_tools"] == 0.02
    assert data["cost_usd"] == round(0.023775 + 0.02, 6)


def test_a_rebuild_on_a_fast_call_costs_twice_what_it_costs_at_standard_speed(
    tmp_path: Path,
) -> None:
    """The what-ifs price through `cost` too: fast mode doubles the read a rewrite replaced."""
    rebuilt = {**CALL, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 21_005}
    rebuilt["cache_creation"] = {
        "ephemeral_5m_input_tokens": 21_005,
        "ephemeral_1h_input_tokens": 0,
    }
    extras = []
    for speed in ({}, {"speed": "fast"}):
        path = tmp_path / f"{len(extras)}" / "5e55.jsonl"
        path.parent.mkdir()
        path.write_text(_line({**CALL, **speed}, 1) + "\n" + _line({**rebuilt, **speed}, 2) + "\n")
        (rebuild,) = read_bill(path).rebuilds()
        assert (rebuild.cause, rebuild.lost_tokens) == ("prefix-changed", 21_000)
        extras.append(rebuild.extra_usd)
    # 21,000 tokens written at $6.25 instead of read at $0.50 on Opus 4.8; fast mode doubles both
    assert extras == [pytest.approx(21_000 * 5.75 / 1e6), pytest.approx(2 * 21_000 * 5.75 / 1e6)]

"""The one table of models: every lookup path finds one row, every fact is dated and sourced.

The figures checked by hand are those of each provider's page the row cites
(`models.py` names them): OpenAI's GPT-5.5 list rates and ccusage's bill of a
real rollout, Anthropic's fast-mode page, OpenAI's GPT-5.6 price cut,
DeepSeek's peak hours.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import (
    MIN_CACHEABLE_TOKENS,
    PRICES,
    PromptCache,
    Usage,
    cache_report,
    cost,
    estimate_tokens,
    price_for,
    read_bill,
)
from context_budget.cache import LAST_TURN_THINKING_ONLY
from context_budget.editing import _clear_thinking
from context_budget.models import MODELS, PROVIDERS, Model, Peak, Price, model_family, model_for
from context_budget.pricing import OPENAI_PRICES, Unpriced
from context_budget.sessions import BILL_FORMATS, detect_format

ROOT = Path(__file__).resolve().parents[1]

#: One model of each provider, under every way a request or a file names it.
SPELLINGS = {
    "claude-sonnet-4-5": [
        "claude-sonnet-4-5",
        "claude-sonnet-4-5-20250929",
        "anthropic/claude-sonnet-4-5",
        "anthropic/claude-sonnet-4-5-20250929",
        "claude-sonnet-4-5@20250929",
        "claude-sonnet-4-5-latest",
    ],
    "gpt-5.5": ["gpt-5.5", "gpt-5.5-2026-04-23", "openai/gpt-5.5", "openai/gpt-5.5-2026-04-23"],
    "gpt-5.6-sol": ["gpt-5.6-sol", "gpt-5.6", "openai/gpt-5.6", "azure/gpt-5.6-sol"],
    "gemini-3.1-pro-preview": [
        "gemini-3.1-pro-preview",
        "gemini-3.1-pro",
        "models/gemini-3.1-pro-preview",
        "gemini/gemini-3.1-pro",
    ],
    "deepseek-v4-flash": [
        "deepseek-v4-flash",
        "deepseek/deepseek-v4-flash",
        "deepseek-flash",
        "deepseek/deepseek-flash",
    ],
}


@pytest.mark.parametrize("model_id", sorted(SPELLINGS))
def test_every_lookup_path_finds_one_answer_for_a_dated_or_prefixed_id(model_id: str) -> None:
    """price_for, PromptCache, cache_report and editing each answer alike for every spelling."""
    row = MODELS[model_id]
    request = {
        "system": [
            {"type": "text", "text": "rules " * 900, "cache_control": {"type": "ephemeral"}}
        ],
        "messages": [{"role": "user", "content": "go"}],
    }
    answers = set()
    for spelling in SPELLINGS[model_id]:
        assert model_for(spelling) is row, spelling
        assert price_for(spelling) is row.price, spelling
        cache = PromptCache(spelling)
        assert cache.policy is row.cache and cache.row is row, spelling
        report = cache_report([request, request], spelling)
        thinking = _thinking_kept(spelling)
        answers.add((tuple(r.cost for r in report.rows), thinking, cache.min_tokens))
    assert len(answers) == 1


def _thinking_kept(model: str) -> int:
    """How many thinking blocks server-side editing keeps by default on `model`."""
    turn = [{"type": "thinking", "thinking": "hm", "signature": "s"}, {"type": "text", "text": "a"}]
    messages: list[dict[str, Any]] = []
    for number in range(3):
        messages += [
            {"role": "user", "content": f"q{number}"},
            {"role": "assistant", "content": turn},
        ]
    messages.append({"role": "user", "content": "next"})
    kept, _ = _clear_thinking(messages, {"type": "clear_thinking_20251015"}, estimate_tokens, model)
    return sum(
        block.get("type") == "thinking"
        for message in kept
        if isinstance(message["content"], list)
        for block in message["content"]
    )


def test_an_id_the_table_lacks_is_unknown_to_every_lookup_alike() -> None:
    for name in ("llama-9-70b", "openai/gpt-9", "<synthetic>", "claude-sonnet-9"):
        assert model_for(name) is None and price_for(name) is None
        with pytest.raises(ValueError, match=r"no model .* in the table of models"):
            PromptCache(name)
        with pytest.raises(ValueError, match="no price known"):
            cache_report([{"messages": [{"role": "user", "content": "q"}]}], name)


@given(
    st.sampled_from(sorted(MODELS)), st.sampled_from(["", "-20260101", "-2026-01-01", "-latest"])
)
def test_a_dated_and_prefixed_spelling_of_every_row_finds_that_row(
    model_id: str, date: str
) -> None:
    provider = MODELS[model_id].provider
    for spelling in (model_id + date, f"{provider}/{model_id}{date}"):
        assert model_for(spelling) is MODELS[model_id]
        assert model_family(spelling) in (model_id, model_id + date) or date == ""


@given(st.text(max_size=40) | st.sampled_from(sorted(MODELS)))
def test_an_id_looked_up_again_finds_what_the_table_gives_it(model_id: str) -> None:
    """Each id is read once and its row kept (a bill asks for every call's): the row kept
    is the one the table gives, a second look finds it again, and made-up ids by the
    thousand keep no more than the bound."""
    from context_budget import models

    first = model_for(model_id)
    assert model_for(model_id) is first is model_for(model_id, dict(MODELS))
    for number in range(models._MOST_FOUND + 1):
        model_for(f"made-up-{number}")
    assert len(models._FOUND) <= models._MOST_FOUND
    assert model_for(model_id) is first


def test_every_row_names_its_provider_a_dated_source_and_a_policy_of_that_provider() -> None:
    for model_id, row in MODELS.items():
        assert row.provider in PROVIDERS and row.id == model_id
        assert row.cache in row.caches.values() or row.cache.hit_unit == "none", model_id
        for price in row.prices:
            assert price.source and datetime.fromisoformat(price.as_of), model_id
        for policy in row.caches.values():
            assert policy.provider == row.provider, model_id
            assert policy.minimum.source and policy.source and policy.as_of, model_id


def test_the_old_tables_are_views_of_the_one_table() -> None:
    assert set(PRICES) == set(MODELS) == set(MIN_CACHEABLE_TOKENS)
    for model_id, row in MODELS.items():
        assert PRICES[model_id] is row.price
        assert MIN_CACHEABLE_TOKENS[model_id] is row.cache.minimum
        assert (model_id in LAST_TURN_THINKING_ONLY) == (row.thinking == "last-turn")
    assert set(OPENAI_PRICES) == {m for m, row in MODELS.items() if row.provider == "openai"}


def test_a_row_whose_prices_are_out_of_order_is_refused() -> None:
    first = Price(1, 1, 1, 0.1, 2, "2026-12-06", "test", since="2026-05-01")
    later = Price(2, 2, 2, 0.2, 4, "2026-12-06", "test", since="2026-03-01")
    policy = MODELS["gpt-5.5"].cache
    with pytest.raises(ValueError, match="in order of their dates"):
        Model("x", "openai", (first, later), policy)
    with pytest.raises(ValueError, match="provider must be one of"):
        Model("x", "mistral", (first,), policy)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"Price\.since must be an ISO date"):
        Price(1, 1, 1, 0.1, 2, "2026-12-06", "test", since="July")


# ---------------------------------------------------------------- priced as the pages say


def test_a_gpt_5_5_call_costs_what_ccusage_bills() -> None:
    """1,675 uncached, 20,864 cached and 10 output tokens at $5 / $0.50 / $30: $0.019107."""
    rise = {"input_tokens": 1_675 + 20_864, "cached_input_tokens": 20_864, "output_tokens": 10}
    assert round(cost(rise, model_for("gpt-5.5")).total, 6) == 0.019107
    assert round(cost(rise, price_for("openai/gpt-5.5-2026-04-23")).total, 6) == 0.019107


def test_a_gpt_5_5_rollout_is_priced(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    lines = [
        {"timestamp": "2026-11-02T09:00:00Z", "type": "session_meta", "payload": {"id": "r1"}},
        {
            "timestamp": "2026-11-02T09:00:00Z",
            "type": "turn_context",
            "payload": {"model": "gpt-5.5"},
        },
        {
            "timestamp": "2026-11-02T09:00:01Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"text": "go"}]},
        },
        {
            "timestamp": "2026-11-02T09:00:09Z",
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {
                    "total_token_usage": {
                        "input_tokens": 22_539,
                        "cached_input_tokens": 20_864,
                        "output_tokens": 10,
                        "reasoning_output_tokens": 0,
                        "total_tokens": 22_549,
                    }
                },
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    bill = read_bill(path)
    assert bill.unpriced_models() == () and round(bill.cost().total, 6) == 0.019107


def test_an_opus_4_6_fast_call_costs_six_times_the_standard_rates() -> None:
    """Anthropic's fast-mode page: Opus 4.6 at 6x; Opus 4.8 and 5 at 2x."""
    call = {
        "input_tokens": 5,
        "cache_read_input_tokens": 20_000,
        "cache_creation_input_tokens": 1_000,
        "output_tokens": 300,
    }
    standard = cost(call, model_for("claude-opus-4-6")).total
    assert round(standard, 6) == 0.023775
    assert round(cost({**call, "speed": "fast"}, model_for("claude-opus-4-6")).total, 6) == 0.14265
    assert cost({**call, "speed": "fast"}, PRICES["claude-opus-4-8"]).total == pytest.approx(
        2 * standard
    )
    with pytest.raises(Unpriced):
        cost({**call, "speed": "fast"}, PRICES["claude-sonnet-4-6"])


def test_a_rate_that_changed_prices_each_call_at_its_own_time() -> None:
    """GPT-5.6 Terra: $2.50 from 2026-07-09, $2.00 from the 2026-07-30 cut."""
    call = Usage(input_tokens=100_000)  # under the 272K band
    terra = model_for("gpt-5.6-terra")
    assert len(terra.prices) == 2
    assert cost(call, terra, at="2026-07-29T23:59:59Z").total == pytest.approx(0.25)
    assert cost(call, terra, at=datetime(2026, 7, 30, tzinfo=UTC)).total == pytest.approx(0.20)
    moment = datetime(2026, 7, 30, tzinfo=UTC).timestamp()
    assert cost(call, terra, at=moment).total == pytest.approx(0.20)
    assert cost(call, terra).total == pytest.approx(0.20)  # no time: the latest rates
    sol = model_for("gpt-5.6")
    totals = [cost(call, sol, at=f"2026-{day}").total for day in ("08-01", "09-01", "12-05")]
    assert totals == pytest.approx([0.5, 0.4, 0.5])  # the promotion, then back


@pytest.mark.parametrize("when", ["yesterday", float("nan"), 10**20, True])
@pytest.mark.parametrize("model_id", ["claude-sonnet-4-6", "gpt-5.6-terra"])
def test_a_time_that_is_no_time_is_refused_whether_the_row_has_one_rate_or_several(
    when: object, model_id: str
) -> None:
    """A row with one rate once took any `at` without reading it, so the same bad time
    was refused for a model whose rate changed and priced for one whose rate did not."""
    with pytest.raises((TypeError, ValueError), match=r"^at (must be|is not a time)"):
        price_for(model_id, at=when)  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError), match=r"^at (must be|is not a time)"):
        cost(Usage(input_tokens=1), model_for(model_id), at=when)  # type: ignore[arg-type]


def test_a_time_in_milliseconds_is_refused_naming_the_range_of_seconds() -> None:
    """`at=1772442002000` (a time in milliseconds, as JavaScript gives it) was refused as
    'at is not a time: 1772442002000', the range of seconds and the likely slip unsaid."""
    with pytest.raises(ValueError) as error:
        price_for("claude-sonnet-4-6", at=1_772_442_002_000)
    said = str(error.value)
    assert said.startswith("at is not a time: 1772442002000")
    assert "seconds since the epoch from -62,135,510,400 to 253,402,128,000" in said
    assert "in milliseconds" in said
    with pytest.raises(ValueError) as error:
        price_for("claude-sonnet-4-6", at=10**20)
    assert "milliseconds" not in str(error.value)


@pytest.mark.parametrize("table", [["claude-sonnet-4-6"], "claude-sonnet-4-6", 3])
def test_a_table_that_is_not_a_dict_is_named(table: object) -> None:
    with pytest.raises(TypeError, match=r"^models must be a dict of id -> Model, got "):
        model_for("claude-sonnet-4-6", models=table)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^prices must be a dict of id -> Price, got "):
        price_for("claude-sonnet-4-6", prices=table)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("when", "multiple"),
    [
        ("2026-11-02T02:30:00Z", 2.0),  # a Monday, 01:00-04:00 UTC
        ("2026-11-02T05:00:00Z", 1.0),  # between the two peak windows
        ("2026-11-02T09:59:59Z", 2.0),
        ("2026-11-02T10:00:00Z", 1.0),
        ("2026-11-07T02:30:00Z", 1.0),  # a Saturday: off-peak all day
        ("2026-08-16T15:59:00+00:00", 1.0),  # before peak billing began (a Sunday anyway)
        ("2026-08-14T02:30:00Z", 1.0),  # a Friday before 2026-08-16 16:00 UTC: no peak yet
    ],
)
def test_deepseek_charges_twice_at_peak_hours(when: str, multiple: float) -> None:
    flash = model_for("deepseek-v4-flash")
    call = Usage(input_tokens=100_000)
    off_peak = flash.price_at(when).input / 10
    assert cost(call, flash, at=when).total == pytest.approx(off_peak * multiple)


def test_a_peak_applies_only_in_its_hours_and_days() -> None:
    peak = Peak(((1, 4), (6, 10)), 2.0)
    monday = datetime(2026, 11, 2, 3, 59, tzinfo=UTC)
    assert peak.applies(monday) and not peak.applies(monday.replace(hour=4))
    assert not peak.applies(datetime(2026, 11, 8, 3, tzinfo=UTC))  # Sunday
    assert Peak(((1, 4),), 2.0, weekdays_only=False).applies(datetime(2026, 11, 8, 3, tzinfo=UTC))


def test_without_a_time_a_deepseek_call_is_priced_off_peak() -> None:
    flash = model_for("deepseek-v4-flash")
    assert cost(Usage(input_tokens=100_000), flash).total == pytest.approx(0.015)


# ---------------------------------------------------------------- every shipped session


def _billable(folder: Path) -> list[Path]:
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.suffix not in (".json", ".jsonl"):
            continue
        try:
            if detect_format(path.read_text(encoding="utf-8"))[0] in BILL_FORMATS:
                found.append(path)
        except (ValueError, OSError):
            continue
    return found


#: Shipped files whose models have no list price here, on purpose: a real run on a model
#: served through a router at its own rates (the CLI reference bills it as unpriced).
NO_LIST_PRICE = {
    "tests/fixtures/transcripts/openhands/output.jsonl": ("meta-llama/llama-4-maverick",),
}


@pytest.mark.parametrize(
    "folder", ["docs/measured/sessions", "examples", "tests/fixtures/transcripts"]
)
def test_every_model_of_every_shipped_session_is_priced(folder: str) -> None:
    paths = _billable(ROOT / folder)
    assert paths or folder == "examples"  # the examples record no usage
    for path in paths:
        try:
            bill = read_bill(path)
        except ValueError:  # a fixture no bill reads (a session with no usage at all)
            continue
        if path.relative_to(ROOT).as_posix() in NO_LIST_PRICE:
            assert bill.unpriced_models() == NO_LIST_PRICE[path.relative_to(ROOT).as_posix()]
            continue
        assert bill.unpriced_models() == (), path
        for model in bill.models:
            assert model_for(model) is not None, (path, model)


@pytest.mark.parametrize(
    ("written", "row"),
    [
        ("openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),
        ("anthropic/claude-3.7-sonnet", "claude-3-7-sonnet"),
        ("claude-opus-4.6", "claude-opus-4-6"),
        ("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
        ("global.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
        ("anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1"),
        ("Claude-Sonnet-4-5", "claude-sonnet-4-5"),
        ("openai/gpt-5.5", "gpt-5.5"),
        ("gemini/gemini-3.1-pro-preview", "gemini-3.1-pro-preview"),
    ],
)
def test_an_id_as_openrouter_bedrock_or_a_tired_user_writes_it_finds_its_row(
    written: str, row: str
) -> None:
    found = model_for(written)
    assert found is not None and found.id == row
    assert price_for(written) == price_for(row)


def test_a_dot_is_read_as_a_dash_in_claude_ids_alone() -> None:
    # gpt-5.5 is not gpt-5-5, and a Claude id with a dot in no version is no row
    assert model_for("gpt-5-5") is None
    assert model_for("claude-sonnet-4.5.1") is None
    assert model_family("openai/gpt-5.5") == "gpt-5.5"
    assert model_family("gemini-3.1-pro-preview") == "gemini-3.1-pro-preview"
    assert model_family("anthropic/claude-sonnet-4.5") == "claude-sonnet-4-5"


@pytest.mark.parametrize(
    "at", ["2026-05-01T12:00", "2026-08-20T12:00", "2026-08-20T02:00", "2026-11-02T08:00"]
)
def test_deepseek_chat_is_priced_as_v4_flash_at_every_rate_it_had_since_the_v4_launch(
    at: str,
) -> None:
    usage = Usage(
        input_tokens=1_000,
        output_tokens=500,
        cache_creation_input_tokens=0,
        cache_read_input_tokens=20_000,
    )
    moment = datetime.fromisoformat(at).replace(tzinfo=UTC)
    chat = cost(usage, model_for("deepseek-chat"), at=moment)
    flash = cost(usage, model_for("deepseek-v4-flash"), at=moment)
    assert chat == flash
    before = cost(usage, model_for("deepseek-chat"), at=datetime(2026, 3, 1, tzinfo=UTC))
    assert before != flash


@pytest.mark.parametrize("aliases", ["mine", ["mine", 5], ("mine", None)])
def test_a_rows_aliases_that_are_no_tuple_of_ids_are_named(aliases: object) -> None:
    """`aliases="mine"` is one id, iterated as its letters: `model_for("m", table)` found
    the row and `model_for("mine", table)` did not."""
    with pytest.raises(TypeError, match=r"Model\.aliases must be a tuple of ids"):
        replace(MODELS["gpt-5.5"], id="my-model", aliases=aliases)

"""Prices as dated data, and the bill of one call.

Prices and multipliers are those of
https://platform.claude.com/docs/en/about-claude/pricing; the worked costs are
the examples of https://platform.claude.com/docs/en/build-with-claude/prompt-caching
and https://platform.claude.com/docs/en/build-with-claude/compaction.
"""

from __future__ import annotations

import math
import re
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import (
    MIN_CACHEABLE_TOKENS,
    PRICES,
    Usage,
    cache_report,
    cost,
    loop_cost,
    loop_steps,
    price_for,
)
from context_budget.experiment import run_strategy
from context_budget.fakes.emulated import EmulatedClient
from context_budget.models import MODELS, LongContext, Peak, model_for
from context_budget.pricing import Cost, Price, Unpriced, billed, prompt_charges

MIXED_TTL = {
    "input_tokens": 2048,
    "output_tokens": 503,
    "cache_creation_input_tokens": 248,
    "cache_read_input_tokens": 1800,
    "cache_creation": {"ephemeral_5m_input_tokens": 148, "ephemeral_1h_input_tokens": 100},
}


def test_mixed_ttl_example_costs_what_the_docs_compute() -> None:
    """Worked example of the docs: $0.015384 on Sonnet 4.6 and $0.02564 on Opus 4.6."""
    assert cost(MIXED_TTL, PRICES["claude-sonnet-4-6"]).total == pytest.approx(0.015384)
    assert cost(MIXED_TTL, PRICES["claude-opus-4-6"]).total == pytest.approx(0.02564)


def test_a_cached_document_costs_a_tenth_of_the_uncached_one() -> None:
    """Worked example of the docs: 200,000 read + 50 fresh = $0.06015 against $0.60015 uncached."""
    price = PRICES["claude-sonnet-4-6"]
    cached = cost(
        {"input_tokens": 50, "output_tokens": 0, "cache_read_input_tokens": 200_000}, price
    )
    fresh = cost({"input_tokens": 200_050, "output_tokens": 0}, price)
    assert (cached.total, fresh.total) == (pytest.approx(0.06015), pytest.approx(0.60015))


def test_the_breakdown_names_each_charge() -> None:
    bill = cost(MIXED_TTL, PRICES["claude-sonnet-4-6"])
    assert bill.uncached_input == pytest.approx(2048 * 3 / 1e6)
    assert bill.cache_writes == pytest.approx((148 * 3.75 + 100 * 6) / 1e6)
    assert bill.cache_reads == pytest.approx(1800 * 0.30 / 1e6)
    assert bill.output == pytest.approx(503 * 15 / 1e6)


def test_usage_in_any_of_its_three_shapes_gives_the_same_bill() -> None:
    price = PRICES["claude-opus-4-6"]
    sdk = SimpleNamespace(
        input_tokens=2048,
        output_tokens=503,
        cache_creation_input_tokens=248,
        cache_read_input_tokens=1800,
        cache_creation=SimpleNamespace(
            ephemeral_5m_input_tokens=148, ephemeral_1h_input_tokens=100
        ),
    )
    bills = {cost(MIXED_TTL, price), cost(sdk, price), cost(Usage.of(MIXED_TTL), price)}
    bills.add(cost({"usage": MIXED_TTL}, price))
    bills.add(cost(SimpleNamespace(usage=sdk), price))
    assert len(bills) == 1


def test_compaction_costs_the_sum_of_its_iterations() -> None:
    """The docs' example: the top level alone says $0.14; the iterations add up to $1.1275."""
    usage = {
        "input_tokens": 23_000,
        "output_tokens": 1_000,
        "iterations": [
            {"type": "compaction", "input_tokens": 180_000, "output_tokens": 3_500},
            {"type": "message", "input_tokens": 23_000, "output_tokens": 1_000},
        ],
    }
    price = PRICES["claude-opus-4-6"]
    assert cost(usage, price).total == pytest.approx(1.1275)
    assert cost(Usage.of(usage), price).total == pytest.approx(1.1275)  # the record keeps them
    assert cost(Usage(input_tokens=23_000, output_tokens=1_000), price).total == pytest.approx(0.14)
    iterations = [SimpleNamespace(**i) for i in usage["iterations"]]
    sdk = SimpleNamespace(
        usage=SimpleNamespace(input_tokens=23_000, output_tokens=1_000, iterations=iterations)
    )
    assert cost(sdk, price).total == pytest.approx(1.1275)


def test_opus_5_5_reads_at_a_twentieth_of_its_input_price_per_its_model_page() -> None:
    price = PRICES["claude-opus-5-5"]
    assert price.read / price.input == pytest.approx(1 / 20)
    assert price.as_of.startswith("2026-09")
    # The read rate is on the model page; the pricing page does not list it.
    assert "model page" in price.source and "opus-5-5" in price.source


def test_most_models_read_at_a_tenth_and_write_at_125_and_200_percent() -> None:
    haiku_3 = PRICES["claude-3-haiku"]  # the pricing page's own figures, not the multiples
    assert (haiku_3.input, haiku_3.write_5m, haiku_3.write_1h, haiku_3.read) == (
        0.25,
        0.30,
        0.50,
        0.03,
    )
    for model, row in MODELS.items():
        price = PRICES[model]
        if row.provider != "anthropic" or row.cache.hit_unit == "none" or price is haiku_3:
            continue  # other providers write at their own rules (test_provider_caches)
        assert price.write_5m == pytest.approx(price.input * 1.25), model
        assert price.write_1h == pytest.approx(price.input * 2), model
        assert price.as_of and price.source, model
    tenths = [m for m, p in PRICES.items() if p.read == pytest.approx(p.input / 10)]
    assert "claude-sonnet-4-6" in tenths and "claude-opus-5-5" not in tenths


def test_a_five_minute_write_pays_back_after_one_read() -> None:
    """Break-even: 1.25 + 0.1 < 2 (one write, one read) and 2 + 0.2 < 3 for an hour."""
    price = PRICES["claude-sonnet-4-6"]
    assert price.write_5m + price.read < 2 * price.input
    assert price.write_1h + 2 * price.read < 3 * price.input


def test_cost_adds_up_and_rejects_bad_input() -> None:
    one = Cost(1.0, 2.0, 3.0, 4.0)
    assert (one + one).total == 20.0
    with pytest.raises(TypeError, match="Price"):
        cost(MIXED_TTL, 3.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"Price\.read"):
        Price(1, 1, 1, -1, 1, "2026-01-01", "test")
    with pytest.raises(ValueError, match="output_tokens"):
        cost({"input_tokens": 1}, PRICES["claude-haiku-4-5"])


def test_loop_cost_lives_in_pricing_and_is_still_exported() -> None:
    from context_budget import pricing

    assert pricing.loop_cost is loop_cost
    calls = loop_steps(10, growth=1_000)
    assert loop_cost(calls, input_price=5.0) == pytest.approx(55_000 * 5.0 / 1e6)


def test_every_priced_model_has_a_dated_minimum_cacheable_length() -> None:
    """A key of PRICES without a minimum made the cache, the report and the client refuse it."""
    missing = [model for model in PRICES if model not in MIN_CACHEABLE_TOKENS]
    assert missing == []
    for model in PRICES:
        minimum = MIN_CACHEABLE_TOKENS[model]
        assert minimum.source, model
        if MODELS[model].provider == "anthropic" and MODELS[model].cache.hit_unit != "none":
            assert minimum.tokens in (512, 1024, 2048, 4096), model
            assert minimum.as_of, model


@pytest.mark.parametrize("model", ["claude-fable-5-1", "claude-mythos-5-1"])
def test_the_5_1_flagships_read_at_a_quarter_dollar_with_a_512_token_minimum(model: str) -> None:
    price = PRICES[model]
    assert (price.input, price.write_5m, price.write_1h, price.read, price.output) == (
        10.0,
        12.5,
        20.0,
        0.25,
        50.0,
    )
    assert "pricing" in price.source and price.as_of.startswith("2026-09")
    assert MIN_CACHEABLE_TOKENS[model].tokens == 512
    assert "assumed" in MIN_CACHEABLE_TOKENS[model].source


def test_a_model_priced_after_the_snapshot_runs_through_the_cache_the_report_and_the_client() -> (
    None
):
    model = "claude-sonnet-5-5"
    assert run_strategy("naive", model=model).cost_usd > 0
    turns = [{"system": "s" * 8000, "messages": [{"role": "user", "content": "q"}]}]
    assert cache_report(turns, model).rows[0].prompt_tokens == 2001
    client = EmulatedClient(model, [{"content": "ok"}])
    reply = client.messages.create(
        model=model, max_tokens=8, messages=[{"role": "user", "content": "hi"}]
    )
    assert reply["stop_reason"] == "end_turn"


@pytest.mark.parametrize(
    "bad",
    [float("nan"), float("inf"), -0.5, 10**400, "3", None, True],
    ids=["nan", "inf", "negative", "huge", "text", "none", "bool"],
)
def test_a_price_that_is_not_a_finite_rate_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match=r"Price\.read must be a finite number >= 0"):
        Price(1, 1, 1, bad, 1, "2026-01-01", "test")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Price\.as_of must be a str"):
        Price(1, 1, 1, 1, 1, 20260101, "test")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("extra", "error", "words"),
    [
        ({"long_context": LongContext(200_000, 6.0, 22.5)}, None, ""),
        ({"long_context": 200_000}, TypeError, "Price.long_context must be a LongContext or None"),
        ({"peak": "01-04"}, TypeError, "Price.peak must be a Peak or None, got '01-04'"),
    ],
    ids=["sound", "band-int", "peak-str"],
)
def test_a_price_names_a_band_or_peak_of_the_wrong_type(
    extra: dict[str, Any], error: type[Exception] | None, words: str
) -> None:
    """A bare number for the band failed only when a call was priced (`.above`)."""
    if error is None:
        Price(3, 3.75, 6, 0.3, 15, "2026-01-01", "test", **extra)
        return
    with pytest.raises(error, match=re.escape(words)):
        Price(3, 3.75, 6, 0.3, 15, "2026-01-01", "test", **extra)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: LongContext(-1, 6.0, 22.5), "LongContext.above must be an int >= 0, got -1"),
        (lambda: LongContext(200_000, math.nan, 22.5), "LongContext.input must be a finite"),
        (lambda: LongContext(200_000, 6.0, -1.0), "LongContext.output must be a finite"),
        (lambda: Peak(((1, 4),), -2.0), "Peak.multiple must be a finite number >= 0"),
        (lambda: Peak(((4, 1),), 2.0), "Peak.hours must be (start, end) UTC hours"),
        (lambda: Peak(((1, 25),), 2.0), "Peak.hours must be (start, end) UTC hours"),
    ],
    ids=[
        "above-negative",
        "input-nan",
        "output-negative",
        "multiple-negative",
        "hours-back",
        "hour-25",
    ],
)
def test_a_band_or_peak_that_prices_no_call_sensibly_is_refused(make: Any, words: str) -> None:
    """A NaN band rate priced a call at NaN, a negative peak multiple at a negative bill."""
    with pytest.raises(ValueError, match=re.escape(words)):
        make()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"input_price": float("nan")},
        {"input_price": 5.0, "read_multiplier": float("nan")},
        {"input_price": 5.0, "write_multiplier": float("inf")},
        {"input_price": 10**400},
        {"input_price": -1.0},
    ],
)
def test_loop_cost_refuses_a_rate_that_is_not_finite(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must be a finite number >= 0"):
        loop_cost(loop_steps(3, growth=1_000), **kwargs)


def test_loop_cost_names_a_call_that_is_not_a_step() -> None:
    with pytest.raises(TypeError, match=r"calls\[1\] must be a LoopStep"):
        loop_cost([*loop_steps(1, growth=10), {"cached": 1}], input_price=1.0)  # type: ignore[list-item]


def test_writes_without_a_split_are_billed_at_the_five_minute_rate() -> None:
    price = PRICES["claude-sonnet-4-6"]
    bill = cost(Usage(cache_creation_input_tokens=1_000_000), price)
    assert bill.cache_writes == pytest.approx(price.write_5m)


def test_a_bad_price_error_stays_short_on_a_deep_value() -> None:
    deep: dict[str, object] = {}
    for _ in range(10_000):
        deep = {"k": deep}
    with pytest.raises(TypeError, match="price must be a Price") as raised:
        cost(MIXED_TTL, deep)  # type: ignore[arg-type]
    assert len(str(raised.value)) < 200


_TOKENS = st.integers(0, 400_000)


@given(
    st.sampled_from(sorted(MODELS)),
    st.tuples(_TOKENS, _TOKENS, _TOKENS, _TOKENS),
    st.sampled_from([("", ""), ("fast", ""), ("", "us")]),
    st.floats(1.6e9, 1.9e9),
)
def test_another_split_of_a_prompt_is_charged_as_cost_charges_a_usage_of_it(
    model: str, counts: tuple[int, int, int, int], rules: tuple[str, str], at: float
) -> None:
    # the what-ifs of a bill price other splits of a call's prompt at its tariff: what
    # `cost` charges a usage of those counts, to the last bit (band, fast mode, US-only
    # inference, dated rates and peak hours at the call's time included)
    uncached, five, hour, read = counts
    speed, geo = rules
    usage = Usage(
        input_tokens=uncached,
        output_tokens=7,
        cache_creation_input_tokens=five + hour,
        cache_read_input_tokens=read,
        ephemeral_5m_input_tokens=five,
        ephemeral_1h_input_tokens=hour,
        speed=speed,
        inference_geo=geo,
    )
    row = MODELS[model]
    try:
        tariff, bill = billed(usage, row, at=at)
    except Unpriced:
        with pytest.raises(Unpriced):
            cost(usage, row, at=at)
        return
    assert bill == cost(usage, row, at=at)
    charged = (bill.uncached_input, bill.cache_writes, bill.cache_reads)
    assert prompt_charges(tariff, uncached, five, hour, read) == charged
    # the tariff is the call's: another split of the same prompt, priced both ways
    moved = Usage(
        input_tokens=0,
        output_tokens=7,
        cache_creation_input_tokens=uncached + hour,
        cache_read_input_tokens=read + five,
        ephemeral_5m_input_tokens=0,
        ephemeral_1h_input_tokens=uncached + hour,
        speed=speed,
        inference_geo=geo,
    )
    other = cost(moved, row, at=at)
    again = prompt_charges(tariff, 0, 0, uncached + hour, read + five)
    assert again == (other.uncached_input, other.cache_writes, other.cache_reads)


@pytest.mark.parametrize(
    ("at", "error"),
    [("yesterday", ValueError), (float("nan"), ValueError), (True, TypeError), ([1], TypeError)],
    ids=["words", "nan", "bool", "list"],
)
@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "deepseek-v4-flash"])
def test_a_time_that_is_no_time_is_named_whether_priced_by_rates_or_by_row(
    model: str, at: object, error: type[Exception]
) -> None:
    """The same call at the same (bad) time: refused with its row, and with its rates as
    well, where the rates of a model without peak hours took any `at` unsaid."""
    usage = {"input_tokens": 1_000, "output_tokens": 10}
    row = model_for(model)
    assert row is not None
    for rates in (row, row.price):
        with pytest.raises(error, match="at "):
            cost(usage, rates, at=at)  # type: ignore[arg-type]
    for table in (None, {model: row.price}):
        with pytest.raises(error, match="at "):
            price_for(model, table, at=at)  # type: ignore[arg-type]


def test_storage_by_the_hour_is_billed_for_the_writes_the_call_is_billed_for() -> None:
    """A Usage built by hand whose split says 150 one-hour tokens of 100 written: its writes
    were billed as 100 and its storage as 150, so it and its own JSON had two bills."""
    row = model_for("gemini-3.1-pro-preview")
    assert row is not None
    explicit = row.caches["explicit"]
    usage = Usage(10, 5, cache_creation_input_tokens=100, ephemeral_1h_input_tokens=150)
    built, read = cost(usage, row, policy=explicit), cost(usage.as_dict(), row, policy=explicit)
    assert built == read
    assert built.storage == pytest.approx(100 * explicit.storage_per_hour / 1_000_000)

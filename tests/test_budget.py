"""The cost of a loop that re-sends its whole history (chapter 1)."""

from __future__ import annotations

import pytest

from context_budget import LoopStep, loop_cost, loop_steps, tokens_read


def test_each_call_carries_everything_before_it() -> None:
    calls = loop_steps(4, growth=100, start=50)
    assert [call.context for call in calls] == [150, 250, 350, 450]
    assert [call.cached for call in calls] == [0, 0, 0, 0]


def test_closed_form_matches_the_sum_of_the_calls() -> None:
    for steps in (0, 1, 2, 7, 50):
        calls = loop_steps(steps, growth=1_875, start=2_000)
        assert tokens_read(steps, growth=1_875, start=2_000) == sum(c.context for c in calls)


def test_tokens_read_grows_with_the_square_of_the_steps() -> None:
    # with no fixed start, doubling the steps multiplies the total by 2(2n+1)/(n+1) -> 4
    small, large = tokens_read(1_000, growth=10), tokens_read(2_000, growth=10)
    assert large / small == pytest.approx(4.0, rel=1e-3)


def test_a_cached_call_reads_the_previous_call_from_the_cache() -> None:
    calls = loop_steps(3, growth=100, start=50, cached=True)
    assert [call.cached for call in calls] == [0, 150, 250]
    assert [call.uncached for call in calls] == [150, 100, 100]


def test_cost_without_a_cache_is_tokens_times_price() -> None:
    calls = loop_steps(10, growth=1_000)
    assert loop_cost(calls, input_price=5.0) == pytest.approx(55_000 * 5.0 / 1e6)


def test_cost_with_a_cache_prices_reads_and_writes() -> None:
    calls = loop_steps(2, growth=1_000, cached=True)  # [1000 fresh], [1000 read + 1000 fresh]
    expected = (2_000 * 1.25 + 1_000 * 0.1) * 3.0 / 1e6
    assert loop_cost(calls, input_price=3.0) == pytest.approx(expected)


def test_a_cheaper_cache_read_lowers_the_bill() -> None:
    calls = loop_steps(24, growth=1_875, start=2_000, cached=True)
    assert loop_cost(calls, 5.0, read_multiplier=0.05) < loop_cost(calls, 5.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"steps": -1, "growth": 1}, ValueError, "steps must be >= 0, got -1"),
        ({"steps": 1, "growth": -5}, ValueError, "growth must be >= 0, got -5"),
        ({"steps": 1.5, "growth": 1}, TypeError, "steps must be an int, got 1.5"),
        ({"steps": True, "growth": 1}, TypeError, "steps must be an int, got True"),
    ],
)
def test_bad_counts_name_the_value(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        loop_steps(**kwargs)
    with pytest.raises(error, match=message):
        tokens_read(**kwargs)


@pytest.mark.parametrize("cached", ["False", 0, None], ids=["a-string", "zero", "none"])
def test_cached_is_true_or_false_and_nothing_else(cached: object) -> None:
    # the string "False" is truthy: it made every call read from the cache
    with pytest.raises(TypeError, match=rf"^cached must be True or False, got {cached!r}$"):
        loop_steps(2, growth=10, cached=cached)  # type: ignore[arg-type]


def test_a_negative_price_is_refused() -> None:
    with pytest.raises(ValueError, match=r"input_price must be a finite number >= 0 .* got -1$"):
        loop_cost(loop_steps(1, growth=1), input_price=-1)


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ((1, 100, 500), ValueError, r"cached must be an int from 0 to context \(100\), got 500"),
        ((1, -100, 0), ValueError, r"context must be an int >= 0, got -100"),
        ((1, 100.5, 0), TypeError, r"context must be an int >= 0, got 100.5"),
        ((1, 100, True), TypeError, r"cached must be an int >= 0, got True"),
        ((0, 100, 0), ValueError, r"step must be an int >= 1, got 0"),
    ],
    ids=["cached-over-context", "negative-context", "float-context", "bool-cached", "step-0"],
)
def test_a_step_made_by_hand_that_no_loop_makes_is_refused(
    fields: tuple[object, ...], error: type, message: str
) -> None:
    """A step caching more than it carries once priced at a negative bill:
    `loop_cost([LoopStep(1, 100, 500)], 5.0)` gave -0.00225 USD."""
    with pytest.raises(error, match=rf"^LoopStep\.{message}$"):
        LoopStep(*fields)  # type: ignore[arg-type]

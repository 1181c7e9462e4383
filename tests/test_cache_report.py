"""The cache report: hit share, first divergence and cost, on the layouts of Lucy's day."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from context_budget import PromptCache, SimulatedClock, cache_report, cost
from context_budget.cache_report import CacheReport, RequestRow
from context_budget.pricing import PRICES
from context_budget.scenarios.layouts import BROKEN_LAYOUTS, LAYOUTS, MODEL, layout_requests
from context_budget.usage import Usage


def test_the_report_agrees_with_the_cache_model_request_by_request() -> None:
    requests = layout_requests("append only")
    report = cache_report(requests, MODEL, seconds_between=30)
    clock = SimulatedClock()
    cache = PromptCache(MODEL, clock=clock)
    for number, (request, row) in enumerate(zip(requests, report.rows, strict=True)):
        if number:
            clock.advance(30)
        usage = cache.usage(request)
        assert row.cache_read == usage.cache_read_input_tokens
        assert row.prompt_tokens == usage.prompt_tokens
        assert row.cost == pytest.approx(cost(usage, PRICES[MODEL]).total)
    assert report.cost == pytest.approx(sum(row.cost for row in report.rows))


def test_the_repaired_layout_reads_more_and_costs_less_than_every_break() -> None:
    reports = {layout: cache_report(layout_requests(layout), MODEL) for layout in LAYOUTS}
    repaired = reports["append only"]
    assert repaired.hit_share > 0.6
    assert all(row.first_divergence is None for row in repaired.rows)
    for layout in BROKEN_LAYOUTS:
        assert reports[layout].hit_share < repaired.hit_share, layout
        assert reports[layout].cost > repaired.cost, layout
        assert any(row.first_divergence is not None for row in reports[layout].rows), layout


def test_first_divergence_names_the_changed_block() -> None:
    rows = cache_report(layout_requests("timestamp"), MODEL).rows
    assert {row.first_divergence for row in rows[1:]} == {3}  # three tools, then the system
    rows = cache_report(layout_requests("tools reordered"), MODEL).rows
    assert {row.first_divergence for row in rows[1:]} == {0}


def test_the_report_never_changes_its_requests() -> None:
    requests = layout_requests("records last")
    before = copy.deepcopy(requests)
    cache_report(requests, MODEL)
    assert requests == before


def test_a_shortened_request_diverges_at_its_end() -> None:
    long = {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
    short = {"messages": [{"role": "user", "content": "a"}]}
    rows = cache_report([long, short], MODEL).rows
    assert rows[1].first_divergence == 1


@pytest.mark.parametrize(
    ("requests", "model", "words"),
    [([], MODEL, "at least one"), ([{}], "no-such-model", "no price")],
)
def test_bad_input_is_named(requests: list[dict[str, object]], model: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        cache_report(requests, model)


def test_a_request_that_is_not_a_dict_is_named() -> None:
    with pytest.raises(TypeError, match=r"requests\[1\]"):
        cache_report([{}, "nope"], MODEL)  # type: ignore[list-item]


def test_an_unknown_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="layout must be one of"):
        layout_requests("sideways")


@pytest.mark.parametrize(
    "gap", [float("nan"), float("inf"), -1.0, 10**400], ids=["nan", "inf", "negative", "huge"]
)
def test_a_gap_that_is_not_a_finite_time_is_refused_even_for_one_request(gap: float) -> None:
    with pytest.raises(ValueError, match="seconds_between"):
        cache_report([{}], MODEL, seconds_between=gap)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"requests": {"messages": []}}, "requests must be a list of request dicts"),
        ({"requests": [{}], "model": 4}, "model must be a str"),
        ({"requests": [{}], "price": 3.0}, "price must be a Price"),
    ],
)
def test_arguments_of_the_wrong_type_are_named(kwargs: dict[str, object], words: str) -> None:
    arguments: dict[str, object] = {"model": MODEL, **kwargs}
    with pytest.raises(TypeError, match=words):
        cache_report(**arguments)  # type: ignore[arg-type]


@given(st.lists(st.floats(0, 1e3, allow_nan=False), max_size=30))
@example([0.1] * 10)  # 0.9999999999999999 added in order, where Python adds without care
def test_the_runs_cost_is_its_rows_costs_summed_exactly_in_any_order(costs: list[float]) -> None:
    """As a bill adds its calls' charges: the true sum rounded once, whatever the order."""
    rows = [RequestRow(n, Usage(1, 1), None, usd) for n, usd in enumerate(costs)]
    exact = float(sum(map(Fraction, costs), Fraction(0)))
    assert CacheReport(MODEL, rows).cost == exact
    assert CacheReport(MODEL, rows[::-1]).cost == exact

"""What a model call costs: the bill of one usage, priced by the one table of models.

Prices are data, not constants: `models.MODELS` holds each model's dated
`Price`s, each with the date it was read and where, and the rates of a model
that changed keep every value from its date. Every rate is in US dollars per
million tokens. `PRICES` (every model's latest rates) and `OPENAI_PRICES`
(OpenAI's) are views of that table; `price_for` finds a recorded id's rates
the way `models.model_for` finds its row.

`cost` splits one call's usage into its charges. It prices a live response,
an emulated one and a call a saved session recorded alike (the bill of
`read_bill` calls it once per call), at the call's own time where the price
depends on it, and it is the one place the rules beyond the token rates are
applied:

- fast mode (`usage.speed == "fast"`): every token rate times the model's
  `Price.fast` (6 on Opus 4.6 and 4.7, 2 on Opus 4.8 and later, per
  [fast mode](https://platform.claude.com/docs/en/build-with-claude/fast-mode));
  a model with no fast rate raises `Unpriced`, never a guess;
- US-only inference (`usage.inference_geo == "us"`): every token rate times
  `Price.us_only` (1.1 on Claude 4.6 and later, 1 before);
- a long-context band (Sonnet 4 and 4.5, Haiku 5.5, GPT-5.5 and later, Gemini
  Pro): once a request's prompt (uncached + cache writes + cache reads)
  passes `LongContext.above` tokens, the whole request is charged at the
  band's rates, the cache multiples applied to its input rate;
- peak hours (DeepSeek): every rate times `Peak.multiple` when the call's
  time falls in them;
- server tools: `usage.server_tool_use.web_search_requests` at
  `Price.web_search` dollars per 1,000 requests;
- server-side compaction: a usage with `iterations` is billed as the sum of
  its iterations (`Usage.parts`); the top level reports only the last one;
- storage: where the cache policy charges by the hour (Gemini's explicit
  caches), each write is held for its lifetime at `CachePolicy.storage_per_hour`.

A cache-write split that does not add up to `cache_creation_input_tokens`
is billed under `usage.split_writes`'s policy: the total is what was written,
its 1-hour part is kept up to the total, and the rest is billed as 5-minute
writes. OpenAI's cached and written tokens are inside its input figure; the
one usage reader (`Usage.of`) takes them out before a call is priced.

`billed` is `cost` with the `Tariff` the call was billed at (its rates at
its time and the multiple its speed, region and hour set). A question of what
the same call would have cost with its prompt split otherwise (more of it
cached, none of it, written for an hour) is priced by `prompt_charges` at
that tariff: the step `cost` computes every input-side charge in, given the
token counts alone, so a bill asks it of every call several times without
building a usage for each answer.

`loop_cost` prices a whole loop of `LoopStep`s from the input price and two
multipliers (chapter 1); `cost` prices one real or emulated call.

Example:
    >>> bill = cost({"input_tokens": 50, "output_tokens": 0,
    ...              "cache_read_input_tokens": 200_000}, PRICES["claude-sonnet-4-6"])
    >>> round(bill.total, 5)
    0.06015
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from math import fsum
from typing import Any

from context_budget._values import as_rate, maker, short_repr
from context_budget.budget import LoopStep
from context_budget.cache_policy import CachePolicy
from context_budget.errors import ContextBudgetError
from context_budget.models import (
    MODELS,
    LongContext,
    Model,
    Price,
    as_moment,
    check_time,
    model_family,
    model_for,
)
from context_budget.usage import Usage

__all__ = [
    "OPENAI_PRICES",
    "PRICES",
    "Cost",
    "LongContext",
    "Price",
    "Tariff",
    "Unpriced",
    "billed",
    "charge_columns",
    "cost",
    "loop_cost",
    "model_family",
    "price_for",
    "prompt_charges",
]

#: Anthropic's public pricing page: the source of every rule beyond the token rates.
_RULES_PAGE = "https://platform.claude.com/docs/en/about-claude/pricing"


class Unpriced(ContextBudgetError, ValueError):
    """A call the price table has no rate for (fast mode on a model without one)."""


#: Model id -> its latest `Price`, every provider's: a view of `models.MODELS`.
PRICES: dict[str, Price] = {model_id: model.price for model_id, model in MODELS.items()}
#: OpenAI's model ids -> their latest `Price`: a view of `models.MODELS`.
OPENAI_PRICES: dict[str, Price] = {
    model_id: model.price for model_id, model in MODELS.items() if model.provider == "openai"
}


def price_for(
    model: str,
    prices: Mapping[str, Price] | None = None,
    *,
    at: float | str | datetime | None = None,
) -> Price | None:
    """The rates of a recorded model id at a time, or None when no price is known.

    Args:
        model: the id as a request or a session names it, dated or not, with
            or without a provider prefix.
        prices: a caller's own table, id -> `Price` (a dated id finds its
            undated key); the table of models (`models.MODELS`) when None.
        at: the call's time (seconds since the epoch, an ISO time or a
            `datetime`); the latest rates when None. A caller's own table has
            one rate per id and ignores it.

    Returns:
        The `Price`; None for a model with no price (`<synthetic>`, a model
        the table lacks): such a call is never priced at a guess.

    Raises:
        TypeError: `model` is not a str, or `prices` not a dict.
        TypeError, ValueError: `at` is not a time.

    Examples:
        >>> price_for("claude-sonnet-4-5-20250929").output
        15.0
        >>> price_for("gpt-5.1-2025-11-13").read
        0.125
        >>> price_for("deepseek/deepseek-v4-flash", at="2026-06-05").input
        0.14
        >>> price_for("llama-9") is None
        True
    """
    if prices is None:
        found = model_for(model)
        return None if found is None else found.price_at(at)
    if not isinstance(prices, Mapping):
        raise TypeError(f"prices must be a dict of id -> Price, got {short_repr(prices)}")
    if at is not None:
        check_time(at)
    return prices.get(model) or prices.get(model_family(model))


@dataclass(frozen=True, slots=True)
class Cost:
    """One call's bill, in US dollars.

    Attributes:
        uncached_input: `input_tokens` at the input rate.
        cache_writes: the writes at their lifetimes' rates (5 minutes, 30
            minutes, 1 hour).
        cache_reads: `cache_read_input_tokens` at the read rate.
        output: `output_tokens` at the output rate.
        server_tools: server-tool requests (web search) at their per-request
            rate; 0.0 without any.
        storage: the writes held for their lifetimes where the cache charges
            by the hour (Gemini's explicit caches); 0.0 elsewhere.
    """

    uncached_input: float
    cache_writes: float
    cache_reads: float
    output: float
    server_tools: float = 0.0
    storage: float = 0.0

    @property
    def total(self) -> float:
        """The charges added, USD."""
        return (self.uncached_input + self.cache_writes + self.cache_reads + self.output) + (
            self.server_tools + self.storage
        )

    @classmethod
    def added(cls, costs: Iterable[Cost | None]) -> Cost:
        """The costs that are not None added up, charge by charge, each sum exact to the
        last bit (`math.fsum`: the true sum, rounded once), so the order the costs come
        in changes nothing: a bill's halves added give the bill's own total."""
        return _made(*map(fsum, charge_columns(costs)))

    def __add__(self, other: Cost) -> Cost:
        return _made(
            self.uncached_input + other.uncached_input,
            self.cache_writes + other.cache_writes,
            self.cache_reads + other.cache_reads,
            self.output + other.output,
            self.server_tools + other.server_tools,
            self.storage + other.storage,
        )


def _made(
    uncached_input: float,
    cache_writes: float,
    cache_reads: float,
    output: float,
    server_tools: float = 0.0,
    storage: float = 0.0,
) -> Cost:
    """`Cost(...)` made as `_values.maker` makes it (a bill makes several `Cost`s a call)."""
    return _MAKE_COST(uncached_input, cache_writes, cache_reads, output, server_tools, storage)


def charge_columns(costs: Iterable[Cost | None]) -> tuple[list[float], ...]:
    """The costs that are not None, a column per charge (uncached input, cache writes,
    cache reads, output, server tools, storage), USD: what `Cost.added` sums."""
    kept = [cost for cost in costs if cost is not None]
    return (
        [cost.uncached_input for cost in kept],
        [cost.cache_writes for cost in kept],
        [cost.cache_reads for cost in kept],
        [cost.output for cost in kept],
        [cost.server_tools for cost in kept],
        [cost.storage for cost in kept],
    )


#: Makes a `Cost` of every field (`_values.maker`).
_MAKE_COST = maker(Cost)


def cost(
    usage: Any,
    price: Price | Model,
    *,
    at: float | str | datetime | None = None,
    policy: CachePolicy | None = None,
) -> Cost:
    """The bill of one call at its time, every rule of its model applied.

    Args:
        usage: the call's usage (or its response) in any shape `Usage.of`
            reads. When it has `iterations`, they are billed and the top level
            is not (it repeats the last iteration).
        price: the model's rates (`PRICES["claude-sonnet-4-6"]`), or its row
            (`model_for("claude-sonnet-4-6")`), whose rates at `at` apply.
        at: the call's time (seconds since the epoch, an ISO time or a
            `datetime`), for a rate that changed and for peak hours; with
            None a row's latest rates apply, off-peak.
        policy: the cache the writes were made under, for storage by the hour;
            a row's own `cache` when `price` is a `Model` and this is None.

    Returns:
        A `Cost`, in USD.

    Raises:
        Unpriced: a fast-mode call on a model whose `Price.fast` is None, or
            a 30-minute write on a model that offers none.
        TypeError, ValueError: `at` is not a time (`models.as_moment`), with
            rates as with a row.

    Examples:
        >>> usage = {"input_tokens": 2048, "output_tokens": 503,
        ...          "cache_creation_input_tokens": 248, "cache_read_input_tokens": 1800,
        ...          "cache_creation": {"ephemeral_5m_input_tokens": 148,
        ...                             "ephemeral_1h_input_tokens": 100}}
        >>> round(cost(usage, PRICES["claude-sonnet-4-6"]).total, 6)
        0.015384
        >>> round(cost({**usage, "speed": "fast"}, PRICES["claude-opus-4-8"]).total, 6)
        0.05128
        >>> rollout = {"input_tokens": 22_539, "cached_input_tokens": 20_864, "output_tokens": 10}
        >>> round(cost(rollout, model_for("gpt-5.5")).total, 6)
        0.019107
    """
    return billed(usage, price, at=at, policy=policy)[1]


#: What one call is billed at (`billed`): its model's `Price` at the call's time, and the
#: multiple of every token rate that the call's speed, region and hour set (1.0 for most
#: calls). A plain pair: a bill keeps one per call.
Tariff = tuple[Price, float]


def billed(
    usage: Any,
    price: Price | Model,
    *,
    at: float | str | datetime | None = None,
    policy: CachePolicy | None = None,
) -> tuple[Tariff, Cost]:
    """`cost(usage, price, at=at, policy=policy)` and the `Tariff` it billed the call at:
    what `prompt_charges` prices another split of the same call's prompt at.

    A bill that asks what a call would have cost with its prompt split
    otherwise (cached, uncached, written for another lifetime) prices each
    split with `prompt_charges` at this tariff, rather than building a usage
    for it and pricing that: the same charges to the last bit, through the
    same step.

    Returns:
        (tariff, cost): the tariff a pair (`Tariff`) of the model's `Price` at
        the call's time and the multiple of every token rate its speed, region
        and hour set; the cost the `Cost` `cost` gives.

    Raises:
        Unpriced: as `cost`.
    """
    if isinstance(price, Model):
        policy = price.cache if policy is None else policy
        price = price.price_at(at)
    elif not isinstance(price, Price):
        raise TypeError(f"price must be a Price or a Model, got {short_repr(price)}")
    elif at is not None:  # checked as a row checks it, whether the rates read it or not
        check_time(at)
    if policy is not None and not isinstance(policy, CachePolicy):
        raise TypeError(f"policy must be a CachePolicy, got {short_repr(policy)}")
    request = usage if type(usage) is Usage else Usage.of(usage)
    factor = _factor(request, price, at)
    searches = request.web_search_requests * price.web_search / 1_000
    parts = request.iterations  # billed in their place: the top level repeats the last
    if not parts:  # the usual call: one part, billed in one step
        total = _one(request, price, factor, searches)
    else:
        total = _one(parts[0], price, factor, searches)
        for part in parts[1:]:
            total = total + _one(part, price, factor)
    if policy is not None and policy.storage_per_hour:
        total = total + Cost(0.0, 0.0, 0.0, 0.0, storage=_storage(request.billed, policy))
    return (price, factor), total


def prompt_charges(
    tariff: Tariff, uncached: int, five_minute: int, one_hour: int, read: int
) -> tuple[float, float, float]:
    """The input side of one part of a call billed at `tariff`, its prompt split so.

    Args:
        tariff: the call's `Tariff` (`billed`).
        uncached: the prompt's uncached input tokens.
        five_minute: its tokens written to the cache for 5 minutes.
        one_hour: its tokens written to the cache for an hour.
        read: its tokens read from the cache.

    Returns:
        (uncached input, cache writes, cache reads), USD: the `Cost` fields
        `cost` gives a usage of those counts at that tariff, the same floats
        (the long-context band applied to their sum).

    Example:
        >>> usage = {"input_tokens": 1_000, "output_tokens": 10,
        ...          "cache_read_input_tokens": 9_000}
        >>> tariff, bill = billed(usage, PRICES["claude-sonnet-4-6"])
        >>> round(bill.uncached_input + bill.cache_reads, 6)  # as recorded
        0.0057
        >>> round(sum(prompt_charges(tariff, 10_000, 0, 0, 0)), 6)  # had nothing been cached
        0.03
    """
    price, factor = tariff
    per = 1_000_000 / factor
    scale = _band(price, uncached + five_minute + one_hour + read)[0]
    return _charges(price, per, scale, uncached, five_minute, one_hour, 0, read)


def _factor(request: Usage, price: Price, at: float | str | datetime | None) -> float:
    """The multiple of every token rate the request's speed, region and time set."""
    factor = price.us_only if request.inference_geo == "us" else 1.0
    if request.speed == "fast":
        if price.fast is None:
            raise Unpriced(
                f"fast mode has no rate for this model in the table ({price.source}); "
                f"see {_RULES_PAGE}"
            )
        factor *= price.fast
    if price.peak is not None and at is not None and price.peak.applies(as_moment(at)):
        factor *= price.peak.multiple
    return factor


def _band(price: Price, prompt: int) -> tuple[float, float]:
    """(the multiple of the input-side rates, the output rate) of a request of `prompt`
    tokens: the long-context band's for the whole request once the prompt passes its
    start, else 1 and the model's own output rate."""
    band = price.long_context
    if band is not None and prompt > band.above:
        return band.input / price.input, band.output  # the whole request, not the excess
    return 1.0, price.output


def _charges(
    price: Price,
    per: float,
    scale: float,
    uncached: int,
    five: int,
    hour: int,
    thirty: int,
    read: int,
) -> tuple[float, float, float]:
    """(uncached input, cache writes, cache reads), USD, of a prompt split so: the step
    every input-side charge is computed in (`per`: the million tokens a rate is quoted
    for, over the call's factor; `scale`: the long-context band's multiple, or 1)."""
    writes = five * price.write_5m + hour * price.write_1h
    if thirty:
        if price.write_30m is None:
            raise Unpriced(f"no 30-minute cache write rate for this model ({price.source})")
        writes += thirty * price.write_30m
    return (
        uncached * price.input * scale / per,
        writes * scale / per,
        read * price.read * scale / per,
    )


def _one(usage: Usage, price: Price, factor: float, server_tools: float = 0.0) -> Cost:
    per = 1_000_000 / factor
    five, thirty, hour = usage.billed_writes  # a split built by hand that does not add up too
    uncached, read = usage.input_tokens, usage.cache_read_input_tokens
    scale, output = _band(price, usage.prompt_tokens)  # the whole prompt
    uncached_usd, writes_usd, reads_usd = _charges(
        price, per, scale, uncached, five, hour, thirty, read
    )
    output_usd = usage.output_tokens * output / per
    return _MAKE_COST(uncached_usd, writes_usd, reads_usd, output_usd, server_tools, 0.0)


def _storage(usage: Usage, policy: CachePolicy) -> float:
    """USD to hold each write for its lifetime at `policy.storage_per_hour`."""
    held = 0.0
    for lifetime, tokens in usage.writes.items():
        if tokens:
            held += tokens * policy.seconds(lifetime) / 3600
    return held * policy.storage_per_hour / 1_000_000


def loop_cost(
    calls: list[LoopStep],
    input_price: float,
    *,
    read_multiplier: float = 0.1,
    write_multiplier: float = 1.25,
) -> float:
    """Input cost of a loop in US dollars.

    Args:
        calls: the calls, as `loop_steps` returns them.
        input_price: USD per million uncached input tokens.
        read_multiplier: price of a cached token as a fraction of `input_price`
            (Anthropic publishes 0.1 for most models; keep it a parameter, it
            varies by model).
        write_multiplier: price of a token written to the cache, as a multiple of
            `input_price` (1.25 for a 5-minute cache). Applied to the uncached
            tokens of a call only when some call in `calls` reads a cache.

    Returns:
        USD, input tokens only (output tokens are not part of the re-read bill).

    Raises:
        ValueError: a price or multiplier is negative, NaN, infinite or too
            large for a float.
        TypeError: `calls` is not a list of `LoopStep`.

    Examples:
        >>> from context_budget import loop_steps
        >>> round(loop_cost(loop_steps(10, growth=1_000), input_price=5.0), 3)
        0.275
    """
    as_rate(input_price, "input_price", "USD per million tokens")
    as_rate(read_multiplier, "read_multiplier", "a multiple of input_price")
    as_rate(write_multiplier, "write_multiplier", "a multiple of input_price")
    if not isinstance(calls, list | tuple):
        raise TypeError(f"calls must be a list of LoopStep, got {short_repr(calls)}")
    for number, call in enumerate(calls):
        if not isinstance(call, LoopStep):
            raise TypeError(f"calls[{number}] must be a LoopStep, got {short_repr(call)}")
    caching = any(call.cached for call in calls)
    fresh_rate = write_multiplier if caching else 1.0
    total = sum(call.uncached * fresh_rate + call.cached * read_multiplier for call in calls)
    return total * input_price / 1_000_000

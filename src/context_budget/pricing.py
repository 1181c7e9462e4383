"""What a model call costs: dated prices per model, and the bill of one usage.

Prices are data, not constants: each `Price` carries the date it was read and
where. Every rate is in US dollars per million tokens, and the cache rates are
the model's own (most models read at a tenth of input; Opus 5.5 in September
2026 reads at a twentieth, the figure of its model page, which the pricing
page does not list, and Fable 5.1 / Mythos 5.1 at a fortieth). Every model here
also has a minimum cacheable length in `cache.MIN_CACHEABLE_TOKENS`.

`cost` splits one call's usage into its four charges. It prices a live
response and a call a saved session recorded alike (the bill of `read_bill`
calls it, once per call). A usage with `iterations` (server-side compaction)
is billed as the sum of its iterations: the top level reports only the last
one. A cache-write split that does not add up to `cache_creation_input_tokens`
is billed under `usage.split_writes`'s policy: the total is what was written,
its 1-hour part is kept up to the total, and the rest is billed as 5-minute
writes.

`loop_cost` prices a whole loop of `LoopStep`s from the input price and two
multipliers (chapter 1); `cost` prices one real or emulated call.

Example:
    >>> bill = cost({"input_tokens": 50, "output_tokens": 0,
    ...              "cache_read_input_tokens": 200_000}, PRICES["claude-sonnet-4-6"])
    >>> round(bill.total, 5)
    0.06015
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from context_budget._values import short_repr
from context_budget.budget import LoopStep
from context_budget.usage import Usage, split_writes

__all__ = ["PRICES", "Cost", "Price", "cost", "loop_cost", "model_family", "price_for"]

_PRICING = "Anthropic, pricing.md (llms-txt-archive snapshot 2026-08-21)"
_OPUS_55 = (
    "Anthropic, Claude Opus 5.5 model page (platform.claude.com/docs/en/models/opus-5-5/"
    "overview, Sept 2026): cached input a twentieth of uncached; not on the pricing page"
)
_SONNET_55 = "Anthropic, models/sonnet-5-5 overview (later docs, Sept 2026)"
_FABLE_51 = (
    "Anthropic, https://platform.claude.com/docs/en/about-claude/pricing (Fable 5.1 row, "
    "later docs, Sept 2026): reads $0.25 on $10 input"
)


@dataclass(frozen=True)
class Price:
    """One model's rates, in US dollars per million tokens.

    Attributes:
        input: uncached input tokens.
        write_5m: tokens written to the cache for 5 minutes.
        write_1h: tokens written to the cache for 1 hour.
        read: tokens read from the cache.
        output: generated tokens.
        as_of: the date the rates were read, `YYYY-MM-DD`.
        source: where they were read.
    """

    input: float
    write_5m: float
    write_1h: float
    read: float
    output: float
    as_of: str
    source: str

    def __post_init__(self) -> None:
        for name in ("input", "write_5m", "write_1h", "read", "output"):
            _rate(getattr(self, name), f"Price.{name}", "USD/Mtok")
        for name in ("as_of", "source"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(
                    f"Price.{name} must be a str, got {short_repr(getattr(self, name))}"
                )


def _rate(value: object, name: str, unit: str) -> float:
    """`value` as a finite float >= 0, or a `ValueError` naming `name` and the value."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    try:
        rate = float(value) if number else math.nan  # type: ignore[arg-type]
    except OverflowError:
        rate = math.inf
    if not number or not math.isfinite(rate) or rate < 0:
        raise ValueError(f"{name} must be a finite number >= 0 ({unit}), got {short_repr(value)}")
    return rate


def _rates(base: float, out: float, read: float, as_of: str, source: str) -> Price:
    return Price(base, base * 1.25, base * 2, read, out, as_of, source)


def _prices() -> dict[str, Price]:
    table: dict[str, Price] = {}
    for model in ("claude-opus-5", "claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6"):
        table[model] = _rates(5.0, 25.0, 0.50, "2026-08-21", _PRICING)
    table["claude-opus-4-5"] = _rates(5.0, 25.0, 0.50, "2026-08-21", _PRICING)
    table["claude-sonnet-5"] = _rates(2.0, 10.0, 0.20, "2026-08-21", _PRICING)
    for model in ("claude-sonnet-4-6", "claude-sonnet-4-5"):
        table[model] = _rates(3.0, 15.0, 0.30, "2026-08-21", _PRICING)
    table["claude-haiku-4-5"] = _rates(1.0, 5.0, 0.10, "2026-08-21", _PRICING)
    for model in ("claude-fable-5", "claude-mythos-5"):
        table[model] = _rates(10.0, 50.0, 1.0, "2026-08-21", _PRICING)
    table["claude-opus-5-5"] = _rates(4.0, 20.0, 0.20, "2026-09-30", _OPUS_55)
    table["claude-sonnet-5-5"] = _rates(2.0, 10.0, 0.20, "2026-09-30", _SONNET_55)
    for model in ("claude-fable-5-1", "claude-mythos-5-1"):
        table[model] = _rates(10.0, 50.0, 0.25, "2026-09-30", _FABLE_51)
    table.update(_older_models())
    return dict(sorted(table.items()))


# ---------------------------------------------------------------- older models
# The models recorded sessions still name (Claude Code 1.0.x ran on Sonnet 4).
# Kept as their own block: each row is dated and sourced like the ones above.

_PRICING_PAGE = (
    "Anthropic, platform.claude.com/docs/en/docs/about-claude/pricing "
    "(model pricing table; read 2026-12-01)"
)


def _older_models() -> dict[str, Price]:
    table: dict[str, Price] = {}
    for model in ("claude-opus-4-1", "claude-opus-4"):
        table[model] = _rates(15.0, 75.0, 1.50, "2026-12-01", _PRICING_PAGE)
    for model in ("claude-sonnet-4", "claude-3-7-sonnet"):
        table[model] = _rates(3.0, 15.0, 0.30, "2026-12-01", _PRICING_PAGE)
    table["claude-3-5-haiku"] = _rates(0.80, 4.0, 0.08, "2026-12-01", _PRICING_PAGE)
    return table


_DATED = re.compile(r"-(?:\d{8}|latest)$")


def model_family(model: str) -> str:
    """The `PRICES` key a recorded model id belongs to.

    A dated id (`claude-sonnet-4-5-20250929`) or a `-latest` alias maps to its
    family; a provider prefix such as `anthropic/` (LiteLLM) is dropped. Any
    other id comes back as it is.

    Examples:
        >>> model_family("claude-sonnet-4-20250514")
        'claude-sonnet-4'
        >>> model_family("anthropic/claude-3-5-haiku-latest")
        'claude-3-5-haiku'
    """
    if not isinstance(model, str):
        raise TypeError(f"model must be a str, got {model!r}")
    name = model.rsplit("/", 1)[-1]
    return _DATED.sub("", name)


def price_for(model: str, prices: Mapping[str, Price] | None = None) -> Price | None:
    """The rates of a recorded model id, or None when no price is known.

    Args:
        model: the id as a session file records it, dated or not.
        prices: model family -> `Price`; `PRICES` when None.

    Returns:
        The family's `Price`; None for a model with no price (a DeepSeek or
        GPT model, `<synthetic>`): such a call is never priced at a guess.

    Examples:
        >>> price_for("claude-sonnet-4-5-20250929").output
        15.0
        >>> price_for("deepseek-chat") is None
        True
    """
    table = PRICES if prices is None else prices
    found = table.get(model)
    return found if found is not None else table.get(model_family(model))


#: Model id -> `Price`, each dated and sourced. Haiku 5.5's prompt-length bands
#: are not modelled.
PRICES: dict[str, Price] = _prices()


@dataclass(frozen=True)
class Cost:
    """One call's bill, in US dollars.

    Attributes:
        uncached_input: `input_tokens` at the input rate.
        cache_writes: 5-minute and 1-hour writes at their rates.
        cache_reads: `cache_read_input_tokens` at the read rate.
        output: `output_tokens` at the output rate.
    """

    uncached_input: float
    cache_writes: float
    cache_reads: float
    output: float

    @property
    def total(self) -> float:
        """The four charges added, USD."""
        return self.uncached_input + self.cache_writes + self.cache_reads + self.output

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.uncached_input + other.uncached_input,
            self.cache_writes + other.cache_writes,
            self.cache_reads + other.cache_reads,
            self.output + other.output,
        )


def _iterations(source: Any) -> list[Any]:
    usage = source.get("usage", source) if isinstance(source, Mapping) else source
    if not isinstance(usage, Mapping) and hasattr(source, "usage"):
        usage = source.usage
    found = usage.get("iterations") if isinstance(usage, Mapping) else None
    if found is None and not isinstance(usage, Mapping):
        found = getattr(usage, "iterations", None)
    return list(found or [])


def cost(usage: Any, price: Price) -> Cost:
    """The bill of one call.

    Args:
        usage: the call's usage (or its response) as the API's dict, the SDK's
            object, or a `Usage`. When it has `iterations`, they are billed and
            the top level is not (it repeats the last iteration).
        price: the model's rates, e.g. `PRICES["claude-sonnet-4-6"]`.

    Returns:
        A `Cost`, in USD.

    Examples:
        >>> usage = {"input_tokens": 2048, "output_tokens": 503,
        ...          "cache_creation_input_tokens": 248, "cache_read_input_tokens": 1800,
        ...          "cache_creation": {"ephemeral_5m_input_tokens": 148,
        ...                             "ephemeral_1h_input_tokens": 100}}
        >>> round(cost(usage, PRICES["claude-sonnet-4-6"]).total, 6)
        0.015384
    """
    if not isinstance(price, Price):
        raise TypeError(f"price must be a Price, got {short_repr(price)}")
    iterations = [] if isinstance(usage, Usage) else _iterations(usage)
    if iterations:
        total = Cost(0.0, 0.0, 0.0, 0.0)
        for iteration in iterations:
            total = total + _one(Usage.of(iteration), price)
        return total
    return _one(Usage.of(usage), price)


def _one(usage: Usage, price: Price) -> Cost:
    per = 1_000_000
    # subtle: a `Usage` built by hand may carry a split that does not add up;
    # it is billed as `Usage.of` reads one
    five, hour = split_writes(
        usage.cache_creation_input_tokens,
        usage.ephemeral_5m_input_tokens,
        usage.ephemeral_1h_input_tokens,
    )
    writes = five * price.write_5m + hour * price.write_1h
    return Cost(
        uncached_input=usage.input_tokens * price.input / per,
        cache_writes=writes / per,
        cache_reads=usage.cache_read_input_tokens * price.read / per,
        output=usage.output_tokens * price.output / per,
    )


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
    _rate(input_price, "input_price", "USD per million tokens")
    _rate(read_multiplier, "read_multiplier", "a multiple of input_price")
    _rate(write_multiplier, "write_multiplier", "a multiple of input_price")
    if not isinstance(calls, list | tuple):
        raise TypeError(f"calls must be a list of LoopStep, got {short_repr(calls)}")
    for number, call in enumerate(calls):
        if not isinstance(call, LoopStep):
            raise TypeError(f"calls[{number}] must be a LoopStep, got {short_repr(call)}")
    caching = any(call.cached for call in calls)
    fresh_rate = write_multiplier if caching else 1.0
    total = sum(call.uncached * fresh_rate + call.cached * read_multiplier for call in calls)
    return total * input_price / 1_000_000

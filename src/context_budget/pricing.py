"""What a model call costs: dated prices per model, and the bill of one usage.

Prices are data, not constants: each `Price` carries the date it was read and
where. Every rate is in US dollars per million tokens, and the cache rates are
the model's own (most models read at a tenth of input; Opus 5.5 in September
2026 reads at a twentieth, the figure of its model page, which the pricing
page does not list, and Fable 5.1 / Mythos 5.1 at a fortieth). Every model here
also has a minimum cacheable length in `cache.MIN_CACHEABLE_TOKENS`.

`cost` splits one call's usage into its charges. It prices a live
response and a call a saved session recorded alike (the bill of `read_bill`
calls it, once per call), and it is the one place the pricing page's rules
beyond the token rates are applied
([pricing](https://docs.anthropic.com/en/docs/about-claude/pricing)):

- fast mode (`usage.speed == "fast"`): every token rate times the model's
  `Price.fast` (2 on Opus 5 and 4.8); a model with no fast rate raises
  `Unpriced`, never a guess;
- US-only inference (`usage.inference_geo == "us"`): every token rate times
  `Price.us_only` (1.1 on Claude 4.6 and later, 1 before);
- long context (Sonnet 4 and 4.5): once a request's input (uncached + cache
  writes + cache reads) passes `LongContext.above` tokens, the whole request
  is charged at the higher rates, the cache multipliers applied to the higher
  input rate;
- server tools: `usage.server_tool_use.web_search_requests` at
  `Price.web_search` dollars per 1,000 requests;
- server-side compaction: a usage with `iterations` is billed as the sum of
  its iterations; the top level reports only the last one.

A cache-write split that does not add up to `cache_creation_input_tokens`
is billed under `usage.split_writes`'s policy: the total is what was written,
its 1-hour part is kept up to the total, and the rest is billed as 5-minute
writes.

OpenAI's models have rows of their own, `OPENAI_PRICES`, in the same shape:
the cached-input rate is `read`; there is no 5-minute / 1-hour split, so both
write rates are the one cache-write rate (1.25 times input from the GPT-5.6
family on, the input rate itself before, where a write costs nothing extra);
and a usage is priced once its cached tokens are taken out of `input_tokens`
(the Codex reader does it). `PRICES` stays Anthropic's alone, as the prompt-cache
emulator reads it; `price_for` looks in both.

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
from dataclasses import dataclass, replace
from typing import Any

from context_budget._values import short_repr
from context_budget.budget import LoopStep
from context_budget.usage import Usage, split_writes

__all__ = [
    "OPENAI_PRICES",
    "PRICES",
    "Cost",
    "LongContext",
    "Price",
    "Unpriced",
    "cost",
    "loop_cost",
    "model_family",
    "price_for",
]

#: Anthropic's public pricing page: the source of every rule beyond the token rates.
_RULES_PAGE = "https://docs.anthropic.com/en/docs/about-claude/pricing"


class Unpriced(ValueError):
    """A call the price table has no rate for (fast mode on a model without one)."""


@dataclass(frozen=True)
class LongContext:
    """The rates of a request whose input passes `above` tokens (USD per million tokens).

    Attributes:
        above: input tokens (uncached + cache writes + cache reads) past which
            the whole request is charged at these rates.
        input: the uncached input rate; cache writes and reads keep their
            multipliers of it.
        output: the output rate.
    """

    above: int
    input: float
    output: float


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
        fast: the multiple of every token rate in fast mode; None where the
            model has no fast-mode rate.
        us_only: the multiple of every token rate for US-only inference
            (`inference_geo: "us"`); 1.0 where it costs nothing more.
        long_context: the long-context rates, or None where there is no such
            band.
        web_search: USD per 1,000 web-search requests.
    """

    input: float
    write_5m: float
    write_1h: float
    read: float
    output: float
    as_of: str
    source: str
    fast: float | None = None
    us_only: float = 1.0
    long_context: LongContext | None = None
    web_search: float = 10.0

    def __post_init__(self) -> None:
        for name in ("input", "write_5m", "write_1h", "read", "output", "us_only", "web_search"):
            _rate(getattr(self, name), f"Price.{name}", "USD/Mtok")
        if self.fast is not None:
            _rate(self.fast, "Price.fast", "a multiple of the standard rates")
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


#: Fast mode: Opus 5 and 4.8 at twice the standard rates ($10 / $50).
_FAST = {"claude-opus-5": 2.0, "claude-opus-4-8": 2.0}
#: Long context on Sonnet 4 and 4.5: past 200k input, $6 input and $22.50 output.
_LONG = LongContext(200_000, 6.0, 22.5)
_LONG_MODELS = ("claude-sonnet-4", "claude-sonnet-4-5")
#: Claude 4.6 and later: US-only inference at 1.1 times every token rate.
_US_ONLY_BEFORE = ("claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5")


def _rules(table: dict[str, Price]) -> dict[str, Price]:
    """The rows with the pricing page's rules beyond the token rates set."""
    ruled: dict[str, Price] = {}
    for model, price in table.items():
        older = model in _US_ONLY_BEFORE or model in _OLDER
        ruled[model] = replace(
            price,
            fast=_FAST.get(model),
            us_only=1.0 if older else 1.1,
            long_context=_LONG if model in _LONG_MODELS else None,
        )
    return ruled


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
    return dict(sorted(_rules(table).items()))


# ---------------------------------------------------------------- older models
# The models recorded sessions still name (Claude Code 1.0.x ran on Sonnet 4).
# Kept as their own block: each row is dated and sourced like the ones above.

_PRICING_PAGE = (
    "Anthropic, platform.claude.com/docs/en/docs/about-claude/pricing "
    "(model pricing table; read 2026-12-01)"
)


_OLDER = (
    "claude-opus-4-1",
    "claude-opus-4",
    "claude-sonnet-4",
    "claude-3-7-sonnet",
    "claude-3-5-haiku",
)


def _older_models() -> dict[str, Price]:
    table: dict[str, Price] = {}
    for model in ("claude-opus-4-1", "claude-opus-4"):
        table[model] = _rates(15.0, 75.0, 1.50, "2026-12-01", _PRICING_PAGE)
    for model in ("claude-sonnet-4", "claude-3-7-sonnet"):
        table[model] = _rates(3.0, 15.0, 0.30, "2026-12-01", _PRICING_PAGE)
    table["claude-3-5-haiku"] = _rates(0.80, 4.0, 0.08, "2026-12-01", _PRICING_PAGE)
    return table


# ---------------------------------------------------------------- OpenAI models
# Each row from the model's own page on developers.openai.com (its "Text tokens"
# table, standard tier, short context), read 2026-12-02. OpenAI counts cached
# tokens inside `input_tokens`; a `Usage` here has them out already.

_OPENAI_MODELS = "https://developers.openai.com/api/docs/models/"
#: GPT-5.6 and later charge for cache writes: 1.25 times the uncached input rate
#: (a 30-minute write), per the prompt-caching guide.
_OPENAI_CACHING = "https://developers.openai.com/api/docs/guides/prompt-caching"
#: GPT-5.6 Sol and later: past 272K input tokens, input and cache rates double
#: and output costs 1.5 times, for the whole request.
_OPENAI_LONG_ABOVE = 272_000


def _openai(
    model: str,
    rates: tuple[float, float, float, float],
    note: str = "",
    *,
    fast: float | None = None,
    long: bool = False,
) -> Price:
    """One OpenAI row: input, cached input, cache write and output, USD per million tokens."""
    base, read, write, out = rates
    source = f"OpenAI, {_OPENAI_MODELS}{model} (read 2026-12-02){note}"
    band = LongContext(_OPENAI_LONG_ABOVE, base * 2, out * 1.5) if long else None
    return Price(base, write, write, read, out, "2026-12-02", source, fast, 1.0, band)


def _openai_prices() -> dict[str, Price]:
    free_writes = "; writes cost no more than input before GPT-5.6"
    table = {
        "codex-mini-latest": _openai("codex-mini-latest", (1.50, 0.375, 1.50, 6.0), free_writes),
        "gpt-5-codex": _openai("gpt-5-codex", (1.25, 0.125, 1.25, 10.0), free_writes),
        "gpt-5.1": _openai("gpt-5.1", (1.25, 0.125, 1.25, 10.0), free_writes),
        "gpt-5.6-sol": _openai(
            "gpt-5.6-sol",
            (4.0, 0.40, 5.0, 20.0),
            f"; promotional rates; writes at 1.25x input ({_OPENAI_CACHING})",
            long=True,
        ),
        "gpt-6.2-sol": _openai(
            "gpt-6.2-sol", (2.0, 0.10, 2.50, 10.0), "; 30-minute writes", fast=2.0, long=True
        ),
    }
    return dict(sorted(table.items()))


#: OpenAI model id -> `Price`, dated and sourced. A model not here (gpt-5.1-codex,
#: say) is unpriced, never billed at a neighbour's rate.
OPENAI_PRICES: dict[str, Price] = _openai_prices()


_DATED = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$")


def model_family(model: str) -> str:
    """The `PRICES` key a recorded model id belongs to.

    A dated id (`claude-sonnet-4-5-20250929`, OpenAI's `gpt-5.1-2025-11-13`)
    or a `-latest` alias maps to its family; a provider prefix such as
    `anthropic/` (LiteLLM) is dropped. Any other id comes back as it is.

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
        prices: model family -> `Price`; `PRICES` and `OPENAI_PRICES` when None.

    Returns:
        The family's `Price`; None for a model with no price (a DeepSeek
        model, a GPT model with no row, `<synthetic>`): such a call is never
        priced at a guess.

    Examples:
        >>> price_for("claude-sonnet-4-5-20250929").output
        15.0
        >>> price_for("gpt-5.1-2025-11-13").read
        0.125
        >>> price_for("deepseek-chat") is None
        True
    """
    for table in (PRICES, OPENAI_PRICES) if prices is None else (prices,):
        found = table.get(model) or table.get(model_family(model))
        if found is not None:
            return found
    return None


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
        server_tools: server-tool requests (web search) at their per-request
            rate; 0.0 without any.
    """

    uncached_input: float
    cache_writes: float
    cache_reads: float
    output: float
    server_tools: float = 0.0

    @property
    def total(self) -> float:
        """The charges added, USD."""
        return (
            self.uncached_input + self.cache_writes + self.cache_reads + self.output
        ) + self.server_tools

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.uncached_input + other.uncached_input,
            self.cache_writes + other.cache_writes,
            self.cache_reads + other.cache_reads,
            self.output + other.output,
            self.server_tools + other.server_tools,
        )


def cost(usage: Any, price: Price) -> Cost:
    """The bill of one call, every rule of the pricing page applied.

    Args:
        usage: the call's usage (or its response) as the API's dict, the SDK's
            object, or a `Usage`. When it has `iterations`, they are billed and
            the top level is not (it repeats the last iteration).
        price: the model's rates, e.g. `PRICES["claude-sonnet-4-6"]`.

    Returns:
        A `Cost`, in USD.

    Raises:
        Unpriced: a fast-mode call on a model whose `Price.fast` is None.

    Examples:
        >>> usage = {"input_tokens": 2048, "output_tokens": 503,
        ...          "cache_creation_input_tokens": 248, "cache_read_input_tokens": 1800,
        ...          "cache_creation": {"ephemeral_5m_input_tokens": 148,
        ...                             "ephemeral_1h_input_tokens": 100}}
        >>> round(cost(usage, PRICES["claude-sonnet-4-6"]).total, 6)
        0.015384
        >>> round(cost({**usage, "speed": "fast"}, PRICES["claude-opus-4-8"]).total, 6)
        0.05128
    """
    if not isinstance(price, Price):
        raise TypeError(f"price must be a Price, got {short_repr(price)}")
    request = usage if type(usage) is Usage else Usage.of(usage)
    factor = _factor(request, price)
    searches = request.web_search_requests * price.web_search / 1_000
    if not request.iterations:  # the usual call: one part, billed in one step
        return _one(request, price, factor, searches)
    first, *rest = request.parts
    total = _one(first, price, factor, searches)
    for part in rest:
        total = total + _one(part, price, factor)
    return total


def _factor(request: Usage, price: Price) -> float:
    """The multiple of every token rate the request's speed and region set."""
    factor = price.us_only if request.inference_geo == "us" else 1.0
    if request.speed == "fast":
        if price.fast is None:
            raise Unpriced(
                f"fast mode has no rate for this model in the table ({price.source}); "
                f"see {_RULES_PAGE}"
            )
        factor *= price.fast
    return factor


def _one(usage: Usage, price: Price, factor: float, server_tools: float = 0.0) -> Cost:
    per = 1_000_000 / factor
    # subtle: a `Usage` built by hand may carry a split that does not add up;
    # it is billed as `Usage.of` reads one
    five, hour = split_writes(
        usage.cache_creation_input_tokens,
        usage.ephemeral_5m_input_tokens,
        usage.ephemeral_1h_input_tokens,
    )
    band = price.long_context
    scale, output = 1.0, price.output
    if band is not None and usage.prompt_tokens > band.above:
        scale, output = band.input / price.input, band.output  # the whole request, not the excess
    writes = five * price.write_5m + hour * price.write_1h
    return Cost(  # uncached input, cache writes, cache reads, output, server tools
        usage.input_tokens * price.input * scale / per,
        writes * scale / per,
        usage.cache_read_input_tokens * price.read * scale / per,
        usage.output_tokens * output / per,
        server_tools,
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

"""A cache report: how much of a run of requests the prompt cache served, and what it cost.

`cache_report` sends a sequence of requests, in order, through one
`PromptCache` on a simulated clock and reports each request: its prompt
tokens, how many were read from the cache, its *first divergence* (the first
prompt block that differs from the previous request's, where caching stops
helping) and its cost. The whole run's hit share is the cache reads over all
prompt tokens.

Shapes: `CacheReport.rows` is a list of `RequestRow`; tokens are counted by
the counter given (`estimate_tokens` by default), costs are in US dollars.

Examples:
    >>> turns = [{"system": "s" * 8000, "messages": [{"role": "user", "content": "q"}] * n,
    ...           "cache_control": {"type": "ephemeral"}} for n in (1, 3)]
    >>> report = cache_report(turns, "claude-sonnet-4-6")
    >>> [row.first_divergence for row in report.rows], report.rows[1].cache_read
    ([None, None], 2001)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import fsum
from typing import Any

from context_budget._values import as_seconds, short_repr
from context_budget.cache import PromptCache, SimulatedClock
from context_budget.calls import CallRecord
from context_budget.models import Model, model_for
from context_budget.pricing import Price, cost
from context_budget.tokens import TokenCounter
from context_budget.usage import Usage

__all__ = ["CacheReport", "RequestRow", "cache_report"]


@dataclass(frozen=True)
class RequestRow(CallRecord):
    """One request of the run (a `CallRecord`: `prompt_tokens`, `cache_read`,
    `cache_write` and `hit_share` come from its `usage`).

    Attributes:
        number: its place in the run, from 0.
        usage: the usage the cache reports for it, in tokens.
        first_divergence: the index of the first prompt block (tools, then
            system, then message blocks) that differs from the previous
            request's; `None` for the first request and for one that only
            appends to the previous.
        cost: the request's input cost, US dollars.
    """

    number: int
    usage: Usage
    first_divergence: int | None
    cost: float


@dataclass(frozen=True)
class CacheReport:
    """A run of requests through one cache.

    Attributes:
        model: the model id priced and cached.
        rows: one `RequestRow` per request, in order.
    """

    model: str
    rows: list[RequestRow]

    @property
    def prompt_tokens(self) -> int:
        """All prompt tokens of the run."""
        return sum(row.prompt_tokens for row in self.rows)

    @property
    def hit_share(self) -> float:
        """The run's cache reads over its prompt tokens, from 0 to 1."""
        reads = sum(row.cache_read for row in self.rows)
        return reads / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def cost(self) -> float:
        """The run's input cost, US dollars: the rows' costs summed exactly (`math.fsum`), as
        a bill adds its calls' charges (`pricing.Cost.added`)."""
        return fsum(row.cost for row in self.rows)

    def summary(self) -> str:
        """One line: requests, hit share and cost.

        Examples:
            >>> CacheReport("claude-sonnet-4-6", []).summary()
            '0 requests, 0 prompt tokens, cache-read share 0%, input cost $0.0000'
        """
        return (
            f"{len(self.rows)} requests, {self.prompt_tokens:,} prompt tokens, "
            f"cache-read share {self.hit_share:.0%}, input cost ${self.cost:.4f}"
        )

    def table(self) -> str:
        """One line per request: tokens, reads, writes, first divergence, cost."""
        lines = ["req  prompt   read  write  diverges at  cost USD"]
        for row in self.rows:
            where = "-" if row.first_divergence is None else str(row.first_divergence)
            lines.append(
                f"{row.number:>3} {row.prompt_tokens:>7,} {row.cache_read:>6,} "
                f"{row.cache_write:>6,} {where:>12}  {row.cost:.4f}"
            )
        return "\n".join(lines)


def _divergence(previous: list[str] | None, current: list[str]) -> int | None:
    if previous is None:
        return None
    for index, key in enumerate(current):
        if index >= len(previous):
            return None  # everything before was the previous request: append only
        if key != previous[index]:
            return index
    return None if len(current) == len(previous) else len(current)


def cache_report(
    requests: Sequence[Mapping[str, Any]],
    model: str,
    *,
    counter: TokenCounter | None = None,
    seconds_between: float = 30.0,
    price: Price | None = None,
    min_tokens: int | None = None,
) -> CacheReport:
    """Send `requests` in order through a fresh cache and report each one.

    Args:
        requests: Messages API request dicts (`tools`, `system`, `messages`,
            `cache_control`, ...), oldest first; never changed.
        model: the model id (dated, prefixed or an alias, as `models.model_for`
            reads it); its row names the cache's rules and the price.
        counter: text -> tokens for every block; `estimate_tokens` when None.
        seconds_between: simulated seconds from one request to the next (>= 0).
        price: the rates; the model's row of the table of models when None.
        min_tokens: overrides the model's minimum cacheable prefix, in tokens.

    Returns:
        A `CacheReport`.

    Raises:
        ValueError: `requests` is empty, `seconds_between` is negative, NaN
            or infinite, the model has no price and none was given, or a
            request is malformed (the cache's own errors).
        TypeError: `requests`, `model` or `price` has the wrong type.
    """
    if not isinstance(requests, Sequence) or isinstance(requests, str | bytes | Mapping):
        raise TypeError(f"requests must be a list of request dicts, got {short_repr(requests)}")
    if not requests:
        raise ValueError("requests must hold at least one request")
    if not isinstance(model, str):
        raise TypeError(f"model must be a str, got {short_repr(model)}")
    as_seconds(seconds_between, "seconds_between")  # NaN or a negative gap is refused up front
    rates: Price | Model | None = price
    if rates is None:
        rates = model_for(model)
        if rates is None:
            raise ValueError(f"no price known for model {short_repr(model)}; pass price")
    elif not isinstance(rates, Price):
        raise TypeError(f"price must be a Price, got {short_repr(price)}")
    clock = SimulatedClock()
    cache = PromptCache(model, counter=counter, clock=clock, min_tokens=min_tokens)
    rows: list[RequestRow] = []
    previous: list[str] | None = None
    for number, request in enumerate(requests):
        if not isinstance(request, Mapping):
            raise TypeError(f"requests[{number}] must be a dict, got {type(request).__name__}")
        if number:
            clock.advance(seconds_between)
        usage = cache.usage(request)
        keys = list(cache.last_keys)
        rows.append(
            RequestRow(
                number=number,
                usage=usage,
                first_divergence=_divergence(previous, keys),
                cost=cost(usage, rates).total,
            )
        )
        previous = keys
    return CacheReport(model, rows)

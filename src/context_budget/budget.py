"""The cost budget of an agent loop: what re-sending the whole history costs.

An agent loop sends its entire history on every step, so whatever it fetched
early is billed again in every later call. If each step adds
about the same number of tokens, the context read at step `k` is
`start + k * growth` and the tokens read over `n` steps add up to
`n * start + growth * n * (n + 1) / 2`: they grow with the square of `n`.

A prompt cache changes the price, not the count: the part of each request that
repeats the previous one is read from the cache at a fraction of the input
price, and only the new tail is processed (and written to the cache) at full
price or a little more. What that costs in dollars is `pricing.py`'s business
(`loop_cost`, `cost`); this module keeps only the token arithmetic.

Examples:
    >>> [step.context for step in loop_steps(3, growth=100)]
    [100, 200, 300]
    >>> tokens_read(3, growth=100)
    600
"""

from __future__ import annotations

from dataclasses import dataclass

from context_budget._values import as_count, maker, short_repr

__all__ = ["LoopStep", "loop_steps", "tokens_read"]

#: The most steps `loop_steps` lists (one `LoopStep` each); `tokens_read` has no limit.
_MOST_STEPS = 1_000_000


@dataclass(frozen=True)
class LoopStep:
    """One model call in an agent loop whose context grows by a fixed amount.

    Attributes:
        step: the call's number, from 1.
        context: tokens sent with this call (the whole history so far).
        cached: tokens of `context` served from a prompt cache (0 without one).

    Raises:
        TypeError: a field is not an int (a bool is not one).
        ValueError: `step` is below 1, `context` below 0, or `cached` outside
            0 to `context` (a step cannot read more than it carries).
    """

    step: int
    context: int
    cached: int

    def __post_init__(self) -> None:
        step, context, cached = self.step, self.context, self.cached
        if (
            type(step) is type(context) is type(cached) is int
            and step >= 1
            and 0 <= cached <= context
        ):
            return  # the usual step, checked at once (a loop lists up to a million)
        as_count(step, "LoopStep.step", least=1)
        as_count(context, "LoopStep.context")
        as_count(cached, "LoopStep.cached")
        if cached > context:
            raise ValueError(
                f"LoopStep.cached must be an int from 0 to context ({context}), got {cached}"
            )

    @property
    def uncached(self) -> int:
        """Tokens of this call processed at full price (and written to the cache)."""
        return self.context - self.cached


def _check_counts(steps: int, growth: int, start: int) -> None:
    for name, value in (("steps", steps), ("growth", growth), ("start", start)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {short_repr(value)}")
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {short_repr(value)}")


def loop_steps(steps: int, growth: int, start: int = 0, *, cached: bool = False) -> list[LoopStep]:
    """The context of every call in a loop of `steps` calls.

    Args:
        steps: number of model calls.
        growth: tokens each step adds to the history (a tool call and its result).
        start: tokens present before the first step (system prompt and task).
        cached: when true, each call reads the previous call's whole context from
            the cache, and only the newly added `growth` tokens are uncached.

    Returns:
        One `LoopStep` per call; call `k` carries `start + k * growth` tokens.

    Raises:
        TypeError: a count is not an int, or `cached` not True or False.
        ValueError: a count is negative, or `steps` is over 1,000,000.

    Examples:
        >>> [(s.context, s.cached) for s in loop_steps(3, growth=10, start=5, cached=True)]
        [(15, 0), (25, 15), (35, 25)]
    """
    _check_counts(steps, growth, start)
    if not isinstance(cached, bool):  # subtle: "False" is truthy
        raise TypeError(f"cached must be True or False, got {short_repr(cached)}")
    if steps > _MOST_STEPS:
        raise ValueError(
            f"steps must be at most {_MOST_STEPS:,} (one LoopStep is listed for each), "
            f"got {short_repr(steps)}; tokens_read gives the total for any count"
        )
    out = []
    make = maker(LoopStep)  # subtle: each step is sound by construction, so not re-checked
    for k in range(1, steps + 1):
        context = start + k * growth
        # subtle: the first call has nothing cached yet; later calls reuse the prefix
        # that the call before them sent, which is exactly their context less growth.
        prefix = start + (k - 1) * growth if cached and k > 1 else 0
        out.append(make(k, context, prefix))
    return out


def tokens_read(steps: int, growth: int, start: int = 0) -> int:
    """Input tokens read over the whole loop, cached or not (closed form).

    The sum is `steps * start + growth * steps * (steps + 1) // 2`: quadratic in `steps`.

    Args:
        steps: number of model calls.
        growth: tokens each step adds to the history.
        start: tokens present before the first step.

    Returns:
        Tokens read, summed over every call.

    Examples:
        >>> tokens_read(10, growth=100, start=1_000)
        15500
    """
    _check_counts(steps, growth, start)
    return steps * start + growth * steps * (steps + 1) // 2

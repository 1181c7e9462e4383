"""What one model call used, and the two ways a harness can add it up.

A response's `usage` comes in three shapes: the API's JSON (a dict), the
Anthropic SDK's object (attributes, with `None` for a cache field the API left
out), or this module's `Usage` record. `Usage.of` reads all three.

The loop keeps one integer, the counter, and compares it with a threshold:

- `track_usage` is the course's accumulator: input plus output of every call
  since the last reset. Without a cache each call's input already repeats the
  whole history, so this sum grows faster than the window really fills; with
  prompt caching on, `input_tokens` is only the uncached tail after the last
  breakpoint, so the sum stays far below the window and under-counts.
- `window_tokens` is what the last request really carried plus its output: the
  size of the window after that call. With server tools one response adds up
  several sampling iterations, so `window_usage` reads the last `message`
  entry of `usage.iterations` when the response has one.

Example:
    >>> Usage(input_tokens=300, output_tokens=100, cache_read_input_tokens=1200).window_tokens
    1600
    >>> track_usage(0, {"usage": {"input_tokens": 300, "output_tokens": 100}})
    400
    >>> should_compact(1850, context_window=2000, compact_ratio=0.7)
    True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from context_budget._values import as_count, short_repr

__all__ = [
    "Usage",
    "rule_fields",
    "should_compact",
    "split_writes",
    "track_usage",
    "window_usage",
]

_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
_SPLIT = ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")
#: The keys of a usage dict that `rule_fields` reads.
_RULE_KEYS = frozenset({"speed", "inference_geo", "server_tool_use", "iterations"})


@dataclass(frozen=True)
class Usage:
    """The tokens of one model call, as the Messages API reports them.

    Every figure is a count of tokens.

    Attributes:
        input_tokens: prompt tokens read at the full input price: those after
            the last cache breakpoint, or the whole prompt when nothing caches.
        output_tokens: tokens the model generated, thinking included.
        cache_creation_input_tokens: prompt tokens written to the cache by this
            call (charged at a write price), both lifetimes together.
        cache_read_input_tokens: prompt tokens served from the cache (charged
            at the read price).
        ephemeral_5m_input_tokens: the part of the cache writes that lives
            five minutes.
        ephemeral_1h_input_tokens: the part of the cache writes that lives one
            hour.
        speed: `usage.speed` as recorded (`"fast"` for fast mode), `""` when
            absent.
        inference_geo: `usage.inference_geo` as recorded (`"us"` for US-only
            inference), `""` when absent.
        web_search_requests: `usage.server_tool_use.web_search_requests`, a
            count of requests.
        iterations: `usage.iterations` (server-side compaction or server
            tools), each a `Usage`; empty without them. The top-level figures
            then repeat the last iteration only.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    ephemeral_5m_input_tokens: int = 0
    ephemeral_1h_input_tokens: int = 0
    speed: str = ""
    inference_geo: str = ""
    web_search_requests: int = 0
    iterations: tuple[Usage, ...] = ()

    def __post_init__(self) -> None:
        counts = (
            self.input_tokens,
            self.output_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
            self.ephemeral_5m_input_tokens,
            self.ephemeral_1h_input_tokens,
            self.web_search_requests,
        )
        sound = set(map(type, counts)) == {int} and min(counts) >= 0
        if sound and type(self.speed) is type(self.inference_geo) is str and self.iterations == ():
            return  # the usual record, checked at once; otherwise each field below, by name
        for name in (*_FIELDS, *_SPLIT, "web_search_requests"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise ValueError(
                    f"Usage.{name} must be a non-negative int, got {short_repr(value)}"
                )
        for name in ("speed", "inference_geo"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(
                    f"Usage.{name} must be a str, got {short_repr(getattr(self, name))}"
                )
        if not isinstance(self.iterations, tuple) or not all(
            isinstance(item, Usage) for item in self.iterations
        ):
            raise ValueError(
                f"Usage.iterations must be a tuple of Usage, got {short_repr(self.iterations)}"
            )

    def __repr__(self) -> str:
        """The six token fields, then any rule field that is not its default."""
        shown = [f"{name}={getattr(self, name)!r}" for name in (*_FIELDS, *_SPLIT)]
        for name, default in (
            ("speed", ""),
            ("inference_geo", ""),
            ("web_search_requests", 0),
            ("iterations", ()),
        ):
            if getattr(self, name) != default:
                shown.append(f"{name}={getattr(self, name)!r}")
        return f"Usage({', '.join(shown)})"

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt this call sent: uncached input, cache writes and reads."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def window_tokens(self) -> int:
        """The window after this call: the whole prompt plus the output."""
        return self.prompt_tokens + self.output_tokens

    def as_dict(self) -> dict[str, Any]:
        """The API's JSON shape, the 5-minute / 1-hour split under `cache_creation`."""
        out: dict[str, Any] = {name: getattr(self, name) for name in _FIELDS}
        out["cache_creation"] = {
            "ephemeral_5m_input_tokens": self.ephemeral_5m_input_tokens,
            "ephemeral_1h_input_tokens": self.ephemeral_1h_input_tokens,
        }
        for name in ("speed", "inference_geo"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.web_search_requests:
            out["server_tool_use"] = {"web_search_requests": self.web_search_requests}
        if self.iterations:
            out["iterations"] = [item.as_dict() for item in self.iterations]
        return out

    @classmethod
    def of(cls, source: Any) -> Usage:
        """Read the usage of a response, or a usage itself, in any of its shapes.

        `source` may be a response (a dict with a `"usage"` key, or an object
        with a `usage` attribute), a usage dict in the API's JSON shape, an SDK
        usage object, or a `Usage`. A missing or `None` cache field counts as 0;
        a missing `input_tokens` or `output_tokens` is an error.

        The 5-minute / 1-hour split of the writes (`cache_creation`) is read
        under `split_writes`'s policy: without a split every write is a
        5-minute one; a split that does not add up to
        `cache_creation_input_tokens` keeps the total and its 1-hour part.

        Raises:
            ValueError: a required field is missing, or a field is not a
                non-negative int; the message names the field.
        """
        if isinstance(source, Usage):
            return source
        usage = _get(source, "usage")
        if usage is None:
            usage = source
        values: dict[str, Any] = {}
        for name in _FIELDS:
            value = _get(usage, name)
            if value is None:
                if name in ("input_tokens", "output_tokens"):
                    raise ValueError(f"usage has no {name!r}: got {short_repr(usage)}")
                value = 0
            values[name] = value
        creation = _get(usage, "cache_creation")
        five, hour = (
            (None, None)
            if creation is None
            else (
                _get(creation, "ephemeral_5m_input_tokens"),
                _get(creation, "ephemeral_1h_input_tokens"),
            )
        )
        for name, value in (
            ("ephemeral_5m_input_tokens", five),
            ("ephemeral_1h_input_tokens", hour),
        ):
            if value is not None:
                cls(**{name: value})  # the field's own check names a bad value
        parts = split_writes(values["cache_creation_input_tokens"], five, hour)
        values["ephemeral_5m_input_tokens"], values["ephemeral_1h_input_tokens"] = parts
        return cls(**values, **rule_fields(usage))


def split_writes(total: int, five: int | None, hour: int | None) -> tuple[int, int]:
    """The 5-minute and 1-hour parts of `total` tokens written to the cache.

    The one policy for a call whose split is missing or does not add up, for
    live responses and saved sessions alike: `total`
    (`cache_creation_input_tokens`) is what was written. Without a split
    (`five` and `hour` both None) every write is a 5-minute one, as the API
    wrote before it reported the split. A split that does not add up keeps
    its 1-hour part, up to `total`, and the rest is 5-minute, as without a
    split (Claude Code has saved such splits).

    Args:
        total: tokens written, both lifetimes together.
        five: the 5-minute part as reported, or None.
        hour: the 1-hour part as reported, or None.

    Returns:
        (5-minute tokens, 1-hour tokens), adding up to `total`.

    Examples:
        >>> split_writes(1_000, None, None), split_writes(1_000, 600, 400)
        ((1000, 0), (600, 400))
        >>> split_writes(1_000, 900, 900)
        (100, 900)
    """
    if five is None and hour is None:
        return total, 0
    kept = min(hour or 0, total)
    return total - kept, kept


def rule_fields(usage: Any) -> dict[str, Any]:
    """The fields a price rule reads beyond the token counts, as `Usage` keywords.

    `speed`, `inference_geo`, `server_tool_use.web_search_requests` and
    `iterations` (each read by `Usage.of`), from a usage dict or SDK object;
    what a session reader adds to the token counts it checked itself. A
    missing or `None` field is its default; a bad one raises the `ValueError`
    of `Usage`'s own check, or names `usage.iterations[i]`.
    """
    if type(usage) is dict and usage.keys().isdisjoint(_RULE_KEYS):
        return {}  # the usual usage: none of these fields, every one at its default
    found: dict[str, Any] = {}
    for name in ("speed", "inference_geo"):
        value = _get(usage, name)
        if value is not None:
            found[name] = value
    tools = _get(usage, "server_tool_use")
    searches = None if tools is None else _get(tools, "web_search_requests")
    if searches is not None:
        found["web_search_requests"] = searches
    iterations = _get(usage, "iterations")
    if iterations:
        if isinstance(iterations, str | bytes) or not isinstance(iterations, list | tuple):
            raise ValueError(f"usage.iterations must be a list, got {short_repr(iterations)}")
        items = []
        for index, item in enumerate(iterations):
            try:
                items.append(Usage.of(item))
            except ValueError as error:
                raise ValueError(f"usage.iterations[{index}]: {error}") from None
        found["iterations"] = tuple(items)
    return found


def _get(obj: Any, name: str) -> Any:
    """`obj[name]` for a mapping, `obj.name` for anything else, `None` if absent."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def window_usage(source: Any, *, read: Usage | None = None) -> Usage:
    """The usage of the sampling iteration that saw the whole context last.

    A response that used server tools (or compacted) reports, at its top
    level, the sum over several internal sampling iterations, and lists each
    under `usage.iterations` (entries of type `"message"` or `"compaction"`,
    each with its own token fields). The window after the call is the last
    `"message"` iteration's prompt plus its output, not the sum: see
    [context editing, server-side tools](https://platform.claude.com/docs/en/build-with-claude/context-editing).
    Without `iterations` (or without a `"message"` entry in it) this is
    `Usage.of(source)`.

    Args:
        source: a response or a usage, in any shape `Usage.of` reads.
        read: `Usage.of(source)`, when the caller has it already: the figures
            are taken from it, not read again (only each iteration's `type` is).

    Returns:
        A `Usage`, every figure a count of tokens.

    Raises:
        ValueError: `usage.iterations` is not a list, or the iteration read
            lacks a required field; the message names it.

    Examples:
        >>> usage = {"input_tokens": 300, "output_tokens": 90, "cache_read_input_tokens": 9_000,
        ...     "iterations": [
        ...         {"type": "message", "input_tokens": 100, "output_tokens": 40,
        ...          "cache_read_input_tokens": 4_000},
        ...         {"type": "message", "input_tokens": 200, "output_tokens": 50,
        ...          "cache_read_input_tokens": 5_000}]}
        >>> Usage.of(usage).window_tokens, window_usage(usage).window_tokens
        (9390, 5250)
    """
    if isinstance(source, Usage):
        return source
    usage = _get(source, "usage")
    if usage is None:
        usage = source
    iterations = _get(usage, "iterations")
    if iterations is None:
        return read or Usage.of(usage)
    if isinstance(iterations, str | bytes) or not isinstance(iterations, list | tuple):
        raise ValueError(f"usage.iterations must be a list, got {iterations!r:.80}")
    for index in range(len(iterations) - 1, -1, -1):
        if _get(iterations[index], "type") == "message":
            if read is not None:
                return read.iterations[index]
            try:
                return Usage.of(iterations[index])
            except ValueError as error:
                raise ValueError(f"usage.iterations[{index}]: {error}") from None
    return read or Usage.of(usage)


def track_usage(tokens_used: int, response: Any) -> int:
    """Add one call's input and output tokens to the counter.

    Args:
        tokens_used: the counter so far, in tokens.
        response: the call's response (or its usage) in any shape `Usage.of` reads.

    Returns:
        `tokens_used + input_tokens + output_tokens`, in tokens. Cache reads
        and writes are not added: this is the course's accumulator, and with
        prompt caching on it under-counts (`window_usage(response).window_tokens`
        counts the cached prompt too).

    Raises:
        TypeError: `tokens_used` is not an int (`True`, `nan` and `1j` are not).
        ValueError: `tokens_used` is negative, or the usage cannot be read.
    """
    as_count(tokens_used, "tokens_used")
    usage = Usage.of(response)
    return tokens_used + usage.input_tokens + usage.output_tokens


def should_compact(tokens_used: int, context_window: int, compact_ratio: float) -> bool:
    """Whether the counter has reached the threshold `context_window * compact_ratio`.

    Args:
        tokens_used: the counter, in tokens.
        context_window: the model's window, in tokens (a positive int).
        compact_ratio: the share of the window that triggers compaction,
            strictly between 0 and 1.

    Raises:
        TypeError: `context_window` is not an int, or `compact_ratio` or
            `tokens_used` not a number (a bool is neither).
        ValueError: `context_window` is not positive, `compact_ratio` is
            outside (0, 1), or `tokens_used` is not a finite number >= 0
            (NaN never reaches a threshold, so it is refused); the message
            names the value.
    """
    for name, value, kinds, kind in (
        ("context_window", context_window, int, "an int"),
        ("compact_ratio", compact_ratio, int | float, "a number"),
        ("tokens_used", tokens_used, int | float, "a number"),
    ):
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise TypeError(f"{name} must be {kind}, got {short_repr(value)}")
    if context_window <= 0:
        raise ValueError(f"context_window must be a positive int, got {short_repr(context_window)}")
    if not 0 < compact_ratio < 1:
        raise ValueError(
            f"compact_ratio must be strictly between 0 and 1, got {short_repr(compact_ratio)}"
        )
    if not 0 <= tokens_used < math.inf:
        raise ValueError(f"tokens_used must be a finite number >= 0, got {short_repr(tokens_used)}")
    try:
        threshold = context_window * compact_ratio
    except OverflowError:
        raise ValueError(
            f"context_window is too large to take a share of: {short_repr(context_window)}"
        ) from None
    return tokens_used >= threshold

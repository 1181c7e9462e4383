"""What one model call used, and the two ways a harness can add it up.

A response's `usage` comes as the API's JSON (a dict), an SDK's object
(attributes, with `None` for a field the API left out), or this module's
`Usage` record, and in any provider's words: Anthropic's Messages API,
OpenAI's Responses and Chat Completions (with vLLM, LiteLLM and DeepSeek
beside), Gemini's `usage_metadata`, the Codex CLI's totals (`USAGE_SHAPES`).
`Usage.of` reads them all, and it is the only reader: live responses, the
fake clients and every saved-session reader go through it, under one bound
(`MOST_TOKENS`) for every count. `Usage.billed` is the one definition of what
a call is billed for, its iterations added up.

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
from dataclasses import dataclass
from typing import Any

from context_budget._values import as_count, maker, short_repr
from context_budget.clients import response_field

__all__ = [
    "MOST_TOKENS",
    "USAGE_SHAPES",
    "Usage",
    "should_compact",
    "split_writes",
    "track_usage",
    "usage_shape",
    "window_usage",
]

_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
_SPLIT = ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")


@dataclass(frozen=True, slots=True)
class Usage:
    """The tokens of one model call, as the Messages API reports them.

    Every figure is a count of tokens.

    Attributes:
        input_tokens: prompt tokens read at the full input price: those after
            the last cache breakpoint, or the whole prompt when nothing caches.
        output_tokens: tokens the model generated, thinking included.
        cache_creation_input_tokens: prompt tokens written to the cache by this
            call (charged at a write price), every lifetime together.
        cache_read_input_tokens: prompt tokens served from the cache (charged
            at the read price).
        ephemeral_5m_input_tokens: the part of the cache writes that lives
            five minutes.
        ephemeral_1h_input_tokens: the part of the cache writes that lives one
            hour.
        ephemeral_30m_input_tokens: the part of the cache writes that lives
            thirty minutes (OpenAI's writes, GPT-5.6 and later); 0 on every
            other provider's call.
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
    ephemeral_30m_input_tokens: int = 0

    def __post_init__(self) -> None:
        counts = (
            self.ephemeral_30m_input_tokens,
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
        for name in (*_FIELDS, *_SPLIT, "ephemeral_30m_input_tokens", "web_search_requests"):
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

    @classmethod
    def sound(
        cls,
        input_tokens: int,
        output_tokens: int,
        cache_creation_input_tokens: int,
        cache_read_input_tokens: int,
        ephemeral_5m_input_tokens: int,
        ephemeral_1h_input_tokens: int,
        speed: str = "",
        inference_geo: str = "",
        web_search_requests: int = 0,
        iterations: tuple[Usage, ...] = (),
        ephemeral_30m_input_tokens: int = 0,
    ) -> Usage:
        """`Usage(...)` of fields already known sound, made without checking them again.

        For figures read and checked once (`of`) or taken from another `Usage`
        (a what-if moving tokens between kinds): a bill makes a few for each
        call, which this makes several times sooner than `__init__`. The
        caller answers for the fields: nothing here checks them.
        """
        return (_MAKE_USAGE if cls is Usage else maker(cls))(
            input_tokens,
            output_tokens,
            cache_creation_input_tokens,
            cache_read_input_tokens,
            ephemeral_5m_input_tokens,
            ephemeral_1h_input_tokens,
            speed,
            inference_geo,
            web_search_requests,
            iterations,
            ephemeral_30m_input_tokens,
        )

    def __repr__(self) -> str:
        """The six token fields, then any rule field that is not its default."""
        shown = [f"{name}={getattr(self, name)!r}" for name in (*_FIELDS, *_SPLIT)]
        for name, default in (
            ("ephemeral_30m_input_tokens", 0),
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
        if self.ephemeral_30m_input_tokens:
            out["cache_creation"]["ephemeral_30m_input_tokens"] = self.ephemeral_30m_input_tokens
        for name in ("speed", "inference_geo"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.web_search_requests:
            out["server_tool_use"] = {"web_search_requests": self.web_search_requests}
        if self.iterations:
            out["iterations"] = [item.as_dict() for item in self.iterations]
        return out

    @property
    def writes(self) -> dict[str, int]:
        """The tokens written by lifetime, as they are billed (`billed_writes`):
        `{"5m": ..., "30m": ..., "1h": ...}`."""
        five, thirty, hour = self.billed_writes
        return {"5m": five, "30m": thirty, "1h": hour}

    @property
    def billed_writes(self) -> tuple[int, int, int]:
        """The tokens written for 5 minutes, 30 minutes and an hour, as `pricing.cost` bills
        them: a split that does not add up to the writes (a `Usage` built by hand) read
        as `Usage.of` reads one, its 30-minute part kept up to the writes and the rest
        split by `split_writes`.

        Example:
            >>> Usage(10, 5, cache_creation_input_tokens=900, ephemeral_5m_input_tokens=0,
            ...     ephemeral_1h_input_tokens=400).billed_writes
            (500, 0, 400)
        """
        thirty = self.ephemeral_30m_input_tokens
        five, hour = self.ephemeral_5m_input_tokens, self.ephemeral_1h_input_tokens
        written = self.cache_creation_input_tokens
        if five + thirty + hour == written:  # the usual usage: a split that adds up
            return five, thirty, hour
        return _lifetime_parts(written, five, thirty, hour)

    @property
    def parts(self) -> tuple[Usage, ...]:
        """What the call is billed as: its `iterations`, or itself alone without them.

        With `iterations` (server-side compaction, server tools) the top-level
        figures repeat the last iteration only, so a total of tokens or dollars
        adds up the parts, never the top level.
        """
        return self.iterations or (self,)

    @property
    def billed(self) -> Usage:
        """The tokens the call is billed for: its `parts` added up, field by field.

        The one definition every total uses: a bill's tokens, its groups'
        tokens and its cache-read share count what `pricing.cost` prices.
        Without iterations this is the usage itself; with them, a `Usage` of
        their sums with the top level's speed, region and web searches, and no
        iterations of its own.

        Example:
            >>> usage = Usage(23_000, 1_000, iterations=(Usage(180_000, 3_500),
            ...     Usage(23_000, 1_000)))
            >>> usage.billed.input_tokens, usage.billed.output_tokens
            (203000, 4500)
        """
        if not self.iterations:
            return self
        parts = self.iterations
        sums = [sum(getattr(part, name) for part in parts) for name in _COUNTED]
        return Usage(
            sums[0],
            sums[1],
            sums[2],
            sums[3],
            sums[4],
            sums[5],
            self.speed,
            self.inference_geo,
            self.web_search_requests,
            ephemeral_30m_input_tokens=sums[6],
        )

    @classmethod
    def of(cls, source: Any, *, where: str = "usage", strict: bool = True) -> Usage:
        """Read the usage of a response, or a usage itself, in any provider's words.

        The one reader of a usage in the package: live responses, the fake
        clients and every session reader go through it, under one bound.

        `source` may be a response (a dict with a `"usage"` key or Gemini's
        `usage_metadata` / `usageMetadata`, or an object with such an attribute), a usage dict,
        an SDK usage object, or a `Usage`. Whose words it is in is told by the
        fields present (`usage_shape`). Where a provider counts the cached and
        written tokens inside its input figure (OpenAI, Codex, LiteLLM, vLLM,
        DeepSeek, Gemini), the uncached tail is that figure minus them. A
        missing or `None` field counts as 0, except under `strict` the shape's
        input and output figures (`input_tokens` and `output_tokens` in
        Anthropic's words).

        The 5-minute / 1-hour split of the writes (`cache_creation`) is read
        under `split_writes`'s policy: without a split every write is a
        5-minute one; a split that does not add up to
        `cache_creation_input_tokens` keeps the total and its 1-hour part.
        The fields the price rules read (`speed`, `inference_geo`,
        `server_tool_use.web_search_requests`, `iterations`) are read too,
        each iteration by this same reader.

        Args:
            source: the response or usage.
            where: how an error names the usage, e.g. `"line 4 message.usage"`.
            strict: whether the input and output figures must be present (a
                live response always has them); a saved file's reader passes
                False, and a missing one reads as 0.

        Raises:
            ValueError: a count that is not a whole number from 0 to
                `MOST_TOKENS` (tokens and requests alike, iterations too), a
                usage, or a part of one (`cache_creation`, `prompt_tokens_details`,
                `input_tokens_details`, `server_tool_use`), that is not an
                object, a required figure missing, or
                cached plus written tokens above the input figure that holds
                them; the message names the field under `where`.
        """
        if type(source) is Usage:
            return source
        if type(source) is dict and source.keys().isdisjoint(_USUAL_SKIPS):
            found = _fast(source)  # the usual call, as nearly every saved line records it
            if found is not None:
                return found
            usage: Any = source
        elif type(source) is dict and not _RESPONSE_KEYS.intersection(source):
            if "cached_input_tokens" in source:  # a Codex figure, read at once when sound
                found = _fast_codex(source)
                if found is not None:
                    return found
            usage = source  # a usage dict itself, with a field the usual one lacks
        else:
            usage = response_field(source, "usage")
            if usage is None:  # Gemini's, in the SDK's or the REST API's spelling
                usage = response_field(source, "usage_metadata")
                if usage is None:
                    usage = response_field(source, "usageMetadata")
            usage = source if usage is None else usage
            if type(usage) is dict and usage.keys().isdisjoint(_UNUSUAL_KEYS):
                found = _fast(usage)
                if found is not None:
                    return found
        return _parse(usage, where, strict)


#: Makes a `Usage` of every field, in its order (`Usage.sound`, `_values.maker`).
_MAKE_USAGE = maker(Usage)

#: The token counts of a `Usage`, in its field order.
_COUNTED = (*_FIELDS, *_SPLIT, "ephemeral_30m_input_tokens")

#: The largest count a usage may hold, tokens or requests alike. No call comes
#: near it; a bigger figure is a corrupt file, refused by name rather than
#: priced at a trillion dollars or overflowing a float.
MOST_TOKENS = 10**15

#: Each provider's words for a call's usage: shape -> the fields that tell it
#: apart (the first shape with one of them present is the usage's; Anthropic's
#: Messages API, the package's own words, is every other).
USAGE_SHAPES: dict[str, tuple[str, ...]] = {
    # OpenAI Chat Completions and those that speak it: LiteLLM (with Anthropic's
    # cache fields beside), vLLM, DeepSeek (prompt_cache_hit_tokens and _miss_tokens)
    "chat": ("prompt_tokens", "completion_tokens", "prompt_cache_hit_tokens"),
    # Gemini's usage_metadata, in the SDK's and the REST API's spelling
    "gemini": (
        "prompt_token_count",
        "promptTokenCount",
        "cached_content_token_count",
        "cachedContentTokenCount",
        "candidates_token_count",
        "candidatesTokenCount",
    ),
    # the Codex CLI's token_count events
    "codex": ("cached_input_tokens", "cache_write_input_tokens"),
    # OpenAI Responses
    "responses": ("input_tokens_details", "cache_write_tokens"),
    "anthropic": (),
}

#: Keys no Anthropic usage has: a dict with none of them is Anthropic's.
_OTHER_KEYS = frozenset(key for keys in USAGE_SHAPES.values() for key in keys)
#: The keys of a usage the price rules read beyond the token counts.
_RULE_KEYS = frozenset({"speed", "inference_geo", "server_tool_use", "iterations"})
#: A usage dict with none of these is Anthropic's with no rule field: the usual one.
_UNUSUAL_KEYS = _OTHER_KEYS | _RULE_KEYS
#: The keys that make a dict a response holding a usage, not a usage itself.
_RESPONSE_KEYS = frozenset({"usage", "usage_metadata", "usageMetadata"})
#: A dict with none of these is an Anthropic usage itself with no rule field: the usual one.
_USUAL_SKIPS = _UNUSUAL_KEYS | _RESPONSE_KEYS


def usage_shape(usage: Any) -> str:
    """Whose words a usage is in: a key of `USAGE_SHAPES`.

    Examples:
        >>> usage_shape({"prompt_tokens": 9, "completion_tokens": 1})
        'chat'
        >>> usage_shape({"promptTokenCount": 9, "cachedContentTokenCount": 4})
        'gemini'
        >>> usage_shape({"input_tokens": 9, "output_tokens": 1})
        'anthropic'
    """
    if type(usage) is dict:  # a plain dict: only the keys it has are looked at
        present = usage.keys() & _OTHER_KEYS
        if not present:
            return "anthropic"
        for shape, keys in USAGE_SHAPES.items():
            for key in keys:
                if key in present and usage[key] is not None:
                    return shape
        return "anthropic"
    for shape, keys in USAGE_SHAPES.items():
        for key in keys:
            if response_field(usage, key) is not None:
                return shape
    return "anthropic"


#: (uncached input, cache reads, 5-minute, 30-minute and 1-hour writes, output), tokens.
_Figures = tuple[int, int, int, int, int, int]


def _parse(usage: Any, path: str, strict: bool) -> Usage:
    """One usage read: its figures in its provider's words, then the price rules' fields."""
    if usage is None or isinstance(usage, str | bytes | int | float | list | tuple):
        raise ValueError(f"{path} must be an object, got {short_repr(usage)}")
    if type(usage) is dict and usage.keys().isdisjoint(_OTHER_KEYS):
        figures = _anthropic(usage, path, strict)
    else:
        figures = _READERS[usage_shape(usage)](usage, path, strict)
    uncached, read, five, thirty, hour, output = figures
    rules = _rules(usage, path, strict)
    if thirty:
        rules["ephemeral_30m_input_tokens"] = thirty
    if not rules:  # the usual call: the token counts alone, each checked above
        return _MAKE_USAGE(uncached, output, five + hour, read, five, hour, "", "", 0, (), 0)
    return Usage(uncached, output, five + thirty + hour, read, five, hour, **rules)


def _fast(usage: dict[str, Any]) -> Usage | None:
    """The `Usage` of an Anthropic usage dict whose figures are all present and sound, else
    None.

    Nearly every line of a saved session is such a dict: read in one step
    (each count an int, not a bool, from 0 to `MOST_TOKENS`, checked inline),
    and any doubt left to `_anthropic`, which names the field at fault.
    """
    get, most = usage.get, MOST_TOKENS
    uncached: Any = get("input_tokens")
    written: Any = get("cache_creation_input_tokens")
    read: Any = get("cache_read_input_tokens")
    output: Any = get("output_tokens")
    if not (
        type(uncached) is int
        and type(written) is int
        and type(read) is int
        and type(output) is int
        and 0 <= uncached <= most
        and 0 <= written <= most
        and 0 <= read <= most
        and 0 <= output <= most
    ):
        return None
    split = get("cache_creation")
    if split is None:
        return _MAKE_USAGE(uncached, output, written, read, written, 0, "", "", 0, (), 0)
    if type(split) is not dict or "ephemeral_30m_input_tokens" in split:
        return None  # the package's own 30-minute writes are read by `_anthropic`
    five: Any = split.get("ephemeral_5m_input_tokens")
    hour: Any = split.get("ephemeral_1h_input_tokens")
    if not (type(five) is int and type(hour) is int and 0 <= five <= most and 0 <= hour <= most):
        return None
    if five + hour != written:  # a split that does not add up: `split_writes`'s policy
        five, hour = split_writes(written, five, hour)
    return _MAKE_USAGE(uncached, output, written, read, five, hour, "", "", 0, (), 0)


#: A usage with one of these is no plain Codex figure for `_fast_codex`: a shape that
#: `usage_shape` tells before Codex's, or a field a price rule reads.
_NOT_PLAIN_CODEX = frozenset((*USAGE_SHAPES["chat"], *USAGE_SHAPES["gemini"], *_RULE_KEYS))


def _fast_codex(usage: dict[str, Any]) -> Usage | None:
    """The `Usage` of a Codex figure (`input_tokens` holding `cached_input_tokens` and
    `cache_write_input_tokens`) whose counts are all present and sound, else None.

    What `_codex` reads from such a dict, read in one step; any doubt (another
    shape's field, a rule's field, a count that is not a whole number within
    bounds, reads and writes above the input that holds them) is left to
    `_parse`, which names the field at fault.
    """
    if not usage.keys().isdisjoint(_NOT_PLAIN_CODEX):
        return None
    get = usage.get
    sent: Any = get("input_tokens")
    read: Any = get("cached_input_tokens")
    output: Any = get("output_tokens")
    written: Any = get("cache_write_input_tokens")
    written = 0 if written is None else written
    if not (
        type(sent) is int
        and type(read) is int
        and type(output) is int
        and type(written) is int
        and read >= 0
        and written >= 0
        and read + written <= sent <= MOST_TOKENS
        and 0 <= output <= MOST_TOKENS
    ):
        return None
    # Codex's writes are 30-minute ones, as `_codex` reads them
    return _MAKE_USAGE(sent - read - written, output, written, read, 0, 0, "", "", 0, (), written)


def _count(value: Any, path: str, name: str) -> int:
    """The count `path.name`: a whole number from 0 to `MOST_TOKENS` (None reads as 0)."""
    if type(value) is int and 0 <= value <= MOST_TOKENS:
        return value
    if value is None:
        return 0
    if type(value) is int:
        kind = ""
    elif value in (math.inf, -math.inf):  # a whole number too long for an int, as JSON read it
        kind = " (a number too large)"
    else:  # 5.0, "5", True
        kind = f" ({type(value).__name__}, not int)"
    raise ValueError(
        f"{path}.{name} must be a whole number from 0 to {MOST_TOKENS:,}, "
        f"got {short_repr(value)}{kind}"
    )


def _part(usage: Any, path: str, name: str) -> Any:
    """The object `path.name` (`cache_creation`, `prompt_tokens_details`, ...), or None
    when absent; a value that is no object is refused by name, not read as absent."""
    part = response_field(usage, name)
    if part is not None and isinstance(part, str | bytes | int | float | list | tuple):
        raise ValueError(f"{path}.{name} must be an object, got {short_repr(part)}")
    return part


def _counts(usage: Any, path: str, *names: str) -> list[int]:
    return [_count(response_field(usage, name), path, name) for name in names]


def _needed(usage: Any, path: str, strict: bool, *names: str) -> list[int]:
    """The counts `names` of `usage`, each of which must be present under `strict`."""
    if strict:
        for name in names:
            if response_field(usage, name) is None:
                raise ValueError(f"{path} has no {name!r}: got {short_repr(usage)}")
    return _counts(usage, path, *names)


def _split(usage: Any, path: str, written: int) -> tuple[int, int, int]:
    """The 5-minute, 30-minute and 1-hour parts of `written`, from `cache_creation`.

    A 30-minute part (this package's own `as_dict`) is kept up to `written`;
    the rest is split by `split_writes`.
    """
    creation = _part(usage, path, "cache_creation")
    if creation is None:
        return written, 0, 0
    five, hour = (response_field(creation, name) for name in _SPLIT)
    _counts(creation, f"{path}.cache_creation", *_SPLIT)
    (thirty,) = _counts(creation, f"{path}.cache_creation", "ephemeral_30m_input_tokens")
    return _lifetime_parts(written, five, thirty, hour)


def _lifetime_parts(
    written: int, five: int | None, thirty: int, hour: int | None
) -> tuple[int, int, int]:
    """The 5-minute, 30-minute and 1-hour parts of `written` tokens, whatever the split
    reported: the 30-minute part kept up to `written`, the rest split by `split_writes`.
    The one rule for a usage read (`Usage.of`) and one built by hand (`billed_writes`)."""
    thirty = min(thirty, written)
    five_part, hour_part = split_writes(written - thirty, five, hour)
    return five_part, thirty, hour_part


def _inside(total: int, read: int, written: int, path: str, name: str) -> int:
    """The uncached tail of an input figure `name` that holds the cached and written tokens."""
    if read + written > total:
        raise ValueError(
            f"{path}: the cached ({read:,}) and written ({written:,}) tokens exceed "
            f"{name} ({total:,}), which holds them"
        )
    return total - read - written


def _anthropic(usage: Any, path: str, strict: bool) -> _Figures:
    """Messages API: `input_tokens` is the uncached tail alone; writes split by lifetime."""
    uncached, output = _needed(usage, path, strict, "input_tokens", "output_tokens")
    written, read = _counts(usage, path, "cache_creation_input_tokens", "cache_read_input_tokens")
    return (uncached, read, *_split(usage, path, written), output)


def _chat(usage: Any, path: str, strict: bool) -> _Figures:
    """Chat Completions: `prompt_tokens` holds the cached and written tokens.

    The cached part is LiteLLM's `cache_read_input_tokens`, else
    `prompt_tokens_details.cached_tokens` (OpenAI, vLLM, LiteLLM), else
    DeepSeek's `prompt_cache_hit_tokens`; the written part is LiteLLM's
    `cache_creation_input_tokens` (its lifetimes split as Anthropic's), else
    `prompt_tokens_details.cache_write_tokens`. Without `prompt_tokens`,
    DeepSeek's prompt is its hits plus its misses.

    LiteLLM has counted Anthropic's writes both ways: today `prompt_tokens`
    holds them ([BerriAI/litellm#26919](https://github.com/BerriAI/litellm/pull/26919)
    mends an integration that counted them twice), while the figures an older
    LiteLLM recorded hold the reads alone, so that the reads and the writes
    together pass `prompt_tokens`. Such a figure is read as it was written:
    its uncached tail is `prompt_tokens` minus the reads, the writes added.
    """
    hit, miss = _counts(usage, path, "prompt_cache_hit_tokens", "prompt_cache_miss_tokens")
    if response_field(usage, "prompt_tokens") is None and (hit or miss):
        prompt = hit + miss
    else:
        (prompt,) = _needed(usage, path, strict, "prompt_tokens")
    (output,) = _needed(usage, path, strict, "completion_tokens")
    details = _part(usage, path, "prompt_tokens_details")
    read, written = (
        (0, 0)
        if details is None
        else _counts(
            details, f"{path}.prompt_tokens_details", "cached_tokens", "cache_write_tokens"
        )
    )
    if response_field(details, "cached_tokens") is None:
        read = hit
    if response_field(usage, "cache_read_input_tokens") is not None:
        (read,) = _counts(usage, path, "cache_read_input_tokens")
    uncached = _inside(prompt, read, written, path, "prompt_tokens")
    if response_field(usage, "cache_creation_input_tokens") is None:
        return (uncached, read, 0, written, 0, output)  # OpenAI's writes live 30 minutes
    (written,) = _counts(usage, path, "cache_creation_input_tokens")  # LiteLLM's Anthropic writes
    if read <= prompt < read + written:  # an older LiteLLM's: the reads inside, the writes not
        uncached = prompt - read
    else:
        uncached = _inside(prompt, read, written, path, "prompt_tokens")
    return (uncached, read, *_split(usage, path, written), output)


def _gemini(usage: Any, path: str, strict: bool) -> _Figures:
    """Gemini: the prompt (and the tool-use prompt) holds `cached_content_token_count`;
    thinking (`thoughts_token_count`) is billed as output. Both spellings are read."""
    camel = any(response_field(usage, name) is not None for name in _GEMINI_CAMEL)
    names = _GEMINI_CAMEL if camel else _GEMINI
    (prompt,) = _needed(usage, path, strict, names[0])
    tool_prompt, cached, candidates, thoughts = _counts(usage, path, *names[1:])
    uncached = _inside(prompt + tool_prompt, cached, 0, path, names[0])
    return (uncached, cached, 0, 0, 0, candidates + thoughts)


#: Gemini's figures: prompt, tool-use prompt, cached, candidates, thoughts.
_GEMINI = (
    "prompt_token_count",
    "tool_use_prompt_token_count",
    "cached_content_token_count",
    "candidates_token_count",
    "thoughts_token_count",
)
_GEMINI_CAMEL = (
    "promptTokenCount",
    "toolUsePromptTokenCount",
    "cachedContentTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
)


def _codex(usage: Any, path: str, strict: bool) -> _Figures:
    """Codex CLI: `input_tokens` holds `cached_input_tokens` and `cache_write_input_tokens`."""
    sent, output = _needed(usage, path, strict, "input_tokens", "output_tokens")
    read, written = _counts(usage, path, "cached_input_tokens", "cache_write_input_tokens")
    return (_inside(sent, read, written, path, "input_tokens"), read, 0, written, 0, output)


def _responses(usage: Any, path: str, strict: bool) -> _Figures:
    """OpenAI Responses: `input_tokens` holds `input_tokens_details.cached_tokens` and the
    writes (`cache_write_tokens`, in the details or beside them)."""
    sent, output = _needed(usage, path, strict, "input_tokens", "output_tokens")
    details = _part(usage, path, "input_tokens_details")
    where = f"{path}.input_tokens_details"
    read, written = (
        (0, 0)
        if details is None
        else _counts(details, where, "cached_tokens", "cache_write_tokens")
    )
    if response_field(usage, "cache_write_tokens") is not None:
        (written,) = _counts(usage, path, "cache_write_tokens")
    return (_inside(sent, read, written, path, "input_tokens"), read, 0, written, 0, output)


_READERS = {
    "anthropic": _anthropic,
    "chat": _chat,
    "gemini": _gemini,
    "codex": _codex,
    "responses": _responses,
}


def _rules(usage: Any, path: str, strict: bool) -> dict[str, Any]:
    """The fields a price rule reads beyond the token counts, as `Usage` keywords.

    `speed`, `inference_geo`, `server_tool_use.web_search_requests` (a count,
    under the one bound) and `iterations` (each read by `_parse`). A missing or
    `None` field is left at its default.
    """
    if type(usage) is dict and usage.keys().isdisjoint(_RULE_KEYS):
        return {}  # the usual usage: none of these fields
    found: dict[str, Any] = {}
    for name in ("speed", "inference_geo"):
        value = response_field(usage, name)
        if value is not None:
            if not isinstance(value, str):
                raise ValueError(f"{path}.{name} must be a str, got {short_repr(value)}")
            found[name] = value
    tools = _part(usage, path, "server_tool_use")
    if tools is not None:
        searches = response_field(tools, "web_search_requests")
        if searches is not None:
            found["web_search_requests"] = _count(
                searches, f"{path}.server_tool_use", "web_search_requests"
            )
    iterations = response_field(usage, "iterations")
    if iterations is not None:
        if not isinstance(iterations, list | tuple):
            raise ValueError(f"{path}.iterations must be a list, got {short_repr(iterations)}")
        found["iterations"] = tuple(
            _parse(item, f"{path}.iterations[{index}]", strict)
            for index, item in enumerate(iterations)
        )
    return found


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
        TypeError: `read` is not a `Usage`.
        ValueError: `usage.iterations` is not a list, the iteration read
            lacks a required field (the message names it), or `read` holds
            another number of iterations than the source.

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
    if read is not None and type(read) is not Usage:
        raise TypeError(f"read must be a Usage (Usage.of(source)) or None, got {short_repr(read)}")
    if isinstance(source, Usage):
        return source
    usage = response_field(source, "usage")
    if usage is None:
        usage = source
    iterations = response_field(usage, "iterations")
    if iterations is None:
        return read or Usage.of(usage)
    if not isinstance(iterations, list | tuple):
        raise ValueError(f"usage.iterations must be a list, got {short_repr(iterations)}")
    if read is not None and len(read.iterations) != len(iterations):
        raise ValueError(
            f"read holds {len(read.iterations)} iterations where the source holds "
            f"{len(iterations)}: it must be Usage.of(source)"
        )
    for index in range(len(iterations) - 1, -1, -1):
        if response_field(iterations[index], "type") == "message":
            if read is not None:
                return read.iterations[index]
            return Usage.of(iterations[index], where=f"usage.iterations[{index}]")
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

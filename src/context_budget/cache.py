"""A model of Anthropic's prompt cache: which tokens of a request are read, written or fresh.

The prompt is read as one row of *blocks*, in the order tools -> system ->
messages: each tool definition, each `system` text block (a string `system` is
one block) and each content block of each message (a string `content` is one
block). A block's tokens are the counter applied to its text (a text block's
`text`, a tool result's content, a `tool_use`'s name and compact JSON input, a
tool definition's or any other block's compact JSON without its
`cache_control`); no per-message framing is added, so the three input fields
of a usage add up to `PromptCache.prompt_tokens(request)` exactly.

The rules, as the provider documents them (snapshot 2026-08-21):

- the cache key of a block is a hash of everything up to and including it;
  `tool_choice`, thinking settings, `output_config.effort` and the presence of
  images are hashed in where `messages` starts, `speed` where `system` starts,
  so changing them keeps what comes before;
- writes happen only at breakpoints: a `cache_control` on a block, and the
  request-level `cache_control`, which lands on the last block that can carry
  one (not a thinking block or an empty text block) and so moves forward each
  turn; at most 4 in all;
- a read at a breakpoint checks that block and then up to 19 earlier ones
  (20 positions) for an entry an earlier request wrote and that is still alive;
- a prefix shorter than the model's minimum cacheable length is neither read
  nor written, silently (`MIN_CACHEABLE_TOKENS`, dated data);
- an entry lives 5 minutes (`"5m"`, the default) or 1 hour (`"1h"`) from the
  start of the request that wrote or last read it; 1-hour breakpoints must
  come before 5-minute ones.

Billing follows the documented positions: A is the prefix tokens at the
highest hit, B those at the last 1-hour breakpoint after A (A if none), C
those at the last breakpoint. A is read, B - A written for 1 hour, C - B
written for 5 minutes, and the rest is `input_tokens`.

`PromptCache.usage` returns a `Usage` (output 0: the cache does not know the
reply); its `as_dict()` is the API's JSON. Not modelled: parallel requests
(an entry exists only once the first response starts), server-tool
breakpoints, per-platform differences.

Example:
    >>> cache = PromptCache("claude-sonnet-4-6", counter=lambda text: 200)
    >>> turn = {"system": "s", "messages": [{"role": "user", "content": "q"}] * 9,
    ...         "cache_control": {"type": "ephemeral"}}
    >>> cache.usage(turn).cache_creation_input_tokens
    2000
    >>> cache.usage(turn).cache_read_input_tokens
    2000
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from context_budget.errors import (
    AutomaticCacheConflictError,
    CacheTTLOrderError,
    TooManyBreakpointsError,
)
from context_budget.messages import _check_messages, _result_text
from context_budget.tokens import TokenCounter, _count, _resolve
from context_budget.usage import Usage

__all__ = [
    "LOOKBACK_BLOCKS",
    "MAX_BREAKPOINTS",
    "MIN_CACHEABLE_TOKENS",
    "TTL_SECONDS",
    "MinimumLength",
    "PromptCache",
    "SimulatedClock",
]

#: Breakpoints a request may hold, explicit and automatic together.
MAX_BREAKPOINTS = 4
#: Positions a read checks at a breakpoint, the breakpoint itself counted first.
LOOKBACK_BLOCKS = 20
#: Lifetime of a cache entry, in seconds, by `ttl`.
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}

_DOCS = "Anthropic, prompt-caching.md (llms-txt-archive snapshot 2026-08-21)"


@dataclass(frozen=True)
class MinimumLength:
    """The shortest prefix a model caches, with its date and source.

    Attributes:
        tokens: the minimum, in tokens, of the prefix up to a breakpoint.
        as_of: the date the figure was read, `YYYY-MM-DD`.
        source: where it was read.
    """

    tokens: int
    as_of: str
    source: str


def _minimums() -> dict[str, MinimumLength]:
    table = {
        512: ("claude-opus-5", "claude-fable-5", "claude-mythos-5"),
        1024: (
            "claude-opus-4-8",
            "claude-sonnet-5",
            "claude-sonnet-4-6",
            "claude-sonnet-4-5",
            "claude-opus-4-1",
            "claude-opus-4",
            "claude-sonnet-4",
        ),
        2048: ("claude-mythos-preview", "claude-opus-4-7", "claude-3-5-haiku"),
        4096: ("claude-opus-4-6", "claude-opus-4-5", "claude-haiku-4-5"),
    }
    out = {
        model: MinimumLength(tokens, "2026-08-21", _DOCS)
        for tokens, models in table.items()
        for model in models
    }
    # subtle: the 2026-08-21 table predates Opus 5.5; we assume Opus 5's tier and say so.
    out["claude-opus-5-5"] = MinimumLength(
        512, "2026-09-30", "assumed equal to Opus 5 (not in the 2026-08-21 table)"
    )
    # Sonnet 3.7, which older saved sessions name; the same documentation, listing it
    # as deprecated, quoted in anthropics/anthropic-sdk-python#1194.
    out["claude-3-7-sonnet"] = MinimumLength(
        1024,
        "2026-12-01",
        "Anthropic, prompt caching documentation, as quoted in "
        "github.com/anthropics/anthropic-sdk-python/issues/1194",
    )
    return out


#: Model id -> minimum cacheable prefix (dated). Sonnet 4.6 was 2,048 in March 2026
#: and Opus 4.7 4,096 in May: the table changes, so pass `min_tokens` to override.
MIN_CACHEABLE_TOKENS: dict[str, MinimumLength] = _minimums()


class SimulatedClock:
    """A clock that moves only when told to, for cache lifetimes.

    Attributes:
        now: the current time, in seconds from the clock's start.

    Examples:
        >>> clock = SimulatedClock()
        >>> clock.advance(240)
        240.0
        >>> clock.now
        240.0
    """

    def __init__(self, start: float = 0.0) -> None:
        self.now = float(start)

    def advance(self, seconds: float) -> float:
        """Move the clock forward by `seconds` (>= 0) and return the new time."""
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise ValueError(f"seconds must be a number >= 0, got {seconds!r}")
        self.now += float(seconds)
        return self.now


@dataclass(frozen=True)
class _Block:
    """One block of the prompt row."""

    key: str  # cumulative hash of the prefix up to and including this block
    tokens: int
    ttl: str | None  # the block's own cache_control ttl, None without one
    eligible: bool  # may carry cache_control


@dataclass
class _Entry:
    ttl: str  # "5m" or "1h"
    expires: float  # clock time, seconds


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _ttl(control: object, where: str) -> str:
    if not isinstance(control, Mapping) or control.get("type") != "ephemeral":
        raise ValueError(f"{where}: cache_control must be {{'type': 'ephemeral'}}, got {control!r}")
    ttl = control.get("ttl", "5m")
    if ttl not in TTL_SECONDS:
        raise ValueError(f"{where}: cache_control ttl must be '5m' or '1h', got {ttl!r}")
    return str(ttl)


def _block_text(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        return f"{block['name']} {_json(block['input'])}"
    if kind == "tool_result":
        return _result_text(block.get("content"))
    if kind in ("thinking", "compaction"):
        return str(block.get("thinking", block.get("content")) or "")
    return _json({k: v for k, v in block.items() if k != "cache_control"})


def _eligible(block: Mapping[str, Any]) -> bool:
    kind = block.get("type")
    if kind in ("thinking", "redacted_thinking"):
        return False
    return not (kind == "text" and not block.get("text"))


def _has_image(messages: Sequence[Mapping[str, Any]]) -> bool:
    def walk(value: object) -> bool:
        if isinstance(value, Mapping):
            return value.get("type") == "image" or any(walk(v) for v in value.values())
        if isinstance(value, list):
            return any(walk(v) for v in value)
        return False

    return walk(list(messages))


class PromptCache:
    """The cache of one model, remembering what earlier requests wrote.

    Args:
        model: the model id, e.g. `"claude-sonnet-4-6"`; it names the minimum
            cacheable length unless `min_tokens` is given.
        counter: text -> tokens for every block; `estimate_tokens` when None.
        clock: the time source; a new `SimulatedClock` at 0 when None.
        min_tokens: the minimum cacheable prefix, in tokens, overriding
            `MIN_CACHEABLE_TOKENS[model]`.

    Raises:
        ValueError: the model is not in `MIN_CACHEABLE_TOKENS` and no
            `min_tokens` was given, or `min_tokens` is not an int >= 0.
    """

    def __init__(
        self,
        model: str,
        *,
        counter: TokenCounter | None = None,
        clock: SimulatedClock | None = None,
        min_tokens: int | None = None,
    ) -> None:
        if min_tokens is None:
            if model not in MIN_CACHEABLE_TOKENS:
                raise ValueError(
                    f"no minimum cacheable length known for model {model!r}; pass min_tokens "
                    f"(known: {', '.join(sorted(MIN_CACHEABLE_TOKENS))})"
                )
            min_tokens = MIN_CACHEABLE_TOKENS[model].tokens
        if isinstance(min_tokens, bool) or not isinstance(min_tokens, int) or min_tokens < 0:
            raise ValueError(f"min_tokens must be an int >= 0, got {min_tokens!r}")
        self.model = model
        self.min_tokens = min_tokens
        self.clock = clock if clock is not None else SimulatedClock()
        self._counter = _resolve(counter)
        self._entries: dict[str, _Entry] = {}  # prefix hash -> entry

    def _row(self, request: Mapping[str, Any]) -> list[_Block]:
        """The request's prompt as blocks, each keyed by its cumulative hash."""
        tools = request.get("tools") or []
        system = request.get("system") or []
        messages = request.get("messages") or []
        if not isinstance(tools, list):
            raise TypeError(f"tools must be a list of dicts, got {type(tools).__name__}")
        _check_messages(messages)
        if isinstance(system, str):
            system = [{"type": "text", "text": system}]
        if not isinstance(system, list):
            raise TypeError(f"system must be a str or a list of blocks, got {type(system)}")
        digest = hashlib.sha256(_json(self.model).encode())
        row: list[_Block] = []

        def add(part: str, block: Mapping[str, Any], text: str) -> None:
            control = block.get("cache_control")
            ttl = None if control is None else _ttl(control, f"{part} block {len(row)}")
            digest.update(
                b"\x00" + _json({k: v for k, v in block.items() if k != "cache_control"}).encode()
            )
            row.append(
                _Block(digest.hexdigest(), _count(text, self._counter), ttl, _eligible(block))
            )

        for number, tool in enumerate(tools):
            if not isinstance(tool, Mapping):
                raise TypeError(f"tools[{number}] has type {type(tool).__name__}, not dict")
            add("tools", tool, _json({k: v for k, v in tool.items() if k != "cache_control"}))
        digest.update(b"\x01system" + _json(request.get("speed")).encode())
        for number, block in enumerate(system):
            if not isinstance(block, Mapping) or block.get("type") != "text":
                raise TypeError(f"system[{number}] must be a text block, got {block!r}")
            add("system", block, str(block["text"]))
        settings = {
            "tool_choice": request.get("tool_choice"),
            "thinking": request.get("thinking"),
            "effort": (request.get("output_config") or {}).get("effort"),
            "images": _has_image(messages),
        }
        digest.update(b"\x01messages" + _json(settings).encode())
        for message in messages:
            content = message["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for block in blocks:
                tagged = {**block, "_role": message["role"]}
                add("messages", tagged, _block_text(block))
        return row

    def prompt_tokens(self, request: Mapping[str, Any] | None = None, /, **kwargs: Any) -> int:
        """Tokens of the whole prompt of a request, as this cache counts them.

        Args:
            request: `messages.create` arguments as a dict, or pass them as
                keyword arguments (`tools`, `system`, `messages`).

        Returns:
            The sum of every block's tokens: what `input_tokens`,
            `cache_creation_input_tokens` and `cache_read_input_tokens` of
            `usage` add up to for the same request.
        """
        return sum(block.tokens for block in self._row(_request(request, kwargs)))

    def _breakpoints(self, request: Mapping[str, Any], row: list[_Block]) -> list[tuple[int, str]]:
        """(block index, ttl) of every breakpoint, in prefix order; refused ones raise."""
        points = [(index, block.ttl) for index, block in enumerate(row) if block.ttl is not None]
        explicit = len(points)
        top = request.get("cache_control")
        if top is not None:
            ttl = _ttl(top, "top-level")
            last = next((i for i in range(len(row) - 1, -1, -1) if row[i].eligible), None)
            if last is not None:
                own = row[last].ttl
                if own is None:
                    points = sorted([*points, (last, ttl)])
                elif own != ttl:
                    raise AutomaticCacheConflictError(
                        f"top-level cache_control has ttl {ttl!r} but the last cacheable block "
                        f"(prefix block {last}) already has cache_control with ttl {own!r}"
                    )
                # subtle: same TTL already there -> the automatic breakpoint is a no-op
                if own is None and explicit >= MAX_BREAKPOINTS:
                    raise TooManyBreakpointsError(explicit + 1)
        if len(points) > MAX_BREAKPOINTS:
            raise TooManyBreakpointsError(len(points))
        seen_5m = False
        for index, ttl in points:
            if ttl == "5m":
                seen_5m = True
            elif seen_5m:
                raise CacheTTLOrderError(index)
        return points

    def usage(self, request: Mapping[str, Any] | None = None, /, **kwargs: Any) -> Usage:
        """The usage one `messages.create` call reports, and the cache it leaves behind.

        Args:
            request: the call's keyword arguments as a dict (`tools`, `system`,
                `messages`, `cache_control`, `tool_choice`, `thinking`, …), or
                pass them as keyword arguments. Keys the cache does not read
                (`model`, `max_tokens`, …) are ignored.

        Returns:
            A `Usage` with `input_tokens`, `cache_read_input_tokens`,
            `cache_creation_input_tokens` and its 5-minute / 1-hour split, in
            tokens; `output_tokens` is 0. `Usage.as_dict()` gives the API JSON.

        Raises:
            TooManyBreakpointsError: more than 4 breakpoints.
            CacheTTLOrderError: a 1-hour breakpoint after a 5-minute one.
            AutomaticCacheConflictError: the top-level `cache_control` has a
                different TTL from the one already on the last block.
        """
        request = _request(request, kwargs)
        row = self._row(request)
        points = self._breakpoints(request, row)
        now = self.clock.now
        prefix = [0]  # block index + 1 -> prefix tokens
        for block in row:
            prefix.append(prefix[-1] + block.tokens)
        points = [(i, ttl) for i, ttl in points if prefix[i + 1] >= self.min_tokens]
        hit = -1  # highest block index read
        found: list[_Entry] = []  # entries read, one per breakpoint at most
        for index, _ in points:
            for back in range(index, max(-1, index - LOOKBACK_BLOCKS), -1):
                entry = self._entries.get(row[back].key)
                if entry is not None and entry.expires > now:
                    hit = max(hit, back)
                    found.append(entry)
                    break
        for entry in found:  # a hit refreshes its entry, at no cost
            entry.expires = now + TTL_SECONDS[entry.ttl]
        a = prefix[hit + 1]
        later_1h = [i for i, ttl in points if ttl == "1h" and i > hit]
        b = prefix[later_1h[-1] + 1] if later_1h else a
        c = max(prefix[points[-1][0] + 1], a) if points else a
        for index, ttl in points:
            entry = self._entries.get(row[index].key)
            if entry is None or entry.expires <= now or TTL_SECONDS[ttl] > TTL_SECONDS[entry.ttl]:
                self._entries[row[index].key] = _Entry(ttl, now + TTL_SECONDS[ttl])
        return Usage(
            input_tokens=prefix[-1] - c,
            cache_read_input_tokens=a,
            cache_creation_input_tokens=c - a,
            ephemeral_1h_input_tokens=b - a,
            ephemeral_5m_input_tokens=c - b,
        )


def _request(request: Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    if request is not None and not isinstance(request, Mapping):
        raise TypeError(f"request must be a dict of messages.create arguments, got {request!r}")
    return {**(request or {}), **kwargs}

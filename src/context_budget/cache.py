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

- the cache key of a block is a hash of everything up to and including it,
  its `cache_control` markers left out; `tool_choice`, thinking settings,
  `output_config.effort` and the presence of images are hashed in where
  `messages` starts, `speed` where `system` starts, so changing them keeps what
  comes before; effort named as the API's default (`DEFAULT_EFFORT`) is the
  same prompt as no effort;
- writes happen only at breakpoints: a `cache_control` on a block, and the
  request-level `cache_control`, which lands on the last block that can carry
  one (not a thinking block or an empty text block) and so moves forward each
  turn; at most 4 markers in all. A thinking block or an empty text block
  with a `cache_control` of its own is refused (`InvalidRequestError`, the
  API's 400). A `cache_control` on a block inside a `tool_result`'s content
  (how the provider's tool runners cache a tool result) counts toward the 4
  and makes the enclosing block a breakpoint;
- on `LAST_TURN_THINKING_ONLY` models, a user message that is not only tool
  results drops the thinking blocks of every earlier assistant turn from the
  prompt: they are neither counted nor hashed, so the cache breaks there;
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
reply); its `as_dict()` is the API's JSON.

Not modelled:

- parallel requests (an entry exists only once the first response starts);
- server-tool breakpoints, and per-platform differences;
- where a model renders its thinking and effort settings: on some models a
  change there also misses the tools and system caches; here it always keeps
  them and misses from `messages` on;
- a `thinking` setting named as the model's default (the defaults differ by
  model): it is hashed as written, so it misses where omitting it would not;
- a marker inside a tool result that is not on its last content block: the
  breakpoint is placed at the end of the whole tool result;
- `{"role": "system"}` messages in `messages`, which some models read as an
  instruction without invalidating the cache: they are hashed like any other.

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
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from context_budget._blocks import request_block_text
from context_budget._checks import check_messages, first_bad_value, is_json_data
from context_budget._counting import count_text, resolve_counter
from context_budget._json import canonical_json
from context_budget._values import as_count, as_seconds, short_repr
from context_budget.errors import (
    AutomaticCacheConflictError,
    CacheTTLOrderError,
    InvalidRequestError,
    TooManyBreakpointsError,
)
from context_budget.tokens import TokenCounter
from context_budget.usage import Usage

__all__ = [
    "DEFAULT_EFFORT",
    "EFFORTS",
    "LAST_TURN_THINKING_ONLY",
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

#: The `output_config.effort` levels the API takes.
EFFORTS = ("low", "medium", "high", "xhigh", "max")
#: The API's effort when none is given; naming it explicitly is the same request
#: (https://platform.claude.com/docs/en/build-with-claude/effort, 2026-08-21).
DEFAULT_EFFORT = "high"
#: Models that keep only the current turn's thinking: once a request carries a user
#: message that is not only tool results, the thinking blocks of every assistant turn
#: before it are dropped from the prompt (earlier Opus and Sonnet models, Haiku through
#: 4.5; https://platform.claude.com/docs/en/build-with-claude/thinking, "Thinking block
#: preservation by model", 2026-08-21). Every other model keeps all prior thinking.
LAST_TURN_THINKING_ONLY = frozenset(
    {
        "claude-opus-4",
        "claude-opus-4-1",
        "claude-sonnet-4",
        "claude-sonnet-4-5",
        "claude-3-7-sonnet",
        "claude-haiku-4-5",
        "claude-3-5-haiku",
    }
)

_DOCS = "Anthropic, prompt-caching.md (llms-txt-archive snapshot 2026-08-21)"
_THINKING = ("thinking", "redacted_thinking")


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
    # Sonnet 3.7 left the table after May 2026; its last listed figure, dated.
    out["claude-3-7-sonnet"] = MinimumLength(
        1024, "2026-05-06", "Anthropic, prompt-caching.md (llms-txt-archive snapshot 2026-05-06)"
    )
    # subtle: the 2026-08-21 table predates the models below; each takes the tier of
    # the model it follows, and its source says that this is an assumption.
    for model, tokens, follows in (
        ("claude-opus-5-5", 512, "Opus 5"),
        ("claude-sonnet-5-5", 1024, "Sonnet 5"),
        ("claude-fable-5-1", 512, "Fable 5"),
        ("claude-mythos-5-1", 512, "Mythos 5"),
    ):
        out[model] = MinimumLength(
            tokens, "2026-09-30", f"assumed equal to {follows} (not in the 2026-08-21 table)"
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
        self.now = as_seconds(start, "start", negative=True)

    def advance(self, seconds: float) -> float:
        """Move the clock forward by `seconds` (a finite number >= 0) and return the new time.

        Raises:
            TypeError: `seconds` is not a number.
            ValueError: it is negative, NaN, infinite, too big for a float, or
                moves the clock past the largest finite time.
        """
        step = as_seconds(seconds, "seconds")
        now = self.now + step
        if not math.isfinite(now):
            raise ValueError(
                f"advancing {self.now!r} s by {step!r} s leaves the clock at {now!r}; "
                "the time must stay finite"
            )
        self.now = now
        return self.now


@dataclass(frozen=True)
class _Block:
    """One block of the prompt row."""

    key: str  # cumulative hash of the prefix up to and including this block
    tokens: int
    eligible: bool  # may carry cache_control
    # the TTLs of its cache_control markers in prefix order: those on blocks inside a
    # tool_result's content first, then the block's own; empty without one
    markers: tuple[str, ...] = field(default=())

    @property
    def ttl(self) -> str | None:
        """The TTL of the breakpoint its markers make (the last marker's), None without one."""
        return self.markers[-1] if self.markers else None


@dataclass
class _Entry:
    ttl: str  # "5m" or "1h"
    expires: float  # clock time, seconds


def _ttl(control: object, where: str) -> str:
    if not isinstance(control, Mapping) or control.get("type") != "ephemeral":
        raise ValueError(
            f"{where}: cache_control must be {{'type': 'ephemeral'}}, got {short_repr(control)}"
        )
    ttl = control.get("ttl", "5m")
    if not isinstance(ttl, str) or ttl not in TTL_SECONDS:
        raise ValueError(f"{where}: cache_control ttl must be '5m' or '1h', got {short_repr(ttl)}")
    return ttl


def _marker(block: Mapping[str, Any], where: str, refuse: bool) -> str | None:
    """The TTL of `block`'s own `cache_control`, None without one.

    A marker where the API refuses one raises when `refuse`, and is no marker
    otherwise (counting tokens does not need the request to be valid).
    """
    control = block.get("cache_control")
    if control is None:
        return None
    kind = block.get("type")
    if not refuse and (kind in _THINKING or (kind == "text" and block.get("text") == "")):
        return None
    if kind in _THINKING:
        # the API's thinking blocks have no cache_control field at all
        raise InvalidRequestError(f"{where}.{kind}.cache_control: Extra inputs are not permitted")
    if kind == "text" and block.get("text") == "":
        raise InvalidRequestError(
            f"{where}.text: cache_control cannot be set for empty text blocks"
        )
    return _ttl(control, where)


def _markers(block: Mapping[str, Any], where: str, refuse: bool = True) -> tuple[str, ...]:
    """TTLs of every marker a block holds: inside a tool_result's content, then its own.

    A `cache_control` on a block inside a `tool_result`'s content is how the
    docs' tool runners cache a tool result (tool-runner.md, Go and Java); it
    counts toward the 4 breakpoints, and the model places its breakpoint at
    the end of the enclosing block.
    """
    found: list[str] = []
    content = block.get("content") if block.get("type") == "tool_result" else None
    if isinstance(content, list):
        for number, inner in enumerate(content):
            ttl = _marker(inner, f"{where}.content.{number}", refuse)
            if ttl is not None:
                found.append(ttl)
    own = _marker(block, where, refuse)
    if own is not None:
        found.append(own)
    return tuple(found)


def _unmarked(block: Mapping[str, Any]) -> dict[str, Any]:
    """`block` without its markers (its own and those inside a tool_result's content)."""
    out = {k: v for k, v in block.items() if k != "cache_control"}
    content = out.get("content")
    if out.get("type") == "tool_result" and isinstance(content, list):
        out["content"] = [
            {k: v for k, v in inner.items() if k != "cache_control"}
            if isinstance(inner, Mapping)
            else inner
            for inner in content
        ]
    return out


def _eligible(block: Mapping[str, Any]) -> bool:
    kind = block.get("type")
    if kind in _THINKING:
        return False
    return not (kind == "text" and not block.get("text"))


def _check_data(value: object, where: str) -> None:
    """A tool definition or system block must be JSON data, nested at most `MAX_DEPTH` deep."""
    if isinstance(value, dict) and not is_json_data(value):
        path, problem = first_bad_value(value)
        if len(path) > 60:
            path = path[:57] + "..."
        raise TypeError(f"{where} at {path}: {problem}")


def _settings(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request fields hashed where `messages` starts, checked and normalized.

    Raises:
        TypeError: `tool_choice`, `thinking` or `output_config` is not a dict.
        ValueError: `output_config.effort` is not one of `EFFORTS`.
    """
    for name in ("tool_choice", "thinking", "output_config"):
        value = request.get(name)
        if value is not None and not isinstance(value, Mapping):
            raise TypeError(f"{name} must be a dict, got {short_repr(value)}")
        if isinstance(value, dict):
            _check_data(value, name)
    effort = (request.get("output_config") or {}).get("effort")
    if effort is not None and (not isinstance(effort, str) or effort not in EFFORTS):
        raise ValueError(
            f"output_config.effort must be one of {', '.join(EFFORTS)}, got {short_repr(effort)}"
        )
    if effort == DEFAULT_EFFORT:
        effort = None  # subtle: naming the default is the same prompt as omitting it
    return {
        "tool_choice": request.get("tool_choice"),
        "thinking": request.get("thinking"),
        "effort": effort,
    }


def _kept_thinking_from(model: str, messages: Sequence[Mapping[str, Any]]) -> int:
    """The first message whose thinking blocks stay in the prompt of `model`.

    On `LAST_TURN_THINKING_ONLY` models, that is the last user message that
    holds anything but tool results (a string content counts); elsewhere 0.
    """
    if model not in LAST_TURN_THINKING_ONLY:
        return 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        content = message["content"]
        if message["role"] == "user" and (
            isinstance(content, str) or any(b["type"] != "tool_result" for b in content)
        ):
            return index
    return 0


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
        TypeError: `model` is not a str, or `min_tokens` not an int.
        ValueError: the model is not in `MIN_CACHEABLE_TOKENS` and no
            `min_tokens` was given, or `min_tokens` is below 0.
    """

    def __init__(
        self,
        model: str,
        *,
        counter: TokenCounter | None = None,
        clock: SimulatedClock | None = None,
        min_tokens: int | None = None,
    ) -> None:
        if not isinstance(model, str):
            raise TypeError(f"model must be a str, got {short_repr(model)}")
        if min_tokens is None:
            if model not in MIN_CACHEABLE_TOKENS:
                raise ValueError(
                    f"no minimum cacheable length known for model {model!r}; pass min_tokens "
                    f"(known: {', '.join(sorted(MIN_CACHEABLE_TOKENS))})"
                )
            min_tokens = MIN_CACHEABLE_TOKENS[model].tokens
        as_count(min_tokens, "min_tokens")
        self.model = model
        self.min_tokens = min_tokens
        self.clock = clock if clock is not None else SimulatedClock()
        self._counter = resolve_counter(counter)
        self._entries: dict[str, _Entry] = {}  # prefix hash -> entry

    def _row(self, request: Mapping[str, Any], *, refuse: bool = True) -> list[_Block]:
        """The request's prompt as blocks, each keyed by its cumulative hash.

        `refuse=False` lets a marker where the API refuses one pass (as no
        marker), for counting tokens only.
        """
        tools = request.get("tools") or []
        system = request.get("system") or []
        messages = request.get("messages") or []
        if not isinstance(tools, list):
            raise TypeError(f"tools must be a list of dicts, got {type(tools).__name__}")
        check_messages(messages)
        if isinstance(system, str):
            system = [{"type": "text", "text": system}]
        if not isinstance(system, list):
            raise TypeError(
                f"system must be a str or a list of blocks, got {type(system).__name__}"
            )
        speed = request.get("speed")
        if speed is not None and not isinstance(speed, str):
            raise TypeError(f"speed must be a str, got {short_repr(speed)}")
        settings = {**_settings(request), "images": _has_image(messages)}
        digest = hashlib.sha256(canonical_json(self.model).encode())
        row: list[_Block] = []

        def add(where: str, block: Mapping[str, Any], text: str, hashed: Mapping[str, Any]) -> None:
            markers = _markers(block, where, refuse)
            digest.update(b"\x00" + canonical_json(hashed).encode())
            tokens = count_text(text, self._counter)
            row.append(_Block(digest.hexdigest(), tokens, _eligible(block), markers))

        for number, tool in enumerate(tools):
            if not isinstance(tool, dict):
                raise TypeError(f"tools[{number}] has type {type(tool).__name__}, not dict")
            _check_data(tool, f"tools[{number}]")
            unmarked = _unmarked(tool)
            add(f"tools.{number}", tool, canonical_json(unmarked), unmarked)
        digest.update(b"\x01system" + canonical_json(speed).encode())
        for number, block in enumerate(system):
            if not isinstance(block, dict) or block.get("type") != "text":
                raise TypeError(f"system[{number}] must be a text block, got {short_repr(block)}")
            if "text" not in block:
                raise ValueError(f"system[{number}] (text) has no 'text'")
            if not isinstance(block["text"], str):
                found = type(block["text"]).__name__
                raise TypeError(f"system[{number}] (text) has 'text' of type {found}, not str")
            _check_data(block, f"system[{number}]")
            add(f"system.{number}", block, block["text"], _unmarked(block))
        digest.update(b"\x01messages" + canonical_json(settings).encode())
        kept_from = _kept_thinking_from(self.model, messages)
        for index, message in enumerate(messages):
            content = message["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for number, block in enumerate(blocks):
                stripped = index < kept_from and message["role"] == "assistant"
                if stripped and block["type"] in _THINKING:
                    continue  # dropped from the prompt: neither counted nor hashed
                hashed = {**_unmarked(block), "_role": message["role"]}
                add(f"messages.{index}.content.{number}", block, request_block_text(block), hashed)
        return row

    def prompt_tokens(self, request: Mapping[str, Any] | None = None, /, **kwargs: Any) -> int:
        """Tokens of the whole prompt of a request, as this cache counts them.

        Args:
            request: `messages.create` arguments as a dict, or pass them as
                keyword arguments (`tools`, `system`, `messages`).

        Returns:
            The sum of every block's tokens: what `input_tokens`,
            `cache_creation_input_tokens` and `cache_read_input_tokens` of
            `usage` add up to for the same request. A `cache_control` the API
            would refuse (on a thinking or empty text block) does not stop the
            count; `usage` refuses it.
        """
        return sum(block.tokens for block in self._row(_request(request, kwargs), refuse=False))

    def _breakpoints(self, request: Mapping[str, Any], row: list[_Block]) -> list[tuple[int, str]]:
        """(block index, ttl) of every breakpoint, in prefix order; refused ones raise.

        Every `cache_control` marker counts toward `MAX_BREAKPOINTS`, a marker
        inside a tool_result's content too; the markers of one block make one
        breakpoint, at that block.
        """
        marks = [(index, ttl) for index, block in enumerate(row) for ttl in block.markers]
        top = request.get("cache_control")
        if top is not None:
            ttl = _ttl(top, "top-level")
            last = next((i for i in range(len(row) - 1, -1, -1) if row[i].eligible), None)
            if last is not None:
                own = row[last].ttl
                if own is None:
                    if len(marks) >= MAX_BREAKPOINTS:
                        raise TooManyBreakpointsError(len(marks) + 1)
                    marks = sorted([*marks, (last, ttl)], key=lambda mark: mark[0])
                elif own != ttl:
                    raise AutomaticCacheConflictError(
                        f"top-level cache_control has ttl {ttl!r} but the last cacheable block "
                        f"(prefix block {last}) already has cache_control with ttl {own!r}"
                    )
                # subtle: same TTL already there -> the automatic breakpoint is a no-op
        if len(marks) > MAX_BREAKPOINTS:
            raise TooManyBreakpointsError(len(marks))
        seen_5m = False
        for index, ttl in marks:
            if ttl == "5m":
                seen_5m = True
            elif seen_5m:
                raise CacheTTLOrderError(index)
        points: dict[int, str] = {}
        for index, ttl in marks:
            points[index] = ttl  # the last marker of a block gives its breakpoint's TTL
        return sorted(points.items())

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
        raise TypeError(
            f"request must be a dict of messages.create arguments, got {short_repr(request)}"
        )
    return {**(request or {}), **kwargs}

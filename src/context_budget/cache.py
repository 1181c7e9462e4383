"""A model of a provider's prompt cache: which tokens of a request are read, written or fresh.

`PromptCache(model_id)` emulates the cache of the model's provider, as its
row of the table of models (`models.model_for`) names it, on the same
Anthropic-format request (`tools`, `system`, `messages`, `cache_control`)
the lessons build; `PromptCache(model_id, policy=...)` emulates any other
`cache_policy.CachePolicy` (a self-hosted server, another mode of the same
provider). The prompt is read as one row of blocks (`_prompt_row`): a block
is keyed by the hash of everything up to and including it, so a changed
block changes every key after it. No per-message framing is added, so the
three input fields of a usage add up to `PromptCache.prompt_tokens(request)`.

What each `hit_unit` of a policy does here:

- `"breakpoint"` (Anthropic; OpenAI from GPT-5.6; a Gemini explicit cache):
  writes happen only at breakpoints. On Anthropic's rules (snapshot
  2026-08-21) a `cache_control` on a block and the request-level
  `cache_control` (which lands on the last block that can carry one, so it
  moves forward each turn) make at most 4 breakpoints; a read at a breakpoint
  checks that block and up to 19 earlier ones (20 positions) for an entry an
  earlier request wrote and that is still alive; a thinking block or an empty
  text block with a `cache_control` of its own is refused
  (`InvalidRequestError`, the API's 400), and so is a fifth breakpoint or a
  1-hour one after a 5-minute one; an entry lives 5 minutes (`"5m"`) or 1
  hour (`"1h"`) from the start of the request that wrote or last read it.
  OpenAI's breakpoints come from the same markers within its limits: one
  implicit breakpoint on the last block of every request plus the latest
  three markers are written, a read matches any of the latest 80 entries at
  any depth, and an entry lives 30 minutes from its last write or read. A
  Gemini explicit cache is the prefix up to the first marker, read only
  whole, created at the input rate and held (and billed) for its hour.
- `"prefix"` (OpenAI up to GPT-5.5; Gemini's implicit caching): every prompt
  is cached; a later one reads the longest prefix it shares, from the
  minimum in steps of `step_tokens`, times the policy's `hit_rate`. Nothing
  is reported as written.
- `"unit"` (DeepSeek): a request stores a unit at the end of its prompt and
  one at the end of the reply the next request carries, a unit where it
  shares a prefix with an earlier request, and units every `step_tokens` of
  a long prompt; a later request reads the longest unit it matches whole.
- `"block"` (vLLM): whole blocks of `step_tokens` are read, as long a chain
  from the start as the server still holds; at least the prompt's last token
  is computed; the least recently used blocks are evicted past
  `capacity_tokens`.
- `"none"`: every prompt token is input.

A prefix shorter than the policy's minimum cacheable length is neither read
nor written, silently. On models whose prompts keep only the last turn's
thinking (`LAST_TURN_THINKING_ONLY`), a user message that is not only tool
results drops the thinking blocks of every earlier assistant turn from the
prompt: they are neither counted nor hashed, so the cache breaks there.

Billing at breakpoints follows Anthropic's documented positions: A is the
prefix tokens at the highest hit, and each breakpoint past it writes the
tokens from the one before it (A first) at its own lifetime; the rest is
`input_tokens`. With Anthropic's order rule (1-hour breakpoints first) this
is the documented B - A for 1 hour and C - B for 5 minutes.

`PromptCache.usage` returns a `Usage` (output 0: the cache does not know the
reply) in Anthropic's fields; its `as_dict()` is the API's JSON.

Parallel requests: an entry exists only once the response that writes it
has begun, so a request sent before then misses it. `usage(...,
responded_at=T)` says when that response began (clock time); the entries the
request writes at breakpoints become readable from `T`, while their lifetime
still runs from the request's start. Without it they are readable at once.
(The automatic caches below make what they store readable at once.)

`usage_of_row` settles a request already cut into blocks, each keyed and
counted by the caller (a replay of a saved session sends thousands of long
requests whose blocks it sized itself), by the same rules as `usage`.

Not modelled:

- server-tool breakpoints, and per-platform differences;
- where a model renders its thinking and effort settings: on some models a
  change there also misses the tools and system caches; here it always keeps
  them and misses from `messages` on;
- a `thinking` setting named as the model's default (the defaults differ by
  model): it is hashed as written, so it misses where omitting it would not;
- a marker inside a tool result that is not on its last content block: the
  breakpoint is placed at the end of the whole tool result;
- `{"role": "system"}` messages in `messages`, which some models read as an
  instruction without invalidating the cache: they are hashed like any other;
- a prefix shared inside a block: hits are counted in whole blocks of the
  row, so two prompts that differ inside a block share nothing of it.

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

import heapq
import math
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from context_budget._counting import count_text, resolve_counter
from context_budget._prompt_row import DEFAULT_EFFORT, EFFORTS, Block, prompt_row, request_ttl
from context_budget._values import as_count, as_seconds, short_repr
from context_budget.cache_policy import (
    LOOKBACK_BLOCKS,
    MAX_BREAKPOINTS,
    CachePolicy,
    MinimumLength,
)
from context_budget.errors import (
    AutomaticCacheConflictError,
    CacheTTLOrderError,
    TooManyBreakpointsError,
)
from context_budget.models import MODELS, Model, model_for
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
    "CachePolicy",
    "MinimumLength",
    "PromptCache",
    "SimulatedClock",
]

#: Lifetime of an Anthropic cache entry, in seconds, by `ttl` (a view of its policy).
TTL_SECONDS: dict[str, float] = dict(MODELS["claude-sonnet-4-6"].cache.lifetimes)
#: Models that keep only the current turn's thinking: once a request carries a user
#: message that is not only tool results, the thinking blocks of every assistant turn
#: before it are dropped from the prompt (a view of `models.Model.thinking`).
LAST_TURN_THINKING_ONLY = frozenset(
    model_id for model_id, model in MODELS.items() if model.thinking == "last-turn"
)
#: Model id -> minimum cacheable prefix (dated): a view of each model's cache policy.
#: The figures change (Sonnet 4.6 was 2,048 in March 2026, Opus 4.7 4,096 in May):
#: pass `min_tokens` to override.
MIN_CACHEABLE_TOKENS: dict[str, MinimumLength] = {
    model_id: model.cache.minimum for model_id, model in MODELS.items()
}


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


@dataclass
class _Entry:
    ttl: str  # the lifetime it was written with
    expires: float  # clock time, seconds
    ready: float = -math.inf  # clock time from which a request can read it, seconds


class PromptCache:
    """The cache of one model, remembering what earlier requests wrote.

    Args:
        model: the model id (dated, prefixed or an alias, as `models.model_for`
            reads it), e.g. `"claude-sonnet-4-6"`; its row names the provider's
            caching rules and the minimum cacheable length.
        counter: text -> tokens for every block; `estimate_tokens` when None.
        clock: the time source; a new `SimulatedClock` at 0 when None.
        min_tokens: the minimum cacheable prefix, in tokens, overriding the
            policy's. For an id the table lacks it alone is enough: the cache
            then follows Anthropic's rules with that minimum.
        policy: the caching rules to emulate, overriding the model's own
            (another mode of its provider, a self-hosted server).

    Attributes:
        model: the id as given.
        policy: the rules emulated.
        min_tokens: the minimum cacheable prefix, in tokens.
        last_keys: the block keys of the last request `usage` read.

    Raises:
        TypeError: `model` is not a str, `policy` not a `CachePolicy`,
            `clock` not a `SimulatedClock`, or `min_tokens` not an int.
        ValueError: the table has no row for the model and neither `policy`
            nor `min_tokens` was given, or `min_tokens` is below 0.
    """

    def __init__(
        self,
        model: str,
        *,
        counter: TokenCounter | None = None,
        clock: SimulatedClock | None = None,
        min_tokens: int | None = None,
        policy: CachePolicy | None = None,
    ) -> None:
        if not isinstance(model, str):
            raise TypeError(f"model must be a str, got {short_repr(model)}")
        if policy is not None and not isinstance(policy, CachePolicy):
            raise TypeError(f"policy must be a CachePolicy, got {short_repr(policy)}")
        row = model_for(model)
        if min_tokens is not None:
            as_count(min_tokens, "min_tokens")
        if clock is not None and not isinstance(clock, SimulatedClock):
            raise TypeError(f"clock must be a SimulatedClock or None, got {short_repr(clock)}")
        policy = _policy(model, row, policy, min_tokens)
        self.model = model
        self.row: Model | None = row
        self.policy = policy
        self.min_tokens = policy.minimum.tokens
        self.clock = clock if clock is not None else SimulatedClock()
        self._last_row: Sequence[Block] = ()  # the last request's blocks (`last_keys`)
        self._thinking = row.thinking if row is not None else "all"
        self._counter = resolve_counter(counter)
        self._counted: dict[str, int] = {}  # block text -> tokens, counted once
        self._entries: dict[str, _Entry] = {}  # prefix hash -> entry at a breakpoint
        # prefix hash -> [tokens, expires] (the prefix, unit and block caches)
        self._held: OrderedDict[str, list[float]] = OrderedDict()
        self._seen: set[str] = set()  # every prefix hash an earlier request sent (units)
        self._ends: set[str] = set()  # prompt ends of earlier requests (units)

    @property
    def last_keys(self) -> tuple[str, ...]:
        """The block keys of the last request read (`usage`, `usage_of_row`)."""
        return tuple([block.key for block in self._last_row])

    def _count(self, text: str) -> int:
        found = self._counted.get(text)
        if found is None:
            if len(self._counted) > 200_000:  # a bound on what a long replay keeps
                self._counted.clear()
            found = self._counted[text] = count_text(text, self._counter)
        return found

    def _row(self, request: Mapping[str, Any], *, refuse: bool = True) -> list[Block]:
        """The request's prompt as blocks, each keyed by its cumulative hash."""
        return prompt_row(request, self.model, self._count, thinking=self._thinking, refuse=refuse)

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

    def usage(
        self,
        request: Mapping[str, Any] | None = None,
        /,
        *,
        responded_at: float | None = None,
        **kwargs: Any,
    ) -> Usage:
        """The usage one `messages.create` call reports, and the cache it leaves behind.

        Args:
            request: the call's keyword arguments as a dict (`tools`, `system`,
                `messages`, `cache_control`, `tool_choice`, `thinking`, …), or
                pass them as keyword arguments. Keys the cache does not read
                (`model`, `max_tokens`, …) are ignored; OpenAI's
                `prompt_cache_retention` chooses a prefix cache's lifetime.
            responded_at: the clock time, in seconds, at which the response
                began: the entries this request writes at breakpoints are
                readable from then on (a parallel request sent earlier misses
                them). `clock.now` (readable at once) when None; never before
                `clock.now`.

        Returns:
            A `Usage` with `input_tokens`, `cache_read_input_tokens`,
            `cache_creation_input_tokens` and its split by lifetime, in
            tokens; `output_tokens` is 0. `Usage.as_dict()` gives the API JSON.
            A provider that reports no writes (OpenAI before GPT-5.6, Gemini's
            implicit caching, DeepSeek, vLLM) counts what it stores as input.

        Raises:
            TooManyBreakpointsError: more than 4 breakpoints (Anthropic).
            CacheTTLOrderError: a 1-hour breakpoint after a 5-minute one (Anthropic).
            AutomaticCacheConflictError: the top-level `cache_control` has a
                different TTL from the one already on the last block (Anthropic).
        """
        request = _request(request, kwargs)
        return self._settle(request, self._row(request), responded_at)

    def usage_of_row(
        self,
        row: Sequence[Block],
        *,
        roles: Sequence[str] = (),
        responded_at: float | None = None,
    ) -> Usage:
        """`usage` for a request already cut into blocks, each keyed and counted by the caller.

        For a caller that sends many long requests of known sizes (a replay of
        a saved session): the blocks are not hashed, checked or counted again;
        the reads, writes, lifetimes and billing are `usage`'s own.

        Args:
            row: the request's blocks in prompt order (`_prompt_row.Block`): each
                with its cumulative key (two requests whose first k blocks are
                the same prompt have the same first k keys, and no other two
                do), its tokens, whether it may carry a breakpoint, the TTLs of
                its markers (a breakpoint where there is one) and the index of
                its message in `roles` (-1 for the tools and system prompt).
            roles: each message's role, `"user"` or `"assistant"`.
            responded_at: as for `usage`.

        Raises:
            ValueError: a block's tokens are not an int >= 0, or its message is
                outside `roles`.
            TooManyBreakpointsError, CacheTTLOrderError: as for `usage`.

        Examples:
            >>> from context_budget._prompt_row import Block
            >>> cache = PromptCache("claude-sonnet-4-6")
            >>> first = [Block("a", 1_000, True, (), 0), Block("ab", 200, True, ("5m",), 0)]
            >>> cache.usage_of_row(first, roles=["user"]).cache_creation_input_tokens
            1200
            >>> grown = [Block("ab", 200, True, (), 0), Block("abc", 50, True, ("5m",), 0)]
            >>> usage = cache.usage_of_row([first[0], *grown], roles=["user"])
            >>> usage.cache_read_input_tokens, usage.cache_creation_input_tokens
            (1200, 50)
        """
        messages, prefix, total = len(roles), [0], 0  # block index + 1 -> prefix tokens
        for block in row:  # each block checked, and the prefix sums made in the same pass
            tokens = block.tokens
            if type(tokens) is not int or tokens < 0:
                raise ValueError(f"a block's tokens must be an int >= 0, got {short_repr(tokens)}")
            if not -1 <= block.message < messages:
                raise ValueError(
                    f"a block's message {block.message} is outside the {messages} messages given"
                )
            total += tokens
            prefix.append(total)
        return self._usage_of_summed_row(list(row), roles, prefix, responded_at)

    def _usage_of_summed_row(
        self,
        row: list[Block],
        roles: Sequence[str],
        prefix: list[int],
        responded_at: float | None,
    ) -> Usage:
        """`usage_of_row` of a row this package cut, keyed and summed itself: each block
        checked as it was made, `prefix[k]` the tokens of the blocks before block k. The
        replay sends thousands of long requests, each its thread's last one grown by a
        few blocks, whose sums it carries from one to the next (`replay._Sent`); the row
        is kept as it is given (`last_keys`), and neither it nor `prefix` is changed."""
        # the roles are read where a provider caches by units (`_by_units`) alone
        asked = self.policy.hit_unit == "unit"
        request = {"messages": [{"role": role} for role in roles]} if asked else {}
        return self._settle(request, row, responded_at, prefix)

    def _settle(
        self,
        request: Mapping[str, Any],
        row: list[Block],
        responded_at: float | None,
        prefix: list[int] | None = None,
    ) -> Usage:
        """The usage of one request cut into `row`, and the cache it leaves behind (`prefix`:
        the sums of its blocks' tokens, `prefix[k]` those before block k, where the caller
        has them)."""
        self._last_row = row
        if prefix is None:
            prefix = [0]  # block index + 1 -> prefix tokens
            for block in row:
                prefix.append(prefix[-1] + block.tokens)
        unit = self.policy.hit_unit
        if unit == "breakpoint":
            ready = self.clock.now
            if responded_at is not None:
                ready = max(ready, as_seconds(responded_at, "responded_at", negative=True))
            return self._at_breakpoints(request, row, prefix, ready)
        if unit == "none":
            return Usage(input_tokens=prefix[-1])
        if unit == "prefix":
            read = self._by_prefix(request, row, prefix)
        elif unit == "unit":
            read = self._by_units(request, row, prefix)
        else:
            read = self._by_blocks(row, prefix)
        return Usage(input_tokens=prefix[-1] - read, cache_read_input_tokens=read)

    # ------------------------------------------------------------ breakpoints

    def _breakpoints(self, request: Mapping[str, Any], row: list[Block]) -> list[tuple[int, str]]:
        """(block index, ttl) of every breakpoint, in prefix order; refused ones raise.

        Every `cache_control` marker counts toward `MAX_BREAKPOINTS`, a marker
        inside a tool_result's content too; the markers of one block make one
        breakpoint, at that block.
        """
        marks = [(index, ttl) for index, block in enumerate(row) for ttl in block.markers]
        if not self.policy.refuses_extra:
            return self._written(request, row, marks)
        top = request.get("cache_control")
        if top is not None:
            ttl = request_ttl(top, "top-level")
            last = next((i for i in range(len(row) - 1, -1, -1) if row[i].eligible), None)
            if last is not None:
                own = row[last].ttl
                if own is None:
                    if len(marks) >= self.policy.max_breakpoints:
                        raise TooManyBreakpointsError(len(marks) + 1)
                    marks = sorted([*marks, (last, ttl)], key=lambda mark: mark[0])
                elif own != ttl:
                    raise AutomaticCacheConflictError(
                        f"top-level cache_control has ttl {ttl!r} but the last cacheable block "
                        f"(prefix block {last}) already has cache_control with ttl {own!r}"
                    )
                # subtle: same TTL already there -> the automatic breakpoint is a no-op
        if len(marks) > self.policy.max_breakpoints:
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

    def _written(
        self, request: Mapping[str, Any], row: list[Block], marks: list[tuple[int, str]]
    ) -> list[tuple[int, str]]:
        """(block index, lifetime) of the breakpoints a provider that refuses none writes.

        The automatic breakpoint (on the last block that can carry one) and
        the latest markers, or the first (`CachePolicy.keeps`), up to
        `max_writes`; a marker's `ttl` is kept where the policy offers it,
        else the policy's default lifetime.
        """
        policy = self.policy
        offered = dict(policy.lifetimes)
        points: dict[int, str] = {}
        for index, ttl in marks:
            points[index] = ttl if ttl in offered else policy.default_lifetime
        ordered = sorted(points.items())
        top = request.get("cache_control")
        if top is not None:
            request_ttl(top, "top-level")  # a malformed marker is still refused
        asked = policy.automatic == "always" or (policy.automatic == "asked" and top is not None)
        last = next((i for i in range(len(row) - 1, -1, -1) if row[i].eligible), None)
        auto = last if asked and last is not None else None
        room = policy.max_writes - (auto is not None)  # the automatic one is always written
        kept = ordered[:room] if policy.keeps == "first" else ordered[len(ordered) - room :]
        chosen = dict(kept if room > 0 else [])
        if auto is not None and auto not in chosen:
            chosen[auto] = points.get(auto, policy.default_lifetime)
        return sorted(chosen.items())

    def _at_breakpoints(
        self, request: Mapping[str, Any], row: list[Block], prefix: list[int], ready: float
    ) -> Usage:
        """Reads and writes at breakpoints: the usage of one request, its writes readable
        from `ready` (clock time)."""
        policy, now = self.policy, self.clock.now
        points = [
            (i, ttl)
            for i, ttl in self._breakpoints(request, row)
            if prefix[i + 1] >= policy.minimum.tokens
        ]
        hit, found = self._hits(row, points)
        if policy.refreshed_by_hit:
            for entry in found:  # a hit renews its entry, at no cost
                entry.expires = now + policy.seconds(entry.ttl)
        a = prefix[hit + 1]
        written = {"5m": 0, "30m": 0, "1h": 0}
        start = a
        for index, ttl in points:  # each breakpoint past the hit writes up to itself
            end = prefix[index + 1]
            if index > hit and end > start:
                written[ttl] += end - start
                start = end
        for index, ttl in points:
            held = self._entries.get(row[index].key)
            longer = held is not None and policy.seconds(ttl) > policy.seconds(held.ttl)
            if held is None or held.expires <= now or longer:
                # an entry a parallel request is still writing stays readable from its start
                since = ready if held is None or held.expires <= now else min(held.ready, ready)
                self._entries[row[index].key] = _Entry(ttl, now + policy.seconds(ttl), since)
        c = start
        return Usage(
            input_tokens=prefix[-1] - c,
            cache_read_input_tokens=a,
            cache_creation_input_tokens=c - a,
            ephemeral_5m_input_tokens=written["5m"],
            ephemeral_1h_input_tokens=written["1h"],
            ephemeral_30m_input_tokens=written["30m"],
        )

    def _hits(self, row: list[Block], points: list[tuple[int, str]]) -> tuple[int, list[_Entry]]:
        """(highest block index read, the entries read) for a request's breakpoints."""
        now, lookback = self.clock.now, self.policy.lookback_blocks
        live = self._live_entries()
        hit, found = -1, list[_Entry]()
        if lookback is None:  # any depth: the longest prefix an entry holds
            for back in range(len(row) - 1, -1, -1):
                entry = live.get(row[back].key)
                if entry is not None and entry.expires > now and entry.ready <= now:
                    return back, [entry]
            return hit, found
        for index, _ in points:
            for back in range(index, max(-1, index - lookback), -1):
                entry = live.get(row[back].key)
                if entry is not None and entry.expires > now and entry.ready <= now:
                    hit = max(hit, back)
                    found.append(entry)
                    break
        return hit, found

    def _live_entries(self) -> Mapping[str, _Entry]:
        """The entries a read may match: alive, and the latest `considered` of them."""
        considered = self.policy.considered
        if considered is None:
            return self._entries
        now = self.clock.now
        # subtle: an expired entry can never be read again, so it is dropped for good
        self._entries = {key: entry for key, entry in self._entries.items() if entry.expires > now}
        if len(self._entries) <= considered:
            return self._entries
        started = self.policy.seconds  # an entry's last write or read: expires - its lifetime
        latest = heapq.nlargest(
            considered,
            self._entries.items(),
            key=lambda item: item[1].expires - started(item[1].ttl),
        )
        return dict(latest)

    # ------------------------------------------------------------ automatic caches

    def _by_prefix(self, request: Mapping[str, Any], row: list[Block], prefix: list[int]) -> int:
        """Tokens read by a prefix cache; the whole prompt is cached again after it."""
        policy, now = self.policy, self.clock.now
        retention = request.get("prompt_cache_retention")
        lifetime = retention if retention in dict(policy.lifetimes) else policy.default_lifetime
        matched = 0
        for index in range(len(row) - 1, -1, -1):
            held = self._held.get(row[index].key)
            if held is not None and held[1] > now:
                matched = prefix[index + 1]
                break
        read = 0
        if matched >= max(policy.minimum.tokens, 1):
            least = policy.minimum.tokens
            read = least + (matched - least) // policy.step_tokens * policy.step_tokens
            read = math.floor(read * policy.hit_rate)
        if prefix[-1] >= policy.minimum.tokens:
            expires = now + policy.seconds(lifetime)
            for index, block in enumerate(row):
                self._held[block.key] = [float(prefix[index + 1]), expires]
        return read

    def _by_units(self, request: Mapping[str, Any], row: list[Block], prefix: list[int]) -> int:
        """Tokens read from DeepSeek's prefix units; the units this request stores after it."""
        policy, now = self.policy, self.clock.now
        expires = now + policy.seconds(policy.default_lifetime)
        messages = request.get("messages") or []
        for index, block in enumerate(row):  # the reply after an earlier prompt ended a unit
            if block.key in self._ends:
                end = _reply_end(row, messages, index)
                if end is not None:
                    self._store(row[end].key, prefix[end + 1], expires)
        read = 0
        for index in range(len(row) - 1, -1, -1):
            held = self._held.get(row[index].key)
            if held is not None and held[1] > now and held[0] > read:
                read = int(held[0])
                held[1] = now + policy.seconds(policy.default_lifetime)  # a hit renews it
        shared = next((i for i in range(len(row) - 1, -1, -1) if row[i].key in self._seen), None)
        if shared is not None:  # the prefix this request shares with an earlier one
            self._store(row[shared].key, prefix[shared + 1], expires)
        step = policy.step_tokens
        for index, block in enumerate(row):  # units every `step` tokens of the prompt
            if prefix[index + 1] >= step:
                self._store(block.key, prefix[index + 1] // step * step, expires)
            self._seen.add(block.key)
        if row:
            self._store(row[-1].key, prefix[-1], expires)
            self._ends.add(row[-1].key)
        return read if read >= policy.minimum.tokens else 0

    def _store(self, key: str, tokens: int, expires: float) -> None:
        held = self._held.get(key)
        if held is None or held[1] <= self.clock.now:
            self._held[key] = [float(tokens), expires]
        else:
            held[0], held[1] = max(held[0], float(tokens)), max(held[1], expires)

    def _by_blocks(self, row: list[Block], prefix: list[int]) -> int:
        """Tokens read from a vLLM block cache; this request's blocks are held after it."""
        policy = self.policy
        size = policy.step_tokens
        full = [tokens // size for tokens in prefix]  # whole blocks through each prefix
        chain = 0
        for index, block in enumerate(row):  # the longest run of held blocks from the start
            if block.key not in self._held:
                break
            chain = full[index + 1]
        read = min(chain, max(prefix[-1] - 1, 0) // size) * size
        for index in range(len(row) - 1, -1, -1):  # the tail is evicted before the head
            key = row[index].key
            if key in self._held:
                self._held.move_to_end(key)
            else:
                self._held[key] = [float((full[index + 1] - full[index]) * size), math.inf]
        capacity = policy.capacity_tokens
        if capacity is not None:
            total = sum(held[0] for held in self._held.values())
            while total > capacity and self._held:
                _, held = self._held.popitem(last=False)
                total -= held[0]
        return read if read >= policy.minimum.tokens else 0


def _reply_end(row: list[Block], messages: Sequence[Mapping[str, Any]], index: int) -> int | None:
    """The last block of the assistant message right after block `index`, or None."""
    after = index + 1
    if after >= len(row):
        return None
    message = row[after].message
    if message < 0 or message >= len(messages) or messages[message].get("role") != "assistant":
        return None
    end = after
    while end + 1 < len(row) and row[end + 1].message == message:
        end += 1
    return end


def _policy(
    model: str, row: Model | None, policy: CachePolicy | None, min_tokens: int | None
) -> CachePolicy:
    """The rules a cache emulates: the given policy, else the model's, else Anthropic's
    with `min_tokens`; a `min_tokens` overrides the minimum."""
    if policy is None and row is not None:
        policy = row.cache
    if policy is None:
        if min_tokens is None:
            raise ValueError(
                f"no model {short_repr(model)} in the table of models (context_budget.models); "
                f"pass policy= (a CachePolicy) or min_tokens= (known: {', '.join(sorted(MODELS))})"
            )
        policy = CachePolicy.anthropic(MinimumLength(min_tokens, "", "given by the caller"))
    if min_tokens is not None and min_tokens != policy.minimum.tokens:
        policy = replace(policy, minimum=MinimumLength(min_tokens, "", "given by the caller"))
    return policy


def _request(request: Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    if request is not None and not isinstance(request, Mapping):
        raise TypeError(
            f"request must be a dict of messages.create arguments, got {short_repr(request)}"
        )
    merged = {**(request or {}), **kwargs}
    if "role" in merged and "messages" not in merged:  # no argument of messages.create
        raise TypeError(
            f"request is a message (role {short_repr(merged['role'])}), not a request: "
            "pass {'messages': [message, ...]}"
        )
    return merged

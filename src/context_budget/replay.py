"""What a bill would have cost under another policy: the same calls, replayed.

`replay(bill, policy)` sends every call of a bill again, in the order its
requests were sent, to the package's model of the cache (`PromptCache`), and
prices each with `pricing.cost`. The trajectory is the session's: the same
calls, with the same outputs, at the same times. What changes is what each
request held and what the cache made of it:

- `Policy.model`: every call on another model of the table of models (its
  provider's cache rules and its prices: OpenAI's 128-token steps, GPT-5.6's
  paid 30-minute writes, Gemini's implicit caching, DeepSeek's units);
- `Policy.cache`: every call's cache in another of its model's modes
  (`Model.caches`: Gemini's or GPT-5.6's `"explicit"`), its writes priced
  under that mode (a Gemini explicit cache's storage by the hour);
- `Policy.ttl`: every cache write of that lifetime (`"5m"` or `"1h"`);
- `Policy.clear_at` and `Policy.keep`: old tool results cleared as the
  server does it (`editing.clear_tool_uses_20250919`): on a request over
  `clear_at` tokens, every tool result but those of the last `keep` tool
  uses becomes a placeholder, and the cache is read only up to the first
  block that changed;
- `Policy.compact_at`: a client-side compaction (`compaction.compact`) once a
  request reaches `compact_at` tokens: one summarizing call, priced (it reads
  the request and writes the summary), then the thread goes on from the
  compacted history, and its next call writes it to the cache anew.

With no policy the replay runs the session's own choices (each call's model,
each thread's write lifetime) through the same code: the usage it computes
is its own, never copied from the record, and on sessions whose files hold
their requests it comes within 2% of the bill (`Replay.departures` names the
calls where it does not, and why).

Each request is rebuilt from the files (`_requests`): the tools and system
prompt no file keeps, then every message block, sized so that the request
adds up to the prompt the call recorded. There is one cache per model for
the whole bill, keyed by content as the provider's is: a thread reads what
another thread, or another session, wrote minutes before; a request sent
while another's response has not begun misses what that one writes.

A session outside the bill. A call's recorded read proves that a prefix of
its request was in the cache when it was sent; where no request of the bill
sent that prefix within the recorded lifetime before, a session the bill
does not hold wrote it (`Request.warm`). The replay takes it as written just
before the call, by a request of that prefix alone sent to the replay's own
cache and left unpriced (it is that session's bill): under another model or
policy, that session would have run under it too, so its entry is what the
replay's rules make of it (read whole on Anthropic's or GPT-5.6's
breakpoints, in steps on a prefix cache, not at all below a minimum or where
a Gemini explicit cache starts elsewhere). `Replay.warm` names those calls.

The rent of a tool result (`RentedResult`, `Replay.rent`): what its tokens
cost on every call that carried it, from the first until it left the
context (cleared, summarized, or the end of the session), at the rate each
call paid for them there (read, written or uncached).

Example:
    >>> from context_budget import read_bill
    >>> bill = read_bill("docs/measured/sessions/sample-project")
    >>> same = replay(bill)
    >>> f"{same.cost / bill.cost().total - 1:+.1%}"
    '-0.3%'
    >>> later = replay(bill, Policy(ttl="1h"))
    >>> later.cost > same.cost  # no pause in it is long enough for 1-hour writes to pay
    True
"""

from __future__ import annotations

import bisect
import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from context_budget._prompt_row import Block as CacheBlock
from context_budget._requests import (
    Block,
    Request,
    chained,
    digest,
    first_difference,
    rebuild_requests,
)
from context_budget._stand_ins import IDENT, count, stand_in, text_of
from context_budget._stand_ins import messages as as_messages
from context_budget._values import short_repr
from context_budget.bills import Bill
from context_budget.cache import PromptCache, SimulatedClock
from context_budget.cache_policy import LIFETIME_SECONDS, CachePolicy
from context_budget.compaction import SUMMARY_PREFIX, compact_with_record
from context_budget.editing import PLACEHOLDER, clear_tool_uses_20250919
from context_budget.errors import ContextOverflowError
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.models import MODELS, Model, model_for
from context_budget.pricing import Cost, Unpriced, cost
from context_budget.sessions import Call, ThreadId
from context_budget.sessions.text import gc_paused
from context_budget.usage import Usage

__all__ = [
    "ASSUMPTION",
    "COMPACTED_SHARE",
    "DEFAULT_SUMMARY_TOKENS",
    "Departure",
    "Policy",
    "Rent",
    "RentedResult",
    "Replay",
    "lifetimes_offered",
    "replay",
    "summary_size",
]

#: What every replay assumes, in one sentence.
ASSUMPTION = (
    "The replay keeps each session's trajectory (the same calls, outputs and pauses) "
    "and changes only what each request held and what the cache did with it; a prefix a "
    "call's recorded read proves was cached, which no request of the bill sent within "
    "its lifetime before, is taken as written just before the call by a session outside "
    "the bill, under the replay's model and policy."
)
#: The size of a compaction's summary, in tokens, for a bill whose files hold none of
#: their own: the replay's assumption, not a measured figure (`Policy.summary_tokens`).
DEFAULT_SUMMARY_TOKENS = 2_000
#: The share of a thread's conversation a compaction keeps at most (summary included):
#: the budget `compact` is given is the system part plus this share of the rest.
COMPACTED_SHARE = 0.5
#: The write lifetimes a policy may choose (`Policy.ttl`), where a model's provider
#: offers that choice (`lifetimes_offered`).
_TTLS = ("5m", "1h")
#: A call's replay departs from its bill when the two differ by more than this share
#: of the bill's cost and by more than `_LEAST_USD`.
_DEPARTS = 0.02
_LEAST_USD = 0.0001


@dataclass(frozen=True)
class Policy:
    """The choices a replay runs under; each None keeps the session's own.

    Attributes:
        model: the model every call runs on (a dated id or a family), or None
            for each call's own.
        cache: the name of one of the model's cache modes (`Model.caches`:
            `"explicit"`, `"implicit"`, ...) every call's cache runs in, or
            None for the model's default mode.
        ttl: `"5m"` or `"1h"`, the lifetime of every cache write; None for
            each thread's own (1 hour where it wrote more 1-hour tokens than
            5-minute ones).
        clear_at: clear old tool results from requests over this many tokens;
            None never clears.
        keep: how many of the latest tool uses clearing leaves whole.
        compact_at: compact a thread once a request reaches this many tokens
            (2 or more: the summary, of 1 token or more, is below it); None
            never compacts.
        summary_tokens: the size of a compaction's summary, in tokens, below
            `compact_at`; None for the mean of the files' own summaries, else
            `DEFAULT_SUMMARY_TOKENS`.
    """

    model: str | None = None
    cache: str | None = None
    ttl: Literal["5m", "1h"] | None = None
    clear_at: int | None = None
    keep: int = 3
    compact_at: int | None = None
    summary_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.model is not None and (not isinstance(self.model, str) or not self.model):
            raise ValueError(f"model must be a model id, got {short_repr(self.model)}")
        if self.cache is not None and (not isinstance(self.cache, str) or not self.cache):
            raise ValueError(
                f"cache must be the name of a model's cache mode, got {short_repr(self.cache)}"
            )
        if self.ttl is not None and self.ttl not in _TTLS:
            raise ValueError(f"ttl must be '5m' or '1h', got {short_repr(self.ttl)}")
        for name, least in (("clear_at", 1), ("compact_at", 2), ("summary_tokens", 1)):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < least):
                raise ValueError(
                    f"{name} must be an int >= {least} tokens, got {short_repr(value)}"
                )
        if type(self.keep) is not int or self.keep < 0:
            raise ValueError(f"keep must be an int >= 0 tool uses, got {short_repr(self.keep)}")
        summary, at = self.summary_tokens, self.compact_at
        if summary is not None and at is not None and summary >= at:
            raise ValueError(
                f"summary_tokens ({summary:,}) must be below compact_at ({at:,}): "
                "a request holding the summary would reach the threshold again at once"
            )

    @property
    def recorded(self) -> bool:
        """True when nothing is changed: the session's own model, lifetimes and context."""
        return self == Policy(keep=self.keep, summary_tokens=self.summary_tokens)


@dataclass(frozen=True)
class RentedResult:
    """One tool result and what keeping it in the context cost.

    Attributes:
        tool: the tool that produced it (`""` where the files do not say).
        tokens: its size, in tokens.
        cost_usd: what its tokens cost on every call that carried them, USD;
            None where a call that carried it has no price.
        calls: how many calls carried it.
        first_call: the number (in `Replay.bill.calls`) of the first call that carried it.
        thread: its thread.
        where: where it is in the files (`file:line`, or `file message N`).
    """

    tool: str
    tokens: int
    cost_usd: float | None
    calls: int
    first_call: int
    thread: str
    where: str


@dataclass(frozen=True)
class Rent:
    """The tool results of one tool, and what keeping them cost (`Replay.rent`).

    Attributes:
        tool: the tool (`""` where the files do not say).
        results: how many of its results the calls carried.
        tokens: their sizes added, in tokens.
        cost_usd: their rent added, USD; None where one is unpriced.
    """

    tool: str
    results: int
    tokens: int
    cost_usd: float | None


@dataclass(frozen=True)
class Departure:
    """A call whose replay, with the session's own policy, differs from its bill.

    Attributes:
        call: its number in the bill.
        thread: its thread.
        bill_usd: what the bill says it cost, USD.
        replayed_usd: what the replay says, USD.
        read: the tokens the replay read minus those the record read.
        why: one line: what the files cannot tell the replay.
    """

    call: int
    thread: str
    bill_usd: float
    replayed_usd: float
    read: int
    why: str


@dataclass(frozen=True)
class Replay:
    """A bill replayed under a `Policy`.

    Attributes:
        bill: the replayed calls as a `Bill` (its costs, rebuilds, groups and
            lifetimes are the replay's), the summarizing calls of its
            compactions in their place.
        recorded: the bill that was replayed.
        policy: the policy it ran under.
        clearings: calls whose request clearing changed from the one before
            in its thread (each breaks the cache at the first block it cleared).
        compactions: compactions made (each a summarizing call in `bill`).
        summaries: the numbers, in `bill.calls`, of the summarizing calls.
        numbers: for each call of `bill`, the number of the recorded call it
            replays (the call a summarizing call came before).
        results: every tool result the calls carried, costliest first.
        departures: with the session's own policy, the calls the replay prices
            differently from the bill (empty under any other policy).
        unreplayed: the models with no cache model, whose calls are left out.
        summary_tokens: the size of a compaction's summary the replay used, in tokens.
        warm: the numbers of the recorded calls whose request started from a
            prefix a session outside the bill had written (`ASSUMPTION`), with
            its size in tokens: `(call, tokens)` pairs.
    """

    bill: Bill
    recorded: Bill
    policy: Policy
    clearings: int
    compactions: int
    summaries: tuple[int, ...]
    numbers: tuple[int, ...]
    results: tuple[RentedResult, ...]
    departures: tuple[Departure, ...] = ()
    unreplayed: tuple[str, ...] = ()
    summary_tokens: int = DEFAULT_SUMMARY_TOKENS
    warm: tuple[tuple[int, int], ...] = ()

    @property
    def assumption(self) -> str:
        """What the replay assumes, in one sentence: `ASSUMPTION`, and the cache mode
        every call ran in where the policy chose one."""
        mode = self.policy.cache
        if mode is None:
            return ASSUMPTION
        model = self.policy.model or "each call's model"
        return f"{ASSUMPTION[:-1]}; every call's cache runs in {model}'s {mode} mode."

    @property
    def cost(self) -> float:
        """The replayed calls' bill, USD (unpriced calls left out, as the bill leaves them)."""
        return self.bill.cost().total

    def rent(self) -> list[Rent]:
        """The tool results by tool, the costliest tool first (then the most tokens)."""
        tools: dict[str, list[RentedResult]] = {}
        for result in self.results:
            tools.setdefault(result.tool, []).append(result)
        found = []
        for tool, results in tools.items():
            usd = [r.cost_usd for r in results]
            total = None if None in usd else sum(u for u in usd if u is not None)
            found.append(Rent(tool, len(results), sum(r.tokens for r in results), total))
        return sorted(found, key=lambda r: (-(r.cost_usd or 0.0), -r.tokens, r.tool))


# ---------------------------------------------------------------- one thread's context


@dataclass
class _Compacted:
    """What a thread's compactions left: the blocks summarized, the summary, cleared results."""

    summarized: set[str] = field(default_factory=set)
    summary: Block | None = None
    cleared: dict[str, Block] = field(default_factory=dict)  # ident -> its marker
    segment: int = 0  # the recorded segment it applies to

    def apply(self, blocks: Sequence[Block]) -> list[Block] | None:
        """`blocks` as this state holds them; None when they no longer hold what it summarized."""
        if self.summary is None:
            if not self.cleared:
                return list(blocks)
            return [self.cleared.get(b.ident, b) for b in blocks]
        found: list[Block] = []
        placed = False
        for block in blocks:
            if block.ident in self.summarized:
                if not placed:
                    found.append(self.summary)
                    placed = True
            else:
                found.append(self.cleared.get(block.ident, block))
        return found if placed else None


@dataclass(frozen=True)
class _Done:
    """What one `compact_with_record` did, in the stand-in messages it was given."""

    before: list[Message]  # the conversation it was given
    after: list[Message]  # the conversation it returned
    summarized: range  # the indexes of `before` the summary replaced
    step: int  # 1: old tool results cleared; 2: a summary written
    key: str  # the summary's key


def _ends(blocks: Sequence[Block]) -> list[int]:
    """The last block of each of the last two messages (runs of one role, system aside)."""
    found: list[int] = []
    k = len(blocks) - 1
    while k >= 0 and len(found) < 2:
        if blocks[k].role == "system":
            break
        found.append(k)
        role = blocks[k].role
        while k >= 0 and blocks[k].role == role:
            k -= 1
    return found


@dataclass(frozen=True)
class _Sent:
    """A thread's last request as the cache saw it: its blocks, the cache's row of them
    (each keyed by the prefix it ends, unmarked), the prefix sums of their tokens, where
    its tool results are, and each message's role."""

    blocks: Sequence[Block] = ()
    row: list[CacheBlock] = field(default_factory=list)
    prefix: list[int] = field(default_factory=lambda: [0])
    results: list[int] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)

    def following(self, blocks: list[Block], made: dict[tuple[str, str], str]) -> _Sent:
        """The same for the next request, `blocks`: what it shares with this one kept.

        `made`: (the key of a prefix, a block's key) -> the key of the prefix that
        block ends, made once per bill however often sent.
        """
        shared = first_difference(self.blocks, blocks)
        row, prefix = self.row[:shared], self.prefix[: shared + 1]
        results = self.results[: bisect.bisect_left(self.results, shared)]
        message = row[-1].message if row else -1
        roles = self.roles[: message + 1]
        key = row[-1].key if row else ""
        for position in range(shared, len(blocks)):
            block = blocks[position]
            step = (key, block.key)
            if step not in made:
                made[step] = chained(key, block.key)
            key = made[step]
            if block.role != "system" and (not roles or roles[-1] != block.role or message < 0):
                roles.append(block.role)
            message = len(roles) - 1 if block.role != "system" else -1
            row.append(CacheBlock(key, block.tokens, True, (), message))
            prefix.append(prefix[-1] + block.tokens)
            if block.kind == "tool_result":
                results.append(position)
        return _Sent(blocks, row, prefix, results, roles)


@dataclass
class _Thread:
    """One thread's state through the replay."""

    ttl: str
    compacted: _Compacted = field(default_factory=_Compacted)
    cleared: frozenset[str] = frozenset()  # what clearing left out of its last request
    compactions: int = 0
    stuck_at: int = 0  # the request size at which compaction last could not make room
    sent: _Sent = field(default_factory=_Sent)  # its last request, as the cache saw it


@dataclass
class _Rented:
    """A tool result's rent while it is counted: the block, USD so far, calls, first call."""

    block: Block
    thread: str
    first: int  # the recorded call's index
    usd: float | None = 0.0
    calls: int = 0


def _lifetimes(bill: Bill) -> dict[ThreadId, str]:
    """Thread -> the lifetime it wrote more tokens with (`"5m"` on a tie or no write)."""
    sums: dict[ThreadId, list[int]] = {}
    for call in bill.calls:
        both = sums.setdefault(call.thread, [0, 0])
        both[0] += call.cache_creation_5m
        both[1] += call.cache_creation_1h
    return {thread: "1h" if hour > five else "5m" for thread, (five, hour) in sums.items()}


def _recorded_seconds(bill: Bill) -> list[float]:
    """For each call, the seconds a cache entry lived on its recorded model and thread:
    the thread's lifetime on a cache written at breakpoints, else the cache's default
    (5 minutes for a model the table lacks)."""
    lifetimes = _lifetimes(bill)
    found = []
    for call in bill.calls:
        row = model_for(call.model)
        if row is None:
            found.append(LIFETIME_SECONDS["5m"])
            continue
        rules, name = row.cache, lifetimes[call.thread]
        offered = dict(rules.lifetimes)
        found.append(offered.get(name, rules.seconds(rules.default_lifetime)))
    return found


def _summary_tokens(policy: Policy, requests: Sequence[Request]) -> int:
    """The size of the replay's summaries: the policy's, else the files' own (`_summary_size`).

    Raises:
        ValueError: `policy.compact_at` not above the files' own size (or the default),
            naming both, as `Policy` refuses a `summary_tokens` given that is not below it.
    """
    if policy.summary_tokens is not None:
        return policy.summary_tokens
    size, at = _summary_size(requests), policy.compact_at
    if at is not None and size >= at:
        whence = (
            "the mean of the files' own summaries"
            if any(r.summary for r in requests)
            else "the default, the files holding no summary"
        )
        raise ValueError(
            f"compact_at ({at:,}) must be above the summary's size ({size:,} tokens, "
            f"{whence}): a request holding the summary would reach the threshold again at "
            f"once; give a compact_at above {size:,}, or a summary_tokens below {at:,}"
        )
    return size


def summary_size(bill: Bill) -> int:
    """The size, in tokens, of the summary a compaction of `bill`'s replay writes when its
    policy gives none (`Policy.summary_tokens` None): the mean of the files' own
    summaries, else `DEFAULT_SUMMARY_TOKENS`. A `Policy.compact_at` must be above it.

    Raises:
        TypeError: `bill` is not a `Bill`.
    """
    if not isinstance(bill, Bill):
        raise TypeError(f"bill must be a Bill (read_bill), got {short_repr(bill)}")
    return _summary_size(_requests_of(bill))


def _summary_size(requests: Sequence[Request]) -> int:
    """The mean size of the files' own compaction summaries, else the default."""
    seen = {
        block.ident: r.summary
        for r in requests
        if r.summary
        for block in r.blocks[:3]  # the block after the prefix (one or two blocks)
        if block.kind != "prefix"
    }
    sizes = [r.summary for r in requests if r.summary]
    if not sizes:
        return DEFAULT_SUMMARY_TOKENS
    own = list(seen.values()) or sizes
    return max(1, round(sum(own) / len(own)))


def _overlap(low: int, high: int, start: int, stop: int) -> int:
    return max(0, min(high, stop) - max(low, start))


def _replayed_usage(usage: Usage, recorded: Usage, same_model: bool) -> Usage:
    """The cache's usage for a call, with the call's own output and price rules."""
    output = sum(part.output_tokens for part in recorded.iterations) or recorded.output_tokens
    return replace(
        usage,
        output_tokens=output,
        speed=recorded.speed if same_model else "",
        inference_geo=recorded.inference_geo,
        web_search_requests=recorded.web_search_requests,
    )


def _priced(
    usage: Usage, row: Model | None, at: float | None, rules: CachePolicy | None = None
) -> Cost | None:
    """The usage's `Cost` on `row`'s rates at time `at`, its writes made under `rules`
    (the row's own cache when None); None where it has no price."""
    if row is None or not row.prices:
        return None
    try:
        return cost(usage, row, at=at, policy=rules)
    except Unpriced:
        return None


class _Run:
    """One replay, call by call in the order the requests were sent."""

    def __init__(self, bill: Bill, policy: Policy, requests: Sequence[Request]) -> None:
        self.bill, self.policy, self.requests = bill, policy, requests
        self.summary_tokens = _summary_tokens(policy, requests)
        lifetimes = _lifetimes(bill)
        self.threads = {thread: _Thread(policy.ttl or lifetimes[thread]) for thread in lifetimes}
        first = next((r.sent for r in requests if r.sent is not None), 0.0)
        self.clock = SimulatedClock(first)
        self.caches: dict[str, PromptCache | None] = {}  # model id -> its cache
        self.modes: dict[str, CachePolicy] = {}  # a call's model -> the mode it runs in
        self.out: list[list[Call]] = [[] for _ in bill.calls]  # recorded index -> its calls
        self.rented: dict[str, _Rented] = {}
        self.clearings = self.compactions = 0
        self.unreplayed: set[str] = set()
        self.keys: dict[tuple[str, str], str] = {}  # (prefix key, block key) -> prefix key
        #: block ident -> the block that stands in for it once its result is cleared, made
        #: once a run: each later request clears the same results again, and a block made
        #: anew for each (dataclass `replace`) took a tenth of a clearing replay's time.
        self.cleared_as: dict[str, Block] = {}

    def cache(self, model: str) -> PromptCache | None:
        """The one cache of `model` for the whole bill, in the policy's mode; None for a
        model the table lacks."""
        row = model_for(model)
        name = row.id if row is not None else model
        if name not in self.caches:
            rules = None
            if row is not None and self.policy.cache is not None:
                rules = row.caches[self.policy.cache]  # `_check` made sure it is there
            try:
                self.caches[name] = PromptCache(model, clock=self.clock, policy=rules)
            except ValueError:
                self.caches[name] = None
        found = self.caches[name]
        if found is not None and self.policy.cache is not None:
            self.modes[model] = found.policy
        return found

    def run(self) -> None:
        order = sorted(
            range(len(self.requests)),
            key=lambda k: (self.requests[k].sent is None, self.requests[k].sent or 0.0, k),
        )
        for index in order:
            self.one(index)

    def one(self, index: int) -> None:
        """Replay recorded call `index`: its request as the policy holds it, priced."""
        call, request = self.bill.calls[index], self.requests[index]
        model = self.policy.model or call.model
        cache = self.cache(model)
        if cache is None:
            self.unreplayed.add(model)
            return
        at = self.clock.now if request.sent is None else max(request.sent, self.clock.now)
        self.clock.advance(at - self.clock.now)
        answered = max(at, call.timestamp if call.timestamp is not None else at)
        thread = self.threads[call.thread]
        blocks = self.held(thread, call, request)
        limit = self.policy.compact_at
        due = limit is not None and sum(b.tokens for b in blocks) >= max(limit, thread.stuck_at + 1)
        if due and self.compact(index, thread, blocks, cache, model, at):
            blocks = self.held(thread, call, request)
        if request.warm:
            self.warm(thread, cache, request, blocks, at)
        usage = self.send(thread, cache, blocks, answered)
        usage = _replayed_usage(usage, call.usage, model == call.model)
        segment = call.segment + thread.compactions
        self.out[index].append(replace(call, model=model, usage=usage, segment=segment))
        self.charge(index, call.thread.name, thread.sent, usage, model, call.timestamp)

    def send(self, thread: _Thread, cache: PromptCache, blocks: list[Block], at: float) -> Usage:
        """What `cache` makes of a request of `blocks`, its response begun at `at`.

        Breakpoints: the end of the system part (the tools and system prompt),
        and the last block of each of the last two messages, so that the end of
        the thread's previous request is always within a read's reach. The
        prefix the request shares with the thread's last one keeps its keys
        and sizes (`_Sent`): only what follows is keyed and counted again.
        """
        sent = thread.sent.following(blocks, self.keys)
        thread.sent = sent
        marks = set(_ends(blocks))
        system = 0
        while system < len(blocks) and blocks[system].role == "system":
            system += 1
        if system:
            marks.add(system - 1)
        row = list(sent.row)
        for k in marks:
            row[k] = row[k].marked(thread.ttl)
        return cache._usage_of_summed_row(row, sent.roles, sent.prefix, at)

    def warm(
        self, thread: _Thread, cache: PromptCache, request: Request, blocks: list[Block], at: float
    ) -> None:
        """The prefix a session outside the bill wrote, sent to `cache` just before the
        request at `at`: its first `request.warm` blocks (those the policy left as they
        were), one breakpoint at their end; unpriced, it is that session's call."""
        count = first_difference(request.blocks[: request.warm], blocks[: request.warm])
        if not count:
            return
        sent = _Sent().following(blocks[:count], self.keys)
        row = list(sent.row)
        row[-1] = row[-1].marked(thread.ttl)
        cache._usage_of_summed_row(row, sent.roles, sent.prefix, at)

    def held(self, thread: _Thread, call: Call, request: Request) -> list[Block]:
        """The request as the thread's compactions and clearing leave it."""
        if thread.compacted.segment != call.segment:
            thread.compacted = _Compacted(segment=call.segment)
        blocks = thread.compacted.apply(request.blocks)
        if blocks is None:  # the request left what was summarized (a rewind): start again
            thread.compacted = _Compacted(segment=call.segment)
            blocks = list(request.blocks)
        return self.clear(thread, blocks)

    def clear(self, thread: _Thread, blocks: list[Block]) -> list[Block]:
        """`blocks` with old tool results cleared, as the server clears them."""
        if self.policy.clear_at is None:
            return blocks
        size = sum(b.tokens for b in blocks)
        if size <= self.policy.clear_at:  # the edit's trigger not passed: it clears nothing
            thread.cleared = frozenset()
            return blocks
        edit = {
            "trigger": {"type": "input_tokens", "value": self.policy.clear_at},
            "keep": {"type": "tool_uses", "value": self.policy.keep},
        }
        done = clear_tool_uses_20250919(
            as_messages(blocks), edit, prompt_tokens=size, counter=count, checked=True
        )
        gone = {
            item[IDENT]
            for message in done.messages
            for item in message["content"]
            if item.get("type") == "tool_result" and item.get("content") == PLACEHOLDER
        }
        if gone - thread.cleared:
            self.clearings += 1
        thread.cleared = frozenset(gone)
        if not gone:
            return blocks
        made = self.cleared_as
        for b in blocks:
            if b.ident in gone and b.ident not in made:
                made[b.ident] = Block(
                    f"{b.ident}:cleared", "cleared", b.role, "cleared", count(PLACEHOLDER)
                )
        return [made[b.ident] if b.ident in gone else b for b in blocks]

    def compact(
        self,
        index: int,
        thread: _Thread,
        blocks: list[Block],
        cache: PromptCache,
        model: str,
        at: float,
    ) -> bool:
        """Compact the thread before call `index`; False when `compact` cannot make room."""
        done = self.compacted(blocks)
        size = sum(b.tokens for b in blocks)
        if done is None:
            thread.stuck_at = size  # try again once the request has grown past this
            return False
        call = self.bill.calls[index]
        if done.step == 2:  # a summary was written: its call reads the history and is priced
            usage = self.send(thread, cache, blocks, at)
            usage = replace(usage, output_tokens=self.summary_tokens)
            summarizing = replace(
                call,
                timestamp=at,
                model=model,
                usage=usage,
                segment=call.segment + thread.compactions,
                recorded_cost=None,
                message=None,
            )
            self.out[index].append(summarizing)
            self.charge(index, call.thread.name, thread.sent, usage, model, call.timestamp)
        thread.compacted = self.after(thread, call, blocks, done)
        thread.compactions += 1
        self.compactions += 1
        return True

    def compacted(self, blocks: Sequence[Block]) -> _Done | None:
        """`compact_with_record` on the blocks, as it cuts by default, else as a single task.

        None when neither makes room.
        """
        system = sum(b.tokens for b in blocks if b.role == "system")
        conversation = [b for b in blocks if b.role != "system"]
        messages = as_messages(conversation)
        sizes = [sum(count(text_of(item)) for item in m["content"]) for m in messages]
        budget = system + math.floor(sum(b.tokens for b in conversation) * COMPACTED_SHARE)
        layers = Layers("", [], messages)
        key = digest("summary", [b.ident for b in conversation])

        def summarize(_: object) -> str:
            return stand_in(key, self.summary_tokens)

        for single in (False, True):
            try:
                record = compact_with_record(
                    layers,
                    budget,
                    summarize,
                    count,
                    single_task=single,
                    sizes=sizes,
                    fixed_tokens=(system, 0),
                )
            except ContextOverflowError:
                continue
            return _Done(messages, record.layers.conversation, record.summarized, record.step, key)
        return None

    def after(
        self, thread: _Thread, call: Call, blocks: Sequence[Block], done: _Done
    ) -> _Compacted:
        """The thread's state once `done` compacted `blocks`."""
        old = thread.compacted
        state = _Compacted(set(old.summarized), None, dict(old.cleared), call.segment)
        summarized = {
            item[IDENT]
            for message in done.before[done.summarized.start : done.summarized.stop]
            for item in message["content"]
        }
        if old.summary is not None and old.summary.ident not in summarized:
            state.summary = old.summary  # an earlier summary the new one kept
        for message in done.after:
            if not isinstance(message["content"], list):
                continue
            for item in message["content"]:
                text = text_of(item)
                if IDENT in item and item.get("type") == "tool_result" and "\u27e6" not in text:
                    ident = item[IDENT]
                    marker = Block(
                        f"{ident}:compacted", "compacted", "user", "cleared", count(text)
                    )
                    state.cleared[ident] = marker
        if done.step == 2:
            state.summarized |= summarized
            tokens = count(SUMMARY_PREFIX + stand_in(done.key, self.summary_tokens))
            number = thread.compactions + 1
            ident = f"summary:{call.thread}:{number}"
            state.summary = Block(ident, done.key, "user", "summary", tokens)
        return state

    def charge(
        self, index: int, thread: str, sent: _Sent, usage: Usage, model: str, at: float | None
    ) -> None:
        """Add what each tool result of the request `sent` cost on this call (made at `at`)
        to its rent."""
        bill = _priced(usage, model_for(model), at, self.modes.get(model))
        read = usage.cache_read_input_tokens
        written = read + usage.cache_creation_input_tokens
        end = written + usage.input_tokens
        rates = None
        if bill is not None:  # a write's storage by the hour is part of what it costs
            rates = (
                bill.cache_reads / read if read else 0.0,
                (bill.cache_writes + bill.storage) / (written - read) if written > read else 0.0,
                bill.uncached_input / usage.input_tokens if usage.input_tokens else 0.0,
            )
        for position in sent.results:
            block = sent.blocks[position]
            low, high = sent.prefix[position], sent.prefix[position + 1]
            rented = self.rented.get(block.ident)
            if rented is None:
                rented = self.rented[block.ident] = _Rented(block, thread, index)
            rented.calls += 1
            if rates is None or rented.usd is None:
                rented.usd = None
                continue
            if high <= read:  # the usual case: read whole
                rented.usd += (high - low) * rates[0]
            else:
                rented.usd += (
                    _overlap(low, high, 0, read) * rates[0]
                    + _overlap(low, high, read, written) * rates[1]
                    + _overlap(low, high, written, end) * rates[2]
                )

    def replay(self) -> Replay:
        """The run's outcome, once `run` has gone through every call."""
        calls: list[Call] = []
        numbers: list[int] = []
        summaries: list[int] = []
        first: dict[int, int] = {}  # recorded index -> its first call's number in the replay
        for index, made in enumerate(self.out):
            for call in made:
                calls.append(call)
                numbers.append(index + 1)
                first.setdefault(index, len(calls))
                if len(made) > 1 and call is not made[-1]:
                    summaries.append(len(calls))
        replayed = self.bill.with_calls(calls, caches=self.modes)
        results = [
            RentedResult(
                r.block.tool,
                r.block.tokens,
                r.usd,
                r.calls,
                first.get(r.first, 0),
                r.thread,
                r.block.where,
            )
            for r in self.rented.values()
        ]
        results.sort(key=lambda r: (-(r.cost_usd or 0.0), -r.tokens, r.first_call))
        departures = []
        if self.policy.recorded:
            departures = _departures(self.bill, replayed, numbers, self.requests)
        return Replay(
            replayed,
            self.bill,
            self.policy,
            self.clearings,
            self.compactions,
            tuple(summaries),
            tuple(numbers),
            tuple(results),
            tuple(departures),
            tuple(sorted(self.unreplayed)),
            self.summary_tokens,
            self.warmed(),
        )

    def warmed(self) -> tuple[tuple[int, int], ...]:
        """(recorded call number, tokens) of each request that started warm."""
        return tuple(
            (number, sum(block.tokens for block in request.blocks[: request.warm]))
            for number, request in enumerate(self.requests, 1)
            if request.warm and self.out[number - 1]
        )


def _departures(
    recorded: Bill, replayed: Bill, numbers: Sequence[int], requests: Sequence[Request]
) -> list[Departure]:
    """The calls whose replay, with the session's own policy, the bill prices otherwise."""
    found = []
    firsts: dict[ThreadId, int] = {}  # thread -> the number of its first recorded call
    for number, call in enumerate(recorded.calls, 1):
        firsts.setdefault(call.thread, number)
    for number, (call, source) in enumerate(zip(replayed.calls, numbers, strict=True), 1):
        was = recorded.call_cost(source)
        now = replayed.call_cost(number)
        if was is None or now is None:
            continue
        if abs(now.total - was.total) <= max(_DEPARTS * was.total, _LEAST_USD):
            continue
        before = recorded.calls[source - 1]
        read = call.cache_read_input_tokens - before.cache_read_input_tokens
        more = requests[source - 1].tokens - before.prompt_tokens
        if read == 0:  # the same read: the difference is in what was written
            written = call.cache_creation_input_tokens - before.cache_creation_input_tokens
            why = _why_written(written, more)
        else:
            first = firsts[before.thread] == source
            why = _why(recorded, source, read, more, requests[source - 1], first)
        found.append(Departure(source, call.thread.name, was.total, now.total, read, why))
    return found


def _why_written(written: int, more: int) -> str:
    """One line, for a call that read what the record read: what it wrote otherwise."""
    if more > 0:
        return f"the files' messages add up to {more:,} tokens more than the recorded prompt"
    if written >= 0:
        return (
            f"the replay wrote {written:,} tokens the record left uncached: the agent's "
            "request had no breakpoint after them"
        )
    return (
        f"the record wrote {-written:,} tokens the replay left uncached: the agent's "
        "request had a breakpoint after them"
    )


def _inside(request: Request, read: int) -> int:
    """How many tokens into one of `request`'s blocks a read of `read` tokens ends (0 when
    it ends between two)."""
    end = 0
    for block in request.blocks:
        if end + block.tokens > read:
            return read - end
        end += block.tokens
    return 0


def _why(recorded: Bill, number: int, read: int, more: int, request: Request, first: bool) -> str:
    """One line: what the files could not tell the replay about recorded call `number`.

    `read` is what the replay read less the record's; `more` what the rebuilt
    request holds over the recorded prompt (tokens); `request` the call's
    rebuilt request; `first` whether the call is its thread's first.
    """
    if more > 0:
        return (
            f"the files' messages add up to {more:,} tokens more than the prompt the call "
            "recorded (a rewind that kept part of a step, or sizes the files do not bear out)"
        )
    call = recorded.calls[number - 1]
    row = model_for(call.model)
    anywhere = row is not None and row.cache.hit_unit != "breakpoint"
    into = _inside(request, call.cache_read_input_tokens) if read < 0 and anywhere else 0
    if into:
        return (
            f"the record read {-read:,} tokens more: its read ended {into:,} tokens into a "
            "block the replay reads only whole (the provider caches a prefix wherever it "
            "ends, not at breakpoints)"
        )
    if read < 0 and first:
        return (
            f"the record read {-read:,} tokens more: the thread's first call read a longer "
            "prefix than the estimated split between the system prompt and the messages "
            "gives it"
        )
    if read < 0:
        return (
            f"the record read {-read:,} tokens more: the provider kept an entry the rules "
            "the replay follows had let go, or the estimated split between the system "
            "prompt and the messages put fewer tokens in a shared prefix"
        )
    return (
        f"the replay read {read:,} tokens more: the estimated split between the system "
        "prompt and the messages put more tokens in a shared prefix, or the provider lost "
        "an entry the rules keep (a parallel request, an eviction)"
    )


#: Rebuilt requests, one list per bill, kept while the bill lives (`replay` is run many
#: times over one bill by a sweep).
_REBUILT: dict[int, list[Request]] = {}


def _requests_of(bill: Bill) -> list[Request]:
    found = _REBUILT.get(id(bill))
    if found is None:
        changed = [r.call for r in bill.rebuilds() if r.cause == "prefix-changed"]
        seconds = _recorded_seconds(bill)
        found = rebuild_requests(bill.calls, bill.sessions_read, bill.places, seconds, changed)
        _REBUILT[id(bill)] = found
        weakref.finalize(bill, _REBUILT.pop, id(bill), None)
    return found


def lifetimes_offered(model: str, cache: str | None = None) -> tuple[str, ...]:
    """The write lifetimes of `Policy.ttl` that `model`'s provider lets a request choose.

    `("5m", "1h")` where its cache policy (its mode `cache` of `Model.caches`,
    else its default) offers both (Anthropic's models); empty for a model
    whose provider offers no such choice, or that the table of models lacks.

    Examples:
        >>> lifetimes_offered("claude-sonnet-4-20250514")
        ('5m', '1h')
        >>> lifetimes_offered("gpt-5.5")
        ()
    """
    row = model_for(model)
    rules = None if row is None else row.cache if cache is None else row.caches.get(cache)
    offered = dict(rules.lifetimes) if rules is not None else {}
    return _TTLS if all(ttl in offered for ttl in _TTLS) else ()


def _check(policy: Policy, bill: Bill) -> None:
    """Refuse a policy the bill's models cannot run under, naming the model and the limit."""
    if policy.model is not None:
        row = model_for(policy.model)
        if row is None or not row.prices:
            known = sorted(model for model, found in MODELS.items() if found.prices)
            raise ValueError(
                f"model {short_repr(policy.model)}: no row with prices in the table of models "
                f"(known: {', '.join(known)})"
            )
    models = [policy.model] if policy.model is not None else list(bill.models)
    if policy.cache is not None:
        for model in models:
            row = model_for(model)
            if row is not None and policy.cache not in row.caches:
                raise ValueError(
                    f"cache {short_repr(policy.cache)}: {model} has no such cache mode "
                    f"(its modes: {', '.join(sorted(row.caches))})"
                )
    if policy.ttl is not None:
        for model in models:
            if policy.ttl not in lifetimes_offered(model, policy.cache):
                raise ValueError(
                    f"ttl {policy.ttl!r}: {model}'s provider offers no choice of cache "
                    "lifetime (Anthropic's models offer 5m and 1h)"
                )


def replay(bill: Bill, policy: Policy | None = None) -> Replay:
    """The bill's calls replayed under `policy` (the session's own choices when None).

    Args:
        bill: a bill (`read_bill`), its files' messages included.
        policy: what to change (`Policy`).

    Returns:
        A `Replay`: the replayed calls as a bill, how often clearing and
        compaction fired, every tool result's rent, and (with the session's
        own policy) the calls priced otherwise than the bill.

    Raises:
        TypeError: `bill` is not a `Bill`, or `policy` not a `Policy`.
        ValueError: `policy.model` has no cache model or no price,
            `policy.cache` names a mode a model lacks, `policy.ttl` is set
            where a model's provider offers no choice of lifetime
            (`lifetimes_offered`), or `policy.compact_at` is not above the
            summary the replay would write (`summary_size`) when
            `policy.summary_tokens` is None.
    """
    if not isinstance(bill, Bill):
        raise TypeError(f"bill must be a Bill (read_bill), got {short_repr(bill)}")
    policy = Policy() if policy is None else policy
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must be a Policy, got {short_repr(policy)}")
    _check(policy, bill)
    with gc_paused():  # the requests, states and calls made hold no cycles to collect
        run = _Run(bill, policy, _requests_of(bill))
        run.run()
        return run.replay()

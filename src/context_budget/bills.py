"""The bill of a saved session: what every API call cost, and why the cache was rebuilt.

`read_bill` reads the usage a coding agent recorded (Claude Code sessions and
project folders, Codex rollouts, mini-swe-agent trajectories, OpenHands
events) into a `Bill`: one `Call` per API call, deduplicated the way each
format needs (one Claude Code response is several lines; OpenHands saves a
response twice; Codex totals are cumulative). The files are read by
`context_budget.sessions`, the same readers `load_transcript` uses, so a
bill's threads and compactions are the ones `inspect` shows.

Every call is priced once, by `pricing.billed` (`pricing.cost`, the function
that prices a live response, with the tariff it used). The what-ifs move a
call's tokens between kinds on their counts and price each result with
`pricing.prompt_charges` at that tariff: the same step, to the last bit.

- `Bill.cost` prices the calls (`Cost`, USD) at dated list prices; a call on a
  model with no price is left out of the dollars and named by
  `Bill.unpriced_models`, never priced at a guess.
- `Bill.cache_read_share`: tokens read from the cache over all prompt tokens.
- `Bill.rebuilds`: the calls that lost cached prefix, each with its cause.
- `Bill.what_if`: the input side priced again under other choices.
- `Bill.figures`: every figure a report shows (`Figures`),
  worked out at once, by two processes on Linux when the bill is large
  (`ASIDE_CALLS`), each for a part of its sessions.
- `Bill.groups(by)`: the calls by day, week, month (in a time zone), session,
  project, model, thread or agent (`VIEWS`: the main threads, then each
  sub-agent type); `Bill.between(since, until)`: the calls of a window of
  days or instants.
- `Bill.skipped`: the files and lines no reader could take, left out
  (`read_bill(..., strict=True)` refuses them instead).

Example:
    >>> from context_budget import read_bill
    >>> folder = "docs/measured/sessions/sample-project/"
    >>> bill = read_bill(folder + "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    >>> len(bill.calls), round(bill.cost().total, 2), f"{bill.cache_read_share:.1%}"
    (170, 2.39, '96.3%')
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from datetime import date, datetime
from functools import lru_cache
from math import fsum
from os import PathLike
from pathlib import Path, PurePath
from typing import Any, Literal, cast

from context_budget._aside import aside, can_fork
from context_budget._values import short_repr
from context_budget.cache_policy import LIFETIME_SECONDS, CachePolicy
from context_budget.models import Model, model_for
from context_budget.pricing import (
    Cost,
    Price,
    Tariff,
    Unpriced,
    billed,
    charge_columns,
    price_for,
    prompt_charges,
)
from context_budget.sessions import BILL_FORMATS, Call, Place, Session, ThreadId
from context_budget.sessions.detect import InParts, read_in_parts
from context_budget.sessions.session import Places, chain
from context_budget.sessions.skips import Skip, summary
from context_budget.sessions.text import gc_paused
from context_budget.usage import Usage
from context_budget.zones import (
    UTC_ZONE,
    Zone,
    ZoneLike,
    as_zone,
    day_number,
    day_text,
    month_text,
    week_text,
)

__all__ = [
    "ASIDE_CALLS",
    "BILL_FORMATS",
    "LOST_PREFIX_TOKENS",
    "MAIN_AGENT",
    "TIME_VIEWS",
    "UNTYPED_AGENT",
    "VIEWS",
    "Bill",
    "Call",
    "Figures",
    "Group",
    "Lifetime",
    "Place",
    "Rebuild",
    "Skip",
    "WhatIf",
    "figures_of",
    "read_bill",
]

#: A call is a rebuild when it lost more than this many cached tokens.
LOST_PREFIX_TOKENS = 1_024
#: Cold starts of sub-agents this close together (seconds) count as launched at once.
SAME_MOMENT_SECONDS = 1.0
#: A model's rates: its row of the table (priced at each call's time), or a caller's `Price`.
Rates = Model | Price
#: A bill of this many calls or more works its report's figures out in two parts, one
#: in a second process (`Bill.figures`).
ASIDE_CALLS = 5_000
#: A price table's answers, kept: (the table, each call's `Cost`, each call's `Tariff`
#: or None until asked for), None where the call has no price.
_Priced = tuple[Mapping[str, Price] | None, list[Cost | None], list[Tariff | None] | None]
#: How far back from a call the lines are searched for what changed its prefix.
_TRIGGER_STEPS = 200

Cause = Literal["ttl", "compaction", "model-switch", "prefix-changed"]
#: The views a bill is grouped by (`Bill.groups`).
VIEWS = ("day", "week", "month", "session", "project", "model", "thread", "agent")
#: The `agent` view's group of the main threads' calls, and of sub-agents whose type no
#: file names.
MAIN_AGENT = "main"
UNTYPED_AGENT = "sub-agent (type not recorded)"
#: The views whose groups are spans of time, listed in time order.
TIME_VIEWS = ("day", "week", "month")
_NO_TIME = "(no time)"


@dataclass(frozen=True)
class Rebuild:
    """One call that lost cached prefix and paid to write it again.

    Attributes:
        call: the call's number in `Bill.calls`, counting from 1.
        thread: the call's thread (`ThreadId`).
        cause: `"compaction"` (a compaction boundary lies between it and the
            previous call), `"model-switch"`, `"ttl"` (the gap is longer than the
            lifetime the prefix was written with), or `"prefix-changed"` (same
            model, within the lifetime: the start of the request changed).
        lost_tokens: the previous call's read + written tokens minus this
            call's read.
        gap_seconds: seconds since the thread's previous call; None without times.
        extra_usd: what rewriting the lost tokens cost minus what reading them
            would have cost, USD; None on a model with no price.
        first_difference: for `prefix-changed`, the first message of this
            request that the previous request did not carry at that place, as
            `role id (file:line)`; None when the file keeps no messages or the
            change is outside them (system prompt, tools, an injected block).
        trigger: for `prefix-changed`, one line of text naming what changed
            the start of the request: the nearest event line before the call
            (a task notification, an MCP reconnect, a tool list change recorded
            as an attachment), else the first message that differs, else the
            line the request ended with; None when the file keeps no messages.
        line: the line number of `trigger` in its file, or None.
        partial: True when part of the prefix was still read (the call read
            from the cache), False when the whole prompt was written anew.
        provider_reason: the provider's own diagnosis of the miss where the
            response recorded one (`Call.provider_reason`, e.g.
            `messages_changed`), beside the `cause` inferred here; None where
            it recorded none. The provider compares the structure of the two
            requests, so it names no lifetime run out: a `ttl` rebuild has none.
    """

    call: int
    thread: ThreadId
    cause: Cause
    lost_tokens: int
    gap_seconds: float | None
    extra_usd: float | None
    first_difference: str | None = None
    trigger: str | None = None
    line: int | None = None
    partial: bool = False
    provider_reason: str | None = None

    @property
    def avoidable(self) -> bool:
        """True for a cause a cache choice could avoid (`ttl`, `prefix-changed`).

        A compaction or a model switch starts a new prefix whatever the cache does.
        """
        return self.cause in ("ttl", "prefix-changed")


@dataclass(frozen=True)
class WhatIf:
    """The input side of the priced calls (uncached + writes + reads), USD, under other choices.

    Output tokens are the same in every case and left out.

    Attributes:
        actual: as recorded.
        no_caching: every prompt token at the input rate.
        all_writes_1h: every cache write a 1-hour one, on the calls' own
            gaps: written at the 1-hour rate, and a `ttl` rebuild within the
            hour reading what it rewrote; the sum of `Bill.lifetimes()`'
            `one_hour`.
        rebuilds_read: each avoidable rebuild's lost tokens (`ttl`,
            `prefix-changed`) read instead of rewritten.
        unavoidable_rebuilds: what the rebuilds no cache choice avoids
            (`compaction`, `model-switch`) cost over reading, USD; not in
            `rebuilds_read`.
        staggered_starts: sub-agents whose first calls started in the same
            moment (each wrote the shared prefix) launched one after another, so
            that all but the first read it. The shared prefix is the largest
            read of any sub-agent's first call, else the group's smallest write.
    """

    actual: float
    no_caching: float
    all_writes_1h: float
    rebuilds_read: float
    staggered_starts: float
    unavoidable_rebuilds: float = 0.0


@dataclass(frozen=True)
class Lifetime:
    """One thread's input side (USD) had every cache write lived 5 minutes, or 1 hour.

    Priced on the thread's own gaps: with 5-minute writes, a call more than
    300 s after the previous one rewrites what it read; with 1-hour writes, a
    `ttl` rebuild whose gap is at most 3,600 s reads what it rewrote.

    Attributes:
        thread: the thread (`ThreadId`).
        five_minutes: the input side with every write a 5-minute one, USD.
        one_hour: the input side with every write a 1-hour one, USD.
    """

    thread: ThreadId
    five_minutes: float
    one_hour: float

    @property
    def cheaper(self) -> str:
        """`"5m"` or `"1h"`: the lifetime that would have cost less (`"5m"` on a tie)."""
        return "5m" if self.five_minutes <= self.one_hour else "1h"

    @property
    def saving(self) -> float:
        """How much less the cheaper lifetime costs than the other, USD."""
        return abs(self.five_minutes - self.one_hour)


@dataclass(frozen=True)
class Group:
    """The calls of one day, week, month, session, project, model, thread or agent
    (`Bill.groups`).

    Attributes:
        key: the day (`YYYY-MM-DD` in the bill's time zone; `(no time)` for
            calls without one), the week (the `YYYY-MM-DD` of its Monday), the
            month (`YYYY-MM`), the session id, the project folder, the model,
            the thread, or who made the calls (`main`, a sub-agent type such as
            `Explore`, or `UNTYPED_AGENT`).
        calls: how many calls.
        tokens: their tokens by kind, with the keys of `Bill.tokens`.
        cost: their priced calls' bill, USD; None when none of them is priced
            (no dollars, not $0).
        unpriced_calls: how many of its calls have no price (a model or a
            fast mode with no rate), left out of `cost`.
        cache_read_share: tokens read from the cache over all its prompt
            tokens (0.0 to 1.0; 0.0 with no prompt), as `Bill.cache_read_share`.
    """

    key: str
    calls: int
    tokens: dict[str, int]
    cost: float | None
    unpriced_calls: int = 0
    cache_read_share: float = 0.0


def _moments(calls: Sequence[Call], zone: Zone, name: Callable[[int], str]) -> list[str]:
    """Each call's day in `zone` written by `name` (`day_text`, ...); `(no time)` without one.
    Each day is written once, however many calls it holds."""
    written: dict[int, str] = {}
    found = []
    for call in calls:
        if call.timestamp is None:
            found.append(_NO_TIME)
            continue
        day = zone.day(call.timestamp)
        text = written.get(day)
        if text is None:
            text = written[day] = name(day)
        found.append(text)
    return found


def _session_id(file: str, short: str) -> str:
    """The session id a call's `file` names, where it starts with its thread's session
    (`short`), else `short`.

    A session file is named by its id, up to its name's first dot (`<id>.jsonl`,
    a trajectory's `<id>.traj.json`); a sub-agent's file under
    `<session>/subagents/` sits under a folder named by it.
    """
    path = PurePath(file)
    for candidate in (path.name.split(".", 1)[0], path.parent.parent.name):
        if short and candidate.startswith(short) and not candidate.startswith("agent-"):
            return candidate
    return short


def _sessions(calls: Sequence[Call]) -> list[str]:
    """Each call's session id; a thread's session that one whole id starts with becomes it."""
    named_by: dict[tuple[str, str], str] = {}  # (file, thread's session) -> the id: once each
    found = []
    for call in calls:
        pair = (call.file, call.thread.session)
        held = named_by.get(pair)
        if held is None:
            held = named_by[pair] = _session_id(*pair)
        found.append(held)
    longer: dict[str, set[str]] = {}
    for call, key in zip(calls, found, strict=True):
        if key != (short := call.thread.session):
            longer.setdefault(short, set()).add(key)
    named = {short: keys.pop() for short, keys in longer.items() if len(keys) == 1}
    return [named.get(key, key) for key in found]


def _projects(calls: Sequence[Call]) -> list[str]:
    """Each call's project (`_project`), worked out once for each file."""
    of_file: dict[str, str] = {}
    found = []
    for call in calls:
        if call.project:
            found.append(call.project)
            continue
        held = of_file.get(call.file)
        if held is None:
            held = of_file[call.file] = _project(call.file)
        found.append(held)
    return found


def _project(file: str) -> str:
    """The project of a call whose file recorded no working folder (`Call.project`, which
    is the project where there is one: a Claude Code file's first `cwd`, a Codex
    rollout's): the folder under `projects/` the file sits in, else its own folder.

    A sub-agent's file under `<session>/subagents/` belongs to the folder
    above the session's, however deep sub-agents nest (`.../subagents/<agent>/subagents/`).
    """
    parts = PurePath(file).parts
    if "projects" in parts[:-1]:
        index = len(parts) - 1 - parts[::-1].index("projects")
        if index + 1 < len(parts) - 1:
            return parts[index + 1]
    folder = PurePath(file).parent
    while folder.name == "subagents":
        folder = folder.parent.parent
    return folder.name or "."


def _agents(calls: Sequence[Call]) -> list[str]:
    """Who made each call: `main` for a main thread's, else the sub-agent's type
    (`ThreadId.agent_type`, e.g. `Explore`), else `UNTYPED_AGENT`."""
    return [
        MAIN_AGENT if call.thread.kind == "main" else call.thread.agent_type or UNTYPED_AGENT
        for call in calls
    ]


#: view -> each call's key in it, given the calls and the zone the days are counted in.
_KEYS: dict[str, Callable[[Sequence[Call], Zone], list[str]]] = {
    "day": lambda calls, zone: _moments(calls, zone, day_text),
    "week": lambda calls, zone: _moments(calls, zone, week_text),
    "month": lambda calls, zone: _moments(calls, zone, month_text),
    "session": lambda calls, zone: _sessions(calls),
    "project": lambda calls, zone: _projects(calls),
    "model": lambda calls, zone: [call.model for call in calls],
    "thread": lambda calls, zone: [call.thread.name for call in calls],
    "agent": lambda calls, zone: _agents(calls),
}


def _time_order(key: str) -> tuple[bool, int, str]:
    """A time view group's sort key: time order (`10000` after `9999`), no time last."""
    return key == _NO_TIME, len(key), key


#: The kinds of tokens `Bill.tokens` counts, in the order of `_billed` (the last of its
#: columns, the whole prompt, is no kind of its own).
_KINDS = ("input", "cache_read", "cache_write_5m", "cache_write_1h", "cache_write_30m", "output")
_READ = _KINDS.index("cache_read")


def _billed(calls: Sequence[Call]) -> tuple[list[int], ...]:
    """Each call's tokens as billed (`Usage.billed`: every iteration of a call that has
    them), a column for each kind of `_KINDS`, then one of the whole prompt: what the
    bill's totals, its cache-read share and each group's add up."""
    columns: tuple[list[int], ...] = ([], [], [], [], [], [], [])
    uncached, read, five, hour, thirty, output, prompt = (c.append for c in columns)
    for call in calls:  # one pass: a bill reads every call's tokens once
        usage = call.usage
        if usage.iterations:
            usage = usage.billed
        uncached(usage.input_tokens)
        read(usage.cache_read_input_tokens)
        five(usage.ephemeral_5m_input_tokens)
        hour(usage.ephemeral_1h_input_tokens)
        thirty(usage.ephemeral_30m_input_tokens)
        output(usage.output_tokens)
        prompt(usage.prompt_tokens)
    return columns


def _sums(columns: tuple[list[int], ...], indexes: Sequence[int] | None = None) -> list[int]:
    """Each column of `_billed` added up: over every call, or the calls at `indexes`."""
    if indexes is None:
        return [sum(column) for column in columns]
    return [sum(map(column.__getitem__, indexes)) for column in columns]


#: A part of a call's prompt split by kind, tokens: (uncached input, 5-minute writes,
#: 1-hour writes, cache reads).
_Split = tuple[int, int, int, int]
#: A call's prompt as the what-ifs reprice it: one `_Split` per part billed (each
#: iteration of a usage that has them, else the usage itself).
_Prompt = tuple[_Split, ...]


def _split(usage: Usage) -> _Split:
    """One part's prompt split by kind, its writes as billed (`Usage.billed_writes`),
    30-minute ones counted as 5-minute ones."""
    five, thirty, hour = usage.billed_writes
    return usage.input_tokens, five + thirty, hour, usage.cache_read_input_tokens


def _prompt(usage: Usage) -> _Prompt:
    """The parts of a call's prompt the what-ifs move tokens between (`_Prompt`)."""
    return tuple(map(_split, usage.parts))


def _shift(split: _Split, tokens: int, source: str, target: str, lifetime: str) -> _Split:
    """`split` with `tokens` moved from one kind to another: `"uncached"`, `"read"` or
    `"written"` (at most what `source` holds). Writes taken come from both lifetimes
    in proportion; writes added are of `lifetime`."""
    uncached, five, hour, read = split
    if source == "written":
        tokens = max(0, min(tokens, five + hour))
        from_hour = min(hour, round(tokens * hour / (five + hour))) if tokens else 0
        five, hour = five - (tokens - from_hour), hour - from_hour
    elif source == "read":
        tokens = max(0, min(tokens, read))
        read -= tokens
    else:
        tokens = max(0, min(tokens, uncached))
        uncached -= tokens
    if target == "written":
        five, hour = (five, hour + tokens) if lifetime == "1h" else (five + tokens, hour)
    elif target == "read":
        read += tokens
    else:
        uncached += tokens
    return uncached, five, hour, read


def _moved(prompt: _Prompt, tokens: int, source: str, target: str, lifetime: str = "5m") -> _Prompt:
    """The prompt with `tokens` moved from one kind to another (`_shift`), in its last
    part: the one a usage's top-level figures repeat."""
    return (*prompt[:-1], _shift(prompt[-1], tokens, source, target, lifetime))


def _all_written(prompt: _Prompt, lifetime: str) -> _Prompt:
    """The prompt with every cache write a `lifetime` (`"5m"` or `"1h"`) one."""
    if len(prompt) == 1:  # the usual call, without iterations: one part
        ((uncached, five, hour, read),) = prompt
        if lifetime == "1h":
            return ((uncached, 0, five + hour, read),)
        return ((uncached, five + hour, 0, read),)
    if lifetime == "1h":
        return tuple((uncached, 0, five + hour, read) for uncached, five, hour, read in prompt)
    return tuple((uncached, five + hour, 0, read) for uncached, five, hour, read in prompt)


def _uncached(prompt: _Prompt) -> _Prompt:
    """The prompt with every token uncached."""
    if len(prompt) == 1:
        return ((sum(prompt[0]), 0, 0, 0),)
    return tuple((sum(split), 0, 0, 0) for split in prompt)


def _input_usd(tariff: Tariff, prompt: _Prompt) -> float:
    """The input side of a call billed at `tariff` had its prompt been `prompt`, USD: the
    parts' charges added up charge by charge, as `pricing.cost` adds a usage's
    iterations, then the three added (`_input_side`)."""
    if len(prompt) == 1:
        uncached, writes, reads = prompt_charges(tariff, *prompt[0])
        return uncached + writes + reads
    uncached = writes = reads = 0.0
    for split in prompt:
        part = prompt_charges(tariff, *split)
        uncached, writes, reads = uncached + part[0], writes + part[1], reads + part[2]
    return uncached + writes + reads


def _saved(bill: Cost, changed: _Prompt, tariff: Tariff) -> float:
    """USD the input side of `changed` costs less than the call's `bill` (negative: more)."""
    return _input_side(bill) - _input_usd(tariff, changed)


def _input_side(bill: Cost) -> float:
    """The input side of a call's bill: uncached input, writes and reads, USD."""
    return bill.uncached_input + bill.cache_writes + bill.cache_reads


def _shortest(usage: Usage) -> str:
    """The shortest lifetime `usage` wrote any token for (`"5m"`, `"30m"` or `"1h"`), its
    writes as billed (`Usage.billed_writes`). For a usage with writes."""
    five, thirty, _ = usage.billed_writes
    return "5m" if five else "30m" if thirty else "1h"


def _written_for(usage: Usage, lifetime: str) -> bool:
    """True when every cache write of `usage` is already a `lifetime` one (no iterations):
    its prompt with all writes of that lifetime is then its own."""
    held = usage.ephemeral_5m_input_tokens if lifetime == "5m" else usage.ephemeral_1h_input_tokens
    return not usage.iterations and held == usage.cache_creation_input_tokens


def _under_lifetime(
    call: Call, gap: float | None, rebuild: Rebuild | None, lifetime: str, prompt: _Prompt
) -> _Prompt | None:
    """The call's `prompt` had it written every entry for `lifetime`, its `gap` (seconds
    since its thread's call before; None for none) included.

    Past the lifetime a read becomes a write; a `ttl` rebuild within it reads
    the tokens it rewrote. None when the gap moves nothing: the prompt is then
    `_all_written(prompt, lifetime)` (`_lifetime_side`).
    """
    if gap is None:
        return None
    if gap > _seconds(call.model, lifetime):
        written = _all_written(prompt, lifetime)
        return _moved(written, call.cache_read_input_tokens, "read", "written", lifetime)
    if rebuild is not None:
        rewritten = min(rebuild.lost_tokens, call.cache_creation_input_tokens)
        return _moved(_all_written(prompt, lifetime), rewritten, "written", "read")
    return None


def _lifetime_side(
    call: Call,
    gap: float | None,
    rebuild: Rebuild | None,
    lifetime: str,
    bill: Cost,
    tariff: Tariff,
    prompt: _Prompt,
) -> float:
    """The call's input side (USD) had its thread written every entry for `lifetime`
    (`_under_lifetime`; `prompt` is the call's, `_prompt`): its own `bill`'s where its
    writes are all of that lifetime already and the gap moves nothing, else its prompt
    so changed priced again."""
    changed = _under_lifetime(call, gap, rebuild, lifetime, prompt)
    if changed is None:
        if _written_for(call.usage, lifetime):
            return _input_side(bill)
        changed = _all_written(prompt, lifetime)
    return _input_usd(tariff, changed)


#: A bound of `Bill.between`: ("day", day number in the zone) or ("instant", seconds).
_Bound = tuple[str, float]
_ISO_DAY = "YYYY-MM-DD"


def _iso_day(text: str) -> date | None:
    """The day `text` names in one of ISO 8601's forms of a day; None for any other text."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _bound(value: object, name: str, zone: Zone) -> _Bound | None:
    """The `since` or `until` bound (`name`) of `Bill.between`, read; None for no bound.

    Raises:
        TypeError: neither a date nor a string.
        ValueError: a string that is neither a day nor an ISO time, or an
            instant no calendar holds.
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        try:  # a day in any of ISO's forms (20260302, 2026-W10-1 too), else an instant
            value = _iso_day(text) or datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(
                f"{name} must be a day ({_ISO_DAY}) or an ISO time, got {value!r:.60}"
            ) from None
    if isinstance(value, datetime):
        if value.tzinfo is None and zone.tzinfo is not None:
            value = value.replace(tzinfo=zone.tzinfo)
        try:  # a naive time with no zone rules is read by the C library's local time
            return "instant", value.timestamp()
        except (OverflowError, OSError, ValueError):
            raise ValueError(f"{name}: {value!r:.60} is no instant this machine can read") from None
    if isinstance(value, date):
        return "day", float(day_number(value))
    raise TypeError(f"{name} must be a date, a datetime or a string, got {value!r:.60}")


def _instant(bound: _Bound, zone: Zone, *, end: bool) -> float:
    """A bound as seconds since the epoch (to compare two bounds): a day's first instant
    in `zone`, or with `end` the first instant of the day after."""
    kind, value = bound
    if kind == "instant":
        return value
    midnight = (value + end) * 86_400
    return midnight - zone.offset(midnight)


def _within(when: float, bound: _Bound | None, zone: Zone, *, above: bool) -> bool:
    """True when an instant is on the right side of a bound (at or after it `above`)."""
    if bound is None:
        return True
    kind, value = bound
    at = float(zone.day(when)) if kind == "day" else when
    return at >= value if above else at <= value


def _rates(prices: Mapping[str, Price] | None) -> Callable[[str], Rates | None]:
    """Each model's rates, looked up once (a bill names few models, many times): its row
    of the table, priced at each call's time, or `price_for` in a caller's own `prices`."""
    found: dict[str, Rates | None] = {}

    def rate(model: str) -> Rates | None:
        if model not in found:
            found[model] = model_for(model) if prices is None else price_for(model, prices)
        return found[model]

    return rate


@lru_cache(maxsize=1024)  # a bill asks it of few models, twice a call
def _seconds(model: str, lifetime: str | None) -> float:
    """Seconds a cache entry of `lifetime` lives on `model`, as its cache policy says.

    `None` (no write recorded yet) is the policy's default lifetime; a model
    the table lacks, or a lifetime its policy does not name, takes the
    lifetime's own length (5 minutes where it has none).
    """
    row = model_for(model)
    if row is not None:
        offered = dict(row.cache.lifetimes)
        name = row.cache.default_lifetime if lifetime is None else lifetime
        if name in offered:
            return offered[name]
    return LIFETIME_SECONDS.get(lifetime or "5m", LIFETIME_SECONDS["5m"])


@dataclass(frozen=True)
class Bill:
    """The API calls of one or more saved sessions.

    Attributes:
        calls: one `Call` per API call, in time order (for ties, the order
            read: Claude Code's session by session, each session's file, then
            its sub-agents' files). A call without a time keeps its place in
            its thread, just after the call read before it; the calls of a
            thread that records no time at all come last.
        format: the files' format, or `"mixed"` when they differ.
        files: the files read.
        recorded_cost: the total cost the files recorded themselves (USD), or
            None when none did. In a window (`between`), the cost recorded for
            the calls kept; None when a file cut by the window records only
            its total (`recorded_cost_reason` says so).
        recorded_tokens: totals the file recorded itself (Codex's last
            cumulative total, mini-swe-agent's `api_calls`), or None.
        sessions: the sessions read, as `load_transcript` reads them too (a
            bill reads its files' calls alone: their conversation is read when
            this is first asked for).
        skipped: the files and lines no reader could take, left out (`Skip`).
        recorded_cost_reason: why `recorded_cost` is None although a file
            recorded a cost, or None.
        caches: model id -> the cache its calls' writes were made under, where
            it is not the model's own (a replay under another of its modes:
            Gemini's explicit caches, whose storage is billed by the hour);
            empty for a bill read from files.
    """

    calls: tuple[Call, ...]
    format: str
    files: tuple[str, ...] = ()
    recorded_cost: float | None = None
    recorded_tokens: Mapping[str, int] | None = None
    _sessions: tuple[Session, ...] = field(default=(), repr=False, compare=False)
    _lines: tuple[Call, ...] = field(default=(), repr=False, compare=False)
    _messages: Mapping[str, Place] = field(default_factory=dict, repr=False, compare=False)
    #: id of a price table -> (the table, each call's `Cost`, each call's `Tariff` or None
    #: until asked for): None where the call has no price.
    _priced: dict[int, _Priced] = field(default_factory=dict, repr=False, compare=False)
    _placed: dict[str, tuple[int, str, str]] = field(
        default_factory=dict, repr=False, compare=False
    )
    skipped: tuple[Skip, ...] = ()
    recorded_cost_reason: str | None = None
    #: For each call, the index in `sessions` of the session it came from.
    _origin: tuple[int, ...] = field(default=(), repr=False, compare=False)
    caches: Mapping[str, CachePolicy] = field(default_factory=dict, repr=False, compare=False)
    _read: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: (what, id of the price table) -> (the table, the answer): the rebuilds, `what_if`,
    #: `lifetimes`, `every_line` and the totals over the calls, each worked out once per
    #: price table (the report asks for each, and one asks another).
    _answers: dict[tuple[str, int], tuple[Mapping[str, Price] | None, Any]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def _once(self, what: str, prices: Mapping[str, Price] | None, work: Callable[[], Any]) -> Any:
        """`work()`, done once per price table: the answer kept under `what`. The cyclic
        garbage collector is held off meanwhile: the work makes an object or more per
        call, none of them in a cycle, and the collector would walk them all again and
        again (a quarter of the time on a bill of 38,657 calls)."""
        held = self._answers.get((what, id(prices)))
        if held is None or held[0] is not prices:
            with gc_paused():
                held = self._answers[(what, id(prices))] = (prices, work())
        return held[1]

    def _costs(self, prices: Mapping[str, Price] | None) -> list[Cost | None]:
        """Each call's `Cost` (None on a model with no price), priced once per price table."""
        held = self._priced.get(id(prices))
        if held is None or held[0] is not prices:
            held = self._price(prices)
        return held[1]

    def _tariffs(self, prices: Mapping[str, Price] | None) -> list[Tariff | None]:
        """Each call's `Tariff` (None on a model with no price): what the what-ifs price
        other splits of its prompt at."""
        held = self._priced.get(id(prices))
        if held is None or held[0] is not prices or held[2] is None:
            held = self._price(prices)
        return held[2]  # type: ignore[return-value]  # `_price` sets it

    def _price(self, prices: Mapping[str, Price] | None) -> _Priced:
        """Price every call in `prices` (`pricing.billed`) and keep its `Cost` and `Tariff`;
        costs kept before (an every-line bill's, given) stay as they were."""
        rate = _rates(prices)
        caches = self.caches
        with gc_paused():  # a `Cost` and a `Tariff` a call, in no cycle (`_once`)
            both = [_priced(call, rate(call.model), caches.get(call.model)) for call in self.calls]
        tariffs = [tariff for tariff, _ in both]
        held = self._priced.get(id(prices))
        costs = held[1] if held is not None and held[0] is prices else [b for _, b in both]
        self._priced[id(prices)] = found = (prices, costs, tariffs)
        return found

    @property
    def sessions(self) -> tuple[Session, ...]:
        """The sessions read, their conversation read with them (`Session.with_messages`)."""
        held = self._read.get("sessions")
        if held is None:
            held = self._read["sessions"] = tuple(s.with_messages() for s in self._sessions)
        return held

    @property
    def sessions_read(self) -> tuple[Session, ...]:
        """The sessions as the bill read them: their calls, threads and main thread, their
        conversation not read yet where a bill reads calls alone (`Session.with_messages`
        reads one; `sessions` reads them all)."""
        return self._sessions

    # ------------------------------------------------------------ totals

    @property
    def models(self) -> tuple[str, ...]:
        """The model ids the calls recorded, sorted."""
        found: tuple[str, ...] = self._once(
            "models", None, lambda: tuple(sorted({call.model for call in self.calls}))
        )
        return found

    @property
    def places(self) -> Mapping[str, Place]:
        """Message id -> `Place`, where the files keep their messages (Claude Code); else empty."""
        return self._messages

    @property
    def threads(self) -> dict[str, int]:
        """Thread name (`ThreadId.name`) -> its number of calls, in order of first call."""
        found: dict[str, int] = self._once("threads", None, self._threads)
        return dict(found)

    def _threads(self) -> dict[str, int]:
        found: dict[ThreadId, int] = {}
        for call in self.calls:
            found[call.thread] = found.get(call.thread, 0) + 1
        return {thread.name: calls for thread, calls in found.items()}

    def tokens(self) -> dict[str, int]:
        """Tokens by kind over every call (keys: input, cache_read, cache_write_5m,
        cache_write_1h, cache_write_30m (OpenAI's writes), output), as billed."""
        return dict(zip(_KINDS, self._totals(), strict=False))

    def _billed(self) -> tuple[list[int], ...]:
        """`_billed(self.calls)`, worked out once."""
        found: tuple[list[int], ...] = self._once("billed", None, lambda: _billed(self.calls))
        return found

    def _totals(self) -> list[int]:
        """Each column of `_billed` added up over every call, worked out once."""
        found: list[int] = self._once("totals", None, lambda: _sums(self._billed()))
        return found

    @property
    def cache_read_share(self) -> float:
        """Tokens read from the cache over all prompt tokens (0.0 to 1.0; 0.0 with no prompt).

        Both counted as billed (`Usage.billed`): every iteration of a call that has them.
        """
        found: float = self._once("cache_read_share", None, self._cache_read_share)
        return found

    def _cache_read_share(self) -> float:
        totals = self._totals()
        read, prompt = totals[_READ], totals[-1]
        return read / prompt if prompt else 0.0

    def unpriced_models(self, prices: Mapping[str, Price] | None = None) -> tuple[str, ...]:
        """The recorded models with no price in `prices` (their calls are not in `cost`).

        A model priced at standard speed whose fast-mode calls have no rate is
        named as `"<model> (fast)"`.
        """
        named = {m for m in self.models if price_for(m, prices) is None}
        for call, bill in zip(self.calls, self._costs(prices), strict=True):
            if bill is None and call.model not in named:
                named.add(f"{call.model} ({call.usage.speed})")
        return tuple(sorted(named))

    def recorded_calls(self) -> int:
        """How many of the calls `recorded_cost` covers: those of the sessions that recorded
        a cost (0 when none did). Fewer than all in a folder of several formats, where only
        some files record their cost."""
        if self.recorded_cost is None:
            return 0
        if len(self._origin) != len(self.calls) or not self._sessions:  # a bill made by hand
            return len(self.calls)
        sessions = self._sessions
        return sum(1 for index in self._origin if sessions[index].recorded_cost is not None)

    def unpriced_calls(self, prices: Mapping[str, Price] | None = None) -> tuple[int, ...]:
        """The numbers (from 1) of the calls with no price, left out of `cost`.

        A call on a model with no price, or a fast-mode call on a model with
        no fast-mode rate. A bill is priced where fewer than all its calls
        are here: `cost` then prices the others.
        """
        costs = self._costs(prices)
        return tuple(number for number, bill in enumerate(costs, 1) if bill is None)

    def output_lower_bounds(self) -> tuple[int, ...]:
        """The numbers (from 1) of the calls whose file kept only the output count their
        response's stream began with (`Call.output_lower_bound`): their real output,
        and so the bill, is higher than the files say."""
        return tuple(n for n, call in enumerate(self.calls, 1) if call.output_lower_bound)

    def cost(self, prices: Mapping[str, Price] | None = None) -> Cost:
        """The bill of the priced calls, by charge (USD).

        Args:
            prices: model family -> `Price`; a dated id finds its family.
                `PRICES` and `OPENAI_PRICES` when None.
        """
        return Cost.added(self._costs(prices))

    def call_cost(self, index: int, prices: Mapping[str, Price] | None = None) -> Cost | None:
        """The bill of call number `index` (from 1), or None on a model with no price."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"index must be an int, got {index!r}")
        if not 1 <= index <= len(self.calls):
            raise ValueError(f"index must be 1..{len(self.calls)}, got {index}")
        return self._costs(prices)[index - 1]

    def every_line(self) -> Bill:
        """The same files billed once per usage record, without deduplication.

        What a tool that counts every line would report; compare it with this bill.
        The lines that share their usage with a call (the copy a call was kept
        from) take the call's cost, priced already, rather than being priced again.
        Made once: the same `Bill` each time.
        """
        found: Bill = self._once("every_line", None, self._every_line)
        return found

    def _every_line(self) -> Bill:
        priced: dict[int, _Priced] = {}
        for key, (prices, bills, _) in self._priced.items():
            known = {id(call.usage): bill for call, bill in zip(self.calls, bills, strict=True)}
            rate = _rates(prices)
            priced[key] = (
                prices,
                [
                    known[id(line.usage)]
                    if id(line.usage) in known
                    else _priced(line, rate(line.model), self.caches.get(line.model))[1]
                    for line in self._lines
                ],
                None,
            )
        return Bill(
            self._lines,
            self.format,
            self.files,
            self.recorded_cost,
            None,
            (),
            self._lines,
            _priced=priced,
            caches=self.caches,
        )

    # ------------------------------------------------------------ views

    def groups(
        self, by: str, prices: Mapping[str, Price] | None = None, *, zone: ZoneLike = UTC_ZONE
    ) -> list[Group]:
        """The calls grouped `by` one of `VIEWS`, each group with its calls, tokens and cost.

        Days, weeks and months in time order, counted in `zone` (an IANA name
        such as `"Europe/Paris"`, a `tzinfo` or a `zones.Zone`; UTC unless
        given); the other views most costly first (then most calls, then by
        key; `agent` puts the main threads' calls, `main`, first). The groups'
        calls, tokens and costs add up to the bill's. A group none of whose
        calls is priced has `cost` None.

        Raises:
            ValueError: `by` is not one of `VIEWS`, or a zone no database holds.
        """
        if by not in _KEYS:
            raise ValueError(f"by must be one of {', '.join(VIEWS)}; got {by!r:.40}")
        members: dict[str, list[int]] = {}
        for index, key in enumerate(_KEYS[by](self.calls, as_zone(zone))):
            members.setdefault(key, []).append(index)
        costs, billed = self._costs(prices), self._billed()
        found = [self._group(name, indexes, costs, billed) for name, indexes in members.items()]
        if by in TIME_VIEWS:
            return sorted(found, key=lambda g: _time_order(g.key))
        first = MAIN_AGENT if by == "agent" else None  # the main thread, then the sub-agents
        return sorted(found, key=lambda g: (g.key != first, -(g.cost or 0.0), -g.calls, g.key))

    def with_calls(
        self, calls: Sequence[Call], *, caches: Mapping[str, CachePolicy] | None = None
    ) -> Bill:
        """The bill of the same files, sessions and messages with `calls` instead (a
        replay's): everything computed from the calls is computed anew, and counting
        every usage line counts these calls. `caches` (model id -> `CachePolicy`)
        names the cache the calls' writes were made under where it is not their
        model's own, for its storage (`Bill.caches`); the bill's own when None.

        Raises:
            TypeError: `calls` not a sequence of `Call`s, or `caches` not a mapping of
                model ids to `CachePolicy`s.
        """
        if not isinstance(calls, Sequence) or isinstance(calls, str | bytes):
            raise TypeError(f"calls must be a sequence of Call, got {short_repr(calls)}")
        kept = tuple(calls)
        for number, call in enumerate(kept):
            if not isinstance(call, Call):
                raise TypeError(f"calls[{number}] must be a Call, got {short_repr(call)}")
        if caches is not None and (
            not isinstance(caches, Mapping)
            or not all(
                isinstance(model, str) and isinstance(rules, CachePolicy)
                for model, rules in caches.items()
            )
        ):
            said = short_repr(caches)
            raise TypeError(f"caches must be a dict of model id -> CachePolicy, got {said}")
        held = self.caches if caches is None else dict(caches)
        return replace(
            self,
            calls=kept,
            _lines=kept,
            _origin=(),
            _priced={},
            _answers={},
            caches=held,
        )

    def _group(
        self,
        key: str,
        indexes: list[int],
        costs: list[Cost | None],
        billed: tuple[list[int], ...],
    ) -> Group:
        """One group of `groups`: the calls at `indexes` (from 0), their costs from `costs`,
        their tokens from `billed` (`_billed`), its cache-read share counted as the bill's."""
        priced = [bill.total for k in indexes if (bill := costs[k]) is not None]
        sums = _sums(billed, indexes)
        read, prompt = sums[_READ], sums[-1]
        return Group(
            key,
            len(indexes),
            dict(zip(_KINDS, sums, strict=False)),
            sum(priced) if priced else None,
            len(indexes) - len(priced),
            read / prompt if prompt else 0.0,
        )

    def between(
        self,
        since: date | str | None = None,
        until: date | str | None = None,
        *,
        zone: ZoneLike = UTC_ZONE,
    ) -> Bill:
        """The bill of the calls made from `since` to `until`, both included.

        Each bound is a day (a `date`, or a `"YYYY-MM-DD"` string: the whole
        day in `zone`, UTC unless given), or an instant (a `datetime`, or an
        ISO time string such as `"2026-03-02T09:30:00+01:00"`; one without an
        offset is a wall time in `zone`). A call without a time is left out
        once either bound is given. The rebuilds are found again among the
        calls kept: a thread's first call in the window is a cold start. The
        cost the files recorded is cut to the window where they record each
        call's (`recorded_cost`).

        Raises:
            TypeError: a bound that is neither a date nor a string.
            ValueError: a string that is neither a day nor an ISO time, a zone
                no database holds, or `since` after `until`.
        """
        where = as_zone(zone)  # checked whether or not a bound reads it
        if since is None and until is None:
            return self
        low, high = _bound(since, "since", where), _bound(until, "until", where)
        if low is not None and high is not None:
            same = low[0] == high[0]
            first, last = _instant(low, where, end=False), _instant(high, where, end=True)
            later = first > last if low[0] == "day" else first >= last  # a day's end is out
            if (low[1] > high[1]) if same else later:
                raise ValueError(f"since ({since}) is after until ({until})")

        def kept(call: Call) -> bool:
            when = call.timestamp
            if when is None:
                return False
            return _within(when, low, where, above=True) and _within(when, high, where, above=False)

        keep = [kept(call) for call in self.calls]
        calls = tuple(c for c, k in zip(self.calls, keep, strict=True) if k)
        origin: tuple[int, ...] = ()
        if len(self._origin) == len(self.calls):  # else a bill made by hand: no sessions
            origin = tuple(o for o, k in zip(self._origin, keep, strict=True) if k)
        recorded, reason = self._recorded_in(calls, origin)
        return replace(
            self,
            calls=calls,
            _lines=tuple(c for c in self._lines if kept(c)),
            _origin=origin,
            recorded_cost=recorded,
            recorded_cost_reason=reason,
            _priced={},
            _answers={},
        )

    def _recorded_in(
        self, calls: tuple[Call, ...], origin: tuple[int, ...]
    ) -> tuple[float | None, str | None]:
        """(The cost the files recorded for `calls`, a window of this bill's; why it is None).

        A session whose calls are all kept counts its recorded total; one cut
        by the window counts the costs it recorded for the calls kept, if it
        records each call's; if it records only its total, the window has no
        recorded cost (None, and the reason), never the whole file's figure.
        """
        if self.recorded_cost is None and self.recorded_cost_reason is None:
            return None, None
        if len(origin) != len(calls) or not self._sessions:  # a bill made by hand: one source
            groups = {0: (self.recorded_cost, len(self.calls), list(calls))}
        else:
            groups = {}
            for call, index in zip(calls, origin, strict=True):
                session = self._sessions[index]  # its calls and cost, its messages not read
                held = groups.setdefault(index, (session.recorded_cost, len(session.calls), []))
                held[2].append(call)
        total, found = 0.0, False
        for whole, count, kept in groups.values():
            if whole is None:  # this file recorded no cost
                continue
            found = True
            if len(kept) == count and whole is not None:
                total += whole
            elif all(call.recorded_cost is not None for call in kept):
                total += sum(call.recorded_cost or 0.0 for call in kept)
            else:
                return None, (
                    "the window cuts a file that records only its total cost, "
                    "not each call's: no recorded cost for the window"
                )
        return (total, None) if found else (None, None)

    # ------------------------------------------------------------ rebuilds

    def rebuilds(self, prices: Mapping[str, Price] | None = None) -> list[Rebuild]:
        """The calls that lost more than `LOST_PREFIX_TOKENS` of cached prefix, with causes.

        A thread's first call is a cold start, not a rebuild; a call whose read
        covers the previous call's whole cached prompt (plain growth) is not one.
        A `prefix-changed` rebuild names what changed (`Rebuild.trigger`).
        """
        found: tuple[Rebuild, ...] = self._once(
            "rebuilds",
            prices,
            lambda: tuple(
                self._forensics(rebuild, before) if rebuild.cause == "prefix-changed" else rebuild
                for rebuild, before in self._losses(prices)
            ),
        )
        return list(found)

    def _losses(self, prices: Mapping[str, Price] | None) -> tuple[tuple[Rebuild, Call], ...]:
        """Each rebuild with its cause and cost but not yet what changed (`rebuilds` names
        that), beside the thread's call before it: what the what-ifs read of them."""
        found: tuple[tuple[Rebuild, Call], ...] = self._once(
            "losses", prices, lambda: tuple(self._find_losses(prices))
        )
        return found

    def _find_losses(self, prices: Mapping[str, Price] | None) -> list[tuple[Rebuild, Call]]:
        found: list[tuple[Rebuild, Call]] = []
        last: dict[ThreadId, Call] = {}
        ttl: dict[ThreadId, str] = {}  # thread -> the lifetime its prefix was last written with
        costs = self._costs(prices)
        for number, call in enumerate(self.calls, 1):
            thread, usage = call.thread, call.usage
            before = last.get(thread)
            last[thread] = call
            if before is not None:
                held_before = before.usage
                lost = (
                    held_before.cache_read_input_tokens
                    + held_before.cache_creation_input_tokens
                    - usage.cache_read_input_tokens
                )
                if lost > LOST_PREFIX_TOKENS:  # else plain growth, or a loss too small to count
                    lifetime = ttl.get(thread)
                    rebuild = self._rebuild(
                        number, call, before, lifetime, costs[number - 1], prices
                    )
                    found.append((rebuild, before))
            if usage.cache_creation_input_tokens:  # the prefix lives as long as its shortest part
                ttl[thread] = _shortest(usage)
        return found

    def _rebuild(
        self,
        number: int,
        call: Call,
        before: Call,
        lifetime: str | None,
        bill: Cost | None,
        prices: Mapping[str, Price] | None,
    ) -> Rebuild:
        """The rebuild call number `number` is: it lost more than `LOST_PREFIX_TOKENS` of the
        prefix `before` read and wrote; its cause and cost found (`_forensics` finds what
        changed)."""
        lost = before.cache_read + before.cache_write - call.cache_read
        gap = None
        if call.timestamp is not None and before.timestamp is not None:
            gap = call.timestamp - before.timestamp
        cause: Cause
        if call.segment != before.segment:
            cause = "compaction"
        elif call.model != before.model:
            cause = "model-switch"
        elif gap is not None and gap > _seconds(call.model, lifetime):
            cause = "ttl"
        else:
            cause = "prefix-changed"
        tariff = self._tariffs(prices)[number - 1]
        extra = None if tariff is None or bill is None else _extra(call, lost, bill, tariff)
        return Rebuild(
            number,
            call.thread,
            cause,
            lost,
            gap,
            extra,
            partial=call.cache_read > 0,
            provider_reason=call.provider_reason,
        )

    def _forensics(self, rebuild: Rebuild, before: Call) -> Rebuild:
        """The rebuild with its first difference and its trigger (text and line) named;
        `before` is its thread's call before it."""
        call = self.calls[rebuild.call - 1]
        first = self._first_difference_id(before, call)
        difference = None
        if first is not None:
            place = self._messages[first]
            difference = f"{place.role} {first} ({place.where})"
        trigger, line = self._trigger(before, call, first)
        return replace(rebuild, first_difference=difference, trigger=trigger, line=line)

    def _trigger(
        self, before: Call, call: Call, first: str | None
    ) -> tuple[str | None, int | None]:
        """What changed the start of `call`'s request, as (one line of text, line number)."""
        if call.message is None or call.message not in self._messages:
            return None, None
        old = set(self._chain(before.message, _TRIGGER_STEPS))
        for ident in self._chain(call.message, _TRIGGER_STEPS):
            if ident in old:
                break
            place = self._messages[ident]
            if place.event:
                return f"{place.event} at {place.where}", place.line
        if first is not None:
            place = self._messages[first]
            return (
                f"the conversation branched at {place.where} (a {place.role} line the "
                "previous request did not carry: a rewind or an edit)",
                place.line,
            )
        place = self._messages[call.message]
        return (
            f"no message changed (the system prompt or the tools did); "
            f"the request ended at {place.where}",
            place.line,
        )

    def _chain(self, start: str | None, steps: int) -> list[str]:
        """Up to `steps` message ids from `start` back towards its root, none twice."""
        return chain(self._messages, start, steps)

    def _laid(self, message: str) -> tuple[int, str, str]:
        """(`message`'s place in its chain from 0, its chain's anchor, its chain's head).

        A message's chain is the walk of its parents, stopped before a message
        it already walked (a loop of parents), read from the far end: the head.
        The anchor is where the walk reached a root or entered a loop; the
        loop's other members come before it in the chain. Two messages with the
        same anchor share the chain up to it. Each message is walked once, when
        a rebuild first asks for it or for a message after it, and kept: what
        makes `rebuilds` linear in the calls, and a bill's part (`figures`) walk
        only the chains of its own rebuilds.
        """
        found = self._placed.get(message)
        if found is None:
            self._lay(message)
            found = self._placed[message]
        return found

    def _lay(self, start: str) -> None:
        """Walk `start`'s parents up to a message laid out already, or to a root or a loop,
        and lay out each message walked (`_laid`)."""
        known = self._placed
        parents = self._parents()
        chain: list[str] = []
        at: dict[str, int] = {}
        node: str | None = start
        while node is not None and node in parents and node not in known:
            if node in at:  # a loop of parents: each member anchors the chain it starts
                loop = chain[at[node] :]
                del chain[at[node] :]
                for index, member in enumerate(loop):
                    known[member] = (len(loop) - 1, member, loop[index - 1])
                break
            at[node] = len(chain)
            chain.append(node)
            node = parents[node]
        if node is not None and node in known:
            place, anchor, head = known[node]
        elif chain:  # the walk ended at a root, the chain's last message
            anchor = head = chain.pop()
            place, known[anchor] = 0, (0, anchor, anchor)
        for offset, ident in enumerate(reversed(chain), 1):
            known[ident] = (place + offset, anchor, head)

    def _parent(self, message: str) -> str | None:
        """The message before `message` in its chain; None at its anchor."""
        anchor = self._laid(message)[1]
        return None if anchor == message else self._parents()[message]

    def _parents(self) -> Mapping[str, str | None]:
        """Message id -> its parent's id, for every message the files keep (no `Place` made)."""
        held = self._read.get("parents")
        if held is None:
            places = self._messages
            held = self._read["parents"] = (
                places.parents()
                if isinstance(places, Places)
                else {ident: place.parent for ident, place in places.items()}
            )
        return held

    def _first_difference_id(self, before: Call, call: Call) -> str | None:
        """The first message of `call`'s chain that `before`'s chain lacks at its place.

        None when one chain extends the other. Walks only up to where the two
        chains meet.
        """
        old, new = before.message, call.message
        if old not in self._messages or new not in self._messages:
            return None
        assert old is not None and new is not None  # the membership tests above say so
        laid = self._laid
        (old_place, old_anchor, _), (new_place, new_anchor, new_head) = laid(old), laid(new)
        if old_anchor != new_anchor:
            return new_head  # chains anchored apart differ from their first message
        first: str | None = None  # the last message of the new chain walked above where they meet
        a: str | None = old
        b: str | None = new
        while b is not None and laid(b)[0] > old_place:
            first, b = b, self._parent(b)
        while a is not None and laid(a)[0] > new_place:
            a = self._parent(a)
        if b == old or a == new:
            return None  # one chain holds the other
        while a != b and b is not None:
            first, a, b = b, self._parent(a) if a is not None else None, self._parent(b)
        return first

    def provider_reasons(self) -> dict[str, int]:
        """The provider's recorded miss reasons on calls that are not rebuilds, by type.

        A thread's cold start or a loss of at most `LOST_PREFIX_TOKENS` may
        carry the provider's diagnosis too (`Call.provider_reason`); a rebuild
        carries its own as `Rebuild.provider_reason`. Most frequent first, then
        by name.
        """
        rebuilt = {rebuild.call for rebuild, _ in self._losses(None)}
        found: dict[str, int] = {}
        for number, call in enumerate(self.calls, 1):
            if call.provider_reason is not None and number not in rebuilt:
                found[call.provider_reason] = found.get(call.provider_reason, 0) + 1
        return dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))

    # ------------------------------------------------------------ what-ifs

    def work_ahead(self, prices: Mapping[str, Price] | None = None) -> None:
        """Work out every figure a report of the bill asks for (`figures`), on two cores
        where that pays."""
        self.figures(prices)

    def figures(self, prices: Mapping[str, Price] | None = None) -> Figures:
        """What a report of the bill shows (`Figures`), worked out once per price
        table: by two processes, each for part of the sessions, where the bill has
        `ASIDE_CALLS` calls or more and a second process can be made. The what-ifs,
        lifetimes and rebuilds among them are kept: asking for them afterwards costs
        nothing. Each is the answer its method gives alone (`figures_of` says how two parts
        add up to it)."""
        held = self._answers.get(("figures", id(prices)))
        if held is not None and held[0] is prices:
            found: Figures = held[1]
            return found
        found = figures_of(self, prices)
        self._keep_figures(prices, found)
        return found

    def _keep_figures(self, prices: Mapping[str, Price] | None, found: Figures) -> None:
        """Keep `found` as the figures at `prices`, and the answers among them."""
        kept = {"what_if": found.what_if, "lifetimes": list(found.lifetimes)}
        kept.update(figures=found, rebuilds=found.rebuilds)
        for what, answer in kept.items():
            self._answers[(what, id(prices))] = (prices, answer)

    def what_if(self, prices: Mapping[str, Price] | None = None) -> WhatIf:
        """The input side of the priced calls under other choices (`WhatIf`, USD)."""
        found: WhatIf = self._once("what_if", prices, lambda: self._what_if(prices))
        return found

    def _what_if(self, prices: Mapping[str, Price] | None) -> WhatIf:
        actual, no_caching = self._input_sides(prices)
        rebuilds = [rebuild for rebuild, _ in self._losses(prices)]
        lifetimes = self.lifetimes(prices)
        return _what_if_of(
            fsum(actual), fsum(no_caching), lifetimes, rebuilds, self._stagger(prices)
        )

    def _input_sides(self, prices: Mapping[str, Price] | None) -> tuple[list[float], list[float]]:
        """Each priced call's input side as billed, and with every prompt token uncached
        (USD): what `WhatIf.actual` and `WhatIf.no_caching` add up."""
        actual: list[float] = []
        no_caching: list[float] = []
        costs, tariffs = self._costs(prices), self._tariffs(prices)
        for call, bill, tariff in zip(self.calls, costs, tariffs, strict=True):
            if bill is not None and tariff is not None:
                actual.append(_input_side(bill))
                no_caching.append(_input_usd(tariff, _uncached(_prompt(call.usage))))
        return actual, no_caching

    def lifetimes(self, prices: Mapping[str, Price] | None = None) -> list[Lifetime]:
        """Per thread, in order of first call: 5-minute against 1-hour writes (`Lifetime`).

        Threads with no priced call are left out.
        """
        found: list[Lifetime] = self._once("lifetimes", prices, lambda: self._lifetimes(prices))
        return list(found)

    def _lifetimes(self, prices: Mapping[str, Price] | None) -> list[Lifetime]:
        sums: dict[ThreadId, list[float]] = {}
        last: dict[ThreadId, Call] = {}
        rebuilt = {r.call: r for r, _ in self._losses(prices) if r.cause == "ttl"}
        priced = zip(self.calls, self._costs(prices), self._tariffs(prices), strict=True)
        for number, (call, bill, tariff) in enumerate(priced, 1):
            thread = call.thread
            before, last[thread] = last.get(thread), call
            if tariff is None or bill is None:
                continue
            both = sums.get(thread)
            if both is None:
                both = sums[thread] = [0.0, 0.0]
            rebuild, prompt = rebuilt.get(number), _prompt(call.usage)
            gap = None
            if before is not None and call.timestamp is not None and before.timestamp is not None:
                gap = call.timestamp - before.timestamp
            both[0] += _lifetime_side(call, gap, rebuild, "5m", bill, tariff, prompt)
            both[1] += _lifetime_side(call, gap, rebuild, "1h", bill, tariff, prompt)
        return [Lifetime(thread, five, hour) for thread, (five, hour) in sums.items()]

    def _stagger(self, prices: Mapping[str, Price] | None) -> float:
        return _stagger_saving([(c, b, t) for _, c, b, t in self._sidechain_firsts(prices)])

    def _sidechain_firsts(self, prices: Mapping[str, Price] | None = None) -> list[_First]:
        """Each sub-agent thread's first call, in call order: (its number from 1, the call,
        its `Cost` and `Tariff`, None where it has no price): what staggering the
        sub-agents' starts reprices (`_stagger_saving`)."""
        costs, tariffs = self._costs(prices), self._tariffs(prices)
        seen: set[ThreadId] = set()
        found: list[_First] = []
        for number, call in enumerate(self.calls, 1):
            if call.sidechain and call.thread not in seen:
                seen.add(call.thread)
                found.append((number, call, costs[number - 1], tariffs[number - 1]))
        return found


#: A sub-agent's first call as `Bill._sidechain_firsts` gives it.
_First = tuple[int, Call, Cost | None, Tariff | None]


def _stagger_saving(firsts: Sequence[tuple[Call, Cost | None, Tariff | None]]) -> float:
    """What the sub-agents' cold starts launched at once (within `SAME_MOMENT_SECONDS`)
    would have cost less had each after the first read the prefix the first wrote, USD;
    `firsts` are each sub-agent thread's first call with its cost and tariff, in call
    order. The prefix shared is the largest a warm start read, else the smallest the
    group wrote."""
    warm = [c.cache_read_input_tokens for c, _, _ in firsts if c.cache_read_input_tokens]
    cold = sorted(
        (
            first
            for first in firsts
            if not first[0].cache_read_input_tokens and first[0].timestamp is not None
        ),
        key=lambda first: first[0].timestamp or 0.0,
    )
    groups: list[list[tuple[Call, Cost | None, Tariff | None]]] = []
    for first in cold:
        if groups and (first[0].timestamp or 0.0) - (groups[-1][0][0].timestamp or 0.0) <= (
            SAME_MOMENT_SECONDS
        ):
            groups[-1].append(first)
        else:
            groups.append([first])
    saving = 0.0
    for group in groups:
        if len(group) < 2:
            continue
        shared = max(warm) if warm else min(c.cache_creation_input_tokens for c, _, _ in group)
        for later, bill, tariff in group[1:]:
            if tariff is not None and bill is not None:
                moved = min(shared, later.cache_creation_input_tokens)
                changed = _moved(_prompt(later.usage), moved, "written", "read")
                saving += _saved(bill, changed, tariff)
    return saving


def _what_if_of(
    actual: float,
    no_caching: float,
    lifetimes: Sequence[Lifetime],
    rebuilds: Sequence[Rebuild],
    stagger: float,
) -> WhatIf:
    """The `WhatIf` of calls whose input sides add up to `actual` and `no_caching` (USD),
    with these threads' `lifetimes`, `rebuilds` and `_stagger_saving`: each sum of the
    lifetimes and rebuilds exact (`math.fsum`), so their order changes nothing."""
    all_1h = fsum(life.one_hour for life in lifetimes)
    extra = fsum(r.extra_usd or 0.0 for r in rebuilds if r.avoidable)
    forced = fsum(r.extra_usd or 0.0 for r in rebuilds if not r.avoidable)
    return WhatIf(actual, no_caching, all_1h, actual - extra, actual - stagger, forced)


def _priced(
    call: Call, price: Rates | None, cache: CachePolicy | None = None
) -> tuple[Tariff | None, Cost | None]:
    """The call's `Tariff` and `Cost` at its time (`pricing.billed`), or (None, None) where
    there is no rate for it (model or fast mode); `cache` is the cache its writes were
    made under (the model's own when None)."""
    if price is None:
        return _UNPRICED
    try:
        return billed(call.usage, price, at=call.timestamp, policy=cache)
    except Unpriced:
        return _UNPRICED


_UNPRICED: tuple[None, None] = (None, None)


def _extra(call: Call, lost: int, bill: Cost, tariff: Tariff) -> float:
    """What rewriting `lost` tokens cost on `call` (its `bill`) minus reading them, USD."""
    written = min(lost, call.cache_creation_input_tokens)
    uncached = min(lost - written, call.input_tokens)
    prompt = _moved(_prompt(call.usage), uncached, "uncached", "read")
    return _saved(bill, _moved(prompt, written, "written", "read"), tariff)


def _filed(call: Call, session: Session) -> Call:
    """The call with the file it came from (a one-file session's file when the reader left it)."""
    if call.file or not session.files:
        return call
    return Call.sound(  # `replace(call, file=...)`, several times sooner: every field named
        call.thread,
        call.timestamp,
        call.model,
        call.usage,
        call.sidechain,
        call.segment,
        call.recorded_cost,
        call.message,
        session.files[0],
        call.project,
        call.provider_reason,
        call.output_lower_bound,
    )


def _in_time(placed: Sequence[float | None]) -> list[int]:
    """The indexes of calls placed at `placed` (seconds, `_placed_times`; None for a call
    no time places) in time order: those last, ties in the order given (the sort is
    stable)."""
    if None in placed:
        return sorted(range(len(placed)), key=lambda k: (placed[k] is None, placed[k] or 0.0))
    times = cast(list[float], placed)  # the usual bill: every call timed
    return sorted(range(len(times)), key=times.__getitem__)


def _placed_times(
    stamps: Sequence[float | None], threads: Sequence[Hashable]
) -> list[float | None]:
    """The time each call is placed at among a bill's, the calls in the order they were
    read, with their times `stamps` (seconds, None for none) and their `threads`: its
    own; for a call without one, the time of the nearest timed call of its thread read
    before it (it then comes just after that call), else after it (just before); None
    where its thread records no time at all (it comes last). A call without a time so
    keeps its place in its thread."""
    placed = list(stamps)
    if None not in placed:
        return placed
    for indexes in (range(len(placed)), range(len(placed) - 1, -1, -1)):
        held: dict[Hashable, float] = {}  # a thread -> the time of its timed call seen last
        for k in indexes:
            time = placed[k]
            if time is not None:
                held[threads[k]] = time
            elif threads[k] in held:
                placed[k] = held[threads[k]]
    return placed


def _merge(sessions: list[Session], files: tuple[str, ...], skipped: list[Skip]) -> Bill:
    return _merged(sessions, files, skipped)[0]


def _merged(
    sessions: list[Session], files: tuple[str, ...], skipped: list[Skip]
) -> tuple[Bill, list[int], list[float | None]]:
    """The bill of `sessions`; for each of its calls, in order, its index among the
    sessions' calls taken one session after another, and the time it is placed at
    (`_placed_times`)."""
    numbered = [_filed(call, session) for session in sessions for call in session.calls]
    origin = [index for index, session in enumerate(sessions) for _ in session.calls]
    threads = [(index, call.thread) for index, call in zip(origin, numbered, strict=True)]
    placed = _placed_times([call.timestamp for call in numbered], threads)
    order = _in_time(placed)
    formats = {session.format for session in sessions}
    costs = [s.recorded_cost for s in sessions if s.recorded_cost is not None]
    bill = Bill(
        calls=tuple(map(numbered.__getitem__, order)),
        format=formats.pop() if len(formats) == 1 else "mixed",
        files=files,
        recorded_cost=sum(costs) if costs else None,
        recorded_tokens=sessions[0].recorded_tokens if len(sessions) == 1 else None,
        _sessions=tuple(sessions),
        skipped=tuple(skipped),
        _origin=tuple(map(origin.__getitem__, order)),
        _lines=tuple([call for session in sessions for call in session.usage_records]),
        _messages=Places.joined([session.places for session in sessions]),
    )
    return bill, order, [placed[k] for k in order]


# ------------------------------------------------------------ a report's figures


@dataclass(frozen=True)
class Figures:
    """What a report of a bill shows (`figures_of`).

    Attributes:
        calls: how many calls (`Bill.calls`).
        usage_lines: how many usage lines (`Bill.every_line`).
        models: the models recorded, sorted (`Bill.models`).
        unpriced_models: those with no price (`Bill.unpriced_models`).
        unpriced_calls: the numbers (from 1) of the calls with no price.
        output_lower_bounds: `Bill.output_lower_bounds`.
        threads: thread name -> its calls, in order of first call.
        tokens: tokens by kind over every call (`Bill.tokens`).
        cache_read_share: `Bill.cache_read_share`.
        cost: the priced calls' bill (`Bill.cost`), USD.
        every_line_cost: every usage line priced (`Bill.every_line`), USD.
        rebuilds: `Bill.rebuilds`, in call order.
        rebuild_times: each rebuild's call time (seconds), None for none.
        provider_reasons: `Bill.provider_reasons`.
        what_if: `Bill.what_if`.
        lifetimes: `Bill.lifetimes`.
        skipped: `Bill.skipped`.
        recorded_cost: `Bill.recorded_cost`.
        recorded_calls: `Bill.recorded_calls`.
    """

    calls: int
    usage_lines: int
    models: tuple[str, ...]
    unpriced_models: tuple[str, ...]
    unpriced_calls: tuple[int, ...]
    output_lower_bounds: tuple[int, ...]
    threads: dict[str, int]
    tokens: dict[str, int]
    cache_read_share: float
    cost: Cost
    every_line_cost: Cost
    rebuilds: tuple[Rebuild, ...]
    rebuild_times: tuple[float | None, ...]
    provider_reasons: dict[str, int]
    what_if: WhatIf
    lifetimes: tuple[Lifetime, ...]
    skipped: tuple[Skip, ...]
    recorded_cost: float | None
    recorded_calls: int


#: An exact sum as two terms: the sum rounded, then what that rounding left off.
_Exact = tuple[float, float]


def _exact(values: list[float]) -> _Exact:
    """`values` summed exactly, as (`math.fsum(values)`, the rest, rounded)."""
    high = fsum(values)
    values.append(-high)
    low = fsum(values)
    values.pop()
    return high, low


@dataclass(frozen=True)
class _Part:
    """What one part of a bill gives its figures, its calls numbered within the part."""

    calls: int
    charges: tuple[_Exact, ...]
    line_charges: tuple[_Exact, ...]
    usage_lines: int
    actual: _Exact
    no_caching: _Exact
    unpriced: tuple[int, ...]
    unpriced_models: tuple[str, ...]
    lower_bounds: tuple[int, ...]
    rebuilds: tuple[Rebuild, ...]
    rebuild_times: tuple[float | None, ...]
    lifetimes: tuple[tuple[int, Lifetime], ...]
    firsts: tuple[_First, ...]
    provider_reasons: dict[str, int]


def _part(bill: Bill, prices: Mapping[str, Price] | None) -> _Part:
    """The figures of `bill`, one part of a larger one, worked out here."""
    costs = bill._costs(prices)
    lines = bill.every_line()
    actual, no_caching = bill._input_sides(prices)
    first_priced: dict[object, int] = {}
    for number, (call, cost) in enumerate(zip(bill.calls, costs, strict=True), 1):
        if cost is not None and call.thread not in first_priced:
            first_priced[call.thread] = number
    rebuilds = bill.rebuilds(prices)
    return _Part(
        len(bill.calls),
        tuple(map(_exact, charge_columns(costs))),
        tuple(map(_exact, charge_columns(lines._costs(prices)))),
        len(lines.calls),
        _exact(actual),
        _exact(no_caching),
        bill.unpriced_calls(prices),
        bill.unpriced_models(prices),
        bill.output_lower_bounds(),
        tuple(rebuilds),
        tuple(bill.calls[rebuild.call - 1].timestamp for rebuild in rebuilds),
        tuple((first_priced[life.thread], life) for life in bill.lifetimes(prices)),
        tuple(bill._sidechain_firsts(prices)),
        bill.provider_reasons(),
    )


#: The share of a large bill's calls whose figures this process works out.
_HERE = 0.52


def _cut(bill: Bill) -> tuple[list[int], list[int]]:
    """The numbers (from 1) of the calls of each part: whole sessions, in order of first
    call, this process's part taking them until it holds `_HERE` of the calls (the
    child also adds up the whole bill's totals)."""
    counts: dict[str, int] = {}
    for call in bill.calls:
        session = call.thread.session
        counts[session] = counts.get(session, 0) + 1
    mine: set[str] = set()
    held = 0
    for session, count in counts.items():
        if held >= len(bill.calls) * _HERE:
            break
        mine.add(session)
        held += count
    first: list[int] = []
    second: list[int] = []
    for number, call in enumerate(bill.calls, 1):
        (first if call.thread.session in mine else second).append(number)
    return first, second


def _sub_bill(bill: Bill, numbers: Sequence[int], lines: Sequence[Call]) -> Bill:
    """The bill of the calls numbered `numbers`, its usage lines `lines`."""
    return replace(
        bill,
        calls=tuple(bill.calls[number - 1] for number in numbers),
        _lines=tuple(lines),
        _priced={},
        _answers={},
        _read=bill._read,
        _placed=bill._placed,
        _origin=(),
    )


def _lines_cut(bill: Bill, numbers: Sequence[int]) -> tuple[list[Call], list[Call]]:
    """The bill's usage lines cut as its calls are: those of the sessions of the calls
    numbered `numbers`, and the others."""
    sessions = {bill.calls[number - 1].thread.session for number in numbers}
    theirs: list[Call] = []
    mine: list[Call] = []
    for line in bill._lines:
        (theirs if line.thread.session in sessions else mine).append(line)
    return mine, theirs


#: A whole bill's totals: its models, threads, tokens and cache-read share.
_Totals = tuple[tuple[str, ...], dict[str, int], dict[str, int], float]


def _totals(bill: Bill) -> _Totals:
    """The whole bill's totals (`Bill.models`, `threads`, `tokens`, `cache_read_share`)."""
    return bill.models, bill.threads, bill.tokens(), bill.cache_read_share


def _parts(
    bill: Bill, prices: Mapping[str, Price] | None
) -> tuple[list[tuple[_Part, Sequence[int]]], _Totals]:
    """Each part's figures with the numbers of its calls in `bill`, and the bill's totals:
    two parts on two cores for a large bill whose calls are in more than one session
    (the child adding up the totals too), else one part, worked out here."""
    whole = range(1, len(bill.calls) + 1)
    if len(bill.calls) < ASIDE_CALLS or not can_fork():
        return [(_part(bill, prices), whole)], _totals(bill)
    first, second = _cut(bill)
    if not first or not second:
        return [(_part(bill, prices), whole)], _totals(bill)
    lines, their_lines = _lines_cut(bill, second)
    with aside(
        lambda: (_part(_sub_bill(bill, second, their_lines), prices), _totals(bill))
    ) as pending:
        mine = _part(_sub_bill(bill, first, lines), prices)
        theirs, totals = pending.result()
    return [(mine, first), (theirs, second)], totals


def figures_of(bill: Bill, prices: Mapping[str, Price] | None = None) -> Figures:
    """The figures a report of `bill` shows, at `prices` (`PRICES` when None): worked out
    in two parts on two cores where the bill is large (`ASIDE_CALLS`), and equal to
    the bill's own methods' answers either way."""
    if not isinstance(bill, Bill):
        raise TypeError(f"bill must be a Bill, got {short_repr(bill)}")
    held = bill._answers.get(("figures", id(prices)))
    if held is not None and held[0] is prices:  # a bill read in parts: worked out as read
        found: Figures = held[1]
        return found
    with gc_paused():  # the costs, tariffs and figures made hold no cycles (`Bill._once`)
        parts, totals = _parts(bill, prices)
        return _figures(parts, totals, bill.skipped, bill.recorded_cost, bill.recorded_calls())


def _figures(
    parts: Sequence[tuple[_Part, Sequence[int]]],
    totals: _Totals,
    skipped: tuple[Skip, ...],
    recorded_cost: float | None,
    recorded_calls: int,
) -> Figures:
    """The figures of a bill whose calls are the parts' (each with the numbers its calls
    have in the bill), its totals `totals`."""
    models, threads, tokens, share = totals
    placed_rebuilds = sorted(
        (
            (numbers[r.call - 1], replace(r, call=numbers[r.call - 1]), time)
            for part, numbers in parts
            for r, time in zip(part.rebuilds, part.rebuild_times, strict=True)
        ),
        key=lambda placed: placed[0],
    )
    rebuilds = [rebuild for _, rebuild, _ in placed_rebuilds]
    placed = [(numbers[n - 1], life) for part, numbers in parts for n, life in part.lifetimes]
    lifetimes = [life for _, life in sorted(placed, key=lambda pair: pair[0])]
    firsts = sorted(
        ((numbers[n - 1], c, b, t) for part, numbers in parts for n, c, b, t in part.firsts),
        key=lambda first: first[0],
    )
    stagger = _stagger_saving([(c, b, t) for _, c, b, t in firsts])
    actual = _added([part.actual for part, _ in parts])
    no_caching = _added([part.no_caching for part, _ in parts])
    return Figures(
        calls=sum(part.calls for part, _ in parts),
        usage_lines=sum(part.usage_lines for part, _ in parts),
        models=models,
        unpriced_models=tuple(sorted({m for part, _ in parts for m in part.unpriced_models})),
        unpriced_calls=tuple(
            sorted(numbers[n - 1] for part, numbers in parts for n in part.unpriced)
        ),
        output_lower_bounds=tuple(
            sorted(numbers[n - 1] for part, numbers in parts for n in part.lower_bounds)
        ),
        threads=threads,
        tokens=tokens,
        cache_read_share=share,
        cost=_charges([part.charges for part, _ in parts]),
        every_line_cost=_charges([part.line_charges for part, _ in parts]),
        rebuilds=tuple(rebuilds),
        rebuild_times=tuple(time for _, _, time in placed_rebuilds),
        provider_reasons=_reasons([part.provider_reasons for part, _ in parts]),
        what_if=_what_if_of(actual, no_caching, lifetimes, rebuilds, stagger),
        lifetimes=tuple(lifetimes),
        skipped=skipped,
        recorded_cost=recorded_cost,
        recorded_calls=recorded_calls,
    )


def _added(sums: Sequence[_Exact]) -> float:
    """The parts' exact sums added: the exact sum of all their values, rounded once."""
    return fsum(term for pair in sums for term in pair)


def _charges(parts: Sequence[tuple[_Exact, ...]]) -> Cost:
    """The `Cost` whose charges are the parts' exact sums added, charge by charge."""
    return Cost(*(_added(charge) for charge in zip(*parts, strict=True)))


def _reasons(parts: Sequence[dict[str, int]]) -> dict[str, int]:
    """The parts' provider reasons counted together, most frequent first, then by name."""
    found: dict[str, int] = {}
    for reasons in parts:
        for reason, count in reasons.items():
            found[reason] = found.get(reason, 0) + count
    return dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))


def read_bill(
    path: str | PathLike[str] | Sequence[str | PathLike[str]],
    format: str = "auto",
    *,
    strict: bool = False,
    lazy: bool = False,
) -> Bill:
    """Read the recorded usage of saved sessions into a `Bill`.

    Args:
        path: a file, a Claude Code project folder (every `.jsonl` under it,
            `agent-*.jsonl` and `<session>/subagents/` included), or a list of
            them.
        format: one of `BILL_FORMATS`; `"auto"` tells each file's format from
            its first line (or its whole JSON for the one-object formats).
        strict: raise on the first file or line no reader can take, instead
            of leaving it out and naming it in `Bill.skipped`.
        lazy: where the files are read on two cores (a large Claude Code
            folder) in parts that share nothing, return the bill with its
            report's figures worked out and the child's calls left with it
            till something first asks for them (its calls, sessions or usage
            lines; `figures_of` never does), the child waiting meanwhile: what
            the command's summary gains from. By default every call is in the
            bill when it is returned, and no process is left running.

    Returns:
        A `Bill`, one `Call` per API call.

    Raises:
        ValueError: a missing path, nothing left to bill once the files and
            lines no reader can take are left out (a file in no known format,
            a format holding no call with usage, a line whose usage figure is
            malformed), or,
            with `strict`, any of those (the message names the file and line
            or index).
    """
    paths: list[str | PathLike[str]]
    if isinstance(path, str | PathLike):
        paths = [path]
    elif isinstance(path, Sequence) and path and all(isinstance(p, str | PathLike) for p in path):
        paths = list(path)
    elif isinstance(path, bytes | bytearray | memoryview):  # a sequence of ints, no list
        raise TypeError(f"path must be a str or a path object, got {path!r:.60}")
    elif isinstance(path, Sequence) and path:
        at, bad = next((k, p) for k, p in enumerate(path) if not isinstance(p, str | PathLike))
        raise TypeError(f"path must be a list of paths; item {at} is {short_repr(bad)}")
    else:
        raise TypeError(f"path must be a path or a non-empty list of paths, got {path!r:.60}")
    if not isinstance(format, str):
        raise TypeError(f"format must be a str, got {format!r}")
    if not isinstance(strict, bool):
        raise TypeError(f"strict must be True or False, got {short_repr(strict)}")
    if not isinstance(lazy, bool):
        raise TypeError(f"lazy must be True or False, got {short_repr(lazy)}")
    skipped: list[Skip] = []
    found = read_in_parts(paths, format, None if strict else skipped, _side)
    files = tuple(str(p) for p in paths)
    if isinstance(found, InParts):
        in_parts = _in_parts(found, files, skipped)
        if in_parts is None:
            return _bill_of(found.sessions(), files, skipped)
        if not lazy:
            _join(in_parts)
        return in_parts
    return _bill_of(found, files, skipped)


def _bill_of(sessions: list[Session], files: tuple[str, ...], skipped: list[Skip]) -> Bill:
    """The bill of the sessions read from `files`, each known to record a sound call.

    Raises:
        ValueError: no session, or one whose usage is not sound (`Session.billed`).
    """
    if not sessions:
        raise ValueError(skipped[0].reason if len(skipped) == 1 else _nothing(skipped))
    for session in sessions:
        try:
            session.billed()
        except ValueError as error:
            if str(error).startswith(tuple(f"{name}: " for name in session.files)):
                raise  # the file of the line at fault named already
            named = (
                session.files[0]
                if len(session.files) == 1
                else ", ".join(Path(name).name for name in session.files[:3])
            )
            raise ValueError(f"{named}: {error}") from None
    return _merge(sessions, files, skipped)


def _nothing(skipped: list[Skip]) -> str:
    """Why there is no bill: every file was skipped."""
    return f"nothing to bill: {summary(skipped)}" if skipped else "nothing to bill"


# ------------------------------------------------------------ a bill read in parts


@dataclass(frozen=True)
class _Side:
    """What one part of a bill's read gives, its sessions read alone (`_side`): its figures
    and totals, and what places its calls among the whole bill's.

    Attributes:
        part: its figures, its calls numbered within it.
        models, threads, totals: its `Bill.models`, `Bill.threads`, `Bill._totals`.
        firsts: the number (in the part) of each thread's first call, in `threads` order.
        times: the time each call is placed at (`_placed_times`: seconds, None for
            none), in the part's order.
        read: each call's index in the part's read (`Session.calls`), in the part's order.
        held: the index of the read from which its calls are `progress` calls held
            (`claude_code.Work`).
    """

    part: _Part
    models: tuple[str, ...]
    threads: dict[str, int]
    firsts: tuple[int, ...]
    totals: list[int]
    times: list[float | None]
    read: list[int]
    held: int


def _side(session: Session, held: int) -> _Side:
    """The figures of one part of a bill's read, its sessions read alone as `session`
    (`claude_code.Work`); ValueError where a bill of them is no part of the whole's as
    `figures_of` adds parts (a recorded cost: the whole bill is read and worked out)."""
    bill, order, placed = _merged([session.billed()], (), [])
    if bill.recorded_cost is not None or bill.recorded_tokens is not None:
        raise ValueError("a part that records its cost")
    threads = bill.threads
    firsts: dict[str, int] = {}
    for number, call in enumerate(bill.calls, 1):
        firsts.setdefault(call.thread.name, number)
    return _Side(
        _part(bill, None),
        bill.models,
        threads,
        tuple(firsts[name] for name in threads),
        bill._totals(),
        placed,
        order,
        held,
    )


def _numbers(sides: Sequence[_Side]) -> list[list[int]]:
    """For each part, the number (from 1) each of its calls has in the whole bill: in
    the order of the times they are placed at (`_Side.times`), ties and calls no time
    places in the order of the whole read, whose
    calls are the parts' read calls, then their held ones (`_Side.held`), part by part."""
    keys = [
        (time is None, time or 0.0, (0 if index < side.held else 2) + at, index, at, number)
        for at, side in enumerate(sides)
        for number, (time, index) in enumerate(zip(side.times, side.read, strict=True))
    ]
    keys.sort()  # each part's keys are in order already: two runs merged
    numbers = [[0] * len(side.times) for side in sides]
    for number, key in enumerate(keys, 1):
        numbers[key[4]][key[5]] = number
    return numbers


def _side_totals(sides: Sequence[_Side], numbers: list[list[int]]) -> _Totals:
    """The whole bill's totals (`_Totals`) from its parts'."""
    models = tuple(sorted({model for side in sides for model in side.models}))
    placed = sorted(
        (found[first - 1], name, calls)
        for side, found in zip(sides, numbers, strict=True)
        for (name, calls), first in zip(side.threads.items(), side.firsts, strict=True)
    )
    totals = [sum(column) for column in zip(*(side.totals for side in sides), strict=True)]
    read, prompt = totals[_READ], totals[-1]
    return (
        models,
        {name: calls for _, name, calls in placed},
        dict(zip(_KINDS, totals, strict=False)),
        read / prompt if prompt else 0.0,
    )


#: The fields of a bill read in parts (`_InParts`) filled in when first asked for.
_LATER = frozenset(
    ("calls", "recorded_cost", "recorded_tokens", "_sessions", "_lines", "_messages", "_origin")
)


class _InParts(Bill):
    """A bill read in parts (`read_bill`), its figures worked out as the parts were read:
    the whole read's calls, sessions and usage lines (`_LATER`) are joined when one of
    them is first asked for, and the bill is then a `Bill` like any other."""

    def __getattribute__(self, name: str) -> Any:
        if name in _LATER:
            _join(self)
        return object.__getattribute__(self, name)


def _join(bill: _InParts) -> None:
    """Fill in the fields a bill read in parts leaves for later, from the whole read."""
    whole: Bill = bill.__dict__["_later"]()  # should it raise, the next ask reads again
    for name in _LATER:
        object.__setattr__(bill, name, object.__getattribute__(whole, name))
    del bill.__dict__["_later"]
    object.__setattr__(bill, "__class__", Bill)  # no field left to fill in


def _in_parts(
    found: InParts[_Side], files: tuple[str, ...], skipped: list[Skip]
) -> _InParts | None:
    """The bill of a read in parts (`InParts`), its figures added up from the parts' and
    the rest read when first asked for; None where the parts share a thread's name
    (the whole bill is then read and worked out)."""
    sides = (found.mine, found.theirs)
    if not found.mine.threads.keys().isdisjoint(found.theirs.threads):
        return None
    numbers = _numbers(sides)
    parts = [(side.part, placed) for side, placed in zip(sides, numbers, strict=True)]
    figures = _figures(parts, _side_totals(sides, numbers), tuple(skipped), None, 0)
    bill = _InParts.__new__(_InParts)
    given = {"format": "claude-code", "files": files, "skipped": tuple(skipped)}
    for kept in fields(Bill):
        if kept.name in _LATER:
            continue
        value = given.get(kept.name, kept.default)
        if kept.default_factory is not MISSING:
            value = kept.default_factory()
        object.__setattr__(bill, kept.name, value)
    object.__setattr__(bill, "_later", lambda: _bill_of(found.sessions(), files, skipped))
    bill._keep_figures(None, figures)
    return bill

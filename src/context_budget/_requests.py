"""The request each call of a bill sent, rebuilt from the files and sized by its recorded usage.

A replay (`context_budget.replay`) sends every call's request again to a model
of the cache. The files keep messages, not requests, so this module puts each
request back together, block by block, and gives every block a size in tokens
such that the request adds up to the prompt the call's usage records (uncached
+ written + read): the one figure of a request the usage proves, whatever the
cache did with it.

Which messages a request held:

- Claude Code: the chain of lines the call's `parentUuid` names, walked back
  to its root (`Bill.places`), each content block of each line in order;
- one thread whose assistant messages match its calls one for one (a
  mini-swe-agent trajectory): call k's request is the conversation before the
  k-th assistant message, after the system prompt;
- any other file (a Codex rollout, OpenHands events): the file does not say,
  and a request is the previous one of its thread plus one block of what the
  prompt grew, or one block of the whole prompt where it shrank (sizes only).

Before the messages comes what no file keeps: the tool definitions and the
system prompt (`kind == "prefix"`). The threads of one folder that are of one
kind (main conversation, or sub-agent of one type) share it, as their agent sends them the
same one: its size is set by the first of them and its identity is its folder
and kind, so a thread can read it from the cache another thread wrote. A
thread whose first request starts with the first message of another thread's
request (Claude Code's compaction sub-agent, `agent-acompact-*`, whose chain
begins in the session it summarizes) goes on from that conversation and sends
that request's prefix.

Sizes. A block keeps the size it had when a request first carried it; the
blocks a request adds share what the prompt grew over the thread's previous
request, in proportion to their text (characters over four,
`estimate_tokens`); what no new block can hold becomes a `tail` block of that
request alone (text the file does not keep). The prefix is the thread's
first prompt less its messages, their text counted at the thread's own rate of
tokens per estimated token, which its growth from call to call measures.

Example: a thread whose calls record prompts of 12,000 and 12,500 tokens, the
second adding a tool result that estimates at 250 tokens: the rate is 2.0,
and the 400-token first message (estimate 200) leaves a prefix of 11,600.

What a read proves. A call's recorded read is a prefix of its request that
was in the provider's cache when it was sent, ending where a cache entry
ended. Where the first call that sets a prefix read some of it, the prefix
is sized by that read: the read is the prefix where the two are within
`_PREFIX_SLACK` of each other, else the prefix is cut in two blocks where
the read ends. And where a request's read covers blocks that no earlier
request of the bill sent within the recorded lifetime before it, by more than
the sizes' margin (`Request.warm`), a session outside the bill wrote them: a replay takes
them as written just before the request was sent. And where a call's read
falls short of what its thread's previous request left cached, within its
lifetime, on the same model (`Bill.rebuilds`, cause `prefix-changed`), while
the files show the request carrying the previous one whole, the start of the
request changed in a way no file keeps (the tools reconnected, say): from
where the read ends its blocks are keyed as new content. All three come from
the record's reads alone; what the cache then makes of each request is the
replay's own computation.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import marshal
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from pathlib import PurePath
from typing import Any

from context_budget._aside import aside, can_fork
from context_budget._blocks import request_block_text
from context_budget._json import canonical_json
from context_budget.sessions import Call, Place, Session, ThreadId
from context_budget.sessions.session import Places
from context_budget.sessions.text import epoch
from context_budget.tokens import estimate_tokens

__all__ = ["Block", "Request", "chained", "digest", "first_difference", "rebuild_requests"]

#: The range a thread's rate of tokens per estimated token is held to.
_RATES = (0.25, 8.0)


@dataclass(frozen=True)
class Block:
    """One block of a rebuilt request.

    Attributes:
        ident: where the block sits in the files (a line's id and the block's
            index, `m<message>#<block>`, or a made-up id for a block the files
            do not keep); one block, one ident, however many requests carry it.
        key: the digest of its role and content: the cache's key for it.
        role: `"system"`, `"user"` or `"assistant"`.
        kind: the block's type (`"text"`, `"tool_use"`, `"tool_result"`,
            `"thinking"`, ...), `"prefix"` for the tools and system prompt no
            file keeps, `"tail"` for text a request held that no file keeps.
        tokens: its size in tokens.
        tool: the tool a `tool_use` calls, or whose answer a `tool_result` is
            (`""` where unknown or for another kind).
        use_id: a `tool_use`'s id, or the one a `tool_result` answers.
        where: `file:line`, or `file message N` where the format has no lines.
        error: a `tool_result` the tool marked as an error.
    """

    ident: str
    key: str
    role: str
    kind: str
    tokens: int
    tool: str = ""
    use_id: str = ""
    where: str = ""
    error: bool = False


@dataclass(frozen=True)
class Request:
    """What one call of the bill sent.

    Attributes:
        call: the call's number in `Bill.calls`, from 1.
        sent: when the request was sent, seconds since the epoch: the time of
            the last line it carried, else the call's own time; None when the
            files keep no time.
        blocks: the prefix, then every message's blocks, in order.
        sized: False when the file does not say which messages the request
            held (sizes only: its blocks are opaque growth).
        summary: the tokens of the compaction summary the request starts from
            (a Claude Code `isCompactSummary` line), 0 when it has none.
        warm: how many of its leading blocks its recorded read proves were in
            the cache when it was sent, where no earlier request of the bill
            sent them within the recorded lifetime before it: a session outside
            the bill wrote them. 0 for most requests.
    """

    call: int
    sent: float | None
    blocks: tuple[Block, ...]
    sized: bool = True
    summary: int = 0
    warm: int = 0

    @property
    def tokens(self) -> int:
        """The request's prompt, in tokens."""
        return sum(block.tokens for block in self.blocks)


def digest(*parts: object) -> str:
    # subtle: a file may hold a lone surrogate (a tool result cut inside a pair): hashed as is
    text = canonical_json(list(parts)).encode("utf-8", "surrogatepass")
    return hashlib.sha256(text).hexdigest()[:20]


def chained(prefix: str, key: str) -> str:
    """The key of the prefix keyed `prefix` with one more block, keyed `key`: a digest of
    the two as `digest` makes one, without writing them as JSON (the replay makes one
    for every block it sends). The length of `prefix` goes first, so that no two pairs
    of keys give the same text."""
    return hashlib.sha256(f"{len(prefix)}:{prefix}{key}".encode()).hexdigest()[:20]


@dataclass(slots=True)
class _Seen:
    """One block before it is sized, read from its content once (the content is not kept):
    where it is, its role and type, its text's estimate in tokens (four characters
    each, at least 1), its key (the digest of its role and content, its
    `cache_control` left out), and what a tool block names (`_seen`)."""

    ident: str
    role: str
    where: str
    kind: str
    estimate: int
    key: str
    use_id: str  # a `tool_use`'s id, or the one a `tool_result` answers; "" for another
    name: str  # a `tool_use`'s tool; "" for another
    error: bool  # a `tool_result` the tool marked as an error


def _seen(ident: str, role: str, block: Mapping[str, Any], where: str) -> _Seen:
    """A block of a message as `_Seen` keeps it."""
    kind = str(block.get("type", "text"))
    use_id = block.get("id") if kind == "tool_use" else block.get("tool_use_id")
    unmarked = {k: v for k, v in block.items() if k != "cache_control"}
    return _Seen(
        ident,
        role,
        where,
        kind,
        max(1, estimate_tokens(request_block_text(block))),
        digest(role, unmarked),
        use_id if isinstance(use_id, str) else "",
        str(block.get("name", "")) if kind == "tool_use" else "",
        kind == "tool_result" and block.get("is_error") is True,
    )


@dataclass
class _Draft:
    """One call's request before sizing: its call, its time, its blocks (unsized)."""

    call: int
    thread: str
    prompt: int
    sent: float | None
    seen: list[_Seen] | None  # None: sizes only
    prefix: str  # the key of its thread's prefix
    summary: str | None = None  # the ident of the compaction summary it starts from
    shared: int = 0  # its first `shared` blocks are its thread's previous request's, in order
    read: int = 0  # the tokens its call's recorded usage read from the cache


def _content_blocks(content: Any) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, Mapping)]
    return []


@dataclass
class _Chains:
    """Each Claude Code thread's last request as a list of line ids, to extend the next one."""

    places: Mapping[str, Place]
    last: dict[str, tuple[list[str], dict[str, int]]] = field(default_factory=dict)

    def lines(self, thread: str, leaf: str | None) -> tuple[list[str], bool]:
        """The line ids `leaf`'s request carried, root first, and whether they extend the
        thread's previous request (its lines first, then new ones).

        Walks back only to the thread's previous request where it reaches it, and
        extends that request's list in place, so a thread of n calls costs n steps in
        all, not n squared.
        """
        previous, at = self.last.get(thread, ([], {}))
        walked: list[str] = []
        node, seen = leaf, set()
        while node is not None and node in self.places and node not in at and node not in seen:
            walked.append(node)
            seen.add(node)
            node = _parent(self.places, node)
        reached = at.get(node) if node is not None else None
        if reached is not None and reached == len(previous) - 1:  # a plain extension
            for ident in reversed(walked):
                at[ident] = len(previous)
                previous.append(ident)
            self.last[thread] = (previous, at)
            return previous, True
        found = (previous[: reached + 1] if reached is not None else []) + walked[::-1]
        self.last[thread] = (found, {ident: k for k, ident in enumerate(found)})
        return found, False


def _folder(call: Call) -> str:
    """The folder a call's session file sits in (a sub-agent file's session folder's)."""
    path = PurePath(call.file)
    parent = path.parent
    return str(parent.parent.parent if parent.name == "subagents" else parent)


def _prefix_key(call: Call) -> str:
    """Who sends the same tools and system prompt: one folder's main threads, or its
    sub-agents of one type (where the files name it)."""
    kind = f"sub-agent {call.thread.agent_type}" if call.sidechain else "main"
    return digest("prefix", _folder(call), kind)


def _claude_code(calls: Sequence[Call], places: Mapping[str, Place]) -> Iterator[_Draft]:
    chains = _Chains(places)
    keys: dict[tuple[str, bool, str], str] = {}  # (file, sidechain, type) -> `_prefix_key`
    lines = _read_lines(calls, places)  # line id -> what the requests take from it
    last: dict[str, tuple[int, list[_Seen], str | None]] = {}  # thread -> lines, blocks, summary
    for number, call in enumerate(calls, 1):
        if call.message is None or call.message not in places:
            yield _Draft(number, call.thread.name, call.prompt_tokens, call.timestamp, None, "")
            continue
        thread = call.thread.name
        found, extends = chains.lines(thread, call.message)
        before = last.get(thread) if extends else None
        start, seen, summary = (before[0], list(before[1]), before[2]) if before else (0, [], None)
        shared = len(seen)
        for line in found[start:]:
            held = lines.get(line)
            if held is None:  # each line read once, its blocks shared by every request
                held = lines[line] = _line(places, line)
            if held.summary:
                summary = f"{line}#0"
            seen += held.blocks
        last[thread] = (len(found), seen, summary)
        sent = _sent(lines[call.message].logged, call.timestamp)
        sender = (call.file, call.sidechain, call.thread.agent_type)
        key = keys.get(sender)
        if key is None:
            key = keys[sender] = _prefix_key(call)
        yield _Draft(number, thread, call.prompt_tokens, sent, seen, key, summary, shared)


@dataclass(slots=True)
class _Line:
    """What the requests that carry a line take from it: its message's blocks, whether it
    is a compaction summary, and when it was written (`Place`)."""

    blocks: list[_Seen]
    summary: bool
    logged: str | None


def _line(places: Mapping[str, Place], ident: str) -> _Line:
    """Line `ident` read (`Places.read`, its `Place` not kept), as the requests take it."""
    place = places.read(ident) if isinstance(places, Places) else places[ident]
    blocks = enumerate(_content_blocks(place.content))
    made = [_seen(f"{ident}#{n}", place.role, block, place.where) for n, block in blocks]
    return _Line(made, place.summary, place.logged)


#: How many lines a replay reads before it reads them on two cores (`_read_lines`): under
#: it, the child would cost about what it saves.
ASIDE_LINES = 20_000


def _carried(calls: Sequence[Call], places: Places) -> list[str]:
    """The id of every line the calls' requests carry: each call's message and its parents
    back to their root, each once, in the order first reached."""
    seen: set[str] = set()
    found = []
    for call in calls:
        node = call.message
        while node is not None and node not in seen and node in places:
            seen.add(node)
            found.append(node)
            node = places.parent(node)
    return found


def _read_lines(calls: Sequence[Call], places: Mapping[str, Place]) -> dict[str, _Line]:
    """The lines the calls' requests carry, read (`_line`) on two cores: a child reads the
    later half and sends them back as plain values while this process reads the rest.
    Empty where there are fewer than `ASIDE_LINES` lines or no child can be made: each
    line is then read when a request first reaches it."""
    if not isinstance(places, Places) or not can_fork():
        return {}
    wanted = _carried(calls, places)
    if len(wanted) < ASIDE_LINES:
        return {}
    half = len(wanted) // 2

    def later() -> bytes:
        return marshal.dumps([_line_row(_line(places, ident)) for ident in wanted[half:]])

    with aside(later) as pending:
        found = {ident: _line(places, ident) for ident in wanted[:half]}
        rows = marshal.loads(pending.result())
    found.update(zip(wanted[half:], map(_line_of_row, rows), strict=True))
    return found


def _line_row(line: _Line) -> tuple[Any, ...]:
    """A `_Line` as plain values (`marshal` writes them), each block's fields in order."""
    return ([_SEEN_FIELDS(seen) for seen in line.blocks], line.summary, line.logged)


#: A `_Seen`'s fields, in the order its class declares them.
_SEEN_FIELDS = attrgetter(*(f.name for f in fields(_Seen)))


def _line_of_row(row: tuple[Any, ...]) -> _Line:
    """The `_Line` that `_line_row` gave as `row`."""
    blocks, summary, logged = row
    return _Line([_Seen(*fields) for fields in blocks], summary, logged)


def _parent(places: Mapping[str, Place], ident: str) -> str | None:
    """The parent of message `ident`, no `Place` made where `places` keeps them apart."""
    return places.parent(ident) if isinstance(places, Places) else places[ident].parent


def _sent(logged: str | None, answered: float | None) -> float | None:
    """When a request was sent: its last line's time, never after the answer's.

    An answer logged more than `_LONGEST_WAIT` seconds after that line was not
    waiting on the model alone (the agent held the request back, or the line
    is not when it went out): the answer's own time is taken then, as the
    bill takes it.
    """
    try:
        sent = epoch(logged, "the request's last line")
    except ValueError:
        sent = None
    if sent is None or answered is None:
        return answered if sent is None else sent
    return sent if 0 <= answered - sent <= _LONGEST_WAIT else answered


#: The longest a response is taken to keep its request waiting, in seconds: the
#: shortest cache lifetime, past which the wait alone would decide a read.
_LONGEST_WAIT = 300.0


def _linear(session: Session, numbered: Sequence[tuple[int, Call]]) -> Iterator[_Draft]:
    """A one-thread session whose assistant messages match its calls one for one.

    A call's request holds the system prompt and the messages before its answer,
    from its segment's first (`Session.boundaries`, a Codex compaction's summary)
    on: a compaction starts the request anew, its summary first."""
    messages = session.layers.conversation
    name = PurePath(session.files[0]).name if session.files else ""
    # subtle: one file may hold several sessions (an evaluation output's instances), and
    # files of one name several folders: a block is named by its session's thread too
    own = f"{session.main}:{name}"
    head: list[_Seen] = []
    if session.layers.system:
        block = {"type": "text", "text": session.layers.system}
        head.append(_seen(f"{own}:system#0", "system", block, f"{name} system prompt".strip()))
    answers = [k for k, message in enumerate(messages) if message["role"] == "assistant"]
    seen: list[_Seen] = []
    upto = [0]  # message index -> how many blocks the messages before it hold
    for index, message in enumerate(messages):
        role = "user" if message["role"] == "tool" else str(message["role"])
        blocks = _content_blocks(message["content"])
        if message["role"] == "tool":  # an OpenAI tool message is one tool result
            blocks = [{"type": "tool_result", "content": message["content"]}]
        where = f"{name} message {index}".strip()
        for n, item in enumerate(blocks):
            seen.append(_seen(f"{own}:m{index}#{n}", role, item, where))
        upto.append(len(seen))
    firsts = sorted({boundary.index for boundary in session.boundaries})
    shared, segment = 0, 0
    for (number, call), stop in zip(numbered, answers, strict=True):
        first = max((index for index in firsts if index <= stop), default=0)
        if first != segment:  # a compaction: nothing of the last request is carried on
            shared, segment = 0, first
        request = head + seen[upto[first] : upto[stop]]
        time = call.timestamp
        yield _Draft(number, call.thread.name, call.prompt_tokens, time, request, "", None, shared)
        shared = len(request)


def _drafts(
    calls: Sequence[Call], sessions: Sequence[Session], places: Mapping[str, Place]
) -> list[_Draft]:
    """Every call's draft, in bill order: from `places`, else from the conversation of a
    one-thread session (read only then: `Session.with_messages`)."""
    drafts: dict[int, _Draft] = {}
    if places:
        for draft in _claude_code(calls, places):
            if draft.seen is not None:
                drafts[draft.call] = draft
    by_thread: dict[ThreadId, list[tuple[int, Call]]] = {}
    for number, call in enumerate(calls, 1):
        if number not in drafts:
            by_thread.setdefault(call.thread, []).append((number, call))
    for session in sessions if by_thread else ():
        numbered = by_thread.get(session.main, [])
        if not numbered or session.threads:
            continue  # its calls have drafts, or it holds other threads than its main
        session = session.with_messages()
        answers = sum(1 for m in session.layers.conversation if m["role"] == "assistant")
        if answers == len(numbered):
            for draft in _linear(session, numbered):
                drafts[draft.call] = draft
    return [
        drafts.get(number)
        or _Draft(number, call.thread.name, call.prompt_tokens, call.timestamp, None, "")
        for number, call in enumerate(calls, 1)
    ]


def _rates(drafts: Sequence[_Draft]) -> dict[str, float]:
    """Thread -> tokens per estimated token, from what its prompt grew call to call.

    Only a request that extends the one before it counts: its new blocks are
    what the prompt grew by.
    """
    grown: dict[str, list[int]] = {}
    last: dict[str, int] = {}  # thread -> its previous prompt
    everywhere = [0, 0]
    for draft in drafts:
        if draft.seen is None:
            continue
        before = last.get(draft.thread)
        last[draft.thread] = draft.prompt
        if before is None or not draft.shared:
            continue  # a first call, or a request that is not the last one grown
        new = sum(seen.estimate for seen in draft.seen[draft.shared :])
        grew = draft.prompt - before
        if new and grew > 0:
            sums = grown.setdefault(draft.thread, [0, 0])
            for pair in (sums, everywhere):
                pair[0] += grew
                pair[1] += new
    default = everywhere[0] / everywhere[1] if everywhere[1] else 1.0

    def held(rate: float) -> float:
        return min(max(rate, _RATES[0]), _RATES[1])

    return {thread: held(sums[0] / sums[1]) for thread, sums in grown.items()} | {"": held(default)}


def _shares(total: int, weights: Sequence[int]) -> list[int]:
    """`total` tokens split in proportion to `weights`, whole tokens adding up to `total`.

    Example: 10 over weights [1, 1, 2] -> [2, 3, 5] (largest remainders first, ties to
    the later block).
    """
    whole = sum(weights)
    if total <= 0 or whole <= 0:
        return [0] * len(weights)
    exact = [total * weight / whole for weight in weights]
    shares = [int(part) for part in exact]
    order = sorted(range(len(weights)), key=lambda k: (shares[k] - exact[k], -k))
    for k in order[: total - sum(shares)]:
        shares[k] += 1
    return shares


@dataclass
class _Sizer:
    """Gives each block its size the first time a request carries it (see the module)."""

    rates: Mapping[str, float]
    sized: dict[str, Block] = field(default_factory=dict)  # ident -> block
    #: prefix key -> the prefixes of that folder and kind so far, each one or two blocks
    prefixes: dict[str, list[tuple[Block, ...]]] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)  # tool_use id -> tool name
    last: dict[str, Request] = field(default_factory=dict)  # thread -> its last request
    #: thread -> (blocks it saw, its last request's blocks but a tail, their tokens)
    bases: dict[str, tuple[int, tuple[Block, ...], int]] = field(default_factory=dict)
    #: a request's first message block -> the prefix of the first request that began so
    starts: dict[str, tuple[Block, ...]] = field(default_factory=dict)

    def request(self, draft: _Draft) -> Request:
        found = self._opaque(draft) if draft.seen is None else self._sized(draft, draft.seen)
        self.last[draft.thread] = found
        return found

    def _sized(self, draft: _Draft, seen: list[_Seen]) -> Request:
        rate = self.rates.get(draft.thread, self.rates[""])
        base = self.bases.get(draft.thread)
        if base is not None and draft.shared and base[0] == draft.shared:
            held, known, rest = base[1], base[2], seen[draft.shared :]  # extends the last one
        else:
            held, known, rest = (), 0, seen
        new = [s for s in rest if s.ident not in self.sized]
        first = seen[0].ident if seen else None
        prefix = () if held else self._prefix(draft, rate, new, first)
        known += sum(self.sized[s.ident].tokens for s in rest if s.ident in self.sized)
        known += sum(block.tokens for block in prefix)
        room = draft.prompt - known
        for s, tokens in zip(new, _shares(room, [s.estimate for s in new]), strict=True):
            self.sized[s.ident] = self._block(s, tokens)
        start = held or prefix
        if first is not None and first not in self.starts:
            self.starts[first] = tuple(itertools.takewhile(lambda b: b.kind == "prefix", start))
        blocks = start + tuple(self.sized[s.ident] for s in rest)
        total = known + sum(self.sized[s.ident].tokens for s in new)
        self.bases[draft.thread] = (len(seen), blocks, total)
        left = draft.prompt - total
        if left > 0:
            ident = f"tail:{draft.call}"
            blocks += (Block(ident, digest("tail", draft.call), "user", "tail", left),)
        summary = self.sized[draft.summary].tokens if draft.summary in self.sized else 0
        return Request(draft.call, draft.sent, blocks, True, summary)

    def _prefix(
        self, draft: _Draft, rate: float, new: Sequence[_Seen], first: str | None
    ) -> tuple[Block, ...]:
        """The thread's prefix: its own so far; the prefix of the conversation it goes on
        from, where its first message is one another thread's request began with (a
        compaction sub-agent sends the conversation it summarizes, under that
        conversation's tools and system prompt); its folder and kind's, where the
        thread's first prompt fits it; else a new one, sized by what its call read
        (`_proven`)."""
        before = self.last.get(draft.thread)
        if before is not None and before.sized:
            return tuple(itertools.takewhile(lambda b: b.kind == "prefix", before.blocks))
        if first is not None and first in self.starts:
            return self.starts[first]
        messages = round(rate * sum(s.estimate for s in new))
        own = max(0, draft.prompt - messages)
        known = self.prefixes.setdefault(draft.prefix, [])
        for shared in known:  # the folder and kind's prefixes so far, the first set first
            tokens = sum(block.tokens for block in shared)
            if abs(tokens - own) <= _PREFIX_SLACK * tokens:
                return shared
        key = digest(draft.prefix, len(known))
        blocks = _proven(f"prefix:{draft.thread}", key, own, draft.read)
        known.append(blocks)
        return blocks

    def _block(self, seen: _Seen, tokens: int) -> Block:
        tool = seen.name
        if seen.kind == "tool_use":
            self.tools[seen.use_id] = tool
        elif seen.kind == "tool_result":  # the tool of the call it answers, sized before it
            tool = self.tools.get(seen.use_id, "")
        return Block(
            seen.ident,
            seen.key,
            seen.role,
            seen.kind,
            tokens,
            tool,
            seen.use_id,
            seen.where,
            seen.error,
        )

    def _opaque(self, draft: _Draft) -> Request:
        """Sizes only: the thread's last request and one block of growth, or one new block."""
        before = self.last.get(draft.thread)
        grew = draft.prompt - (before.tokens if before is not None else 0)
        start: tuple[Block, ...] = ()
        if before is not None and not before.sized and grew >= 0:
            start = before.blocks
        else:
            grew = draft.prompt
        ident = f"grew:{draft.call}"
        block = Block(ident, digest(ident, draft.thread), "user", "opaque", grew)
        return Request(draft.call, draft.sent, (*start, block), False)


#: How far (a share of its size) a thread's own estimate of its prefix may sit from
#: the prefix another thread of its folder and kind set, or from what its first call
#: read, and still be the same.
_PREFIX_SLACK = 0.05


def _proven(ident: str, key: str, own: int, read: int) -> tuple[Block, ...]:
    """A new prefix estimated at `own` tokens, whose first request read `read` of them.

    A read ends where a cache entry ended: within `_PREFIX_SLACK` of the
    estimate it is the prefix's end (the system prompt's breakpoint), and the
    prefix takes its size; short of that, the prefix is two blocks, cut where
    the read ends; past it, the read reaches into the messages and the prefix
    keeps its estimate.

    Examples: `own` 14,926, `read` 14,874 -> one block of 14,874; `own` 14,769,
    `read` 4,734 -> blocks of 4,734 and 10,035.
    """
    if read > 0 and abs(read - own) <= _PREFIX_SLACK * own:
        return (Block(ident, key, "system", "prefix", read),)
    if 0 < read < own:
        head = Block(f"{ident}:read", digest(key, "read"), "system", "prefix", read)
        return (head, Block(ident, digest(key, "rest"), "system", "prefix", own - read))
    return (Block(ident, key, "system", "prefix", own),)


@dataclass
class _Last:
    """A thread's latest request in the order requests were sent: the request, the
    prefix sums of its blocks' tokens, when it was sent."""

    request: Request
    sums: list[int]
    sent: float | None


def _within(before: float | None, after: float | None, seconds: float) -> bool:
    """Whether a request sent at `before` kept an entry alive for one sent at `after`."""
    return before is None or after is None or after - before <= seconds


def first_difference(old: Sequence[Block], new: Sequence[Block]) -> int:
    """How many leading blocks `old` and `new` share (compared in C, by halves)."""
    if type(old) is not type(new):  # subtle: a tuple never equals a list
        old, new = list(old), list(new)
    shortest = min(len(old), len(new))
    if old[:shortest] == new[:shortest]:
        return shortest
    low, high = 0, shortest  # old[:low] == new[:low], old[:high] != new[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if old[:middle] == new[:middle]:
            low = middle
        else:
            high = middle
    return low


def _warm_starts(
    requests: Sequence[Request], drafts: Sequence[_Draft], lifetimes: Sequence[float]
) -> list[Request]:
    """The requests, each with `warm` set where its read covers blocks the bill did not send.

    In the order the requests were sent: a request's read covers its first
    `whole` blocks (their tokens add up to at most the read); the blocks its
    thread's previous request, or another thread's latest request that starts
    alike, sent within `lifetimes` (seconds, per call) before it explain
    some; where the read covers more, by over `_PREFIX_SLACK` of the read (the
    sizes' own margin), a session outside the bill wrote them.
    Each thread's prefix sums are extended in place, so a thread of n calls
    costs the blocks it adds, not n squared.
    """
    found = list(requests)
    last: dict[str, _Last] = {}
    starting: dict[str, dict[str, _Last]] = {}  # a first block's key -> thread -> its latest
    order = sorted(
        range(len(requests)),
        key=lambda k: (requests[k].sent is None, requests[k].sent or 0.0, k),
    )
    for k in order:
        request, thread, read = requests[k], drafts[k].thread, drafts[k].read
        held = last.get(thread)
        shared = first_difference(held.request.blocks, request.blocks) if held is not None else 0
        sums = held.sums if held is not None else [0]
        del sums[shared + 1 :]
        for block in request.blocks[shared:]:
            sums.append(sums[-1] + block.tokens)
        if read > 0 and request.blocks:
            whole = bisect.bisect_right(sums, read) - 1
            explained = shared if held and _within(held.sent, request.sent, lifetimes[k]) else 0
            others = starting.get(request.blocks[0].key, {})
            for name, other in others.items():
                if explained >= whole:
                    break
                if name != thread and _within(other.sent, request.sent, lifetimes[k]):
                    along = first_difference(other.request.blocks, request.blocks)
                    explained = max(explained, along)
            unexplained = sums[whole] - sums[explained] if whole > explained else 0
            if unexplained > _PREFIX_SLACK * read:  # not the sizes' own estimate error
                found[k] = replace(request, warm=whole)
        now = _Last(request, sums, request.sent)
        last[thread] = now
        if request.blocks:
            starting.setdefault(request.blocks[0].key, {})[thread] = now
    return found


def _changed_starts(
    requests: Sequence[Request], drafts: Sequence[_Draft], changed: Collection[int]
) -> list[Request]:
    """The requests, with what the record proves changed given keys of its own.

    A call of `changed` (numbers in `Bill.calls`) read less than its thread's
    previous request left cached, within its lifetime, on the same model: the
    start of its request was not what the cache held. Where the files show
    the change (a message edited or rewound: the request does not carry the
    previous one whole), the blocks already say so. Where they show none
    (the tools reconnected, a block the files do not keep changed), the
    blocks from the first the recorded read does not cover wholly
    are another content than the same blocks sent before: each gets a new
    key, and keeps it in the thread's later requests, which carry the changed
    request on. In the order the requests were sent; a thread's keys are its
    own, so a shared prefix it changed stays as it was for the other threads.
    """
    found = list(requests)
    keys: dict[str, dict[str, str]] = {}  # thread -> block ident -> its key from then on
    made: dict[tuple[str, str], tuple[Block, Block]] = {}  # see `_keyed`
    last: dict[str, Request] = {}  # thread -> its latest request, keyed
    order = sorted(
        range(len(requests)),
        key=lambda k: (requests[k].sent is None, requests[k].sent or 0.0, k),
    )
    for k in order:
        thread = drafts[k].thread
        own = keys.setdefault(thread, {})
        request = found[k] = _keyed(requests[k], own, made)
        before = last.get(thread)
        if request.call in changed and before is not None:
            sums = list(itertools.accumulate(block.tokens for block in request.blocks))
            whole = bisect.bisect_right(sums, drafts[k].read)
            carried = [block for block in before.blocks if block.kind != "tail"]
            if whole < len(carried) <= first_difference(carried, request.blocks):
                for block in request.blocks[whole:]:
                    own[block.ident] = digest(block.key, "changed", request.call)
                request = found[k] = _keyed(request, own, made)
        last[thread] = request
    return found


def _keyed(
    request: Request, keys: Mapping[str, str], made: dict[tuple[str, str], tuple[Block, Block]]
) -> Request:
    """The request with each block whose ident `keys` names given that key.

    A thread's later requests carry the same blocks again: each block given a
    key is made once and kept in `made` ((ident, key) -> (the block, the block
    so keyed)), so that n requests of a thread make n blocks, not n squared.
    """
    if not keys:
        return request
    blocks = []
    for block in request.blocks:
        key = keys.get(block.ident)
        if key is not None:
            held = made.get((block.ident, key))
            if held is None or held[0] is not block:
                held = made[(block.ident, key)] = (block, replace(block, key=key))
            block = held[1]
        blocks.append(block)
    return replace(request, blocks=tuple(blocks))


def rebuild_requests(
    calls: Sequence[Call],
    sessions: Sequence[Session],
    places: Mapping[str, Place],
    lifetimes: Sequence[float] | None = None,
    changed: Collection[int] = (),
) -> list[Request]:
    """Every call's request, sized, in the calls' order (see the module).

    Args:
        calls: a bill's calls (`Bill.calls`), in its order.
        sessions: the sessions they were read from (`Bill.sessions_read`: a
            session's conversation is read only where a call's request is
            rebuilt from it, not from `places`).
        places: message id -> `Place` (`Bill.places`).
        lifetimes: for each call, the seconds a cache entry lived on its
            recorded model and thread (for `Request.warm`); 5 minutes each
            when None.
        changed: the numbers of the calls whose recorded read proves the start
            of their request changed (`Bill.rebuilds`, cause `prefix-changed`):
            from where that read ends, their blocks are keyed as new content.

    Returns:
        One `Request` per call; `Request.tokens` equals the call's recorded
        prompt, save where the blocks its earlier requests sized already
        hold more (then it holds that much more).
    """
    drafts = _drafts(calls, sessions, places)
    for draft, call in zip(drafts, calls, strict=True):
        draft.read = call.cache_read_input_tokens
    sizer = _Sizer(_rates(drafts))
    requests = [sizer.request(draft) for draft in drafts]
    if changed:
        requests = _changed_starts(requests, drafts, set(changed))
    seconds = [_FIVE_MINUTES] * len(calls) if lifetimes is None else list(lifetimes)
    return _warm_starts(requests, drafts, seconds)


_FIVE_MINUTES = 300.0

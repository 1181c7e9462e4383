"""Guarding the prefix: report, or refuse, a request that edits the middle of a history.

A prompt cache reuses only the part of a request that repeats the previous
one from its very first token, and some providers now refuse a history whose
earlier turns are not exactly as they were. `PrefixGuard` remembers the last
request's fingerprint (tools, system, one hash per message) and classifies
the next one:

- "first": nothing to compare with yet;
- "append": every earlier message is unchanged and new ones follow;
- "replaced": message 0 differs and no later message of the last request
  is kept: a new conversation (wholesale compaction);
- "edited": tools, system, or a message after the first changed, the
  history got shorter, or message 0 changed while a later message stayed,
  in its place or moved up (an old history with its head rewritten, or with
  its oldest turns dropped). `first_changed` names the first changed message
  and `lost_tokens` the previous prompt's tokens from there to its end, which
  a cache can no longer read.

A caller that knows whether it restarted says so (`restart=True` or
`restart=False`), and the guard takes its word instead of telling the two
apart: a loop that declares its restarts has every other change of message 0
reported as an edit.

Moving a `cache_control` marker is not an edit (markers are not hashed), and
a string content equals one text block. Server-side clearing leaves the
client's list as it was, so it appends. In strict mode an "edited" request
raises `MiddleEditError` and the guard keeps the last accepted fingerprint.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from context_budget._checks import check_message
from context_budget._counting import resolve_counter
from context_budget._values import as_count, short_repr
from context_budget.errors import MiddleEditError
from context_budget.messages import Message
from context_budget.tokens import TokenCounter

__all__ = ["PrefixGuard", "PrefixReport"]

APPEND = "append"
FIRST = "first"
REPLACED = "replaced"
EDITED = "edited"


@dataclass(frozen=True)
class PrefixReport:
    """What changed between two requests, as `PrefixGuard.check` sees it.

    Attributes:
        kind: `"first"`, `"append"`, `"replaced"` or `"edited"`.
        part: where the first change is: `"tools"`, `"system"` or
            `"messages"`; None for `"first"` and `"append"`.
        first_changed: the index of the first changed message (for a shorter
            history, its new length); None when no message changed.
        lost_tokens: tokens of the previous prompt from the first change to its
            end: the cached prefix the change throws away (0 for an append).

    Examples:
        >>> print(PrefixReport("edited", "messages", 3, 1200))
        edited at message 3: 1,200 cached tokens thrown away
    """

    kind: str
    part: str | None = None
    first_changed: int | None = None
    lost_tokens: int = 0

    @property
    def ok(self) -> bool:
        """True unless the request edited the history somewhere but its end."""
        return self.kind != EDITED

    def __str__(self) -> str:
        if self.kind in (FIRST, APPEND):
            return self.kind
        where = f"message {self.first_changed}" if self.part == "messages" else self.part
        return f"{self.kind} at {where}: {self.lost_tokens:,} cached tokens thrown away"


def _strip_markers(value: object) -> object:
    """`value` without any `cache_control`, a string content as one text block."""
    if isinstance(value, Mapping):
        out = {k: _strip_markers(v) for k, v in value.items() if k != "cache_control"}
        if isinstance(out.get("content"), str) and "role" in out:
            out["content"] = [{"type": "text", "text": out["content"]}]
        return out
    if isinstance(value, list):
        return [_strip_markers(v) for v in value]
    return value


def _fingerprint(value: object) -> str:
    # not canonical_json: ASCII escapes keep the text encodable even when a tool or
    # system block (which no message check covers) holds a lone surrogate
    text = json.dumps(_strip_markers(value), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class _Exact:
    """A number in a snapshot: equal only to a number that serializes the same.

    Plain `==` says `1 == True == 1.0` and `0.0 == -0.0`, yet each of these
    prints differently in a request, so a snapshot holds its numbers wrapped.
    """

    __slots__ = ("value",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, value: int | float) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self.value):
            return False
        return repr(other) == repr(self.value)


def _freeze(value: Any) -> Any:
    """A snapshot of JSON data: containers copied, strings shared, numbers wrapped."""
    if isinstance(value, dict):
        return {key: _freeze(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_freeze(item) for item in value]
    if type(value) in (int, float, bool):
        return _Exact(value)
    return value


def _thaw(value: Any) -> Any:
    """The JSON data a snapshot was taken of."""
    if isinstance(value, dict):
        return {key: _thaw(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_thaw(item) for item in value]
    return value.value if isinstance(value, _Exact) else value


class _Part:
    """One accepted part of a request (tools or system): its snapshot and fingerprint."""

    __slots__ = ("fingerprint", "snapshot")
    fingerprint: str
    snapshot: Any

    def __init__(self, value: Any, known: _Part | None = None) -> None:
        # subtle: equal to the last snapshot means the same fingerprint, with no hashing
        if known is not None and value == known.snapshot:
            self.snapshot, self.fingerprint = known.snapshot, known.fingerprint
        else:
            self.snapshot, self.fingerprint = _freeze(value), _fingerprint(value)


def _check_arguments(tools: object, restart: object, kept: object, changed: object) -> None:
    """Refuse, by name, an argument of `PrefixGuard.check` it could only misread."""
    if tools is not None:
        if not isinstance(tools, Sequence) or isinstance(tools, str | bytes):
            raise TypeError(f"tools must be a list of tool definitions, got {short_repr(tools)}")
        for index, tool in enumerate(tools):
            if not isinstance(tool, Mapping):
                raise TypeError(f"tools[{index}] must be a dict, got {short_repr(tool)}")
    if restart is not None and not isinstance(restart, bool):
        raise TypeError(f"restart must be True, False or None, got {short_repr(restart)}")
    as_count(kept, "kept")
    if not isinstance(changed, Collection) or not all(type(index) is int for index in changed):
        raise TypeError(f"changed must be message indexes, got {short_repr(changed)}")


def _common_prefix(messages: Sequence[Any], snapshots: list[Any], start: int) -> int:
    """How many leading messages equal the snapshots, the first `start` taken as equal."""
    size = min(len(messages), len(snapshots))
    if start >= size:
        return size
    if isinstance(messages, list) and messages[start:size] == snapshots[start:size]:
        return size  # subtle: the usual case, an append, found in one pass in C
    same = start
    while same < size and messages[same] == snapshots[same]:
        same += 1
    return same


class PrefixGuard:
    """Watches successive requests of one conversation for edits in the middle.

    Wire it in with one call per request, before the request is sent:
    `guard.check(messages, tools=tools, system=system)` (or
    `guard.check_request(kwargs)` with the `messages.create` arguments).

    Cost: each message is validated and hashed once, when the guard first
    sees it. Later requests compare their messages with the guard's own
    snapshot of the last accepted request (containers copied, strings shared,
    so an unchanged message compares in time proportional to its number of
    blocks, not its text), and only the messages from the first difference on
    are validated and hashed again. A run of n appends costs O(n) hashing in
    all, and the comparison is one pass in C per request. An in-place change
    to a message already checked is still seen: the snapshot is a copy.

    Args:
        strict: raise `MiddleEditError` on an `"edited"` request instead of
            only reporting it.
        counter: text -> tokens for `lost_tokens`; `estimate_tokens` when None.
            Tokens are counted per block as `PromptCache` counts them.

    Attributes:
        reports: every report so far, oldest first.

    Examples:
        >>> guard = PrefixGuard()
        >>> talk = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
        >>> guard.check(talk).kind, guard.check([*talk, {"role": "user", "content": "c"}]).kind
        ('first', 'append')
        >>> print(guard.check([talk[0], {"role": "assistant", "content": "B"}]))
        edited at message 1: 2 cached tokens thrown away
    """

    def __init__(self, *, strict: bool = False, counter: TokenCounter | None = None) -> None:
        if not isinstance(strict, bool):
            raise TypeError(f"strict must be True or False, got {short_repr(strict)}")
        if counter is not None:
            resolve_counter(counter)  # a counter that is no function is named now, not later
        self.strict = strict
        self._counter = counter
        # the last accepted request: tools, system, a snapshot and a hash per message
        self._tools: _Part | None = None
        self._system: _Part | None = None
        self._messages: list[Any] = []
        self._hashes: list[str] = []
        self.reports: list[PrefixReport] = []

    def _tokens(self, request: dict[str, Any]) -> int:
        from context_budget.cache import PromptCache  # subtle: cache.py is optional here

        return PromptCache("any", counter=self._counter, min_tokens=0).prompt_tokens(request)

    def _old(self, start: int) -> list[Any]:
        """The last accepted request's messages from `start` on, as sent."""
        return [_thaw(message) for message in self._messages[start:]]

    def check(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        system: str | Sequence[Mapping[str, Any]] | None = None,
        restart: bool | None = None,
        kept: int = 0,
        changed: Collection[int] = (),
    ) -> PrefixReport:
        """Compare this request with the last one accepted, and remember it.

        Args:
            messages: the history about to be sent.
            tools: the request's tool definitions, if any.
            system: the request's system prompt, if any.
            restart: whether the caller replaced the whole history (the
                restart after compaction). True: a changed message is
                reported as `"replaced"`, never `"edited"`, even when the new
                first message equals the old one (the same summary and
                notes). False: the caller did not restart, so any changed
                message is `"edited"`, message 0 included (a window that
                drops the oldest turns). None (the default): the guard tells
                the two apart itself, as the module docstring says. Tools and
                system are compared as always.
            kept: how many leading messages the caller vouches for: the very
                objects of the last accepted request, not changed in place
                since. They are not compared again, so a loop that only
                appends to its own history pays for what each request adds,
                not for the whole history. 0 (the default) compares every one.
            changed: the indices, among the `kept` leading messages, of those
                that may have changed in place since (a hook moved a marker on
                one, say): each is compared again on its own, and the rest are
                still taken as vouched for.

        Returns:
            A `PrefixReport`.

        Raises:
            TypeError, ValueError: a message is malformed (the error names it),
                or an argument is (tools not a list of dicts, `restart` not a
                bool or None, `kept` not an int >= 0, `changed` not indexes).
            MiddleEditError: in strict mode, when the report's kind is `"edited"`.
        """
        if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
            raise TypeError(f"messages must be a list of dicts, got {type(messages).__name__}")
        _check_arguments(tools, restart, kept, changed)
        kept, refreshed = self._recheck(messages, min(kept, len(self._messages)), changed)
        same = _common_prefix(messages, self._messages, kept)
        added = [messages[index] for index in range(same, len(messages))]
        for index, message in enumerate(added, start=same):
            check_message(message, index)
        if system is not None and not isinstance(system, str | Sequence):
            raise TypeError(f"system must be a str or a list of blocks, got {short_repr(system)}")
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) else system or []
        tools_part = _Part(list(tools or []), self._tools)
        system_part = _Part(list(blocks), self._system)
        hashes = [_fingerprint(message) for message in added]
        report = self._compare(tools_part, system_part, same, hashes, restart)
        if self.strict and not report.ok:
            raise MiddleEditError(f"refused, the history was {report}", report=report)
        self._tools, self._system = tools_part, system_part
        for index, snapshot in refreshed:
            self._messages[index] = snapshot
        del self._hashes[same:], self._messages[same:]
        self._hashes += hashes
        self._messages += [_freeze(message) for message in added]
        self.reports.append(report)
        return report

    def _recheck(
        self, messages: Sequence[Message], kept: int, changed: Collection[int]
    ) -> tuple[int, list[tuple[int, Any]]]:
        """The vouched-for prefix after comparing its `changed` messages again, and new snapshots.

        A changed message that hashes as before (a moved marker) keeps the
        prefix whole and gets a new snapshot; the first one that does not
        ends the prefix there.
        """
        refreshed: list[tuple[int, Any]] = []
        for index in sorted(index for index in changed if 0 <= index < kept):
            message = messages[index]
            if message == self._messages[index]:
                continue
            check_message(message, index)
            if _fingerprint(message) != self._hashes[index]:
                return index, refreshed
            refreshed.append((index, _freeze(message)))
        return kept, refreshed

    def check_request(
        self, request: Mapping[str, Any], *, restart: bool | None = None
    ) -> PrefixReport:
        """`check` with the keyword arguments of one `messages.create` call."""
        messages = request.get("messages")
        return self.check(
            [] if messages is None else messages,
            tools=request.get("tools"),
            system=request.get("system"),
            restart=restart,
        )

    def _compare(
        self, tools: _Part, system: _Part, same: int, hashes: list[str], restart: bool | None
    ) -> PrefixReport:
        """The report: messages `[:same]` are unchanged, `hashes` are those of the rest."""
        if self._tools is None or self._system is None:
            return PrefixReport(FIRST)
        if tools.fingerprint != self._tools.fingerprint:
            old = {"tools": _thaw(self._tools.snapshot), "messages": self._old(0)}
            old["system"] = _thaw(self._system.snapshot)
            return PrefixReport(EDITED, "tools", None, self._tokens(old))
        if system.fingerprint != self._system.fingerprint:
            old = {"system": _thaw(self._system.snapshot), "messages": self._old(0)}
            return PrefixReport(EDITED, "system", None, self._tokens(old))
        old_hashes = self._hashes
        # subtle: a message unequal to its snapshot may still hash the same (a moved marker)
        extra = 0
        while (
            same + extra < len(old_hashes)
            and extra < len(hashes)
            and hashes[extra] == old_hashes[same + extra]
        ):
            extra += 1
        same += extra
        if same == len(old_hashes):
            return PrefixReport(APPEND)
        lost = self._tokens({"messages": self._old(same)})
        if restart is None:
            restart = same == 0 and not _keeps_a_later_message(hashes, old_hashes)
        return PrefixReport(REPLACED if restart else EDITED, "messages", same, lost)


def _keeps_a_later_message(hashes: list[str], old_hashes: list[str]) -> bool:
    """Whether a history with a new message 0 still holds a later message of the old one.

    In its place or moved up: an old history with its head rewritten, or with its
    oldest turns dropped (a sliding window), is an edited history, not a new one.
    """
    return not set(old_hashes[1:]).isdisjoint(hashes)

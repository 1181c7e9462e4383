"""Copies of JSON data made once: a copy is reused until its original and it differ.

A loop that hands its messages to someone who may change them in place (a
request plan, a client keeping a log) needs copies, but copying a whole history
for every request makes a run of n requests cost n² message copies.
`Copies` keeps, for each original object, the copy it made; the next time it
is asked for the same object it checks, in one comparison done in C, that the
copy still equals the original, and makes a new copy only when it does not
(someone changed the copy, or the original, in place).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["Copies", "Snapshots"]


class Copies:
    """Deep copies of objects, each made once and made again only when it went stale.

    Examples:
        >>> copies = Copies()
        >>> message = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
        >>> first = copies.of([message])[0]
        >>> first is not message, copies.of([message])[0] is first
        (True, True)
        >>> first["content"][0]["cache_control"] = {"type": "ephemeral"}  # changed in place
        >>> copies.of([message])[0] == message
        True
    """

    def __init__(self) -> None:
        self._made: dict[int, tuple[Any, Any]] = {}  # id(original) -> (original, its copy)

    def of(self, originals: Iterable[Any]) -> list[Any]:
        """A list of copies of `originals`, in order (the list itself is always new)."""
        return [self.one(original) for original in originals]

    def one(self, original: Any) -> Any:
        """The copy of `original`: the one made before if it still equals it, else a new one."""
        made = self._made.get(id(original))
        if made is not None and made[0] is original and made[1] == original:
            return made[1]
        fresh = copy.deepcopy(original)
        self._made[id(original)] = (original, fresh)
        return fresh


class Snapshots:
    """Copies of requests as they were sent, sharing every message that did not change.

    A message is deep-copied the first time it is sent (`Copies`); a later
    request that sends the same message object, equal to its copy, shares that
    copy. So a log of n calls keeps each message once (plus n lists of
    references), not n copies of a growing history, and a message edited in
    place after it was sent is copied again for the requests that carry the edit.
    """

    def __init__(self) -> None:
        self._copies = Copies()

    def take(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """A copy of `request` that no later change to the caller's data can reach."""
        snapshot = {key: value for key, value in request.items() if key != "messages"}
        snapshot = copy.deepcopy(snapshot)  # the small fields: system, tools, settings
        messages = request.get("messages")
        if isinstance(messages, list | tuple):
            snapshot["messages"] = type(messages)(self._copies.of(messages))
        elif "messages" in request:
            snapshot["messages"] = copy.deepcopy(messages)
        return snapshot

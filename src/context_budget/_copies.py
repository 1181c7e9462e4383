"""Copies of JSON data made once, for whoever may change what it is given in place.

A loop that hands its messages to someone who may change them (a request
plan, a client keeping a log) needs copies, but copying a whole history for
every request makes a run of n requests cost n² message copies. Two ways to
make each copy once:

- `Copies` (the fakes' request logs) keeps, for each original object, the
  copy it made; asked again for the same object, it checks in one comparison
  done in C that the copy still equals the original, and copies again only
  when it does not. `Snapshots` logs whole requests that way.
- `WatchedCopies` (the loop's hooks) hands out copies whose dicts and lists
  report any change made to them, so it needs no comparison at all: a copy
  someone changed is made again, the others are reused as they are.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, SupportsIndex

__all__ = ["Copies", "Snapshots", "WatchedCopies"]


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


# ---------------------------------------------------------------- copies that report a change


class _WatchedDict(dict):  # type: ignore[type-arg]
    """A dict that reports any change to it before making it (a copy handed to a hook)."""

    __slots__ = ("_changed",)
    _changed: Callable[[], object]

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return {copy.deepcopy(k, memo): copy.deepcopy(v, memo) for k, v in self.items()}

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class _WatchedList(list):  # type: ignore[type-arg]
    """A list that reports any change to it before making it (a copy handed to a hook)."""

    __slots__ = ("_changed",)
    _changed: Callable[[], object]

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(item, memo) for item in self]

    def __copy__(self) -> list[Any]:
        return list(self)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        return (list, (list(self),))


def _reporting(base: type, name: str) -> Callable[..., Any]:
    method = getattr(base, name)

    def changing(self: Any, *args: Any, **kwargs: Any) -> Any:
        self._changed()
        return method(self, *args, **kwargs)

    changing.__name__ = name
    return changing


_DICT_CHANGES = (
    "__setitem__", "__delitem__", "__ior__", "clear", "pop", "popitem", "setdefault", "update",
)  # fmt: skip
_LIST_CHANGES = (
    "__setitem__", "__delitem__", "__iadd__", "__imul__", "append", "extend", "insert", "pop",
    "remove", "clear", "sort", "reverse",
)  # fmt: skip
for _name in _DICT_CHANGES:
    setattr(_WatchedDict, _name, _reporting(dict, _name))
for _name in _LIST_CHANGES:
    setattr(_WatchedList, _name, _reporting(list, _name))


def _watched(value: Any, changed: Callable[[], object]) -> Any:
    """A deep copy of JSON data whose dicts and lists call `changed` before any change."""
    if type(value) in (str, int, float, bool) or value is None:
        return value
    made: Any
    if isinstance(value, dict):
        made = _WatchedDict((key, _watched(item, changed)) for key, item in value.items())
    elif isinstance(value, list):
        made = _WatchedList(_watched(item, changed) for item in value)
    else:
        return copy.deepcopy(value)
    made._changed = changed
    return made


class WatchedCopies:
    """Copies of a list that grows, for a hook that may change what it gets in place.

    Each copy is made once, of dicts and lists that report a change to them:
    a copy someone changed is made again before it is handed out next time.
    The originals must be the last call's, with new ones after them, or a new
    list altogether (its first or last known object differs: then every copy
    is made again). Handing out copies of n originals costs one list copy in
    C plus a deep copy of what is new or was changed, so a run of requests
    that each add a message copies each message about once, not once a request.

    Examples:
        >>> copies = WatchedCopies()
        >>> history = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
        >>> first = copies.of(history)
        >>> first[0]["content"][0]["cache_control"] = {"type": "ephemeral"}  # a hook marks it
        >>> copies.of(history) == history, copies.of(history)[0] is copies.of(history)[0]
        (True, True)
    """

    def __init__(self) -> None:
        self._originals: list[Any] = []
        self._copies: list[Any] = []
        self._changed: set[int] = set()

    def of(self, originals: Sequence[Any]) -> list[Any]:
        """A new list of copies of `originals`, in order, none of which anyone has changed."""
        known = len(self._originals)
        if known and not self._grown(originals, known):
            self._originals, self._copies, self._changed = [], [], set()
            known = 0
        for index in sorted(self._changed):
            self._copies[index] = self._copy(originals[index], index)
        self._changed.clear()
        for index in range(known, len(originals)):
            self._originals.append(originals[index])
            self._copies.append(self._copy(originals[index], index))
        return list(self._copies)

    def _grown(self, originals: Sequence[Any], known: int) -> bool:
        """Whether `originals` is the last list, grown: the same objects at its ends."""
        # subtle: the ends only; a list that grows, or is replaced whole, is all a loop makes
        return (
            len(originals) >= known
            and originals[0] is self._originals[0]
            and originals[known - 1] is self._originals[known - 1]
        )

    def _copy(self, original: Any, index: int) -> Any:
        return _watched(original, functools.partial(self._changed.add, index))

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

The loop's own history is a `History`: a list that keeps its own watched
copy of every message put in it and notes the lowest position any change
reached, in a message or in the list, so the loop knows what it must copy
and check again without comparing what did not change.
"""

from __future__ import annotations

import copy
import functools
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, SupportsIndex

__all__ = ["Copies", "History", "Snapshots", "WatchedCopies"]


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


class _PlainList(list):  # type: ignore[type-arg]
    """A list of its own kind that is a plain list once copied or pickled."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(item, memo) for item in self]

    def __copy__(self) -> list[Any]:
        return list(self)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        return (list, (list(self),))


class _WatchedList(_PlainList):
    """A list that reports any change to it before making it (a copy handed to a hook)."""

    __slots__ = ("_changed",)
    _changed: Callable[[], object]


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


class _OwnedDict(_WatchedDict):
    """A watched dict that also keeps its own watched copy of whatever is put in it."""

    __slots__ = ()

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, _watched(value, self._changed, owned=True))

    def update(self, *args: Any, **kwargs: Any) -> None:
        given = dict(*args, **kwargs)
        super().update({key: _watched(v, self._changed, owned=True) for key, v in given.items()})

    def setdefault(self, key: Any, default: Any = None) -> Any:
        return super().setdefault(key, _watched(default, self._changed, owned=True))

    def __ior__(self, other: Any) -> _OwnedDict:  # type: ignore[misc]
        self.update(other)
        return self


class _OwnedList(_WatchedList):
    """A watched list that also keeps its own watched copy of whatever is put in it."""

    __slots__ = ()

    def _own(self, items: Iterable[Any]) -> list[Any]:
        return [_watched(item, self._changed, owned=True) for item in items]

    def __setitem__(self, key: Any, value: Any) -> None:
        made = self._own(value) if isinstance(key, slice) else self._own([value])[0]
        super().__setitem__(key, made)

    def append(self, item: Any) -> None:
        super().append(self._own([item])[0])

    def extend(self, items: Iterable[Any]) -> None:
        super().extend(self._own(items))

    def insert(self, index: SupportsIndex, item: Any) -> None:
        super().insert(index, self._own([item])[0])

    def __iadd__(self, items: Iterable[Any]) -> _OwnedList:  # type: ignore[misc]
        self.extend(items)
        return self


def _watched(value: Any, changed: Callable[[], object], *, owned: bool = False) -> Any:
    """A deep copy of JSON data whose dicts and lists call `changed` before any change.

    `owned`: its dicts and lists also copy whatever is later put in them, so
    no outside reference reaches inside (a `History`'s messages).
    """
    if type(value) in _PLAIN:
        return value
    made: Any
    if isinstance(value, dict):
        made = (_OwnedDict if owned else _WatchedDict)(
            {
                key: item if type(item) in _PLAIN else _watched(item, changed, owned=owned)
                for key, item in value.items()
            }
        )
    elif isinstance(value, list):
        made = (_OwnedList if owned else _WatchedList)(
            [
                item if type(item) in _PLAIN else _watched(item, changed, owned=owned)
                for item in value
            ]
        )
    else:
        return copy.deepcopy(value)
    made._changed = changed
    return made


#: The types a copy shares instead of copying: they cannot change.
_PLAIN = frozenset({str, int, float, bool, type(None)})


class _IndexedList(_PlainList):
    """A list that reports, after each change to it, the lowest index the change reached.

    An append reports the old length (nothing before it moved). `_adopt`
    makes what a change puts in the list (a subclass may copy it); copied or
    pickled, it is a plain list. Made by anyone else (`type(x)(...)`), it
    reports to no one.
    """

    def _report(self, index: int) -> object:
        return None

    def _adopt(self, items: Iterable[Any]) -> list[Any]:
        return list(items)

    def _changed_from(self, index: int) -> None:
        self._report(index)

    def __setitem__(self, key: Any, value: Any) -> None:
        lowest = _lowest(key, len(self))
        super().__setitem__(key, self._adopt(value) if isinstance(key, slice) else self._one(value))
        self._changed_from(lowest)

    def __delitem__(self, key: Any) -> None:
        lowest = _lowest(key, len(self))
        super().__delitem__(key)
        self._changed_from(lowest)

    def __iadd__(self, items: Iterable[Any]) -> _IndexedList:  # type: ignore[misc]
        self.extend(items)
        return self

    def __imul__(self, times: SupportsIndex) -> _IndexedList:
        items = list(self) * times
        super().clear()
        super().extend(self._adopt(items))
        self._changed_from(0)
        return self

    def append(self, item: Any) -> None:
        end = len(self)
        super().append(self._one(item))
        self._changed_from(end)

    def extend(self, items: Iterable[Any]) -> None:
        end = len(self)
        super().extend(self._adopt(items))
        self._changed_from(end)

    def insert(self, index: SupportsIndex, item: Any) -> None:
        size = len(self)
        at = operator.index(index)
        at = max(0, at + size) if at < 0 else min(at, size)
        super().insert(at, self._one(item))
        self._changed_from(at)

    def pop(self, index: SupportsIndex = -1) -> Any:
        lowest = _lowest(index, len(self))
        item = super().pop(index)
        self._changed_from(lowest)
        return item

    def remove(self, item: Any) -> None:
        self.__delitem__(self.index(item))

    def clear(self) -> None:
        super().clear()
        self._changed_from(0)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        super().sort(*args, **kwargs)
        self._changed_from(0)

    def reverse(self) -> None:
        super().reverse()
        self._changed_from(0)

    def _one(self, item: Any) -> Any:
        return self._adopt([item])[0]


def _lowest(key: Any, size: int) -> int:
    """The lowest index an index or a slice of a list of `size` items reaches (clamped)."""
    if isinstance(key, slice):
        span = range(*key.indices(size))
        return min(span[0], span[-1]) if span else min(span.start, size)
    at = operator.index(key)
    return min(max(0, at + size if at < 0 else at), size)


class _Slot:
    """Where one message of a `History` stands: a change anywhere inside it reports here."""

    __slots__ = ("history", "index")

    def __init__(self, history: History, index: int) -> None:
        self.history, self.index = history, index

    def __call__(self) -> None:
        self.history._touch(self.index)


class History(_IndexedList):
    """A list of messages that keeps its own copies and notes where it last changed.

    Whatever is put in it is deep-copied once, as dicts and lists that report
    a change to them, so a caller who keeps a reference to what it added
    cannot change the history behind its back, and a change made through the
    history itself (`history[3]["content"] = ...`, `history.insert(0, ...)`)
    is noted: for each reader named when it is made, `changed_since(reader)`
    gives the lowest position any change reached since that reader last
    asked. Appends are noted too, at the old length: nothing before moved.

    Examples:
        >>> history = History([{"role": "user", "content": "hi"}], readers=("guard",))
        >>> history.changed_since("guard")
        0
        >>> history.append({"role": "assistant", "content": "hello"})
        >>> history.changed_since("guard"), history.changed_since("guard")
        (1, None)
        >>> history[0]["content"] = "hi there"
        >>> history.changed_since("guard")
        0
    """

    def __init__(self, items: Iterable[Any] = (), *, readers: Sequence[str] = ()) -> None:
        self._readers = tuple(readers)
        self._marks: dict[str, int] = {}
        super().__init__()
        self.extend(items)
        self._marks = dict.fromkeys(self._readers, 0)

    def changed_since(self, reader: str) -> int | None:
        """The lowest position changed since `reader` last asked (None: nothing changed)."""
        return self._marks.pop(reader, None)

    def _touch(self, index: int) -> None:
        marks = self._marks
        for reader in self._readers:
            if marks.get(reader, index) >= index:
                marks[reader] = index

    def _adopt(self, items: Iterable[Any]) -> list[Any]:
        return [_watched(item, _Slot(self, 0), owned=True) for item in items]

    def _changed_from(self, index: int) -> None:
        for at in range(index, len(self)):  # subtle: what moved reports its new place
            slot = getattr(self[at], "_changed", None)
            if isinstance(slot, _Slot):
                slot.index = at
        self._touch(index)

    def append(self, item: Any) -> None:  # the loop's own steps, kept short
        end = len(self)
        list.append(self, _watched(item, _Slot(self, end), owned=True))
        self._touch(end)

    def extend(self, items: Iterable[Any]) -> None:
        end = len(self)
        made = [_watched(item, _Slot(self, at), owned=True) for at, item in enumerate(items, end)]
        list.extend(self, made)
        self._touch(end)


class WatchedCopies:
    """Copies of a list that grows, for a hook that may change what it gets in place.

    Each copy is made once, of dicts and lists that report a change to them:
    a copy someone changed is made again before it is handed out next time.
    The originals must be the last call's, with new ones after them (the
    caller names the first original changed since, if any), or a new list
    altogether (its first or last known object differs: then every copy is
    made again). Handing out copies of n originals costs one list copy in C
    plus a deep copy of what is new or was changed, so a run of requests that
    each add a message copies each message about once, not once a request.

    `unchanged(sent)` then says how much of what the hooks returned a guard
    need not compare again: how many leading items are the copies handed out
    the time before, in their places, and which of those were changed in
    place since (they alone are compared again).

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
        self._handed: _IndexedList | None = None  # the list the last `of` handed out
        self._moved = 0  # the lowest index a change to that list reached (its length if none)
        self._reused = 0  # its leading places whose copy the call before had handed out there
        self._fresh: set[int] = set()  # places below that whose copy was made again
        self._kept = 0  # leading items of what the hooks returned last that were those copies

    def of(self, originals: Sequence[Any], *, changed_from: int | None = None) -> list[Any]:
        """A new list of copies of `originals`, in order, none of which anyone has changed.

        `changed_from` is the first original that may have changed since the
        last call (None: none did); it and every one after it are copied again.
        """
        known = len(self._originals)
        if known and not self._grown(originals, known):
            changed_from = 0
        if changed_from is not None and changed_from < known:
            del self._originals[changed_from:], self._copies[changed_from:]
            self._changed = {index for index in self._changed if index < changed_from}
            known = changed_from
        self._reused, self._fresh = known, set(self._changed)
        for index in sorted(self._changed):
            self._copies[index] = self._copy(originals[index], index)
        self._changed.clear()
        for index in range(known, len(originals)):
            self._originals.append(originals[index])
            self._copies.append(self._copy(originals[index], index))
        handed = _IndexedList(self._copies)
        handed._report = self._note_move  # type: ignore[method-assign]
        self._handed, self._moved = handed, len(handed)
        return handed

    def unchanged(self, sent: object) -> tuple[int, list[int]]:
        """(how many leading items of `sent` went out the time before, which of them changed).

        `sent` is what the hooks returned for the list the last `of` handed
        out. Its leading items count while they stand where the copies were
        handed out, by this call and the one before, and where the hooks put
        them the time before. Of those, the changed ones are the copies made
        again by this call (someone changed the old one) and the copies
        changed since they were handed out (by the hooks, just now). A new
        list, not the one handed out, counts none.
        """
        if sent is not self._handed:
            self._kept = 0
            return 0, []
        placed = self._moved  # the copies stand where they were handed out, up to here
        kept = min(self._kept, self._reused, placed)
        self._kept = placed
        return kept, sorted(index for index in self._fresh | self._changed if index < kept)

    def _note_move(self, index: int) -> None:
        self._moved = min(self._moved, index)

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

"""The loop's own history list: its copies, and where it says it last changed.

`History` (in `_copies`) is what `AgentLoop.messages` is. Whatever a caller
does to it, through the list or inside a message, it must hold the same data a
plain list would, share nothing mutable with what it was given, and name as
changed a position no later than the first one that really changed: the loop
copies and checks again from there, and trusts everything before it.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from context_budget._copies import History

Message = dict[str, Any]


def _message(number: int) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": f"m{number}", "meta": {}}]}


def _first_difference(before: list[Any], after: list[Any]) -> int | None:
    """The first position where two lists differ (a shorter one differs at its end)."""
    for index, (old, new) in enumerate(zip(before, after, strict=False)):
        if old != new:
            return index
    return None if len(before) == len(after) else min(len(before), len(after))


#: What a caller may do to the list: name -> (history or plain list, a number) -> None.
LIST_CHANGES: dict[str, Callable[[list[Any], int], None]] = {
    "append": lambda h, n: h.append(_message(n)),
    "extend": lambda h, n: h.extend([_message(n), _message(n + 1)]),
    "+=": lambda h, n: h.__iadd__([_message(n)]),
    "insert": lambda h, n: h.insert(n % (len(h) + 1) - 1, _message(n)),
    "set": lambda h, n: h.__setitem__(n % len(h), _message(n)) if h else None,
    "set a slice": lambda h, n: h.__setitem__(slice(n % 3, n % 3 + 1), [_message(n)] * 2),
    "delete": lambda h, n: h.__delitem__(n % len(h)) if h else None,
    "delete a slice": lambda h, n: h.__delitem__(slice(n % 4, None, 2)),
    "pop": lambda h, n: h.pop(-1 - n % len(h)) if h else None,
    "remove": lambda h, n: h.remove(h[n % len(h)]) if h else None,
    "reverse": lambda h, n: h.reverse(),
    "sort": lambda h, n: h.sort(key=lambda m: json.dumps(m, sort_keys=True)),
    "*=": lambda h, n: h.__imul__(1 + n % 2),
    "clear": lambda h, n: h.clear() if n % 7 == 0 else None,
}


def _meta(message: Message) -> dict[str, Any]:
    """The first block's `meta` dict, made again if a change dropped it."""
    meta: dict[str, Any] = message["content"][0].setdefault("meta", {})
    return meta


#: What a caller may do inside a message: name -> (the message, a number) -> None.
INNER_CHANGES: dict[str, Callable[[Message, int], None]] = {
    "text": lambda m, n: m["content"][0].__setitem__("text", f"changed {n}"),
    "update": lambda m, n: _meta(m).update(n=n),
    "setdefault": lambda m, n: _meta(m).setdefault(f"k{n}", [n]),
    "|=": lambda m, n: _meta(m).__ior__({"x": {"y": n}}),
    "append a block": lambda m, n: m["content"].append({"type": "text", "text": str(n)}),
    "insert a block": lambda m, n: m["content"].insert(0, {"type": "text", "text": str(n)}),
    "extend the blocks": lambda m, n: m["content"].extend([{"type": "text", "text": "e"}]),
    "+= blocks": lambda m, n: m["content"].__iadd__([{"type": "text", "text": "i"}]),
    "set a block": lambda m, n: m["content"].__setitem__(0, {"type": "text", "text": "s"}),
    "set blocks": lambda m, n: m["content"].__setitem__(slice(0, 1), [{"type": "text"}]),
    "drop a key": lambda m, n: m["content"][0].pop("meta", None),
}

steps = st.lists(
    st.one_of(
        st.tuples(st.just("list"), st.sampled_from(sorted(LIST_CHANGES)), st.integers(0, 50)),
        st.tuples(st.just("inner"), st.sampled_from(sorted(INNER_CHANGES)), st.integers(0, 50)),
    ),
    max_size=25,
)


@given(st.integers(0, 6), steps)
def test_property_the_history_names_no_change_later_than_the_first_one(
    size: int, changes: list[tuple[str, str, int]]
) -> None:
    given_messages = [_message(n) for n in range(size)]
    history = History(given_messages, readers=("check",))
    plain = copy.deepcopy(given_messages)
    assert history.changed_since("check") == 0
    for where, name, number in changes:
        before = copy.deepcopy(plain)
        if where == "list":
            LIST_CHANGES[name](history, number)
            LIST_CHANGES[name](plain, number)
            plain = json.loads(json.dumps(plain))  # the history's items are its own, none shared
        elif plain and isinstance(plain[number % len(plain)].get("content"), list):
            at = number % len(plain)
            if plain[at]["content"] and isinstance(plain[at]["content"][0], dict):
                INNER_CHANGES[name](history[at], number)
                INNER_CHANGES[name](plain[at], number)
        assert list(history) == plain
        changed = history.changed_since("check")
        first = _first_difference(before, plain)
        if first is not None:
            assert changed is not None and changed <= first
    assert given_messages == [_message(n) for n in range(size)]  # what was given is untouched


@given(st.sampled_from(sorted(INNER_CHANGES)), st.integers(0, 50))
def test_property_what_a_caller_put_in_stays_the_history_s_own(name: str, number: int) -> None:
    """A block added to a message is copied: changing the caller's object later changes nothing."""
    history = History([_message(0), _message(1)], readers=("check",))
    history.changed_since("check")
    block = {"type": "text", "text": "mine", "meta": {"k": [1]}}
    history[1]["content"].append(block)
    assert history.changed_since("check") == 1
    block["meta"]["k"].append(2)
    block["text"] = "changed behind its back"
    assert history[1]["content"][-1] == {"type": "text", "text": "mine", "meta": {"k": [1]}}
    assert history.changed_since("check") is None
    INNER_CHANGES[name](history[1], number)
    assert history.changed_since("check") == 1


def test_a_message_that_moved_reports_its_new_place() -> None:
    history = History([_message(n) for n in range(4)], readers=("check",))
    del history[0]
    history.insert(2, _message(9))
    history.changed_since("check")
    history[3]["content"][0]["text"] = "x"  # was at 2 when it came, at 3 now
    assert history.changed_since("check") == 3


def test_each_reader_hears_of_each_change_once() -> None:
    history = History([_message(0)], readers=("copies", "guard"))
    assert (history.changed_since("copies"), history.changed_since("guard")) == (0, 0)
    history[0]["content"][0]["text"] = "x"
    assert history.changed_since("copies") == 0
    history.append(_message(1))
    assert (history.changed_since("copies"), history.changed_since("guard")) == (1, 0)


def test_a_history_copies_and_pickles_as_plain_data() -> None:
    history = History([_message(0)])
    for made in (copy.deepcopy(history), copy.copy(history), pickle.loads(pickle.dumps(history))):
        assert type(made) is list and made == [_message(0)]
    assert type(copy.deepcopy(history)[0]) is dict


def test_a_list_the_copies_hand_out_made_again_by_someone_else_reports_to_no_one() -> None:
    from context_budget._copies import WatchedCopies

    handed = WatchedCopies().of([_message(0)])
    remade = type(handed)(handed)  # as a client's log copies what it is sent
    remade.append(_message(1))
    assert remade == [_message(0), _message(1)] and len(handed) == 1


def test_a_value_that_is_no_json_is_copied_whole() -> None:
    history = History([{"role": "user", "content": "a", "when": (1, 2)}])
    assert history[0]["when"] == (1, 2)

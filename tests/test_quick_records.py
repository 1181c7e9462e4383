"""The quick constructors a bill uses are the records `__init__` makes, field for field,
and the usual usage dict is read in one step to what the full reader gives."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, make_dataclass, replace
from fractions import Fraction
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from context_budget.pricing import Cost, _made
from context_budget.sessions.session import Call, ThreadId
from context_budget.usage import MOST_TOKENS, Usage, _anthropic, _fast


def _same(quick: object, made: object) -> None:
    """Equal, the same type, every field set to a value of the same type, and (a record
    kept in a dict) the same fields in the same order in the instance."""
    assert type(quick) is type(made)
    assert quick == made
    assert _state(quick) == _state(made)
    if hasattr(made, "__dict__"):
        assert list(vars(quick)) == list(vars(made))
    assert hash(quick) == hash(made)


def _state(record: Any) -> list[tuple[str, type, object]]:
    """Each field of a dataclass instance, its value's type and its value (an unset slot
    raises)."""
    return [(f.name, type(v), v) for f in fields(record) for v in [getattr(record, f.name)]]


def test_a_quick_usage_is_the_usage_init_makes() -> None:
    values = (1, 2, 9, 4, 5, 3, "fast", "us", 7, (Usage(1, 1),), 1)
    _same(Usage.sound(*values), Usage(*values))


def test_a_quick_cost_is_the_cost_init_makes() -> None:
    _same(_made(0.1, 0.2, 0.3, 0.4, 0.5, 0.6), Cost(0.1, 0.2, 0.3, 0.4, 0.5, 0.6))
    _same(_made(0.1, 0.2, 0.3, 0.4), Cost(0.1, 0.2, 0.3, 0.4))


def test_a_quick_call_is_the_call_init_makes_every_field_set() -> None:
    """Every field away from its default, so a field added to `Call` and missed fails."""
    values = {
        "thread": ThreadId("s", "agent", agent="a", agent_type="Explore"),
        "timestamp": 5.0,
        "model": "claude-sonnet-4-5",
        "usage": Usage(1, 2, 3, 4, 3, 0),
        "sidechain": True,
        "segment": 2,
        "recorded_cost": 0.5,
        "message": "m",
        "file": "f.jsonl",
        "project": "/p",
        "provider_reason": "system_changed",
        "output_lower_bound": True,
    }
    assert [f.name for f in fields(Call)] == list(values)
    _same(Call.sound(*values.values()), Call(**values))


def test_a_call_moved_to_a_thread_is_the_call_replace_makes() -> None:
    """Every field away from its default, so a field `on_thread` forgets fails."""
    thread = ThreadId("s", "agent", agent="a")
    values = (thread, 5.0, "m", Usage(1, 2, 3, 4, 3, 0), True, 2, 0.5, "msg", "f", "/p", "x", True)
    call = Call(*values)
    typed = ThreadId("s", "agent", agent="a", agent_type="Explore")
    _same(call.on_thread(typed), replace(call, thread=typed))
    assert call.thread is thread  # the call itself is left as it was


def test_a_call_of_a_subclass_keeps_its_class_and_fields_on_another_thread() -> None:
    @dataclass(frozen=True)
    class Tagged(Call):
        tag: str = ""

    call = Tagged(ThreadId("s"), 5.0, "m", Usage(1, 2), tag="kept")
    moved = call.on_thread(ThreadId("s", "agent", agent="a"))
    _same(moved, replace(call, thread=ThreadId("s", "agent", agent="a")))


def _bytes_each(make: Any, count: int = 2_000) -> float:
    """Bytes each record `make()` makes holds, measured over `count` of them."""
    import tracemalloc

    make()  # the class's shared keys, made before the count begins
    tracemalloc.start()
    try:
        kept = [make() for _ in range(count)]
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(kept) == count
    return held / count


def test_a_quick_record_takes_about_the_memory_init_gives_it() -> None:
    """A bill makes these by the hundred thousand: a dict filled at once from another,
    not key by key in the class's order, took twice the memory and more."""
    usage = Usage(1, 2, 9, 4, 5, 4)
    thread = ThreadId("s")
    values = (thread, 5.0, "m", usage, False, 0, None, "a", "f.jsonl", "", None)
    pairs = [
        (lambda: Usage.sound(1, 2, 9, 4, 5, 4), lambda: Usage(1, 2, 9, 4, 5, 4)),
        (lambda: _made(0.1, 0.2, 0.3, 0.4), lambda: Cost(0.1, 0.2, 0.3, 0.4)),
        (lambda: Call.sound(*values), lambda: Call(*values)),
    ]
    for quick, slow in pairs:
        assert _bytes_each(quick) <= 1.5 * _bytes_each(slow)


_COUNT = st.one_of(
    st.integers(0, 3_000),
    st.integers(MOST_TOKENS - 2, MOST_TOKENS + 2),
    st.integers(-3, -1),
    st.none(),
    st.booleans(),
    st.floats(0, 10),
    st.text(max_size=2),
)
_KEYS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)
_SPLIT_KEYS = ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")


@st.composite
def _usages(draw: Any) -> dict[str, Any]:
    usage = {key: draw(_COUNT) for key in _KEYS if draw(st.integers(0, 9))}
    kind = draw(st.sampled_from(["none", "split", "odd"]))
    if kind == "split":
        usage["cache_creation"] = {key: draw(_COUNT) for key in _SPLIT_KEYS if draw(st.booleans())}
    elif kind == "odd":
        usage["cache_creation"] = draw(st.one_of(st.none(), st.integers(), st.lists(st.none())))
    return usage


@given(_usages())
@example(
    {
        "input_tokens": 3,
        "output_tokens": 1,
        "cache_creation_input_tokens": 10,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 8, "ephemeral_1h_input_tokens": 9},
    }
)
@example(
    {
        "input_tokens": 3,
        "output_tokens": 1,
        "cache_creation_input_tokens": 10,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 4, "ephemeral_1h_input_tokens": 6},
    }
)
@example(
    {
        "input_tokens": 3,
        "output_tokens": 1,
        "cache_creation_input_tokens": 10,
        "cache_read_input_tokens": 2,
    }
)
@example(
    {
        "input_tokens": 3,
        "output_tokens": 1,
        "cache_creation_input_tokens": 10,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 4, "ephemeral_30m_input_tokens": 6},
    }
)
@example(
    {
        "input_tokens": 3,
        "output_tokens": 1,
        "cache_creation_input_tokens": 10,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 4, "ephemeral_1h_input_tokens": None},
    }
)
def test_the_one_step_read_gives_what_the_full_reader_gives(usage: dict[str, Any]) -> None:
    """Where the one step takes a usage, its `Usage` is the one the full reader's figures
    make; where it does not, `Usage.of` still reads it (or names the field at fault)."""
    quick = _fast(usage)
    try:
        uncached, read, five, thirty, hour, output = _anthropic(usage, "usage", False)
    except ValueError:
        assert quick is None
        return
    full = Usage(
        uncached, output, five + thirty + hour, read, five, hour, ephemeral_30m_input_tokens=thirty
    )
    if quick is not None:
        _same(quick, full)
    assert Usage.of(usage, strict=False) == full


@given(
    st.lists(
        st.one_of(
            st.none(),
            st.builds(Cost, *[st.floats(0, 1e3, allow_nan=False) for _ in range(6)]),
        ),
        max_size=40,
    )
)
def test_costs_added_are_exact_in_whatever_order_they_come(costs: list[Cost | None]) -> None:
    """Each charge the true sum rounded once, so a reversed list gives every bit again:
    what lets two halves of a bill be added into the bill's own total."""
    kept = [cost for cost in costs if cost is not None]
    exact = Cost(*(float(sum(Fraction(getattr(c, name)) for c in kept)) for name in _CHARGES))
    _same(Cost.added(costs), exact)
    _same(Cost.added(reversed(costs)), exact)


_CHARGES = ("uncached_input", "cache_writes", "cache_reads", "output", "server_tools", "storage")


def test_the_records_a_bill_makes_by_the_hundred_thousand_keep_their_fields_in_slots() -> None:
    # no dict per instance: about half the memory, and every field read sooner
    call = Call(ThreadId("s"), 5.0, "m", Usage(1, 2))
    for record in (call, call.usage, Cost(0.1, 0.2, 0.3, 0.4)):
        assert not hasattr(record, "__dict__"), type(record).__name__
    # `Usage`'s own fields in a dataclass kept in a dict: what a usage weighed before
    in_a_dict = make_dataclass(
        "InADict", [(f.name, f.type, field(default=f.default)) for f in fields(Usage)], frozen=True
    )
    in_slots = _bytes_each(lambda: Usage.sound(1, 2, 3, 4, 3, 0))
    assert in_slots < _bytes_each(lambda: in_a_dict(1, 2, 3, 4, 3, 0))


def test_the_quick_constructor_refuses_a_field_named_as_one_of_its_own_names() -> None:
    import pytest

    from context_budget._values import maker

    @dataclass(frozen=True, slots=True)
    class Slotted:
        set_0: int

    @dataclass(frozen=True)
    class InADict:
        held: int

    for record in (Slotted, InADict):
        with pytest.raises(ValueError, match=f"{record.__name__} has a field named"):
            maker(record)


def test_the_quick_constructor_makes_records_of_every_layout_as_init_makes_them() -> None:
    """Its own slots alone (made as a twin), a weak-reference slot beside them, and fields
    in a base's slots (set through each slot's descriptor)."""
    from context_budget._values import maker

    @dataclass(frozen=True, slots=True)
    class Own:
        a: int
        b: str = ""

    @dataclass(frozen=True, slots=True, weakref_slot=True)
    class Weak:
        a: int

    @dataclass(frozen=True, slots=True)
    class Child(Own):
        c: float = 0.0

    _same(maker(Own)(1, "x"), Own(1, "x"))
    _same(maker(Weak)(2), Weak(2))
    _same(maker(Child)(1, "x", 2.5), Child(1, "x", 2.5))
    assert "__class__" not in maker(Child).__code__.co_names  # no twin: a base holds `a`
    for record in (Own, Weak, Usage, Call, Cost):  # made as a twin, then given its class
        assert "__class__" in maker(record).__code__.co_names, record.__name__


def test_a_call_given_its_sessions_file_is_the_call_replace_makes() -> None:
    """A bill names the file of a call its reader left without one (`bills._filed`, every
    field named): each other field away from its default, so a field it forgets fails."""
    from context_budget.bills import _filed
    from context_budget.layers import Layers
    from context_budget.sessions.session import Session

    values = (ThreadId("s"), 5.0, "m", Usage(1, 2), True, 2, 0.5, "msg", "", "/p", "x", True)
    call = Call(*values)
    session = Session("codex", Layers("", [], []), calls=(call,), files=("rollout.jsonl",))
    _same(_filed(call, session), replace(call, file="rollout.jsonl"))

"""The records the standard library's decoder makes where msgspec is not in use (the
reader's browser, or `CONTEXT_BUDGET_NO_FAST=1` from the start): each is the decoded
object itself, read through its shape's class."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget.sessions import records
from context_budget.sessions.records import ANY, OPTIONAL, RAW, Shape
from context_budget.sessions.text import Source


def _shapes() -> tuple[Shape, Shape]:
    """A record shape with a nested one, built as the standard library's (no msgspec)."""
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(records, "_FAST", None)
        inner = Shape("Inner", id=ANY, usage=OPTIONAL, content=RAW)
        outer = Shape("Outer", type=ANY, uuid=OPTIONAL, message=inner, extra=RAW)
    return outer, inner


_VALUES = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers()))
_INNER = st.dictionaries(st.sampled_from(["id", "usage", "content", "other"]), _VALUES)
_OUTER = st.dictionaries(
    st.sampled_from(["type", "uuid", "extra", "more", "__class__", "_names"]), _VALUES
).flatmap(
    lambda top: (
        st.one_of(_INNER, _VALUES).map(lambda inner: {**top, "message": inner}) | st.just(top)
    )
)


def _expected(shape: Shape, decoded: Any) -> Any:
    """What a record of `shape` reads as, field by field, as the fields are declared."""
    if type(decoded) is not dict:
        return decoded
    found = {}
    for name, kind in shape.fields.items():
        if isinstance(kind, Shape):
            found[name] = _expected(kind, decoded.get(name))
        else:
            found[name] = decoded.get(name, records.ABSENT if kind == OPTIONAL else None)
    return found


def _read(shape: Shape, record: Any) -> Any:
    if type(record) is not shape.cls:
        return record
    found = {}
    for name, kind in shape.fields.items():
        value = getattr(record, name)
        found[name] = _read(kind, value) if isinstance(kind, Shape) else value
    return found


@given(_OUTER)
def test_a_record_reads_each_field_of_its_object_and_leaves_the_object_as_it_was(
    decoded: dict[str, Any],
) -> None:
    outer, inner = _shapes()
    before = copy.deepcopy(decoded)
    record = outer.fill(decoded)
    assert decoded == before  # the caller's object, nested ones too, not changed
    assert type(record) is outer.cls
    assert _read(outer, record) == _expected(outer, before)
    message = before.get("message")
    assert (type(record.message) is inner.cls) == (type(message) is dict)


@given(st.lists(_OUTER, min_size=1, max_size=6))
def test_a_file_read_line_by_line_gives_the_records_fill_gives(lines: list[dict[str, Any]]) -> None:
    outer, _ = _shapes()
    data = "\n".join(json.dumps(line) for line in lines).encode()
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(records, "_FAST", None)
        read = [record for _, record in records.records(Source("s.jsonl", None, data=data), outer)]
    assert [_read(outer, record) for record in read] == [_expected(outer, line) for line in lines]


def test_a_value_that_is_no_object_is_kept_and_a_record_shows_its_fields() -> None:
    outer, _ = _shapes()
    assert outer.fill([1, 2]) == [1, 2]
    record = outer.fill({"type": "user", "message": "text", "more": 1})
    assert record.message == "text" and record.uuid is records.ABSENT and record.extra is None
    unset = repr(records.ABSENT)
    assert repr(record) == f"Outer(type='user', uuid={unset}, message='text', extra=None)"
    odd = outer.fill({"_names": 3, "__class__": "x", "__dict__": 1, "type": "user"})
    assert type(odd) is outer.cls and odd.type == "user" and repr(odd).startswith("Outer(")

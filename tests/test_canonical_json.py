"""Canonical JSON is the text `json.dumps` writes with sorted keys, no spaces and the
characters as they are, written by one encoder made once."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget._json import canonical_json

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(_JSON)
def test_a_value_is_written_as_json_dumps_writes_it(value: object) -> None:
    said = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(value) == said


def test_what_json_dumps_refuses_is_refused_alike() -> None:
    circular: list[object] = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference"):
        canonical_json(circular)
    with pytest.raises(TypeError, match="not JSON serializable"):
        canonical_json({"a": object()})

"""Canonical JSON: one text for one value, so equal data is counted and compared alike."""

from __future__ import annotations

import json

__all__ = ["canonical_json"]

#: The one encoder: made once, as `json.dumps` with these arguments would make one for
#: every value (a replay writes a key for each of thousands of blocks).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: object) -> str:
    """`value` as JSON text: sorted keys, no spaces, non-ASCII characters as they are.

    Raises:
        TypeError: a value is not JSON-serializable.
        ValueError: a value is circular, or an int too long to print.
    """
    return _CANONICAL.encode(value)

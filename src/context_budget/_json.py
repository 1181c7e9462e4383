"""Canonical JSON: one text for one value, so equal data is counted and compared alike."""

from __future__ import annotations

import json

__all__ = ["canonical_json"]

#: The one encoder: made once, as `json.dumps` with these arguments would make one for
#: every value (a replay writes a key for each of thousands of blocks).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
#: The same, refusing NaN and the infinities, which JSON does not have.
_FINITE = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_json(value: object, *, finite: bool = False) -> str:
    """`value` as JSON text: sorted keys, no spaces, non-ASCII characters as they are.

    With `finite`, a float that is NaN or infinite is refused (JSON has neither);
    without it, it is written as Python's `json` writes it (`NaN`, `Infinity`).

    Raises:
        TypeError: a value is not JSON-serializable.
        ValueError: a value is circular, an int too long to print, or (with
            `finite`) a float NaN or infinite.
    """
    return (_FINITE if finite else _CANONICAL).encode(value)

"""Plain values in error messages: a bounded repr, and a number of seconds checked.

Every error that names a bad value shows it with `short_repr`, so a value
nested thousands of levels deep, or an int too long to print, never makes the
error itself fail. `made` builds a frozen record whose fields are already
known sound, for the few records a bill makes by the hundred thousand.
"""

from __future__ import annotations

import math
import reprlib
from typing import Any, TypeVar

__all__ = ["as_count", "as_rate", "as_seconds", "made", "short_repr"]

_Record = TypeVar("_Record")

_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxdict, _SHOWN.maxlist = 3, 4, 4
_SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlong = 60, 60, 40


def short_repr(value: object) -> str:
    """A short repr of a bad value for an error message: bounded in depth and length.

    A value nested thousands of levels deep, or an int too long to print, never
    makes the error itself fail.
    """
    try:
        return _SHOWN.repr(value)
    except Exception:  # a value whose repr fails is named by its type
        return f"<{type(value).__name__}>"


def as_count(value: object, name: str, *, least: int = 0) -> int:
    """`value` as an int >= `least` (a bool is not one), or a named error.

    Raises:
        TypeError: `value` is not an int (a float, even a whole or non-finite one).
        ValueError: `value` is below `least`.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int >= {least}, got {short_repr(value)}")
    if value < least:
        raise ValueError(f"{name} must be an int >= {least}, got {short_repr(value)}")
    return value


def as_seconds(value: object, name: str, *, negative: bool = False) -> float:
    """`value` as a finite float of seconds (>= 0 unless `negative`), or a named error."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of seconds, got {short_repr(value)}")
    try:
        seconds = float(value)
    except OverflowError:
        raise ValueError(f"{name} is too large for a float: {short_repr(value)}") from None
    if not math.isfinite(seconds):
        raise ValueError(f"{name} must be a finite number of seconds, got {seconds!r}")
    if seconds < 0 and not negative:
        raise ValueError(f"{name} must be a number >= 0, got {seconds!r}")
    return seconds


def as_rate(value: object, name: str, unit: str) -> float:
    """`value` as a finite float >= 0, or a `ValueError` naming `name`, its `unit` and the value."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    try:
        rate = float(value) if number else math.nan  # type: ignore[arg-type]
    except OverflowError:
        rate = math.inf
    if not number or not math.isfinite(rate) or rate < 0:
        raise ValueError(f"{name} must be a finite number >= 0 ({unit}), got {short_repr(value)}")
    return rate


def made(cls: type[_Record], fields: dict[str, Any]) -> _Record:
    """An instance of the frozen dataclass `cls` holding `fields` (name -> value, every
    field, in the order the class declares them), as its `__init__` would leave it,
    several times sooner: that `__init__` sets each field through
    `object.__setattr__`; this sets them in the instance's dict at once. Nothing
    is checked: the caller answers for the values."""
    record = object.__new__(cls)
    record.__dict__.update(fields)
    return record

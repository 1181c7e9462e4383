"""Plain values in error messages: a bounded repr, and a number of seconds checked.

Every error that names a bad value shows it with `short_repr`, so a value
nested thousands of levels deep, or an int too long to print, never makes the
error itself fail. `maker` builds frozen records whose fields are already
known sound, for the few kinds a bill makes by the hundred thousand.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import reprlib
import types
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["as_count", "as_rate", "as_seconds", "maker", "short_repr"]

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


def maker(cls: type[_Record]) -> Callable[..., _Record]:
    """The function that makes an instance of the frozen dataclass `cls` from every one of
    its fields, given in the order the class declares them, as `__init__` leaves it.

    Several times sooner than that `__init__`, which sets each field through
    `object.__setattr__`. A class with `slots=True` of its own fields alone
    (as the records a bill makes by the hundred thousand are: half the memory
    of a dict, and fields read sooner) is made as an instance of a twin class
    with the same slots and no frozen `__setattr__`, each field set as an
    attribute, then given its class (`__class__`, which Python allows between
    two classes of one layout): about twice as soon as setting each slot
    through its descriptor, which is what the function does for a class
    whose fields are not all its own slots. A field kept in the instance's
    dict (a subclass's own) is set one by one in the class's order, which
    keeps the dict's keys shared with every other instance of the class, as
    `__init__` keeps them (a dict filled at once from another dict gets keys
    of its own, and takes twice the memory and more). Written out field by
    field and compiled once per class. Nothing is checked: the caller
    answers for the values.

    Example:
        >>> from context_budget.pricing import Cost
        >>> maker(Cost)(0.5, 0.25, 0.125, 1.0, 0.0, 0.0) == Cost(0.5, 0.25, 0.125, 1.0)
        True
    """
    held: Callable[..., _Record] | None = _MAKERS.get(cls)
    if held is not None:
        return held
    names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
    own = {"new", "cls", "twin", "record", "held"}
    taken = (own | {f"set_{number}" for number in range(len(names))}) & set(names)
    if taken:
        raise ValueError(f"{cls.__name__} has a field named {sorted(taken)[0]!r}")
    twin = _twin(cls, names)
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls, "twin": twin}
    lines = _set_as_twin(names) if twin is not None else _set_one_by_one(cls, names, scope)
    source = f"def make({', '.join(names)}):\n{''.join(lines)}    return record\n"
    exec(compile(source, f"<maker {cls.__name__}>", "exec"), scope)  # the source is above
    made: Callable[..., _Record] = scope["make"]
    _MAKERS[cls] = made
    return made


def _twin(cls: type, names: list[str]) -> type | None:
    """A class of the same layout as `cls` (its slots and bases), whose instance may be
    given the class `cls`: None where a field is not kept in a slot of `cls`'s own, or a
    base sets attributes its own way (a frozen dataclass's `__setattr__`)."""
    slots = cls.__dict__.get("__slots__")
    if not isinstance(slots, tuple) or set(names) - set(slots):
        return None
    if any("__setattr__" in base.__dict__ for base in cls.__mro__[1:-1]):
        return None
    twin: type = type(f"{cls.__name__}Made", cls.__bases__, {"__slots__": slots})
    instance: Any = object.__new__(twin)
    try:
        instance.__class__ = cls
    except TypeError:  # not one layout after all: each slot set through its descriptor
        return None
    return twin


def _set_as_twin(names: list[str]) -> list[str]:
    """The lines of `maker`'s function that make the record as its twin (`_twin`)."""
    lines = ["    record = new(twin)\n"]
    lines += [f"    record.{name} = {name}\n" for name in names]
    return [*lines, "    record.__class__ = cls\n"]


def _set_one_by_one(cls: type, names: list[str], scope: dict[str, Any]) -> list[str]:
    """The lines of `maker`'s function that set each field of a new `cls`: a slot
    through its descriptor (added to `scope`), a field kept in the dict into it."""
    lines = ["    record = new(cls)\n"]
    in_dict = False  # whether a line above names the instance's dict `held`
    for number, name in enumerate(names):
        slot = inspect.getattr_static(cls, name, None)
        if isinstance(slot, types.MemberDescriptorType):  # a field kept in a slot
            scope[f"set_{number}"] = slot.__set__
            lines.append(f"    set_{number}(record, {name})\n")
            continue
        if not in_dict:  # the first field kept in the instance's dict
            lines.append("    held = record.__dict__\n")
            in_dict = True
        lines.append(f"    held[{name!r}] = {name}\n")
    return lines


#: Each class `maker` was asked for -> its function, written once.
_MAKERS: dict[type, Callable[..., Any]] = {}

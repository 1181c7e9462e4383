"""A one-step `__init__` for the frozen dataclasses a bill builds by the hundred thousand.

A frozen dataclass's own `__init__` sets each field with `object.__setattr__`,
one call per field: a `Usage`, a `Call`, a `Place` or a `Cost` costs several
microseconds to build, and a bill of a large folder builds hundreds of
thousands of them. `quick_init` gives such a class an `__init__` with the same
parameters and defaults that sets every field in one step (the instance's
`__dict__`) and then runs `__post_init__`, as the dataclass's own does.
Everything else (`repr`, equality, hashing, `dataclasses.replace`, the refusal
to assign a field) is the dataclass's own.

Example:
    >>> from dataclasses import dataclass
    >>> @quick_init
    ... @dataclass(frozen=True)
    ... class Point:
    ...     x: int
    ...     y: int = 0
    >>> Point(1), Point(1) == Point(x=1, y=0)
    (Point(x=1, y=0), True)
"""

from __future__ import annotations

import inspect
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

__all__ = ["quick_init"]

T = TypeVar("T", bound=type)


def quick_init(cls: T) -> T:
    """Give the frozen dataclass `cls` an `__init__` that sets its fields in one step.

    Raises:
        TypeError: `cls` is not a frozen dataclass whose instances have a
            `__dict__`, or a field is not a plain one (`init=False`, keyword
            only, or a `default_factory`).
    """
    params = getattr(cls, "__dataclass_params__", None)
    if not is_dataclass(cls) or params is None or not params.frozen or not cls.__dictoffset__:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with a __dict__")
    names, signature, defaults = [], [], {}
    for item in fields(cls):
        if not item.init or item.kw_only or item.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{item.name} is not a plain field")
        names.append(item.name)
        if item.default is MISSING:
            signature.append(item.name)
        else:
            signature.append(f"{item.name}=_default_{item.name}")
            defaults[f"_default_{item.name}"] = item.default
    if list(inspect.signature(cls.__init__).parameters)[1:] != names:  # an InitVar, say
        raise TypeError(f"{cls.__name__}'s __init__ takes more than its fields")
    values = ", ".join(f"{name!r}: {name}" for name in names)
    post = "\n    self.__post_init__()" if hasattr(cls, "__post_init__") else ""
    source = (
        f"def __init__(self, {', '.join(signature)}):\n"
        f"    _set(self, '__dict__', {{{values}}}){post}\n"
    )
    space: dict[str, Any] = {"_set": object.__setattr__, **defaults}
    exec(source, space)  # the text is built here, from the class's own field names
    init = space["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = dict(cls.__init__.__annotations__)
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls

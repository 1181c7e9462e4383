"""Each format's records, declared once, and the two decoders that fill them.

A reader takes a record of a session through a `Shape`: the fields it reads,
declared once in its module. Each field is of one kind:

- `ANY`: a JSON value, decoded (None when the record leaves it out);
- `OPTIONAL`: the same, but `ABSENT` when the record leaves it out, for a
  field whose absence means something else than a null;
- `RAW`: a value kept undecoded where the decoder can, decoded when the
  reader asks for it (`value`): a message's content, which a bill never reads;
- another `Shape`: an object read through that shape (any other JSON value
  is kept as it is, for the reader to refuse).

Two decoders fill a shape, into the one class built from it:

- the standard library's `json`, on every Python, the page's included: the
  line is decoded whole, by `text.json_lines`' rule, and the object decoded
  is made the record (`Shape.fill`): its keys are the record's attributes, a
  field it leaves out is read from the shape's class;
- msgspec, where the `fast` extra installed it: the line is decoded straight
  into the shape, and what the shape does not name is skipped unread.

A line msgspec cannot decode as `json` would (a number too long or out of
range, a lone surrogate, NaN, a blank line) goes to `json` instead, so both
give the same record or raise the same error; a test reads generated and
real files both ways and compares every output byte for byte.
`CONTEXT_BUDGET_NO_FAST=1` in the environment makes every read use `json`.

Example:
    >>> usage = Shape("Example", input_tokens=ANY, extra=RAW)
    >>> record = usage.fill({"input_tokens": 5, "output_tokens": 9, "extra": [1]})
    >>> record.input_tokens, value(record.extra)
    (5, [1])
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from typing import Any

from context_budget.sessions.text import (
    BLANK,
    Source,
    kind_of,
    line_value,
    loads_json,
    msgspec_in_use,
    value_at,
)

__all__ = [
    "ABSENT",
    "ANY",
    "FAST",
    "OPTIONAL",
    "RAW",
    "Shape",
    "decode_document",
    "records",
    "undecoded_holds",
    "value",
]


_FAST = msgspec_in_use()
#: True when msgspec decodes records (installed, and `CONTEXT_BUDGET_NO_FAST` unset).
FAST = _FAST is not None

#: The kinds of a field (see the module's text).
ANY, OPTIONAL, RAW = "any", "optional", "raw"


class _Absent:
    """What an `OPTIONAL` field reads as when the record leaves it out."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


#: The value of an `OPTIONAL` field the record left out.
ABSENT: Any = _FAST.UNSET if _FAST is not None else _Absent()


def value(field: Any) -> object:
    """The decoded value of a `RAW` field, as `json.loads` gives it."""
    if _FAST is None or type(field) is not _FAST.Raw:
        return field
    raw = bytes(field)
    try:
        return _FAST.json.decode(raw)
    except Exception:
        return loads_json(raw.decode("utf-8"), long_numbers=True)


def undecoded_holds(field: Any, pattern: re.Pattern[bytes]) -> bool | None:
    """Whether the bytes of a `RAW` field msgspec left undecoded hold a match of `pattern`,
    searched where they lie (not copied); None for a decoded value."""
    if _FAST is None or type(field) is not _FAST.Raw:
        return None
    return pattern.search(field) is not None


class _Plain:
    """The base of a shape's class where msgspec is not installed: a record is the object
    `json` decoded, its attributes the object's keys (its `__dict__`), a field the object
    leaves out read from the class (None, or `ABSENT` for an `OPTIONAL` one)."""

    #: The shape's fields, in the order it declares them.
    _names: tuple[str, ...] = ()

    def __repr__(self) -> str:
        names = type(self)._names  # the class's: a record may hold a key of that name
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__name__}({shown})"


def _generated(name: str, source: str, names: dict[str, Any]) -> Any:
    """The function `name` that `source` defines, compiled once with `names` in its scope.

    A shape's `__init__` and its `fill` are written out field by field, as
    `dataclasses` writes a class's `__init__`: the standard decoder fills one
    record per line, and a loop over the fields costs several times as much.
    """
    scope = dict(names)
    exec(compile(source, f"<shape {name}>", "exec"), scope)  # the source is written above
    return scope[name]


class Shape:
    """The fields a reader reads of one kind of record, and the class of its records.

    Args:
        name: the class's name, e.g. `"ClaudeRecord"`.
        fields: field name -> `ANY`, `OPTIONAL`, `RAW` or a nested `Shape`.

    Attributes:
        cls: the class of the records: a msgspec `Struct` where msgspec is in
            use, else a plain class whose records are the objects `json` decoded
            (`_Plain`); either way built from `fields`.
    """

    def __init__(self, name: str, **fields: str | Shape) -> None:
        self.name = name
        self.fields = fields
        self.cls: Any = self._class()
        self._fill = self._filler(owned=False)
        #: `fill` of an object the decoder made for this record alone, which it may reuse.
        self._owned = self._filler(owned=True)
        self._decoder = None if _FAST is None else _FAST.json.Decoder(self._either())

    def _either(self) -> Any:
        """This shape's class, or a JSON value that is no object, kept as it is."""
        return self.cls | None | str | int | float | bool | list

    def _class(self) -> type:
        if _FAST is None:
            fields, names = self.fields, list(self.fields)
            body = "".join(f"    self.{field} = {field}\n" for field in names) or "    pass\n"
            init = _generated("__init__", f"def __init__(self, {', '.join(names)}):\n{body}", {})
            unset = {name: ABSENT if kind == OPTIONAL else None for name, kind in fields.items()}
            return type(self.name, (_Plain,), {**unset, "_names": tuple(names), "__init__": init})
        spec = []
        for name, kind in self.fields.items():
            if isinstance(kind, Shape):
                spec.append((name, kind._either(), None))
            elif kind == RAW:
                spec.append((name, _FAST.Raw, _FAST.Raw(b"null")))
            else:
                spec.append((name, Any, ABSENT if kind == OPTIONAL else None))
        return _FAST.defstruct(self.name, spec)  # type: ignore[no-any-return]

    def _filler(self, owned: bool) -> Any:
        """`fill`, written out field by field (`_generated`): with msgspec, each field
        picked from the object into the shape's `Struct`; without, the object itself made
        the record's `__dict__`, each nested shape's object made its record in place
        (`owned`: the object is the decoder's own, else it is copied first, so that the
        caller's is left as it was)."""
        names: dict[str, Any] = {"cls": self.cls, "ABSENT": ABSENT, "dict": dict}
        nested = [name for name, kind in self.fields.items() if isinstance(kind, Shape)]
        for name in nested:
            shape = self.fields[name]
            assert isinstance(shape, Shape)
            names[f"fill_{name}"] = shape._owned if owned else shape.fill
        if _FAST is None:
            lines = [] if owned else ["    decoded = dict(decoded)\n"]
            for name in nested:
                lines.append(f"    inner = decoded.get({name!r})\n")
                lines.append("    if type(inner) is dict:\n")
                lines.append(f"        decoded[{name!r}] = fill_{name}(inner)\n")
            lines.append("    record = new(cls)\n    record.__dict__ = decoded\n")
            lines.append("    return record\n")
            names["new"] = object.__new__
        else:
            parts = []
            for name, kind in self.fields.items():
                if isinstance(kind, Shape):
                    parts.append(f"fill_{name}(get({name!r}))")
                elif kind == OPTIONAL:
                    parts.append(f"get({name!r}, ABSENT)")
                else:
                    parts.append(f"get({name!r})")
            lines = ["    get = decoded.get\n", f"    return cls({', '.join(parts)})\n"]
        source = (
            "def fill(decoded):\n    if type(decoded) is not dict:\n        return decoded\n"
            + "".join(lines)
        )
        return _generated("fill", source, names)

    def fill(self, decoded: object) -> object:
        """The record of a value `json` decoded: an object read through this shape, any
        other value as it is. The object is not changed."""
        return self._fill(decoded)

    def decode(self, line: bytes, number: int) -> object:
        """The record of line `number`, or `text.BLANK` for a blank line.

        Raises:
            ValueError: what `text.line_value` raises for the line.
        """
        if self._decoder is not None and _FAST is not None and line:
            try:
                return self._decoder.decode(line)
            except Exception:
                pass
        found = line_value(line.decode("utf-8"), number, long_numbers=True)
        return found if found is BLANK else self._owned(found)


def records(
    source: Source, shape: Shape, starts: array[int] | None = None
) -> Iterator[tuple[int, object]]:
    """The records of a JSON Lines source, each with its line number (1-based), blank lines
    aside, read through `shape`: msgspec decodes the source's bytes where it is in use,
    else `json` its text.

    The lines are those of `text.line_spans` (a line feed ends one, a carriage
    return before it is left out), found here in the same loop that decodes
    them: a bill reads every line of every file through it. Where `starts` is
    given and the source has its bytes, the offset in `source.data` where each
    line starts, blank ones included, is added to it as the line is read
    (`starts[number - 1]`), so that a line can be read again without looking
    for it: with msgspec, where it decodes the line; with `json`, which parses
    the text, from the line feeds of the bytes, found beside those of the text
    (a line feed is one byte in UTF-8 and no part of another character, so
    the two give the same lines).

    Raises:
        ValueError: a line that is not JSON, or not an object, naming the line
            in the words of `text.json_lines`.
    """
    cls, fill = shape.cls, shape._owned
    fast = shape._decoder if _FAST is not None else None
    body: str | bytes = source.data if fast is not None and source.data else source.text
    feed, ret = (b"\n", 13) if isinstance(body, bytes) else ("\n", "\r")
    find, size, start, number = body.find, len(body), 0, 0
    view = memoryview(body if isinstance(body, bytes) else b"")  # lines decoded in place
    note = starts.append if starts is not None and isinstance(body, bytes) else None
    # `json`: where each line starts in the bytes, beside the text it parses
    data = source.data if starts is not None and not isinstance(body, bytes) else b""
    find_byte, at = data.find, 0
    while start <= size:
        number += 1
        if note is not None:
            note(start)
        elif data:
            starts.append(at)  # type: ignore[union-attr]  # `data` only with `starts`
            feed_at = find_byte(b"\n", at)
            at = len(data) + 1 if feed_at < 0 else feed_at + 1
        end = find(feed, start)  # type: ignore[arg-type]
        end = size if end < 0 else end
        stop = end - 1 if end > start and body[end - 1] == ret else end
        if isinstance(body, bytes):  # msgspec, one line's bytes, not copied; any doubt to `json`
            line = view[start:stop]
            try:
                found = fast.decode(line) if line else BLANK  # type: ignore[union-attr]
            except Exception:
                found = shape.decode(bytes(line), number)
        else:
            found = value_at(body, start, stop, number, long_numbers=True)
            found = found if found is BLANK else fill(found)
        start = end + 1
        if found is BLANK:
            continue
        if type(found) is not cls:
            raise ValueError(
                f"line {number}: expected a record (an object), found {kind_of(found)}"
            )
        yield number, found


def decode_document(text: str, data: bytes = b"") -> object:
    """One JSON document: msgspec's decoding of `data` where it is in use and decodes it as
    `json` would, else `text.loads_json`'s of `text`.

    Raises:
        json.JSONDecodeError, ValueError: as `text.loads_json`.
    """
    if _FAST is not None and data:
        try:
            return _FAST.json.decode(data)
        except Exception:
            pass
    return loads_json(text)

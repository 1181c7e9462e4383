"""Reading the command's input file and shaping it into ``Layers``.

``_read(path)`` gives the parsed JSON; ``_layers(data, path)`` turns it into
``(Layers, shape)``, where shape is ``"list"`` (a conversation alone) or
``"object"`` (``{"system": str, "pinned": [str, ...], "conversation": [...]}``).
Every problem is an ``_InputError`` whose text is the one line the command
prints after ``context-budget: error:``; messages are checked later, by
``budget_report``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from context_budget.layers import Layers

_TOP_KEYS = ("system", "pinned", "conversation")
# Python type -> its name in JSON, for messages about the file's content
_JSON_TYPES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


class _InputError(Exception):
    """Bad input: the one line to print after ``context-budget: error:``."""


def _json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _read(path: str) -> object:
    """The parsed JSON in ``path``; ``_InputError`` naming the problem otherwise."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise _InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise _InputError(f"{path}: is a directory, not a file") from None
    except PermissionError:
        raise _InputError(f"{path}: permission denied") from None
    except OSError as error:
        raise _InputError(f"{path}: cannot read it: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _InputError(
            f"{path}: not UTF-8 text (byte {raw[error.start]:#04x} at offset {error.start})"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise _InputError(
            f"{path}: not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except RecursionError:
        raise _InputError(f"{path}: the JSON is nested too deeply to read") from None


def _layers(data: object, path: str) -> tuple[Layers, str]:
    """The file's content as ``Layers`` (a plain list is a conversation alone), and its shape.

    The shape is ``"list"`` or ``"object"``. ``Layers`` checks the types of
    system, pinned and conversation; the messages are checked later.
    """
    system: Any = ""
    pinned: Any = []
    conversation: Any = data
    if isinstance(data, list):
        shape = "list"
    elif isinstance(data, dict):
        unknown = sorted(key for key in data if key not in _TOP_KEYS)
        if unknown:
            raise _InputError(
                f"{path}: unexpected key {unknown[0]!r} in the top-level object "
                "(expected system, pinned, conversation)"
            )
        if "conversation" not in data:
            raise _InputError(f"{path}: the top-level object has no 'conversation'")
        shape = "object"
        system = data.get("system", "")
        pinned = data.get("pinned", [])
        conversation = data["conversation"]
    else:
        raise _InputError(
            f"{path}: expected a list of messages or an object with system, pinned and "
            f"conversation, found {_json_type(data)}"
        )
    try:
        return Layers(system, pinned, conversation), shape
    except TypeError as error:
        raise _InputError(f"{path}: {error}") from None

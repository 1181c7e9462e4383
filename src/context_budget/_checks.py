"""The checks every reader of messages runs: shapes, roles, blocks and JSON data.

The shapes are those `context_budget.messages` describes. Each check raises
TypeError or ValueError naming the message (by index), the block and the value
that broke the rule, and returns nothing for a valid message.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

from context_budget._values import short_repr

__all__ = [
    "MAX_DEPTH",
    "RESULT_CONTENT",
    "ROLES",
    "bad_scalar",
    "check_message",
    "check_messages",
    "first_bad_value",
    "is_json_data",
]

ROLES = frozenset({"system", "user", "assistant", "tool"})

#: How many levels of dicts and lists a message may nest (the message itself is level 1).
MAX_DEPTH = 64

# block type -> (required key, the type its value must have)
_REQUIRED: dict[str, tuple[tuple[str, type], ...]] = {
    "text": (("text", str),),
    "tool_use": (("id", str), ("name", str), ("input", dict)),
    "tool_result": (("tool_use_id", str),),
    "thinking": (("thinking", str),),
}

# the block types a tool_result's content list may hold: those the Anthropic SDK's
# `ToolResultBlockParam` lists (SDK 2.14.0), so a result never nests a result; every
# check of a message (validate_history, PromptCache, PrefixGuard, the transcripts) uses it
RESULT_CONTENT = frozenset(
    {"text", "image", "document", "search_result", "tool_reference", "browser_state"}
)

_SCALARS = (str, int, float, bool, type(None))


def _place(message: int | None, block: int | None = None, inner: int | None = None) -> str:
    """Name a place in a conversation for an error message, e.g. "message 3, block 1".

    Built only when something is wrong, so a valid conversation is checked
    without formatting a label per message.
    """
    where = "message" if message is None else f"message {message}"
    if block is not None:
        where += f", block {block}"
    if inner is not None:
        where += f", content block {inner}"
    return where


def _check_is_error(holder: dict[str, Any], where: str) -> None:
    flag = holder.get("is_error", False)
    if not isinstance(flag, bool):
        found = f"{type(flag).__name__}, not bool: {short_repr(flag)}"
        raise TypeError(f"{where} has 'is_error' of type {found}")


def _check_block(block: object, message: int | None, number: int, inner: int | None = None) -> None:
    if not isinstance(block, dict):
        where = _place(message, number, inner)
        raise TypeError(f"{where} has type {type(block).__name__}, not dict")
    kind = block.get("type")
    if not isinstance(kind, str):
        raise ValueError(f"{_place(message, number, inner)} has no 'type'")
    for key, expected in _REQUIRED.get(kind, ()):
        if key not in block:
            raise ValueError(f"{_place(message, number, inner)} ({kind}) has no {key!r}")
        if not isinstance(block[key], expected):
            found, wanted = type(block[key]).__name__, expected.__name__
            where = _place(message, number, inner)
            raise TypeError(f"{where} ({kind}) has {key!r} of type {found}, not {wanted}")
    if inner is not None and kind not in RESULT_CONTENT:
        where = _place(message, number, inner)
        raise ValueError(
            f"{where} has type {short_repr(kind)}; a tool result holds only "
            f"{sorted(RESULT_CONTENT)} blocks"
        )
    if kind == "tool_result":
        _check_is_error(block, f"{_place(message, number)} (tool_result)")
        if "content" in block:
            _check_result_content(block["content"], message, number)


def _check_result_content(content: object, message: int | None, number: int | None) -> None:
    """A result's content is a str or a list of blocks of the SDK's result types."""
    if isinstance(content, list):
        for item_number, item in enumerate(content):
            if number is None:  # the blocks of a role "tool" message
                _check_block(item, message, item_number, None)
                if item["type"] not in RESULT_CONTENT:
                    raise ValueError(
                        f"{_place(message, item_number)} has type "
                        f"{short_repr(item['type'])}; a tool "
                        f"message holds only {sorted(RESULT_CONTENT)} blocks"
                    )
            else:
                _check_block(item, message, number, item_number)
    elif not isinstance(content, str):
        found = type(content).__name__
        what = f"{_place(message, number)} (tool_result)" if number is not None else _place(message)
        raise TypeError(f"{what} has content of type {found}, not str or list")


def check_message(message: object, index: int | None = None) -> None:
    """Raise TypeError or ValueError, naming message `index`, if `message` is malformed."""
    if not isinstance(message, dict):
        raise TypeError(f"{_place(index)} has type {type(message).__name__}, not dict")
    for key in ("role", "content"):
        if key not in message:
            raise ValueError(f"{_place(index)} has no {key!r}")
    role = message["role"]
    if not isinstance(role, str) or role not in ROLES:
        found = short_repr(role)
        raise ValueError(f"{_place(index)} has role {found}; expected one of {sorted(ROLES)}")
    content = message["content"]
    if role == "tool":
        _check_is_error(message, _place(index))
        _check_result_content(content, index, None)
    elif isinstance(content, list):
        for number, block in enumerate(content):
            _check_block(block, index, number)
    elif not isinstance(content, str):
        found = type(content).__name__
        raise TypeError(f"{_place(index)} has content of type {found}, not str or list of blocks")
    if not is_json_data(message):
        path, problem = first_bad_value(message)
        if len(path) > 60:  # subtle: a path 64 levels deep would fill the screen
            path = path[:57] + "..."
        raise TypeError(f"{_place(index)} at {path}: {problem}")


def check_messages(messages: object) -> None:
    """Check a whole conversation; the error names the first bad message's index."""
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise TypeError(f"messages must be a list of dicts, got {type(messages).__name__}")
    for index, message in enumerate(messages):
        check_message(message, index)


# ------------------------------------------------------------ JSON data only

_JSON_DATA = "expected JSON data (dict, list, str, int, float, bool or None)"


def bad_scalar(value: object) -> str | None:
    """What is wrong with a value that is not a dict or a list, or None if nothing is."""
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as error:
                code = ord(value[error.start])
                return f"a string holds a lone surrogate (U+{code:04X}) at character {error.start}"
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        limit = sys.get_int_max_str_digits()
        if limit and value.bit_length() > 3 * limit:  # only a huge int can be too long
            try:
                str(value)
            except ValueError:
                return f"an integer has more than {limit:,} digits"
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value!r} is not JSON data (JSON has no NaN or Infinity)"
    if isinstance(value, _SCALARS):
        return None
    return f"a {type(value).__name__} is not JSON data; {_JSON_DATA}"


def _ascii_keys(value: dict[Any, Any]) -> bool:
    """True when every key is an ASCII string (the test runs in C, key by key)."""
    try:
        return all(map(str.isascii, value))
    except TypeError:  # a key that is not a str
        return False


def is_json_data(message: dict[str, Any]) -> bool:
    """True when every value in `message` is JSON data within `MAX_DEPTH` (no recursion)."""
    stack: list[tuple[Any, int]] = [(message, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        is_dict = isinstance(value, dict)  # subtle: a dict subclass's values are checked too
        items = value.values() if is_dict else value
        odd_keys = is_dict and not _ascii_keys(value)
        if odd_keys and any(not isinstance(key, str) or bad_scalar(key) for key in value):
            return False
        for item in items:
            kind = type(item)
            if kind is str:
                if not item.isascii() and bad_scalar(item) is not None:
                    return False
            elif kind is dict or kind is list:
                stack.append((item, depth + 1))
            elif kind is bool or item is None:
                continue
            elif kind is float:
                if item - item:  # subtle: NaN or an infinity (JSON has neither); else 0.0
                    return False
            elif isinstance(item, dict | list):
                stack.append((item, depth + 1))
            elif bad_scalar(item) is not None:
                return False
    return True


def first_bad_value(message: dict[str, Any]) -> tuple[str, str]:
    """Where the first value `is_json_data` refuses is, as a path like `content[1].input`."""
    stack: list[tuple[Any, int, str]] = [(message, 1, "")]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, dict | list) and depth > MAX_DEPTH:
            return path, f"nested more than {MAX_DEPTH} levels deep"
        if isinstance(value, dict):
            items: list[tuple[str, Any]] = []
            for key, item in value.items():
                if not isinstance(key, str):
                    return path or "the message", f"a key of type {type(key).__name__}, not str"
                if (problem := bad_scalar(key)) is not None:
                    return path or "the message", f"a key: {problem}"
                items.append((f"{path}.{key}" if path else key, item))
        elif isinstance(value, list):
            items = [(f"{path}[{number}]", item) for number, item in enumerate(value)]
        else:
            continue
        for item_path, item in reversed(items):
            if not isinstance(item, dict | list) and (problem := bad_scalar(item)) is not None:
                return item_path, problem
            stack.append((item, depth + 1, item_path))
    # not reached for a message `is_json_data` refused: each of its refusals is found above
    return "the message", _JSON_DATA  # pragma: no cover

"""Chat messages: the shapes this package reads, and the text of each that counts.

A message is a dict with a ``role`` and a ``content``::

    {"role": "user", "content": "How much vanilla is left?"}

``role`` is one of ``"system"``, ``"user"``, ``"assistant"`` or ``"tool"``.
``content`` is a string, or a list of Anthropic Messages content blocks, each a
dict with a ``type``::

    {"type": "text", "text": str}
    {"type": "tool_use", "id": str, "name": str, "input": dict}
    {"type": "tool_result", "tool_use_id": str,
     "content": str | list[block],     # optional; usually text blocks
     "is_error": bool}                 # optional
    {"type": "thinking", "thinking": str, "signature": str}

Blocks of any other type (images, redacted thinking) are accepted and counted
by their compact JSON, so nothing in a message is ever free.

The lessons also use a shorthand: one message with role ``"tool"`` holds one
tool result as JSON text and keeps the tool's ``name`` beside it
(``tool_message``). Shorthand results carry no call id, so nothing pairs them
with a call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeAlias

__all__ = ["Message", "message_text", "tool_message"]

#: One chat message: ``{"role": str, "content": str | list[block], ...}``.
Message: TypeAlias = dict[str, Any]

ROLES = frozenset({"system", "user", "assistant", "tool"})

# block type -> (required key, the type its value must have)
_REQUIRED: dict[str, tuple[tuple[str, type], ...]] = {
    "text": (("text", str),),
    "tool_use": (("id", str), ("name", str), ("input", dict)),
    "tool_result": (("tool_use_id", str),),
    "thinking": (("thinking", str),),
}

# block types a tool_result's content list may hold (so a result never nests a result)
_RESULT_CONTENT = frozenset({"text", "image", "document", "search_result"})


def _compact_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def tool_message(name: str, payload: object) -> Message:
    """A shorthand tool result: role ``"tool"``, the payload as compact JSON text.

    The JSON has sorted keys and no spaces, so the same payload always gives
    the same text (and the same token count).

    Examples:
        >>> tool_message("stock_level", {"vanilla": 12, "mango": 0})
        {'role': 'tool', 'name': 'stock_level', 'content': '{"mango":0,"vanilla":12}'}
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"a tool name must be a non-empty str, got {name!r}")
    try:
        content = _compact_json(payload)
    except (TypeError, ValueError) as error:
        raise TypeError(f"tool {name!r}: payload is not JSON-serializable: {error}") from None
    return {"role": "tool", "name": name, "content": content}


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
    if inner is not None and kind not in _RESULT_CONTENT:
        where = _place(message, number, inner)
        raise ValueError(
            f"{where} has type {kind!r}; a tool result holds only {sorted(_RESULT_CONTENT)} blocks"
        )
    if kind == "tool_result" and "content" in block:
        content = block["content"]
        if isinstance(content, list):
            for item_number, item in enumerate(content):
                _check_block(item, message, number, item_number)
        elif not isinstance(content, str):
            found = type(content).__name__
            where = _place(message, number, inner)
            raise TypeError(f"{where} (tool_result) has content of type {found}, not str or list")


def _check_message(message: object, index: int | None = None) -> None:
    """Raise TypeError or ValueError, naming message ``index``, if ``message`` is malformed."""
    if not isinstance(message, dict):
        raise TypeError(f"{_place(index)} has type {type(message).__name__}, not dict")
    for key in ("role", "content"):
        if key not in message:
            raise ValueError(f"{_place(index)} has no {key!r}")
    role = message["role"]
    if role not in ROLES:
        raise ValueError(f"{_place(index)} has role {role!r}; expected one of {sorted(ROLES)}")
    content = message["content"]
    if isinstance(content, list):
        for number, block in enumerate(content):
            _check_block(block, index, number)
    elif not isinstance(content, str):
        found = type(content).__name__
        raise TypeError(f"{_place(index)} has content of type {found}, not str or list of blocks")


def _check_messages(messages: object) -> None:
    """Check a whole conversation; the error names the first bad message's index."""
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise TypeError(f"messages must be a list of dicts, got {type(messages).__name__}")
    for index, message in enumerate(messages):
        _check_message(message, index)


def _result_text(content: object) -> str:
    """The text of a tool result's content: a string, or its blocks' text joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_block_text(block) for block in content)
    return ""  # a tool_result without content


def _block_text(block: dict[str, Any]) -> str:
    kind = block["type"]
    if kind == "text":
        return str(block["text"])
    if kind == "tool_use":
        return f"{block['name']} {_compact_json(block['input'])}"
    if kind == "tool_result":
        return _result_text(block.get("content"))
    if kind == "thinking":
        return str(block["thinking"])
    return _compact_json(block)


def message_text(message: Message) -> str:
    """The text of ``message`` that a token count covers, blocks joined by newlines.

    Text blocks give their text, a ``tool_use`` its name and compact JSON input,
    a ``tool_result`` its content's text, a ``thinking`` block its thinking.

    Examples:
        >>> message_text({"role": "assistant", "content": [
        ...     {"type": "text", "text": "Checking."},
        ...     {"type": "tool_use", "id": "t1", "name": "stock", "input": {"flavor": "mint"}},
        ... ]})
        'Checking.\\nstock {"flavor":"mint"}'
    """
    _check_message(message)
    return _message_text(message)


def _message_text(message: Message) -> str:
    """``message_text`` for a message already checked."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(_block_text(block) for block in content)


def _blocks(message: Message) -> list[dict[str, Any]]:
    """The content blocks of a message (none for string content)."""
    content = message["content"]
    return content if isinstance(content, list) else []


def _tool_use_ids(message: Message) -> list[str]:
    return [block["id"] for block in _blocks(message) if block["type"] == "tool_use"]


def _tool_result_ids(message: Message) -> list[str]:
    return [block["tool_use_id"] for block in _blocks(message) if block["type"] == "tool_result"]

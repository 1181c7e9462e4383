"""Chat messages: the shapes this package reads, and the text of each that counts.

A message is a dict with a `role` and a `content`, for example
`{"role": "user", "content": "How much vanilla is left?"}`.

- `role` is one of `"system"`, `"user"`, `"assistant"` or `"tool"`.
- `content` is a string, or a list of Anthropic Messages content blocks, each a
  dict with a `type`:
    - `{"type": "text", "text": str}`;
    - `{"type": "tool_use", "id": str, "name": str, "input": dict}`;
    - `{"type": "tool_result", "tool_use_id": str, "content": str | list,
      "is_error": bool}`, where `content` (a string, or a list of the blocks
      the Anthropic SDK's `ToolResultBlockParam`
      lists: text, image, document, search result, tool reference, browser
      state) and `is_error` may be left out;
    - `{"type": "thinking", "thinking": str, "signature": str}`.

Blocks of any other type (images, redacted thinking, a tool reference inside a
result) are accepted and counted by their compact JSON, so nothing in a message
is ever free.

The lessons also use a shorthand: one message with role `"tool"` holds one
tool result, as text (`tool_message` writes its payload as JSON text) or as a
list of the blocks a `tool_result` may hold, and keeps the tool's `name`
beside it. Shorthand results carry no call id, so nothing pairs them with a
call; a true `is_error` on the message marks the result as an error.

Every value anywhere in a message must be JSON data (dict with `str` keys,
list, `str`, `int`, `float`, `bool`, `None`) nested at most `MAX_DEPTH` levels
deep, with no lone surrogate in any string and no integer longer than Python
prints (4,300 digits): the API could not receive anything else, and the
package's own copying and counting stay safe on what is left.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from context_budget._blocks import checked_message_text
from context_budget._checks import MAX_DEPTH as MAX_DEPTH
from context_budget._checks import ROLES as ROLES
from context_budget._checks import bad_scalar, check_message
from context_budget._json import canonical_json
from context_budget._values import short_repr

__all__ = ["Message", "message_text", "tool_message"]

#: One chat message: `{"role": str, "content": str | list[block], ...}`.
Message: TypeAlias = dict[str, Any]


def tool_message(name: str, payload: object) -> Message:
    """A shorthand tool result: role `"tool"`, the payload as compact JSON text.

    The JSON has sorted keys and no spaces, so the same payload always gives
    the same text (and the same token count).

    Args:
        name: the tool's name, a non-empty string.
        payload: any JSON data: what the tool returned.

    Returns:
        The message, `{"role": "tool", "name": name, "content": json_text}`.

    Raises:
        TypeError: the name is not a non-empty string, or the payload is not
            JSON data (NaN and the infinities are not; nor is a string holding
            a lone surrogate, which UTF-8 cannot encode).

    Examples:
        >>> tool_message("stock_level", {"vanilla": 12, "mango": 0})
        {'role': 'tool', 'name': 'stock_level', 'content': '{"mango":0,"vanilla":12}'}
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"a tool name must be a non-empty str, got {short_repr(name)}")
    if (problem := bad_scalar(name)) is not None:
        raise TypeError(f"a tool name must be text UTF-8 can encode: {problem}")
    try:
        content = canonical_json(payload, finite=True)
    except (TypeError, ValueError, RecursionError) as error:
        raise TypeError(f"tool {name!r}: payload is not JSON-serializable: {error}") from None
    if (problem := bad_scalar(content)) is not None:  # a lone surrogate in the payload
        raise TypeError(f"tool {name!r}: payload is not JSON data: {problem}")
    return {"role": "tool", "name": name, "content": content}


def message_text(message: Message) -> str:
    """The text of `message` that a token count covers, blocks joined by newlines.

    Text blocks give their text, a `tool_use` its name and compact JSON input,
    a `tool_result` its content's text, a `thinking` block its thinking.

    Args:
        message: a message, in either shape this module describes.

    Returns:
        The text, as one string.

    Raises:
        TypeError: the message, or a value in it, has the wrong type; the
            error names the block and the value.
        ValueError: a key is missing or the role is unknown.

    Examples:
        >>> message_text({"role": "assistant", "content": [
        ...     {"type": "text", "text": "Checking."},
        ...     {"type": "tool_use", "id": "t1", "name": "stock", "input": {"flavor": "mint"}},
        ... ]})
        'Checking.\\nstock {"flavor":"mint"}'
    """
    check_message(message)
    return checked_message_text(message)

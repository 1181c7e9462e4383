"""Clearing old tool results: the cheapest way to win back context.

A tool result is either a shorthand message with role ``"tool"`` or one
``tool_result`` block inside a message (Anthropic's format); a user message
answering three calls holds three tool results. Clearing replaces a result's
content with a marker that says how big it was::

    [tool result cleared to save context: 133 tokens]

and leaves everything else alone: the call that asked for the result stays, so
the agent can see it looked something up and can look it up again.

Which results are cleared, in order of position (message, then block):

- an error result (a true ``"is_error"``) is never cleared, because the error is
  what the agent must not repeat; it does not count toward ``keep_last``
  either, so a failing call never pushes a useful result out;
- a result already cleared is left as it is (its marker keeps the first size)
  and does not count toward ``keep_last``: clearing twice changes nothing;
- of the rest, all but the last ``keep_last`` are cleared.

The input is never mutated. The returned list is new; a changed message, its
content list and its changed block are new objects; unchanged messages are
the same objects as in the input, so treat messages as values.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from context_budget.messages import Message, _check_messages, _result_text
from context_budget.tokens import TokenCounter, _count, _resolve

__all__ = ["clear_old_tool_results"]

CLEARED_MARKER = "[tool result cleared to save context: {tokens} tokens]"
_CLEARED = re.compile(r"\[tool result cleared to save context: \d+ tokens\]")

# a tool result's position: (message index, block index, or None for a "tool" message)
_Position = tuple[int, int | None]


def _is_cleared(text: str) -> bool:
    """True when ``text`` is exactly a clearing marker."""
    return _CLEARED.fullmatch(text) is not None


def _clearable(messages: Sequence[Message]) -> list[_Position]:
    """Positions of the results that hold content and are not errors, oldest first."""
    found: list[_Position] = []
    for index, message in enumerate(messages):
        content = message["content"]
        if message["role"] == "tool":
            text = _result_text(content)
            if not message.get("is_error") and not _is_cleared(text):
                found.append((index, None))
        elif isinstance(content, list):
            for number, block in enumerate(content):
                if block["type"] != "tool_result" or block.get("is_error"):
                    continue
                if not _is_cleared(_result_text(block.get("content"))):
                    found.append((index, number))
    return found


def _marker(content: object, counter: TokenCounter) -> str:
    return CLEARED_MARKER.format(tokens=_count(_result_text(content), counter))


def _clear(messages: Sequence[Message], keep_last: int, counter: TokenCounter) -> list[Message]:
    """``clear_old_tool_results`` on messages already checked."""
    positions = _clearable(messages)
    old = positions[: max(0, len(positions) - keep_last)]
    blocks_by_message: dict[int, list[int]] = {}  # message index -> block indexes to clear
    out = list(messages)
    for index, number in old:
        if number is None:
            message = messages[index]
            out[index] = {**message, "content": _marker(message["content"], counter)}
        else:
            blocks_by_message.setdefault(index, []).append(number)
    for index, numbers in blocks_by_message.items():
        content: list[dict[str, Any]] = list(messages[index]["content"])
        for number in numbers:
            block = content[number]
            content[number] = {**block, "content": _marker(block.get("content"), counter)}
        out[index] = {**messages[index], "content": content}
    return out


def clear_old_tool_results(
    messages: Sequence[Message], keep_last: int, counter: TokenCounter | None = None
) -> list[Message]:
    """A copy of ``messages`` with all but the last ``keep_last`` tool results cleared.

    Args:
        messages: the conversation, oldest first, in either message shape.
        keep_last: how many of the latest clearable results keep their content.
        counter: text -> tokens, used for the size in each marker;
            ``estimate_tokens`` when None.

    Returns:
        A new list, as long as ``messages`` and in the same order, where each
        cleared result's content is ``[tool result cleared to save context: N
        tokens]``, N being the tokens its old content counted.

    Examples:
        >>> from context_budget import tool_message
        >>> day = [tool_message("stock", {"rows": ["vanilla 12"] * 3}) for _ in range(3)]
        >>> for message in clear_old_tool_results(day, keep_last=1):
        ...     print(message["content"])
        [tool result cleared to save context: 13 tokens]
        [tool result cleared to save context: 13 tokens]
        {"rows":["vanilla 12","vanilla 12","vanilla 12"]}
    """
    _check_messages(messages)
    if isinstance(keep_last, bool) or not isinstance(keep_last, int):
        raise TypeError(f"keep_last must be an int, got {keep_last!r}")
    if keep_last < 0:
        raise ValueError(f"keep_last must be >= 0, got {keep_last}")
    return _clear(messages, keep_last, _resolve(counter))

"""Clearing old tool results: the cheapest way to win back context.

A tool result is either a shorthand message with role `"tool"` or one
`tool_result` block inside a message (Anthropic's format); a user message
answering three calls holds three tool results. Clearing swaps a result's
content for a marker that records its size,
`[tool result cleared to save context: 133 tokens]`, and touches nothing
else. The call that produced the result stays in the history, so the agent
still knows which lookup it made and can repeat it if it needs the data back.

Which results are cleared, in order of position (message, then block):

- an error result (`"is_error": true`) is never cleared, because the error is
  what the agent must not repeat; it does not count toward `keep_last`
  either, so a failing call never pushes a useful result out;
- a result already cleared is left as it is (its marker keeps the first size)
  and does not count toward `keep_last`: clearing twice changes nothing;
- of the rest, all but the last `keep_last` are old;
- an old result is cleared only when its marker counts fewer tokens than its
  content, and a message only changes when it comes out smaller as a whole:
  clearing never makes a context bigger. Compaction and the `inspect`
  command use this same rule.

The input is never mutated. The returned list is new; a changed message, its
content list and its changed block are new objects; unchanged messages are
the same objects as in the input, so treat messages as values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from context_budget._blocks import result_text, tool_results
from context_budget._checks import check_messages
from context_budget._counting import count_text, message_size, resolve_counter
from context_budget.messages import Message
from context_budget.tokens import MESSAGE_OVERHEAD_TOKENS as OVERHEAD
from context_budget.tokens import TokenCounter

__all__ = ["clear_old_tool_results"]

CLEARED_MARKER = "[tool result cleared to save context: {tokens} tokens]"
_CLEARED = re.compile(r"\[tool result cleared to save context: \d+ tokens\]")


def _marker_size(marker: str) -> int:
    """The tokens a marker reports: `[... 133 tokens]` -> 133."""
    return int(marker.rsplit(" ", 2)[1])


def _is_cleared(text: str) -> bool:
    """True when `text` is exactly a clearing marker."""
    return _CLEARED.fullmatch(text) is not None


@dataclass(frozen=True)
class _Clearing:
    """What clearing did: the new messages, how many results it cleared, and sizes.

    `sizes` maps the index of each changed message to its new size in tokens
    (framing included); every other message keeps its size.
    """

    messages: list[Message]
    cleared: int
    sizes: dict[int, int]


def _clear(
    messages: Sequence[Message],
    keep_last: int,
    counter: TokenCounter,
    sizes: Sequence[int] | None = None,
    result_tokens: Mapping[tuple[int, int | None], int] | None = None,
) -> _Clearing:
    """`clear_old_tool_results` on messages already checked, with what it did.

    `sizes`, when given, are the messages' sizes in tokens (index -> tokens),
    so that a message is not counted again to compare it with its cleared copy;
    `result_tokens` likewise maps a result's (message, block) to its tokens.
    """
    clearable = [
        result
        for result in tool_results(messages)
        if not result.is_error and not _is_cleared(result_text(result.content))
    ]
    old = clearable[: max(0, len(clearable) - keep_last)]
    markers: dict[int, dict[int | None, str]] = {}  # message index -> block -> marker
    marker_tokens: dict[int, int] = {}  # a result's tokens -> its marker's tokens
    for result in old:
        place = (result.message, result.block)
        if result_tokens is not None and place in result_tokens:
            tokens = result_tokens[place]
        else:
            tokens = count_text(result_text(result.content), counter)
        marker = CLEARED_MARKER.format(tokens=tokens)
        if tokens not in marker_tokens:
            marker_tokens[tokens] = count_text(marker, counter)
        if marker_tokens[tokens] < tokens:  # never clear a result into a bigger marker
            markers.setdefault(result.message, {})[result.block] = marker
    out = list(messages)
    new_sizes: dict[int, int] = {}
    cleared = 0
    for index, by_block in markers.items():
        message = messages[index]
        if None in by_block:  # a role "tool" message is one result
            new: Message = {**message, "content": by_block[None]}
        else:
            content: list[dict[str, Any]] = list(message["content"])
            for number, marker in by_block.items():
                assert number is not None
                content[number] = {**content[number], "content": marker}
            new = {**message, "content": content}
        if None in by_block or len(new["content"]) == 1:  # its text is the marker alone
            size = marker_tokens[_marker_size(next(iter(by_block.values())))] + OVERHEAD
        else:
            size = message_size(new, counter)
        before = sizes[index] if sizes is not None else message_size(message, counter)
        if size < before:  # subtle: a counter need not add up block by block
            out[index] = new
            new_sizes[index] = size
            cleared += len(by_block)
    return _Clearing(out, cleared, new_sizes)


def clear_old_tool_results(
    messages: Sequence[Message], keep_last: int, counter: TokenCounter | None = None
) -> list[Message]:
    """A copy of `messages` with all but the last `keep_last` tool results cleared.

    Args:
        messages: the conversation, oldest first, in either message shape.
        keep_last: how many of the latest clearable results keep their content.
        counter: text -> tokens, used for the size in each marker;
            `estimate_tokens` when None.

    Returns:
        A new list, as long as `messages` and in the same order, where each
        cleared result's content is `[tool result cleared to save context: N
        tokens]`, N being the tokens its old content counted. A result whose
        marker would not be smaller keeps its content.

    Raises:
        TypeError: a message is malformed (the error names it), or `keep_last`
            is not an int.
        ValueError: `keep_last` is negative, or a message lacks a key.

    Examples:
        >>> from context_budget import tool_message
        >>> day = [tool_message("stock", {"rows": ["vanilla 12"] * 3}) for _ in range(3)]
        >>> for message in clear_old_tool_results(day, keep_last=1):
        ...     print(message["content"])
        [tool result cleared to save context: 13 tokens]
        [tool result cleared to save context: 13 tokens]
        {"rows":["vanilla 12","vanilla 12","vanilla 12"]}
    """
    check_messages(messages)
    if isinstance(keep_last, bool) or not isinstance(keep_last, int):
        raise TypeError(f"keep_last must be an int, got {keep_last!r}")
    if keep_last < 0:
        raise ValueError(f"keep_last must be >= 0, got {keep_last}")
    return _clear(messages, keep_last, resolve_counter(counter)).messages

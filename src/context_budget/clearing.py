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

from collections.abc import Sequence

from context_budget._checks import check_messages
from context_budget._clearing import clear_results
from context_budget._counting import resolve_counter
from context_budget._values import short_repr
from context_budget.messages import Message
from context_budget.tokens import TokenCounter

__all__ = ["clear_old_tool_results"]


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
        raise TypeError(f"keep_last must be an int, got {short_repr(keep_last)}")
    if keep_last < 0:
        raise ValueError(f"keep_last must be >= 0, got {short_repr(keep_last)}")
    return clear_results(messages, keep_last, resolve_counter(counter)).messages

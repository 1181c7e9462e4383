"""Deterministic stand-ins for a model that writes a summary.

A summarizer takes the messages to summarize (oldest first) and returns the
summary's text; `compact` puts that text in one user message. Both here are
deterministic, so a lesson prints the same thing on every run:

- `keep_numbers` keeps only the lines holding a digit: quantities, times
  and ids survive, and rules stated in words are lost;
- `forget_everything` keeps nothing, the worst summary possible.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from context_budget._blocks import checked_message_text
from context_budget._checks import check_messages
from context_budget._clearing import is_cleared
from context_budget.messages import Message

__all__ = ["forget_everything", "keep_numbers"]

_DIGIT = re.compile(r"[0-9]")


def keep_numbers(messages: Sequence[Message]) -> str:
    """The lines of all the messages' text that hold a digit, in order, one per line.

    Each message's text is `message_text`'s; a clearing marker is not a fact
    and is skipped although it holds a number.

    Args:
        messages: the messages to summarize, oldest first.

    Returns:
        The kept lines joined by newlines (empty when no line has a digit).

    Examples:
        >>> keep_numbers([
        ...     {"role": "user", "content": "Never order mango from Frostline."},
        ...     {"role": "user", "content": "We close at 6 pm.\\nNo, make it 7 pm."},
        ... ])
        'We close at 6 pm.\\nNo, make it 7 pm.'
    """
    check_messages(messages)
    kept = [
        line
        for message in messages
        for line in checked_message_text(message).splitlines()
        if _DIGIT.search(line) and not is_cleared(line)
    ]
    return "\n".join(kept)


def forget_everything(messages: Sequence[Message]) -> str:
    """An empty summary, whatever the messages say.

    It never reads a message, so it checks only that it was given a list
    (constant time: the cheapest summarizer there is, which the benchmarks use
    to time `compact`'s own work).

    Args:
        messages: the messages to summarize; only their type is checked.

    Returns:
        The empty string.

    Examples:
        >>> forget_everything([{"role": "user", "content": "Never order mango."}])
        ''
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise TypeError(f"messages must be a list of dicts, got {type(messages).__name__}")
    return ""

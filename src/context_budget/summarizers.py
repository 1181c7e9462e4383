"""Deterministic stand-ins for a model that writes a summary.

A summarizer takes the messages to summarize (oldest first) and returns the
summary's text; `compact` puts that text in one user message. All four here are
deterministic, so a lesson prints the same thing on every run:

- `keep_numbers` keeps only the lines holding a digit: quantities, times
  and ids survive, and rules stated in words are lost;
- `forget_everything` keeps nothing, the worst summary possible;
- `wearing_summary` keeps every other line `keep_numbers` keeps, so a summary
  of a summary wears down round after round (the erosion lesson's lossy one);
- `keep_rules_and_decisions` keeps the digit lines and every line holding a
  rule or decision word: the repaired summary of the erosion lesson.

Examples:
    >>> wearing_summary([{"role": "user", "content": "a 1\\nb 2\\nc 3\\nno digit"}])
    'a 1\\nc 3'
    >>> keep_rules_and_decisions([{"role": "user", "content": "Never pay cash.\\nHello."}])
    'Never pay cash.'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from context_budget._blocks import checked_message_text
from context_budget._checks import check_messages
from context_budget._clearing import is_cleared
from context_budget.compaction import SUMMARY_PREFIX
from context_budget.messages import Message

__all__ = ["forget_everything", "keep_numbers", "keep_rules_and_decisions", "wearing_summary"]

_DIGIT = re.compile(r"[0-9]")


def keep_numbers(messages: Sequence[Message]) -> str:
    """The lines of all the messages' text that hold a digit, in order, one per line.

    Each message's text is `message_text`'s, but an embedded file (an
    image's or a document's base64 data) is named with its size rather than
    spelled out, as in the transcript a compaction sends: its data says
    nothing to a reader, and kept whole it would carry the file on into the
    summary. A clearing marker is not a fact and is skipped although it holds
    a number.

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
        for line in checked_message_text(message, files=False).splitlines()
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


# words that mark a line as a rule or a decision: kept by the repaired summary
_RULE_WORDS = re.compile(
    r"\b(never|always|only|stays|must|called|approved|now|goes on|from today)\b", re.IGNORECASE
)


def wearing_summary(messages: Sequence[Message]) -> str:
    """A lossy summary: the digit lines `keep_numbers` keeps, and of those every other one.

    It keeps the 1st, 3rd, 5th ... digit line, so each summary is about half
    as long as what it read: run it on its own output and it wears down again.
    Rules stated in words are lost at once.
    """
    lines = keep_numbers(messages).splitlines()  # which names what is no list of messages
    return "\n".join(lines[::2])


def keep_rules_and_decisions(messages: Sequence[Message]) -> str:
    """The repaired summary: every line that holds a digit or a rule or decision word.

    The words are those of a standing instruction or a change of plan
    (`never`, `always`, `only`, `stays`, `must`, `called`, `approved`, `now`,
    `goes on`, `from today`). Run on its own output it keeps everything, so
    repeated compaction loses nothing more.
    """
    check_messages(messages)
    kept = [
        line
        for message in messages
        for line in checked_message_text(message, files=False).splitlines()
        if line.strip() and not line.startswith(SUMMARY_PREFIX.strip())
        if re.search(r"[0-9]", line) or _RULE_WORDS.search(line)
    ]
    return "\n".join(kept)

"""Checking a history for broken tool-call pairs before an API refuses it.

In Anthropic's format an assistant message calls tools with ``tool_use``
blocks, and the very next message, a user message, answers each call with a
``tool_result`` block carrying the call's id, results before any text. A trim
or a summary that cuts between the two leaves a history the API rejects
("tool_use ids were found without tool_result blocks immediately after"): the
bug class most reported against context-trimming code.

``validate_history`` reports every break, each as a ``HistoryProblem`` naming
the message index, the tool_use id and one of four problems:

- ``"orphan result"``: a tool_result whose id no earlier tool_use carries;
- ``"misplaced result"``: a tool_result whose call exists but not in the
  message just before, or that is not in a user message, follows text, or
  answers the same call twice;
- ``"unanswered call"``: a tool_use that the next message does not answer. A
  call in the last message is pending, not a problem;
- ``"duplicate call id"``: a tool_use whose id an earlier tool_use already
  carries (the API refuses a reused id).

Shorthand ``"tool"`` messages carry no call id, so they are not checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from context_budget.messages import Message, _blocks, _check_messages, _tool_use_ids

__all__ = ["HistoryProblem", "validate_history"]

ORPHAN_RESULT = "orphan result"
MISPLACED_RESULT = "misplaced result"
UNANSWERED_CALL = "unanswered call"
DUPLICATE_CALL = "duplicate call id"


@dataclass(frozen=True)
class HistoryProblem:
    """One broken tool-call pair.

    Attributes:
        index: the index of the message holding the bad block.
        tool_use_id: the id of the call (or of the call a result claims).
        problem: ``"orphan result"``, ``"misplaced result"``, ``"unanswered call"``
            or ``"duplicate call id"``.

    Examples:
        >>> print(HistoryProblem(0, "toolu_01", "orphan result"))
        message 0: orphan result toolu_01
    """

    index: int
    tool_use_id: str
    problem: str

    def __str__(self) -> str:
        return f"message {self.index}: {self.problem} {self.tool_use_id}"


def _answered(
    index: int, message: Message, asked: list[str], seen: set[str]
) -> tuple[set[str], list[HistoryProblem]]:
    """The calls in ``asked`` that ``message`` answers, and its bad results."""
    answered: set[str] = set()
    problems: list[HistoryProblem] = []
    after_text = False
    for block in _blocks(message):
        if block["type"] != "tool_result":
            after_text = True
            continue
        call_id = block["tool_use_id"]
        in_place = message["role"] == "user" and not after_text and call_id not in answered
        if call_id in asked and message["role"] == "user":
            if not in_place:
                problems.append(HistoryProblem(index, call_id, MISPLACED_RESULT))
            answered.add(call_id)
        elif call_id in seen:
            problems.append(HistoryProblem(index, call_id, MISPLACED_RESULT))
        else:
            problems.append(HistoryProblem(index, call_id, ORPHAN_RESULT))
    return answered, problems


def validate_history(messages: Sequence[Message]) -> list[HistoryProblem]:
    """Every broken tool-call pair in ``messages``; an empty list means none.

    Args:
        messages: the conversation, oldest first.

    Returns:
        ``HistoryProblem`` records, ordered by message index.

    Examples:
        >>> trimmed = [
        ...     {"role": "user", "content": [
        ...         {"type": "tool_result", "tool_use_id": "toolu_01", "content": "12 tubs"},
        ...     ]},
        ...     {"role": "assistant", "content": "You have 12 tubs."},
        ... ]
        >>> validate_history(trimmed)
        [HistoryProblem(index=0, tool_use_id='toolu_01', problem='orphan result')]
    """
    _check_messages(messages)
    problems: list[HistoryProblem] = []
    seen: set[str] = set()  # ids of every tool_use so far
    asked: list[str] = []  # ids the previous message called, if it was an assistant's
    for index, message in enumerate(messages):
        answered, bad = _answered(index, message, asked, seen)
        problems.extend(
            HistoryProblem(index - 1, call_id, UNANSWERED_CALL)
            for call_id in asked
            if call_id not in answered
        )
        problems.extend(bad)
        calls = _tool_use_ids(message)
        problems.extend(
            HistoryProblem(index, call_id, DUPLICATE_CALL)
            for number, call_id in enumerate(calls)
            if call_id in seen or call_id in calls[:number]
        )
        seen.update(calls)
        asked = calls if message["role"] == "assistant" else []
    return problems

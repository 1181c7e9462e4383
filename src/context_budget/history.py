"""Checking a history for broken tool-call pairs before an API refuses it.

In Anthropic's format an assistant turn calls tools with `tool_use` blocks,
and the very next turn, a user turn, answers each call with a `tool_result`
block carrying the call's id, results before any text. A trim or a summary
that cuts between the two leaves a history the API rejects ("tool_use ids were
found without tool_result blocks immediately after"): the bug class most
reported against context-trimming code.

A *turn* is a run of consecutive messages with the same role: the API merges
them into one, and so does this check. A parallel call stored as two assistant
messages and answered in two user messages (how Claude Code writes its
transcripts) is one call turn and one answer turn, with nothing broken.

`validate_history` reports every break, each as a `HistoryProblem` naming the
message index, the tool_use id and one of five problems:

- `"orphan result"`: a tool_result whose id no earlier tool_use carries;
- `"misplaced result"`: a tool_result whose call exists but not in the turn
  just before, or that is not in a user turn, follows text in its turn, or
  answers the same call twice;
- `"unanswered call"`: a tool_use that the next turn does not answer. A call
  in the last turn is pending, not a problem, unless a later message of that
  turn moved on to something other than calls;
- `"duplicate call id"`: a tool_use whose id an earlier tool_use already
  carries (the API refuses a reused id);
- `"misplaced call"`: a tool_use in a message that is not the assistant's.

Shorthand `"tool"` messages carry no call id, so they are not checked. Cost:
linear in the number of blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from context_budget._blocks import message_blocks
from context_budget._checks import check_messages
from context_budget.messages import Message

# kept importable from here, where it was first defined
from context_budget.prefix_guard import PrefixGuard as PrefixGuard
from context_budget.prefix_guard import PrefixReport as PrefixReport

__all__ = ["HistoryProblem", "validate_history"]

ORPHAN_RESULT = "orphan result"
MISPLACED_RESULT = "misplaced result"
UNANSWERED_CALL = "unanswered call"
DUPLICATE_CALL = "duplicate call id"
MISPLACED_CALL = "misplaced call"


@dataclass(frozen=True)
class HistoryProblem:
    """One broken tool-call pair.

    Attributes:
        index: the index of the message holding the bad block.
        tool_use_id: the id of the call (or of the call a result claims).
        problem: `"orphan result"`, `"misplaced result"`, `"unanswered call"`,
            `"duplicate call id"` or `"misplaced call"`.

    Examples:
        >>> print(HistoryProblem(0, "toolu_01", "orphan result"))
        message 0: orphan result toolu_01
    """

    index: int
    tool_use_id: str
    problem: str

    def __str__(self) -> str:
        return f"message {self.index}: {self.problem} {self.tool_use_id}"


def _turns(messages: Sequence[Message]) -> list[tuple[str, int, int]]:
    """(role, start, stop) of each run of consecutive same-role messages, in order."""
    turns: list[tuple[str, int, int]] = []
    start = 0
    for index in range(1, len(messages) + 1):
        if index == len(messages) or messages[index]["role"] != messages[start]["role"]:
            turns.append((messages[start]["role"], start, index))
            start = index
    return turns


def validate_history(messages: Sequence[Message]) -> list[HistoryProblem]:
    """Every broken tool-call pair in `messages`; an empty list means none.

    Args:
        messages: the conversation, oldest first.

    Returns:
        `HistoryProblem` records, ordered by message index (then by block).

    Raises:
        TypeError: a message is malformed; the error names it.
        ValueError: a message lacks a key or has an unknown role.

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
    check_messages(messages)
    problems: list[HistoryProblem] = []
    seen: set[str] = set()  # ids of every tool_use so far
    asked: dict[str, int] = {}  # id -> message index, of the calls the previous turn made
    for role, start, stop in _turns(messages):
        answered: set[str] = set()
        after_text = False
        calls: dict[str, int] = {}  # this turn's calls: id -> message index
        moved_on = -1  # the last message of the turn holding more than calls
        for index in range(start, stop):
            message = messages[index]
            if isinstance(message["content"], str) or any(
                block["type"] != "tool_use" for block in message_blocks(message)
            ):
                moved_on = index
            for block in message_blocks(message):
                kind = block["type"]
                if kind == "tool_use":
                    call_id = block["id"]
                    if role != "assistant":
                        problems.append(HistoryProblem(index, call_id, MISPLACED_CALL))
                    else:
                        if call_id in seen:
                            problems.append(HistoryProblem(index, call_id, DUPLICATE_CALL))
                        calls.setdefault(call_id, index)
                    seen.add(call_id)
                elif kind == "tool_result":
                    call_id = block["tool_use_id"]
                    if role == "user" and call_id in asked:
                        if after_text or call_id in answered:
                            problems.append(HistoryProblem(index, call_id, MISPLACED_RESULT))
                        answered.add(call_id)
                    elif call_id in seen:
                        problems.append(HistoryProblem(index, call_id, MISPLACED_RESULT))
                    else:
                        problems.append(HistoryProblem(index, call_id, ORPHAN_RESULT))
                else:
                    after_text = True
        problems.extend(
            HistoryProblem(index, call_id, UNANSWERED_CALL)
            for call_id, index in asked.items()
            if call_id not in answered
        )
        asked = calls if role == "assistant" else {}
    if asked:  # the last turn's calls are pending, unless the turn went on past them
        problems.extend(
            HistoryProblem(index, call_id, UNANSWERED_CALL)
            for call_id, index in asked.items()
            if index < moved_on
        )
    # subtle: a turn's unanswered calls are found one turn later; sorting is stable
    problems.sort(key=lambda problem: problem.index)
    return problems

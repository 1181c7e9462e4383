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
    moved_on = -1
    for role, start, stop in _turns(messages):
        turn = _Turn(role, asked)
        for index in range(start, stop):
            turn.read(index, messages[index], seen, problems)
        problems.extend(
            HistoryProblem(index, call_id, UNANSWERED_CALL)
            for call_id, index in asked.items()
            if call_id not in turn.answered
        )
        asked = turn.calls if role == "assistant" else {}
        moved_on = turn.moved_on
    if asked:  # the last turn's calls are pending, unless the turn went on past them
        problems.extend(
            HistoryProblem(index, call_id, UNANSWERED_CALL)
            for call_id, index in asked.items()
            if index < moved_on
        )
    # subtle: a turn's unanswered calls are found one turn later; sorting is stable
    problems.sort(key=lambda problem: problem.index)
    return problems


class _Turn:
    """One turn's messages as `validate_history` reads them, block by block.

    Attributes:
        role: the turn's role.
        asked: the calls the turn before made (id -> message index), which this
            turn's results answer.
        answered: the ids of those calls this turn answered.
        calls: this turn's own calls (an assistant turn's), id -> message index.
        moved_on: the index of the turn's last message holding more than calls, or -1.
        after_text: True once the turn held a block that is neither call nor result.
    """

    def __init__(self, role: str, asked: dict[str, int]) -> None:
        self.role = role
        self.asked = asked
        self.answered: set[str] = set()
        self.calls: dict[str, int] = {}
        self.moved_on = -1
        self.after_text = False

    def read(
        self, index: int, message: Message, seen: set[str], problems: list[HistoryProblem]
    ) -> None:
        """Check message `index`'s blocks, adding what is wrong to `problems` and every
        call's id to `seen`."""
        if isinstance(message["content"], str) or any(
            block["type"] != "tool_use" for block in message_blocks(message)
        ):
            self.moved_on = index
        for block in message_blocks(message):
            kind = block["type"]
            if kind == "tool_use":
                self._call(index, block["id"], seen, problems)
            elif kind == "tool_result":
                problem = self._result(block["tool_use_id"], seen)
                if problem is not None:
                    problems.append(HistoryProblem(index, block["tool_use_id"], problem))
            else:
                self.after_text = True

    def _call(
        self, index: int, call_id: str, seen: set[str], problems: list[HistoryProblem]
    ) -> None:
        """A tool call: misplaced outside an assistant turn, a duplicate of an id seen."""
        if self.role != "assistant":
            problems.append(HistoryProblem(index, call_id, MISPLACED_CALL))
        else:
            if call_id in seen:
                problems.append(HistoryProblem(index, call_id, DUPLICATE_CALL))
            self.calls.setdefault(call_id, index)
        seen.add(call_id)

    def _result(self, call_id: str, seen: set[str]) -> str | None:
        """What is wrong with a result for `call_id` here, or None (it answers a call of
        the turn before, in place)."""
        if self.role == "user" and call_id in self.asked:
            misplaced = self.after_text or call_id in self.answered
            self.answered.add(call_id)
            return MISPLACED_RESULT if misplaced else None
        return MISPLACED_RESULT if call_id in seen else ORPHAN_RESULT

"""Conversations the Unit A tests share: the LONG day of its grade cases, Anthropic tool pairs."""

from __future__ import annotations

from typing import Any

from context_budget import Message, tool_message

SYSTEM = "s"
PINNED = ["Never order mango from Frostline."]

# Unit A's grade cases: 8 rounds of a question, a bulky stock table and an answer
TOOL = tool_message("stock_level", {"rows": ["vanilla 12"] * 40})
SMALL: list[Message] = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hello"},
]
LONG: list[Message] = [
    message
    for i in range(8)
    for message in (
        {"role": "user", "content": f"q{i}"},
        TOOL,
        {"role": "assistant", "content": f"a{i}"},
    )
]


def cleared_count(messages: list[Message]) -> int:
    """How many messages hold a clearing marker anywhere in their content."""
    return sum("cleared to save context" in str(m["content"]) for m in messages)


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def assistant(text: str) -> Message:
    return {"role": "assistant", "content": text}


def call(*ids: str, text: str | None = None) -> Message:
    """An assistant message calling the tool ``stock`` once per id."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks += [
        {"type": "tool_use", "id": tool_id, "name": "stock", "input": {"flavor": tool_id}}
        for tool_id in ids
    ]
    return {"role": "assistant", "content": blocks}


def result_block(tool_id: str, content: Any = "vanilla 12\n" * 20, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def results(*ids: str, text: str | None = None, is_error: bool = False) -> Message:
    """A user message answering each id (results first), then ``text`` if given."""
    extra = {"is_error": True} if is_error else {}
    blocks = [result_block(tool_id, **extra) for tool_id in ids]
    if text:
        blocks.append({"type": "text", "text": text})
    return {"role": "user", "content": blocks}


def anthropic_day(rounds: int) -> list[Message]:
    """``rounds`` rounds of: question, a call, its result, an answer (all valid pairs)."""
    out: list[Message] = []
    for i in range(rounds):
        out += [user(f"q{i}"), call(f"t{i}"), results(f"t{i}"), assistant(f"a{i}")]
    return out

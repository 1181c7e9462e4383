"""The text of blocks, results and messages, and where the tool results are.

Shapes are those `context_budget.messages` describes. Every function here but
`request_block_text` (the prompt cache's reading of a request's block) trusts
its input to have passed `check_message`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from context_budget._json import canonical_json

__all__ = [
    "ToolResult",
    "block_text",
    "checked_message_text",
    "is_question",
    "message_blocks",
    "request_block_text",
    "result_text",
    "tool_result_ids",
    "tool_results",
    "tool_use_ids",
]


def result_text(content: object, *, files: bool = True) -> str:
    """The text of a tool result's content: a string, or its blocks' text joined
    (`files` as for `block_text`)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(block_text(block, files=files) for block in content)
    return ""  # a tool_result without content


def block_text(block: dict[str, Any], *, files: bool = True) -> str:
    """The text of one checked block that a token count covers (see `message_text`).

    With `files` False, a block that embeds a file (an image's or a document's
    base64 `source.data`) is named, not spelled out: the text for a reader,
    such as a model asked to summarize, to whom the data says nothing.
    """
    kind = block["type"]
    if kind == "text":
        return str(block["text"])
    if kind == "tool_use":
        return f"{block['name']} {canonical_json(block['input'])}"
    if kind == "tool_result":
        return result_text(block.get("content"), files=files)
    if kind == "thinking":
        return str(block["thinking"])
    source = block.get("source")
    if (
        not files
        and isinstance(source, dict)
        and source.get("type") == "base64"
        and isinstance(source.get("data"), str)
    ):
        media = source.get("media_type")
        named = f"{media} {kind}" if isinstance(media, str) else kind
        return f"[{named}: {len(source['data']):,} characters of base64 data left out]"
    return canonical_json(block)


def checked_message_text(message: dict[str, Any], *, files: bool = True) -> str:
    """`message_text` for a message already checked (`files` as for `block_text`)."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(block_text(block, files=files) for block in content)


def message_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of a message (none for string content or a role "tool" message)."""
    content = message["content"]
    return content if isinstance(content, list) and message["role"] != "tool" else []


def tool_use_ids(message: dict[str, Any]) -> list[str]:
    return [block["id"] for block in message_blocks(message) if block["type"] == "tool_use"]


def tool_result_ids(message: dict[str, Any]) -> list[str]:
    return [
        block["tool_use_id"] for block in message_blocks(message) if block["type"] == "tool_result"
    ]


class ToolResult(NamedTuple):
    """One tool result and where it sits."""

    message: int  # the message's index
    block: int | None  # the block's index, None for a role "tool" message
    content: Any  # str, list of blocks, or None (a tool_result without content)
    is_error: bool


def tool_results(messages: Sequence[dict[str, Any]]) -> Iterator[ToolResult]:
    """Every tool result in checked `messages`, in order of position (message, then block)."""
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            yield ToolResult(index, None, message["content"], message.get("is_error", False))
            continue
        content = message["content"]
        if isinstance(content, list):
            for number, block in enumerate(content):
                if block["type"] == "tool_result":
                    flag = block.get("is_error", False)
                    yield ToolResult(index, number, block.get("content"), flag)


def request_block_text(block: Mapping[str, Any]) -> str:
    """The text of one block of a request, as the prompt cache counts it.

    Unlike `block_text`, it reads a block that was never checked (a missing key
    gives "", an item of a tool result's content that is no block its JSON),
    counts a `compaction` block's content, and leaves a block's `cache_control`
    out of its JSON.
    """
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        given = canonical_json(block["input"]) if "input" in block else ""
        return f"{block.get('name', '')} {given}"
    if kind == "tool_result":
        content = block.get("content")
        if not isinstance(content, list):
            return result_text(content)
        return "\n".join(
            request_block_text(item) if isinstance(item, Mapping) else canonical_json(item)
            for item in content
        )
    if kind in ("thinking", "compaction"):
        return str(block.get("thinking", block.get("content")) or "")
    return canonical_json({k: v for k, v in block.items() if k != "cache_control"})


def is_question(message: dict[str, Any]) -> bool:
    """A user message with something besides tool results in it."""
    if message["role"] != "user":
        return False
    content = message["content"]
    return isinstance(content, str) or any(block["type"] != "tool_result" for block in content)

"""Rebuilt blocks as stand-in text of a known size, for clearing and compaction.

A replay's blocks (`_requests.Block`) have sizes the recorded usage proves,
not text: the files keep messages, and a token count of their text is an
estimate. The clearing emulation and compaction count text with a counter;
each block is handed to them as a stand-in, a short text naming its key and
its size, `⟦<key>:<tokens>⟧`, and `count` reads the size back. Text beside a
stand-in (a placeholder, a summary's prefix) is estimated at four characters
a token. (The cache takes the blocks' keys and sizes as they are:
`PromptCache.usage_of_row`.)

- `messages`: the blocks as Anthropic messages (`tool_use` and
  `tool_result` blocks keep their ids and tool names), each block carrying
  its ident under `IDENT` so that what an edit did can be read back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from context_budget._requests import Block
from context_budget.messages import Message
from context_budget.tokens import estimate_tokens

__all__ = ["IDENT", "count", "messages", "stand_in", "text_of"]

#: The key under which a stand-in message block carries its block's ident.
IDENT = "_ident"
_STAND_IN = re.compile("\u27e6[0-9a-z_.-]*:([0-9]+)\u27e7")


def stand_in(key: str, tokens: int) -> str:
    """The text that stands for a block: `count(stand_in(key, 7)) == 7`."""
    return f"\u27e6{key}:{tokens}\u27e7"


def count(text: str) -> int:
    """Tokens of `text`: each stand-in's own size, the rest at four characters a token.

    Example: `count("Summary:\\n" + stand_in("ab", 2000))` -> 2003.
    """
    found = 0
    for match in _STAND_IN.finditer(text):
        found += int(match.group(1))
    rest = _STAND_IN.sub("", text) if found or "\u27e6" in text else text
    return found + estimate_tokens(rest)


def _block(block: Block) -> dict[str, Any]:
    """One block as an Anthropic content block of the same kind, its text a stand-in."""
    text = stand_in(block.key, block.tokens)
    if block.kind == "tool_use":
        found: dict[str, Any] = {
            "type": "tool_use",
            "id": block.use_id,
            "name": block.tool,
            "input": {"": text},
        }
    elif block.kind == "tool_result":
        found = {"type": "tool_result", "tool_use_id": block.use_id, "content": text}
        if block.error:
            found["is_error"] = True
    else:
        found = {"type": "text", "text": text}
    found[IDENT] = block.ident
    return found


def messages(blocks: Sequence[Block]) -> list[Message]:
    """The non-system blocks as messages, consecutive blocks of one role in one message."""
    found: list[Message] = []
    for block in blocks:
        if block.role == "system":
            continue
        if found and found[-1]["role"] == block.role:
            found[-1]["content"].append(_block(block))
        else:
            found.append({"role": block.role, "content": [_block(block)]})
    return found


def text_of(item: dict[str, Any]) -> str:
    """The text a stand-in message block holds (after an edit, the text that replaced it)."""
    if item.get("type") == "tool_use":
        return str(item.get("input", {}).get("", ""))
    if item.get("type") == "tool_result":
        content = item.get("content")
        return content if isinstance(content, str) else ""
    return str(item.get("text", ""))

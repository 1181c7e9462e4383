"""The clearing rule on messages already checked, shared by clearing, compaction and the CLI.

`context_budget.clearing` describes the rule and is its public face
(`clear_old_tool_results`); compaction's first step and the `inspect` command
call `clear_results` here for what it did, not only the new messages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from context_budget._blocks import result_text, tool_results
from context_budget._counting import MESSAGE_OVERHEAD_TOKENS as OVERHEAD
from context_budget._counting import TokenCounter, count_text, message_size

__all__ = ["CLEARED_MARKER", "Clearing", "clear_results", "is_cleared"]

CLEARED_MARKER = "[tool result cleared to save context: {tokens} tokens]"
_CLEARED = re.compile(r"\[tool result cleared to save context: \d+ tokens\]")


def _marker_size(marker: str) -> int:
    """The tokens a marker reports: `[... 133 tokens]` -> 133."""
    return int(marker.rsplit(" ", 2)[1])


def is_cleared(text: str) -> bool:
    """True when `text` is exactly a clearing marker."""
    return _CLEARED.fullmatch(text) is not None


@dataclass(frozen=True)
class Clearing:
    """What clearing did: the new messages, how many results it cleared, and sizes.

    `sizes` maps the index of each changed message to its new size in tokens
    (framing included); every other message keeps its size.
    """

    messages: list[dict[str, Any]]
    cleared: int
    sizes: dict[int, int]


def clear_results(
    messages: Sequence[dict[str, Any]],
    keep_last: int,
    counter: TokenCounter,
    sizes: Sequence[int] | None = None,
    result_tokens: Mapping[tuple[int, int | None], int] | None = None,
) -> Clearing:
    """`clear_old_tool_results` on messages already checked, with what it did.

    `sizes`, when given, are the messages' sizes in tokens (index -> tokens),
    so that a message is not counted again to compare it with its cleared copy;
    `result_tokens` likewise maps a result's (message, block) to its tokens.
    """
    clearable = [
        result
        for result in tool_results(messages)
        if not result.is_error and not is_cleared(result_text(result.content))
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
            new: dict[str, Any] = {**message, "content": by_block[None]}
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
    return Clearing(out, cleared, new_sizes)

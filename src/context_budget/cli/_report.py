"""The report as plain data: what ``inspect`` prints, before it is turned into text.

``_report`` gives one dict, printed as is by ``--json`` and as text by
``_render``; every count is in tokens, framing included, and every share is a
fraction of the context's total rounded to 4 places::

    {
        "file": str,                  # the path as given
        "counter": str,               # "estimate" or "qwen"
        "shape": str,                 # "list" or "object"
        "messages": int,              # messages in the conversation
        "pinned_records": int,
        "layers": {"system": int, "pinned": int, "conversation": int, "total": int},
        "largest": [                  # at most LARGEST, most tokens first, ties in order
            {"index": int, "role": str, "kind": str, "tools": [str, ...],
             "tokens": int, "share": float},
        ],
        "tool_results": {             # tokens of the results' content alone
            "count": int, "tokens": int, "share": float,
            "by_tool": [{"tool": str, "count": int, "tokens": int, "share": float}],
        },
        "history": [{"index": int, "tool_use_id": str, "problem": str}],
        "budget": None or {           # None without --budget; see _budget_section
            "budget": int, "total": int, "fits": bool,
            "clearing": {"keep_last": int, "cleared": int, "freed": int,
                         "total": int, "fits": bool},
            "compaction": {"summarizer": str, "fits": bool, "step": 0 | 1 | 2 | None,
                           "summarized": int | None, "freed": int | None,
                           "total": int | None, "error": str | None},
        },
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import KEEP_TOOL_RESULTS, compact
from context_budget.errors import ContextOverflowError
from context_budget.history import validate_history
from context_budget.layers import Layers, budget_report
from context_budget.messages import Message
from context_budget.summarizers import keep_numbers
from context_budget.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter, message_tokens

#: How many messages the "largest" table lists.
LARGEST = 10


def _share(part: int, total: int) -> float:
    """``part / total`` as a fraction rounded to 4 places (0.0 for an empty context)."""
    return round(part / total, 4) if total else 0.0


def _call_names(conversation: Sequence[Message]) -> dict[str, str]:
    # tool_use id -> tool name, over the whole conversation
    return {
        block["id"]: block["name"]
        for message in conversation
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_use"
    }


def _shorthand_name(message: Message) -> str:
    """The tool a role "tool" message reports on; its ``name`` is optional."""
    name = message.get("name")
    return name if isinstance(name, str) and name else "(unnamed)"


def _kind(message: Message) -> str:
    """What a message holds: ``text``, ``tool_result``, or block types joined by ``+``.

    Example: [text, tool_use] -> "text+tool_use"; role "tool" -> "tool_result".
    """
    if message["role"] == "tool":
        return "tool_result"
    content = message["content"]
    if isinstance(content, str):
        return "text"
    kinds = list(dict.fromkeys(block["type"] for block in content))
    return "+".join(kinds) if kinds else "empty"


def _tool_results(
    conversation: Sequence[Message], names: dict[str, str], counter: TokenCounter
) -> list[tuple[int, str, int]]:
    """(message index, tool name, tokens of the result's content), in order.

    A result whose call is not in the conversation is named ``(no call)``.

    A result's tokens are those of its content alone: ``message_tokens`` of a
    message holding only that result, less the per-message framing.
    """
    found: list[tuple[int, str, int]] = []
    for index, message in enumerate(conversation):
        content = message["content"]
        if message["role"] == "tool":
            tokens = message_tokens(message, counter) - MESSAGE_OVERHEAD_TOKENS
            found.append((index, _shorthand_name(message), tokens))
        elif isinstance(content, list):
            for block in content:
                if block["type"] == "tool_result":
                    alone: Message = {"role": message["role"], "content": [block]}
                    tokens = message_tokens(alone, counter) - MESSAGE_OVERHEAD_TOKENS
                    found.append((index, names.get(block["tool_use_id"], "(no call)"), tokens))
    return found


def _tools_of(message: Message, names: dict[str, str]) -> list[str]:
    """Names of the tools a message calls or answers, first seen first."""
    if message["role"] == "tool":
        return [_shorthand_name(message)]
    content = message["content"]
    if isinstance(content, str):
        return []
    tools = []
    for block in content:
        if block["type"] == "tool_use":
            tools.append(block["name"])
        elif block["type"] == "tool_result":
            tools.append(names.get(block["tool_use_id"], "(no call)"))
    return list(dict.fromkeys(tools))


def _results_cleared(before: Sequence[Message], after: Sequence[Message]) -> int:
    """How many tool results differ between a conversation and its cleared copy."""
    changed = 0
    for old, new in zip(before, after, strict=True):
        if old["role"] == "tool" or not isinstance(old["content"], list):
            changed += old["content"] != new["content"]
        else:
            changed += sum(a != b for a, b in zip(old["content"], new["content"], strict=True))
    return changed


def _budget_section(
    layers: Layers, total: int, budget: int, counter: TokenCounter
) -> dict[str, Any]:
    conversation = layers.conversation
    cleared = clear_old_tool_results(conversation, KEEP_TOOL_RESULTS, counter)
    after_clearing = budget_report(Layers(layers.system, layers.pinned, cleared), counter)["total"]
    compaction: dict[str, Any] = {
        "summarizer": "keep_numbers",
        "fits": False,
        "step": None,
        "summarized": None,
        "freed": None,
        "total": None,
        "error": None,
    }
    try:
        compacted = compact(layers, budget, keep_numbers, counter)
    except ContextOverflowError as error:
        compaction["error"] = str(error)
    else:
        size = budget_report(compacted, counter)["total"]
        if compacted.conversation == conversation:
            step, summarized = 0, 0
        elif len(compacted.conversation) == len(conversation) and all(
            # step 1 clears a result only where its marker is the smaller of the two
            new in (old, clear)
            for new, old, clear in zip(compacted.conversation, conversation, cleared, strict=True)
        ):
            step, summarized = 1, 0
        else:  # one summary message replaced the messages before the kept tail
            step, summarized = 2, len(conversation) - len(compacted.conversation) + 1
        compaction.update(
            fits=True, step=step, summarized=summarized, freed=total - size, total=size
        )
    return {
        "budget": budget,
        "total": total,
        "fits": total <= budget,
        "clearing": {
            "keep_last": KEEP_TOOL_RESULTS,
            "cleared": _results_cleared(conversation, cleared),
            "freed": total - after_clearing,
            "total": after_clearing,
            "fits": after_clearing <= budget,
        },
        "compaction": compaction,
    }


def _report(
    layers: Layers,
    shape: str,
    path: str,
    counter_name: str,
    counter: TokenCounter,
    budget: int | None,
) -> dict[str, Any]:
    """The whole report as plain data; the text form and ``--json`` both print this."""
    conversation = layers.conversation
    layer_tokens = dict(budget_report(layers, counter))
    total = layer_tokens["total"]
    names = _call_names(conversation)
    sizes = [message_tokens(message, counter) for message in conversation]  # index -> tokens
    order = sorted(range(len(conversation)), key=lambda i: (-sizes[i], i))
    largest = [
        {
            "index": i,
            "role": conversation[i]["role"],
            "kind": _kind(conversation[i]),
            "tools": _tools_of(conversation[i], names),
            "tokens": sizes[i],
            "share": _share(sizes[i], total),
        }
        for i in order[:LARGEST]
    ]
    results = _tool_results(conversation, names, counter)
    by_tool: dict[str, list[int]] = {}  # tool name -> [results, tokens]
    for _, tool, tokens in results:
        count = by_tool.setdefault(tool, [0, 0])
        count[0] += 1
        count[1] += tokens
    result_tokens = sum(tokens for _, _, tokens in results)
    return {
        "file": path,
        "counter": counter_name,
        "shape": shape,
        "messages": len(conversation),
        "pinned_records": len(layers.pinned),
        "layers": layer_tokens,
        "largest": largest,
        "tool_results": {
            "count": len(results),
            "tokens": result_tokens,
            "share": _share(result_tokens, total),
            "by_tool": [
                {"tool": tool, "count": count, "tokens": tokens, "share": _share(tokens, total)}
                for tool, (count, tokens) in sorted(by_tool.items(), key=lambda t: (-t[1][1], t[0]))
            ],
        },
        "history": [
            {"index": p.index, "tool_use_id": p.tool_use_id, "problem": p.problem}
            for p in validate_history(conversation)
        ],
        "budget": None if budget is None else _budget_section(layers, total, budget, counter),
    }

"""Compaction: fit a context into a token budget in at most two steps.

``compact(layers, budget, summarize)`` returns new ``Layers`` whose
``budget_report(...)["total"]`` is at most ``budget`` tokens:

0. if the layers already fit, a copy of them, unchanged;
1. otherwise clear old tool results, keeping the last ``KEEP_TOOL_RESULTS``;
   if that fits, stop;
2. otherwise replace every message before the latest user question with one
   user message, ``SUMMARY_PREFIX + summarize(older_messages)``, and keep the
   question and everything after it (as step 1 left them).

System and pinned are never changed. When no such context fits, the function
raises ``ContextOverflowError`` rather than return one over the budget.

The cut of step 2. The latest *question* is the latest user message that is
not only ``tool_result`` blocks (a turn that only answers tool calls is part of
the agent's work, not a question). The kept tail must not hold a tool result
whose call was summarized away, since the API refuses such a history: when a
kept message answers a call made before the cut, the cut moves back to the
assistant message holding that call, and the check repeats for the newly kept
messages. The summary stays a message of its own even when a user message
follows it; Anthropic's API combines consecutive user turns into one.

Cost: linear in the number of messages. Each message is counted once; the
messages step 1 changes are counted once more; nothing is recounted in a loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from context_budget.clearing import _clear
from context_budget.errors import ContextOverflowError
from context_budget.layers import Layers, _fixed_tokens
from context_budget.messages import Message, _check_messages, _tool_result_ids, _tool_use_ids
from context_budget.tokens import TokenCounter, _message_size, _resolve, _sizes

__all__ = ["KEEP_TOOL_RESULTS", "SUMMARY_PREFIX", "Summarizer", "compact"]

#: How many of the latest tool results step 1 leaves uncleared.
KEEP_TOOL_RESULTS = 2
#: The start of the one user message that replaces the summarized messages.
SUMMARY_PREFIX = "Summary of the earlier conversation:\n"

#: A summarizer: the older messages -> the text of their summary.
Summarizer = Callable[[list[Message]], str]


def _is_question(message: Message) -> bool:
    """A user message with something besides tool results in it."""
    if message["role"] != "user":
        return False
    content = message["content"]
    return isinstance(content, str) or any(block["type"] != "tool_result" for block in content)


def _unanswered(messages: Sequence[Message], start: int, stop: int) -> set[str]:
    """Ids of the tool results in ``messages[start:stop]`` whose call is not in that span."""
    calls: set[str] = set()
    missing: set[str] = set()
    for message in messages[start:stop]:
        missing.update(i for i in _tool_result_ids(message) if i not in calls)
        calls.update(_tool_use_ids(message))
    return missing


def _cut_index(messages: Sequence[Message]) -> int | None:
    """Where the kept tail starts, or None when there is no user question.

    Example: [user q0, assistant call t1, user result t1 + q1] -> 1, because
    the latest question (index 2) also answers the call made at index 1.
    """
    latest = next((i for i in range(len(messages) - 1, -1, -1) if _is_question(messages[i])), None)
    if latest is None:
        return None
    cut = latest
    pending = _unanswered(messages, cut, len(messages))  # kept results whose call is older
    # Walk back from the cut only while a kept result still lacks its call; the
    # nearest earlier message making that call joins the tail, with everything
    # after it. A result whose call is nowhere (an orphan already) moves nothing.
    index = cut - 1
    while pending and index >= 0:
        made = pending.intersection(_tool_use_ids(messages[index]))
        if made:
            pending = (pending - made) | _unanswered(messages, index, cut)
            cut = index
        index -= 1
    return cut


def _fresh(messages: Sequence[Message]) -> list[Message]:
    """A copy of ``messages``: new message dicts, content lists, blocks and tool inputs.

    Strings are shared (they cannot change); so are values nested in keys other
    than those, which no part of a message this package reads.
    """
    return [
        {**message, "content": [_fresh_block(block) for block in message["content"]]}
        if isinstance(message["content"], list)
        else {**message}
        for message in messages
    ]


def _fresh_block(block: dict[str, Any]) -> dict[str, Any]:
    if block["type"] == "tool_use":
        return {**block, "input": _copy_json(block["input"])}
    content = block.get("content")
    if isinstance(content, list):  # a tool_result's own text or image blocks
        return {**block, "content": [{**item} for item in content]}
    return {**block}


def _copy_json(value: Any) -> Any:
    """A copy of nested dicts and lists; anything else is shared (strings, numbers)."""
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    return value


def _check_arguments(layers: object, budget: object, summarize: object) -> None:
    if not isinstance(layers, Layers):
        raise TypeError(f"layers must be a Layers, got {type(layers).__name__}")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise TypeError(f"budget must be an int number of tokens, got {budget!r}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0 tokens, got {budget}")
    if not callable(summarize):
        raise TypeError(f"summarize must be callable (messages -> str), got {summarize!r}")


def compact(
    layers: Layers,
    budget: int,
    summarize: Summarizer,
    counter: TokenCounter | None = None,
) -> Layers:
    """New layers that fit in ``budget`` tokens, by clearing, then summarizing.

    Args:
        layers: the context to fit; it is not changed.
        budget: the most tokens the result may hold, as ``budget_report``
            counts them with the same ``counter``.
        summarize: the older messages (oldest first, as step 1 left them, so
            old tool results arrive cleared; do not change them) -> the text
            of their summary.
        counter: text -> tokens; ``estimate_tokens`` when None.

    Returns:
        ``Layers`` with the same system and pinned records, and a conversation
        that is the original, the original with old tool results cleared, or a
        summary message followed by the latest question and what came after.

    Raises:
        ContextOverflowError: system and pinned alone exceed the budget, there
            is nothing older to summarize, or the summarized context still does
            not fit. ``budget`` and ``size`` (tokens) are on the error.

    Examples:
        >>> from context_budget import forget_everything, tool_message
        >>> day = [
        ...     {"role": "user", "content": "How much vanilla?"},
        ...     tool_message("stock_level", {"rows": ["vanilla 12"] * 40}),
        ...     {"role": "assistant", "content": "12 tubs in every freezer."},
        ...     {"role": "user", "content": "And mint?"},
        ... ]
        >>> small = compact(Layers("s", ["Never order mango."], day), 60, forget_everything)
        >>> [message["content"] for message in small.conversation]
        ['Summary of the earlier conversation:\\n', 'And mint?']
    """
    _check_arguments(layers, budget, summarize)
    counter = _resolve(counter)
    conversation = layers.conversation
    _check_messages(conversation)

    system, pinned = _fixed_tokens(layers, counter)
    fixed = system + pinned
    if fixed > budget:
        raise ContextOverflowError(
            f"budget {budget} tokens, system and pinned alone are {fixed} tokens",
            budget=budget,
            size=fixed,
        )
    sizes = _sizes(conversation, counter)  # message index -> tokens
    total = fixed + sum(sizes)
    if total <= budget:
        return Layers(layers.system, list(layers.pinned), list(conversation))

    # step 1: only the messages clearing replaced need counting again; a message
    # whose results were too small to be worth a marker keeps its results.
    cleared = _clear(conversation, KEEP_TOOL_RESULTS, counter)
    for index, (new, old) in enumerate(zip(cleared, conversation, strict=True)):
        if new is not old:
            size = _message_size(new, counter)
            if size < sizes[index]:
                sizes[index] = size
            else:
                cleared[index] = old
    total = fixed + sum(sizes)
    if total <= budget:
        return Layers(layers.system, list(layers.pinned), cleared)

    # step 2: one summary message, then the latest question and what follows it
    cut = _cut_index(cleared)
    if not cut:  # None (no question at all) or 0 (nothing before the question)
        raise ContextOverflowError(
            f"budget {budget} tokens, the context is {total} tokens after clearing old "
            "tool results, and there is nothing older than the latest question to summarize",
            budget=budget,
            size=total,
        )
    # subtle: the summarizer gets its own copy of the messages, so a summarizer
    # that edits what it is given can change neither the input nor the kept tail.
    text = summarize(_fresh(cleared[:cut]))
    if not isinstance(text, str):
        raise TypeError(f"summarize must return a str, got {type(text).__name__}: {text!r:.80}")
    summary: Message = {"role": "user", "content": SUMMARY_PREFIX + text}
    kept = sum(sizes[cut:])
    size = fixed + _message_size(summary, counter) + kept
    if size > budget:
        raise ContextOverflowError(
            f"budget {budget} tokens, the compacted context is still {size} tokens "
            f"(the latest question and what follows it alone are {kept} tokens)",
            budget=budget,
            size=size,
        )
    return Layers(layers.system, list(layers.pinned), [summary, *cleared[cut:]])

"""Compaction: fit a context into a token budget in at most two steps.

`compact(layers, budget, summarize)` returns new `Layers` whose
`budget_report(...)["total"]` is at most `budget` tokens:

0. if the layers already fit, a copy of them, unchanged;
1. otherwise clear old tool results, keeping the last `KEEP_TOOL_RESULTS`;
   if that fits, stop;
2. otherwise summarize. By default the kept tail starts at the latest user
   question: the messages before it become one user message,
   `SUMMARY_PREFIX + summarize(those_messages)`, and the question and all
   that follows it stay as step 1 left them.

System and pinned are never changed. When no such context fits, the function
raises `ContextOverflowError` rather than return one over the budget.

The cut of step 2. The latest *question* is the latest user message that is
not only `tool_result` blocks (a turn that only answers tool calls is part of
the agent's work, not a question). The kept tail must not hold a tool result
whose call was summarized away, since the API refuses such a history: when a
kept message answers a call made before the cut, the cut moves back to the
assistant message holding that call, and the check repeats for the newly kept
messages. The summary stays a message of its own even when a user message
follows it; Anthropic's API combines consecutive user turns into one.

A single-task run. An agent's transcript is often one task and then nothing
but tool rounds, so nothing comes before its latest question but the task
itself, and step 2 has nothing to summarize. With `single_task=True`, step 2
instead keeps the task (the first question, with anything before it), then the
summary, then as many of the latest whole rounds as fit: the tail starts at an
assistant turn, and every result in it has its call in it too. The rounds
between the task and the tail are what gets summarized. The summarizer is
called once, or twice when the first summary is too long to fit beside the
rounds chosen for it (the second time the tail is the latest round alone).

Cost: linear in the number of messages. Each message is counted once; the
messages step 1 changes are counted once more; nothing is recounted in a loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from context_budget._blocks import is_question, tool_result_ids, tool_use_ids
from context_budget._checks import bad_scalar, check_messages
from context_budget._clearing import Clearing, clear_results
from context_budget._counting import (
    fixed_layer_tokens,
    message_size,
    message_sizes,
    resolve_counter,
)
from context_budget._values import short_repr
from context_budget.errors import ContextOverflowError
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.tokens import TokenCounter

__all__ = [
    "KEEP_TOOL_RESULTS",
    "SUMMARY_PREFIX",
    "Compacted",
    "Summarizer",
    "compact",
    "compact_with_record",
]

#: How many of the latest tool results step 1 leaves uncleared.
KEEP_TOOL_RESULTS = 2
#: The start of the one user message that replaces the summarized messages.
SUMMARY_PREFIX = "Summary of the earlier conversation:\n"

#: A summarizer: the older messages -> the text of their summary.
Summarizer = Callable[[list[Message]], str]


@dataclass(frozen=True)
class Compacted:
    """What `compact` did, for a caller that reports it.

    Attributes:
        layers: the compacted layers.
        step: 0 (it fitted), 1 (clearing was enough) or 2 (a summary).
        summarized: the input indexes the summary replaced, `range(0)` unless
            step 2.
        size: tokens of the result, as `budget_report` counts them.
        cleared: tool results step 1 cleared (0 for step 0).
    """

    layers: Layers
    step: int
    summarized: range
    size: int
    cleared: int


def _unanswered(messages: Sequence[Message], start: int, stop: int) -> set[str]:
    """Ids of the tool results in `messages[start:stop]` whose call is not in that span."""
    calls: set[str] = set()
    missing: set[str] = set()
    for message in messages[start:stop]:
        missing.update(i for i in tool_result_ids(message) if i not in calls)
        calls.update(tool_use_ids(message))
    return missing


def _cut_index(messages: Sequence[Message]) -> int | None:
    """Where the kept tail starts, or None when there is no user question.

    Example: [user q0, assistant call t1, user result t1 + q1] -> 1, because
    the latest question (index 2) also answers the call made at index 1.
    """
    latest = next((i for i in range(len(messages) - 1, -1, -1) if is_question(messages[i])), None)
    if latest is None:
        return None
    cut = latest
    pending = _unanswered(messages, cut, len(messages))  # kept results whose call is older
    # Walk back from the cut only while a kept result still lacks its call; the
    # nearest earlier message making that call joins the tail, with everything
    # after it. A result whose call is nowhere (an orphan already) moves nothing.
    index = cut - 1
    while pending and index >= 0:
        made = pending.intersection(tool_use_ids(messages[index]))
        if made:
            pending = (pending - made) | _unanswered(messages, index, cut)
            cut = index
        index -= 1
    return cut


def _round_starts(messages: Sequence[Message], first: int) -> list[int]:
    """Indexes >= `first` where a tail of whole rounds may start, latest first.

    A start is an assistant message after a message that is not, such that
    every tool result from there on answers a call from there on.
    Example: [task, call t1, result t1, call t2, result t2], first 2 -> [3].
    """
    starts: list[int] = []
    pending: set[str] = set()  # results in messages[index:] whose call is before index
    for index in range(len(messages) - 1, first - 1, -1):
        message = messages[index]
        pending.difference_update(tool_use_ids(message))
        pending.update(tool_result_ids(message))
        if (
            not pending
            and message["role"] == "assistant"
            and messages[index - 1]["role"] != "assistant"
        ):
            starts.append(index)
    return starts


def _fresh(messages: Sequence[Message]) -> list[Message]:
    """A deep copy of `messages`: every dict and list in them is new; strings are shared."""
    return [_copy_json(message) for message in messages]


def _copy_json(value: Any) -> Any:
    """A copy of nested dicts and lists; anything else is shared (strings, numbers).

    Recursion is safe: every message is checked to nest at most `MAX_DEPTH` levels.
    """
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    return value


def _check_arguments(
    layers: object, budget: object, summarize: object, single_task: object
) -> None:
    if not isinstance(layers, Layers):
        raise TypeError(f"layers must be a Layers, got {type(layers).__name__}")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise TypeError(f"budget must be an int number of tokens, got {short_repr(budget)}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0 tokens, got {short_repr(budget)}")
    if not callable(summarize):
        raise TypeError(
            f"summarize must be callable (messages -> str), got {short_repr(summarize)}"
        )
    if not isinstance(single_task, bool):
        raise TypeError(f"single_task must be True or False, got {short_repr(single_task)}")


def _summary(summarize: Summarizer, messages: Sequence[Message]) -> Message:
    # subtle: the summarizer gets its own deep copy of the messages, so a
    # summarizer that edits what it is given can change neither the input nor
    # the kept tail
    text = summarize(_fresh(messages))
    if not isinstance(text, str):
        raise TypeError(
            f"summarize must return a str, got {type(text).__name__}: {short_repr(text)}"
        )
    problem = bad_scalar(text)
    if problem is not None:  # a lone surrogate: no request could carry the summary
        raise ValueError(f"summarize returned text the API cannot carry: {problem}")
    return {"role": "user", "content": SUMMARY_PREFIX + text}


def compact_with_record(
    layers: Layers,
    budget: int,
    summarize: Summarizer,
    counter: TokenCounter | None = None,
    *,
    single_task: bool = False,
    sizes: Sequence[int] | None = None,
    clearing: Clearing | None = None,
    fixed_tokens: tuple[int, int] | None = None,
) -> Compacted:
    """`compact`, with a record of what it did (`Compacted`).

    The arguments are those `compact` takes, each checked as `compact`
    checks it but the messages: `compact` checks those too and calls this;
    the `inspect` command, which read and checked them, calls it directly.

    `sizes` (message index -> tokens), `clearing` (step 1's result) and
    `fixed_tokens` (system and pinned tokens), when given, spare counting the
    context again: the `inspect` command passes the ones it already has.

    Raises:
        ContextOverflowError: the system and pinned layers alone exceed `budget`.
        TypeError, ValueError: an argument is one `compact` refuses.
    """
    _check_arguments(layers, budget, summarize, single_task)
    counter = resolve_counter(counter)
    conversation = layers.conversation
    system, pinned = fixed_tokens or fixed_layer_tokens(layers, counter)
    fixed = system + pinned
    if fixed > budget:
        raise ContextOverflowError(
            f"budget {budget} tokens, system and pinned alone are {fixed} tokens",
            budget=budget,
            size=fixed,
        )
    sizes = list(sizes) if sizes is not None else message_sizes(conversation, counter)
    before = fixed + sum(sizes)
    if before <= budget:
        copy = Layers(layers.system, list(layers.pinned), list(conversation))
        return Compacted(copy, 0, range(0), before, 0)

    # step 1: the shared clearing rule; only the messages it changed are recounted
    if clearing is None:
        clearing = clear_results(conversation, KEEP_TOOL_RESULTS, counter, sizes)
    cleared = clearing.messages
    for index, size in clearing.sizes.items():
        sizes[index] = size
    total = fixed + sum(sizes)
    if total <= budget:
        out = Layers(layers.system, list(layers.pinned), list(cleared))
        return Compacted(out, 1, range(0), total, clearing.cleared)

    # step 2: one summary message between what is kept at each end
    summarized, summary, what = _step_two(
        cleared, sizes, (budget, fixed, total), summarize, counter, single_task
    )
    kept = sum(sizes[: summarized.start]) + sum(sizes[summarized.stop :])
    size = fixed + message_size(summary, counter) + kept
    if size > budget:
        still = "still " if size < before else ""
        raise ContextOverflowError(
            f"budget {budget} tokens, the compacted context is {still}{size} tokens "
            f"({what} alone are {kept} tokens)",
            budget=budget,
            size=size,
        )
    messages = [*cleared[: summarized.start], summary, *cleared[summarized.stop :]]
    out = Layers(layers.system, list(layers.pinned), messages)
    return Compacted(out, 2, summarized, size, clearing.cleared)


def _step_two(
    cleared: Sequence[Message],
    sizes: Sequence[int],
    room: tuple[int, int, int],
    summarize: Summarizer,
    counter: TokenCounter,
    single_task: bool,
) -> tuple[range, Message, str]:
    """Step 2's summary: (the indexes it stands for, the summary message, what is kept
    beside it, in words). `room` is (the budget, the system and pinned tokens, the
    context's tokens after step 1).

    Raises:
        ContextOverflowError: nothing can be summarized (no older question, or in
            single-task mode no whole round between the task and the latest one).
    """
    budget, fixed, total = room
    if single_task:
        summarized, summary = _task_summary(cleared, sizes, budget - fixed, summarize, counter)
        what = "the task, the latest round and what follows it"
    else:
        cut = _cut_index(cleared)
        summarized = range(0, cut or 0)
        summary = _summary(summarize, cleared[:cut]) if cut else None
        what = "the latest question and what follows it"
    if summary is None:
        nothing = (
            "no whole round between the task and the latest round"
            if single_task
            else "nothing older than the latest question"
        )
        raise ContextOverflowError(
            f"budget {budget} tokens, the context is {total:,} tokens after clearing old "
            f"tool results, and there is {nothing} to summarize",
            budget=budget,
            size=total,
        )
    return summarized, summary, what


def _task_summary(
    messages: Sequence[Message],
    sizes: Sequence[int],
    room: int,
    summarize: Summarizer,
    counter: TokenCounter,
) -> tuple[range, Message | None]:
    """Single-task step 2: (the indexes summarized, the summary or None).

    `room` is the budget left for the conversation, in tokens.
    """
    task = next((i for i, message in enumerate(messages) if is_question(message)), None)
    starts = [] if task is None else _round_starts(messages, task + 2)
    if task is None or not starts:  # no task, or no round between it and the last
        return range(0), None
    head = sum(sizes[: task + 1])
    empty = message_size({"role": "user", "content": SUMMARY_PREFIX}, counter)
    tail = 0
    cut = starts[0]  # the latest round alone, unless more fit
    stop = len(messages)
    for start in starts:  # latest first: each adds the rounds between it and the last
        tail += sum(sizes[start:stop])
        stop = start
        if head + empty + tail > room:
            break
        cut = start
    summary = _summary(summarize, messages[task + 1 : cut])
    if cut != starts[0]:
        size = head + message_size(summary, counter) + sum(sizes[cut:])
        if size > room:  # the summary was longer than the room left: keep less
            cut = starts[0]
            summary = _summary(summarize, messages[task + 1 : cut])
    return range(task + 1, cut), summary


def compact(
    layers: Layers,
    budget: int,
    summarize: Summarizer,
    counter: TokenCounter | None = None,
    *,
    single_task: bool = False,
) -> Layers:
    """New layers that fit in `budget` tokens, by clearing, then summarizing.

    Args:
        layers: the context to fit; it is not changed.
        budget: the most tokens the result may hold, as `budget_report`
            counts them with the same `counter`.
        summarize: the older messages (oldest first, as step 1 left them, so
            old tool results arrive cleared; a deep copy, so editing it
            changes nothing) -> the text of their summary.
        counter: text -> tokens; `estimate_tokens` when None.
        single_task: keep the task and the latest whole rounds, and summarize
            the rounds between, instead of keeping the latest question and
            summarizing what came before it (see the module's docstring).

    Returns:
        `Layers` with the same system and pinned records, and a conversation
        that is the original, the original with old tool results cleared, or
        one with a summary message in place of the older messages.

    Raises:
        ContextOverflowError: system and pinned alone exceed the budget, there
            is nothing to summarize, or the summarized context still does not
            fit. `budget` and `size` (tokens) are on the error.
        TypeError: an argument has the wrong type (`single_task` a bool), or
            the summarizer returned something other than a str.
        ValueError: the budget is negative, or the summary holds a lone
            surrogate (UTF-8 cannot encode it, so no request could carry it).

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
    _check_arguments(layers, budget, summarize, single_task)
    check_messages(layers.conversation)
    done = compact_with_record(layers, budget, summarize, counter, single_task=single_task)
    return done.layers

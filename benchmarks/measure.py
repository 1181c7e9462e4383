"""Timing the package's linear passes against the floor and against ``trim_messages``.

For each size, one generated history is timed under five operations:

- the *floor*: ``message_tokens`` on every message, once. Any function that
  decides what fits must read each message at least once, so no correct
  implementation beats this pass by more than a constant;
- ``budget_report``, ``clear_old_tool_results`` and ``compact`` (budget
  ``BUDGET`` tokens, summarizer ``forget_everything``: a budget that clearing
  alone cannot meet, so ``compact`` does both of its steps);
- LangChain's ``trim_messages(strategy="last")`` on the same history
  converted to LangChain messages (outside the timing), with the same counter
  (``histories.langchain_counter``) and ``max_tokens`` set to what ``compact``
  leaves the conversation (the budget less the system prompt and pinned records).

A figure is the best of ``repeats`` calls, each timed with
``time.perf_counter`` while the garbage collector is off; the result is freed
after the clock stops. The calls go in rounds, one of each operation per
round, so the ratios compare calls made at the same moment. Every result is
checked once, outside the timing.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.histories import generate_history, langchain_counter, to_langchain
from context_budget import (
    KEEP_TOOL_RESULTS,
    SUMMARY_PREFIX,
    Layers,
    Message,
    budget_report,
    clear_old_tool_results,
    compact,
    forget_everything,
    message_tokens,
    validate_history,
)

__all__ = [
    "BUDGET",
    "GOALS",
    "OPERATIONS",
    "QUICK_SIZES",
    "SIZES",
    "Timing",
    "measure",
]

#: History sizes of the full run, in messages.
SIZES = (1_000, 10_000, 100_000)
#: Sizes of ``--quick``: seconds end to end, for the smoke test.
QUICK_SIZES = (1_000, 2_000)
#: Calls per figure (the best one counts): fewer where one call is long.
REPEATS = {1_000: 25, 10_000: 11, 100_000: 7}
#: Tokens ``compact`` may use, system and pinned included; clearing alone
#: leaves even the smallest history over it, so the summary step runs.
BUDGET = 16_000
#: The issue's goals: time per message at the largest size over the size before
#: (1.0 = linear), and ``compact``'s time over the floor's, at every size.
GOALS = {"max_growth": 1.2, "max_compact_over_floor": 3.0}

SYSTEM = "You help Lucy run her ice-cream shop. Answer briefly; check stock before ordering."
PINNED = ["Never order mango from Frostline.", "Closing time is 7 pm, 8 pm on Saturdays."]

#: Operation names, in table order; the first is the floor.
FLOOR = "message_tokens"
TRIM = "trim_messages"
OPERATIONS = (FLOOR, "budget_report", "clear_old_tool_results", "compact", TRIM)
#: The operations the package claims are linear.
OURS = ("budget_report", "clear_old_tool_results", "compact")


@dataclass(frozen=True)
class Timing:
    """One operation on one history size.

    Attributes:
        operation: one of ``OPERATIONS``.
        messages: the history's length, in messages (Anthropic format).
        seconds: the best time of one call, in seconds.
        repeats: how many calls the best was taken from.
    """

    operation: str
    messages: int
    seconds: float
    repeats: int


def _time_once(call: Callable[[], object]) -> float:
    """One call's time, in seconds, with the garbage collector off."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        result = call()
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    del result  # subtle: freeing a big result is not part of the call
    return elapsed


def _floor(history: Sequence[Message]) -> int:
    return sum(message_tokens(message) for message in history)


def _check_compact(layers: Layers, result: Layers) -> None:
    """``compact`` cleared, then summarized, fits the budget and keeps every pair."""
    cleared = Layers(SYSTEM, PINNED, clear_old_tool_results(layers.conversation, KEEP_TOOL_RESULTS))
    if budget_report(cleared)["total"] <= BUDGET:
        raise AssertionError(f"clearing alone fits {BUDGET} tokens: the summary step never ran")
    if not result.conversation[0]["content"].startswith(SUMMARY_PREFIX):
        raise AssertionError("compact returned no summary message")
    size = budget_report(result)["total"]
    if size > BUDGET:
        raise AssertionError(f"compact returned {size} tokens, over its budget of {BUDGET}")
    problems = validate_history(result.conversation)
    if problems:
        raise AssertionError(f"compact broke tool pairs: {problems[:3]}")


def _check_trim(messages: list[Any], result: list[Any], max_tokens: int) -> None:
    """``trim_messages`` kept a non-empty suffix of the history, within its budget."""
    count = langchain_counter()
    if not result or result != messages[-len(result) :]:
        raise AssertionError("trim_messages did not return a non-empty suffix of the history")
    if count(result) > max_tokens:
        raise AssertionError(f"trim_messages kept {count(result)} tokens, over {max_tokens}")


def _calls(history: list[Message]) -> dict[str, Callable[[], object]]:
    """Operation name -> a call of it on ``history``, each result checked once here."""
    from langchain_core.messages import trim_messages

    layers = Layers(SYSTEM, PINNED, history)
    messages = to_langchain(history)
    report = budget_report(layers)
    max_tokens = BUDGET - report["system"] - report["pinned"]
    counter = langchain_counter()

    def trim() -> list[Any]:
        return trim_messages(
            messages, max_tokens=max_tokens, token_counter=counter, strategy="last"
        )

    _check_compact(layers, compact(layers, BUDGET, forget_everything))
    _check_trim(messages, trim(), max_tokens)
    return {
        FLOOR: lambda: _floor(history),
        "budget_report": lambda: budget_report(layers),
        "clear_old_tool_results": lambda: clear_old_tool_results(history, KEEP_TOOL_RESULTS),
        "compact": lambda: compact(layers, BUDGET, forget_everything),
        TRIM: trim,
    }


def measure(
    sizes: Sequence[int] = SIZES,
    repeats: int | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> list[Timing]:
    """Time every operation on a history of each size; ``repeats`` overrides ``REPEATS``."""
    timings: list[Timing] = []
    for size in sizes:
        calls = _calls(generate_history(size))
        count = repeats if repeats is not None else REPEATS.get(size, 3)
        best = dict.fromkeys(OPERATIONS, float("inf"))  # operation -> seconds
        # subtle: one call of each operation per round, so a busy spell on the
        # machine slows every operation's worst round, not one operation's best
        for _ in range(count):
            for operation in OPERATIONS:
                best[operation] = min(best[operation], _time_once(calls[operation]))
        for operation in OPERATIONS:
            timings.append(Timing(operation, size, best[operation], count))
            log(f"{operation:>24} {size:>8,} messages {best[operation] * 1e3:>10.2f} ms")
    return timings

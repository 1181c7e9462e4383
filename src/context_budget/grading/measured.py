"""Checkers for the exercises of Part IV, *Measured*.

Each checker runs the reader's function (a trim, or a reading of a real
session's bill) and returns a `Verdict`: `PASS`, with what was found when
there is something to say, or `NEEDS_WORK: ` and what is wrong and where. A
checker never raises because of the reader's code: an exception inside it is
reported in the verdict.

The checkers, by chapter:

- *How fast is it*: `check_first_kept_trim`;
- *Read your own bill*: `check_rebuild_finder`, `check_causes`, on the
  chapter's sessions (the real fe5e1c67 and the labelled synthetic one);
- *What it would have cost*: `check_rent`, `check_cheapest_threshold`, on
  the real sessions replayed (`context_budget.replay`).

Examples:
    >>> def by_write_share(bill):
    ...     return [n for n, call in enumerate(bill.calls, 1)
    ...             if call.cache_creation_input_tokens > 0.2 * call.prompt_tokens]
    >>> print(check_rebuild_finder(by_write_share))  # doctest: +ELLIPSIS
    NEEDS_WORK: fe5e1c67: you flagged calls 4, 5, 6, 69, which are not rebuilds...
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from context_budget.bills import Bill, read_bill
from context_budget.grading import (
    NEEDS_WORK,
    PASS,
    Verdict,
    attempt,
    brief,
    within,
    wrong_shape,
)
from context_budget.messages import Message
from context_budget.pricing import Price, cost, price_for
from context_budget.replay import Policy, replay
from context_budget.tokens import message_tokens
from context_budget.usage import Usage

__all__ = [
    "REAL_FOLDER",
    "REAL_SESSION",
    "SESSIONS",
    "SYNTHETIC_SESSION",
    "check_causes",
    "check_cheapest_threshold",
    "check_first_kept_trim",
    "check_rebuild_finder",
    "check_rent",
]


# --- How fast is it -------------------------------------------------------------------


def _keep_first_reference(messages: Sequence[Message], budget: int) -> list[Message]:
    """The task (message 0) plus the newest messages after it that fit with it."""
    sizes = [message_tokens(m) for m in messages]
    total, start = sum(sizes), 1
    while start < len(sizes) and total > budget:
        total -= sizes[start]
        start += 1
    return [messages[0], *messages[start:]] if messages else []


def check_first_kept_trim(
    function: Callable[[list[Message], int, Callable[[Message], int]], list[Message]],
) -> Verdict:
    """Exercise (How fast is it): trim the oldest turns but keep the task, counting once.

    `function(messages, budget, count)` keeps `messages[0]` (the task) and drops
    the oldest messages after it until the sizes, by `count(message)`, add up
    to at most `budget`. It must call `count` once per message.

    Args:
        function: the learner's trim.

    Returns:
        `"PASS"`, or `"NEEDS_WORK: ..."` naming the first history that went wrong.
    """
    for n in (10, 100, 400):
        history: list[Message] = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " * (1 + i % 7)}
            for i in range(n)
        ]
        budget = sum(message_tokens(m) for m in history) // 3
        calls = 0

        def count(message: Message) -> int:
            nonlocal calls
            calls += 1
            return message_tokens(message)

        expected = _keep_first_reference(history, budget)
        try:
            kept = function(copy.deepcopy(history), budget, count)
        except Exception as error:  # a learner's bug is a verdict, not a crash
            return Verdict(NEEDS_WORK, f"{n} messages: raised {type(error).__name__}: {error}")
        if kept != expected:
            got = len(kept) if isinstance(kept, list) else brief(kept)
            return Verdict(
                NEEDS_WORK,
                f"{n} messages, budget {budget}: kept {got} messages, expected "
                f"{len(expected)} (the task, then the newest that fit with it)",
            )
        if calls != n:
            return Verdict(NEEDS_WORK, f"{n} messages: count was called {calls:,} times, not {n}")
    return Verdict(PASS)


# --- Read your own bill ---------------------------------------------------------------

#: The chapter's sessions, where its pages read them: under the repository's root, the
#: working directory of every page and notebook of the course (the browser's runner lays
#: the files out the same way). The package itself ships no session: these are the
#: course's material, read only by the two checkers below.
SESSIONS = Path("docs") / "measured" / "sessions"
#: The real Claude Code session of the chapter (MIT, claude-code-viewer).
REAL_SESSION = SESSIONS / "sample-project" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
#: The labelled synthetic session: a compaction, two long pauses and an edit.
SYNTHETIC_SESSION = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
#: The folder of real Claude Code sessions the chapters replay (three sessions, 199 calls).
REAL_FOLDER = SESSIONS / "sample-project"


def _chapter_bill(path: Path) -> Bill:
    """The bill of one of the chapter's sessions; a clear error where it is not found."""
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is not under {Path.cwd()}: the checkers of Read your own bill read "
            "the chapter's sessions from the course repository's root; run them there"
        )
    return read_bill(path)


def _numbers(calls: Sequence[int]) -> str:
    return ", ".join(str(n) for n in calls) or "none"


def check_rebuild_finder(find: Callable[[Bill], Sequence[int]]) -> Verdict:
    """Exercise 1: find the calls that lost cached prefix, from the recorded usage alone.

    `find(bill)` returns the numbers (from 1, in `bill.calls`) of the calls
    that lost more than 1,024 cached tokens against the previous call of the
    same thread. PASS when it names exactly the calls `Bill.rebuilds` names on
    both sessions.
    """
    for name, path in (("fe5e1c67", REAL_SESSION), ("synthetic", SYNTHETIC_SESSION)):
        bill = _chapter_bill(path)
        outcome = attempt(find, bill)
        if outcome.error is not None:
            return Verdict(NEEDS_WORK, f"find raised {outcome.error_name}: {outcome.error}")
        given = outcome.value
        if not isinstance(given, list | tuple | set | frozenset) or not all(
            type(n) is int for n in given
        ):
            return wrong_shape("find(bill) returned", given, "a list of call numbers (ints)")
        found = sorted(set(given))
        right = [rebuild.call for rebuild in bill.rebuilds()]
        extra = [n for n in found if n not in right]
        missed = [n for n in right if n not in found]
        if extra:
            shown = _numbers(extra[:4]) + (", ..." if len(extra) > 4 else "")
            return Verdict(
                NEEDS_WORK,
                f"{name}: you flagged calls {shown}, which are not rebuilds: their read "
                "covers the previous call's cached prompt of the same thread (growth, or a "
                "thread's cold start)",
            )
        if missed:
            return Verdict(NEEDS_WORK, f"{name}: you missed calls {_numbers(missed)}")
    real, synthetic = _chapter_bill(REAL_SESSION), _chapter_bill(SYNTHETIC_SESSION)
    return Verdict(
        PASS,
        f"{len(real.rebuilds())} rebuilds in fe5e1c67, "
        f"{len(synthetic.rebuilds())} in the synthetic session",
    )


def check_causes(causes: Mapping[int, str]) -> Verdict:
    """Exercise 2: name the cause of each rebuild of the synthetic session.

    `causes` maps a call number to `"ttl"`, `"compaction"`, `"model-switch"`
    or `"prefix-changed"`. PASS when every rebuild is named with its cause.
    """
    bill = _chapter_bill(SYNTHETIC_SESSION)
    right = {rebuild.call: rebuild.cause for rebuild in bill.rebuilds()}
    if not isinstance(causes, Mapping):
        return Verdict(
            NEEDS_WORK, f"give a dict of call number -> cause, got {type(causes).__name__}"
        )
    for key in causes:  # "4" is no call 4: it read as a stray, with call 4 missing
        if not isinstance(key, int) or isinstance(key, bool):
            return wrong_shape("the key", key, "a call number (an int, as 4)")
    wrong = [
        f"call {call}: you said {causes.get(call)!r}, the bill says {cause!r}"
        for call, cause in right.items()
        if causes.get(call) != cause
    ]
    stray = sorted(set(causes) - set(right))
    if stray:
        many = len(stray) > 1
        said = "calls {} are not rebuilds" if many else "call {} is not a rebuild"
        wrong.append(said.format(_numbers(stray)))
    if wrong:
        return Verdict(NEEDS_WORK, "; ".join(wrong))
    return Verdict(PASS, f"{len(right)} causes right")


# --- What it would have cost ------------------------------------------------------------


def _rent(tokens: int, calls: int, price: Price) -> float:
    """USD: `tokens` written to a 5-minute entry by the first call, read by each later one."""
    written = cost(
        Usage(cache_creation_input_tokens=tokens, ephemeral_5m_input_tokens=tokens), price
    )
    read = cost(Usage(cache_read_input_tokens=tokens), price)
    return written.total + read.total * (calls - 1)


def _read_only_rent(tokens: int, calls: int, price: Price) -> float:
    """USD: `tokens` read on every one of `calls` calls, the first one's write forgotten."""
    return cost(Usage(cache_read_input_tokens=tokens), price).total * calls


def check_rent(rent: Callable[[int, int, Price], float]) -> Verdict:
    """Exercise 1 (What it would have cost): the rent of a tool result, by hand.

    `rent(tokens, calls, price)` returns what a result of `tokens` tokens
    costs over `calls` calls, in USD, when the first call that carries it
    writes it to the cache (at the price's 5-minute write rate) and every
    later one reads it (at its read rate). PASS when it agrees with that on a
    few cases and on the costliest result of the real session as the replay
    charged it.
    """
    price = price_for("claude-sonnet-4")
    assert price is not None  # the chapter's model has a price
    top = replay(_chapter_bill(REAL_SESSION)).results[0]
    cases = [(top.tokens, top.calls), (1_000, 1), (2_500, 40)]
    for tokens, calls in cases:
        outcome = attempt(rent, tokens, calls, price)
        if outcome.error is not None:
            return Verdict(NEEDS_WORK, f"rent raised {outcome.error_name}: {outcome.error}")
        got = outcome.value
        if isinstance(got, bool) or not isinstance(got, int | float):
            return wrong_shape("rent(...) returned", got, "a number of US dollars")
        right = _rent(tokens, calls, price)
        if not within(got, right, 1e-9 + 1e-6 * right):
            hint = (
                " (the first call that carries a result writes it: it pays the write rate, "
                "not the read rate)"
                if abs(got - _read_only_rent(tokens, calls, price)) < 1e-12
                else ""
            )
            return Verdict(
                NEEDS_WORK,
                f"{tokens:,} tokens over {calls} calls: you said ${got:.6f}, it costs "
                f"${right:.6f}{hint}",
            )
    return Verdict(
        PASS,
        f"the costliest result of fe5e1c67, {top.tokens:,} tokens over {top.calls} calls: "
        f"${_rent(top.tokens, top.calls, price):.4f} by hand, ${top.cost_usd:.4f} in the replay",
    )


#: The exercise's thresholds (tokens) and models: a read multiple of 0.1 and of 0.025.
_THRESHOLDS = (24_000, 32_000, 40_000)
_MODELS = ("claude-sonnet-4", "claude-fable-5-1")


def check_cheapest_threshold(
    cheapest: Callable[[Bill, str, Sequence[int]], int | None],
) -> Verdict:
    """Exercise 2 (What it would have cost): where does compaction pay?

    `cheapest(bill, model, thresholds)` returns the threshold whose replay
    with `Policy(model=model, compact_at=threshold)` costs least, or None when
    none costs less than the replay without compaction. Checked on the real
    folder for a model that reads at a tenth of its input and one that reads
    at a fortieth.
    """
    bill = _chapter_bill(REAL_FOLDER)
    said = []
    for model in _MODELS:
        base = replay(bill, Policy(model=model)).cost
        costs = {t: replay(bill, Policy(model=model, compact_at=t)).cost for t in _THRESHOLDS}
        best = min(costs, key=lambda t: costs[t])
        right = best if costs[best] < base else None
        outcome = attempt(cheapest, bill, model, list(_THRESHOLDS))
        if outcome.error is not None:
            return Verdict(NEEDS_WORK, f"cheapest raised {outcome.error_name}: {outcome.error}")
        got = outcome.value
        if got is not None and type(got) is not int:
            return wrong_shape("cheapest(...) returned", got, "a threshold (int) or None")
        if got != right:
            where = "none beats not compacting" if right is None else f"{right:,} is cheapest"
            shown = "None" if got is None else f"{got:,}"
            return Verdict(
                NEEDS_WORK,
                f"{model}: you said {shown}, but {where} "
                f"(without compaction ${base:.4f}; "
                + ", ".join(f"at {t:,} ${c:.4f}" for t, c in costs.items())
                + ")",
            )
        said.append(f"{model}: {'none' if right is None else f'{right:,}'}")
    return Verdict(PASS, "; ".join(said))

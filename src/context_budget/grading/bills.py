"""Checkers for the exercises of *Read your own bill*.

Each checker runs the learner's answer on the chapter's sessions (the real
fe5e1c67 and the labelled synthetic one) and returns one line: `"PASS: ..."`
with what was found, or `"NEEDS_WORK: ..."` saying what is wrong and where.
A learner's exception is reported as NEEDS_WORK with its class name, never
raised.

Examples:
    >>> def by_write_share(bill):
    ...     return [n for n, call in enumerate(bill.calls, 1)
    ...             if call.cache_creation_input_tokens > 0.2 * call.prompt_tokens]
    >>> print(check_rebuild_finder(by_write_share))  # doctest: +ELLIPSIS
    NEEDS_WORK: fe5e1c67: you flagged calls 4, 5, 6, 69, which are not rebuilds...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from context_budget.bills import Bill, read_bill

__all__ = ["REAL_SESSION", "SYNTHETIC_SESSION", "check_causes", "check_rebuild_finder"]

_SESSIONS = Path(__file__).resolve().parents[3] / "docs" / "measured" / "sessions"
#: The real Claude Code session of the chapter (MIT, claude-code-viewer).
REAL_SESSION = _SESSIONS / "sample-project" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
#: The labelled synthetic session: a compaction, two long pauses and an edit.
SYNTHETIC_SESSION = _SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
PASS = "PASS"
NEEDS_WORK = "NEEDS_WORK"


def _needs(why: str) -> str:
    return f"{NEEDS_WORK}: {why}"


def _numbers(calls: Sequence[int]) -> str:
    return ", ".join(str(n) for n in calls) or "none"


def check_rebuild_finder(find: Callable[[Bill], Sequence[int]]) -> str:
    """Exercise 1: find the calls that lost cached prefix, from the recorded usage alone.

    `find(bill)` returns the numbers (from 1, in `bill.calls`) of the calls
    that lost more than 1,024 cached tokens against the previous call of the
    same thread. PASS when it names exactly the calls `Bill.rebuilds` names on
    both sessions.
    """
    for name, path in (("fe5e1c67", REAL_SESSION), ("synthetic", SYNTHETIC_SESSION)):
        bill = read_bill(path)
        try:
            found = sorted({int(n) for n in find(bill)})
        except Exception as error:
            return _needs(f"find raised {type(error).__name__}: {error}")
        right = [rebuild.call for rebuild in bill.rebuilds()]
        extra = [n for n in found if n not in right]
        missed = [n for n in right if n not in found]
        if extra:
            shown = _numbers(extra[:4]) + (", ..." if len(extra) > 4 else "")
            return _needs(
                f"{name}: you flagged calls {shown}, which are not rebuilds: their read "
                "covers the previous call's cached prompt of the same thread (growth, or a "
                "thread's cold start)"
            )
        if missed:
            return _needs(f"{name}: you missed calls {_numbers(missed)}")
    real, synthetic = read_bill(REAL_SESSION), read_bill(SYNTHETIC_SESSION)
    return (
        f"{PASS}: {len(real.rebuilds())} rebuilds in fe5e1c67, "
        f"{len(synthetic.rebuilds())} in the synthetic session"
    )


def check_causes(causes: Mapping[int, str]) -> str:
    """Exercise 2: name the cause of each rebuild of the synthetic session.

    `causes` maps a call number to `"ttl"`, `"compaction"`, `"model-switch"`
    or `"prefix-changed"`. PASS when every rebuild is named with its cause.
    """
    right = {rebuild.call: rebuild.cause for rebuild in read_bill(SYNTHETIC_SESSION).rebuilds()}
    if not isinstance(causes, Mapping):
        return _needs(f"give a dict of call number -> cause, got {type(causes).__name__}")
    wrong = [
        f"call {call}: you said {causes.get(call)!r}, the bill says {cause!r}"
        for call, cause in right.items()
        if causes.get(call) != cause
    ]
    stray = sorted(set(causes) - set(right))
    if stray:
        wrong.append(f"calls {_numbers(stray)} are not rebuilds")
    if wrong:
        return _needs("; ".join(wrong))
    return f"{PASS}: {len(right)} causes right"

"""Calls as plain values, to send from one process to another: `packed` and `unpacked`.

A forked child that has read calls sends them back as nested tuples of
numbers, strings and None, which `marshal` writes and reads many times
sooner than `pickle` writes and reads the records themselves. Each thread is
sent once, each call naming it by its index in the list of threads.

Example:
    >>> from context_budget.usage import Usage
    >>> from context_budget.sessions.session import Call, ThreadId
    >>> call = Call(ThreadId("fe5e1c67"), 1.5, "claude-sonnet-4-5", Usage(3, 4))
    >>> threads, rows = packed([call])
    >>> unpacked(threads, rows) == [call]
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from operator import attrgetter
from typing import Any

from context_budget._values import maker
from context_budget.sessions.session import Call, ThreadId
from context_budget.usage import Usage

__all__ = ["packed", "unpacked"]

#: A record as a tuple of its fields, in the order its class declares them.
_CALL = attrgetter(*(f.name for f in fields(Call)))
_USAGE = attrgetter(*(f.name for f in fields(Usage)))
_THREAD = attrgetter(*(f.name for f in fields(ThreadId)))
#: Where a packed call holds its thread and its usage; where a usage holds its iterations.
_AT_THREAD = [f.name for f in fields(Call)].index("thread")
_AT_USAGE = [f.name for f in fields(Call)].index("usage")
_AT_ITERATIONS = [f.name for f in fields(Usage)].index("iterations")
_MAKE_CALL = maker(Call)
_MAKE_USAGE = maker(Usage)

assert _AT_THREAD == 0 and _AT_USAGE == 3, "packed() writes a call's fields in Call's order"


def _usage_row(usage: Usage) -> tuple[Any, ...]:
    row: tuple[Any, ...] = _USAGE(usage)
    if row[_AT_ITERATIONS]:
        inner = tuple(_usage_row(each) for each in row[_AT_ITERATIONS])
        row = (*row[:_AT_ITERATIONS], inner, *row[_AT_ITERATIONS + 1 :])
    return row


def _usage(row: tuple[Any, ...]) -> Usage:
    if row[_AT_ITERATIONS]:
        inner = tuple(_usage(each) for each in row[_AT_ITERATIONS])
        row = (*row[:_AT_ITERATIONS], inner, *row[_AT_ITERATIONS + 1 :])
    return _MAKE_USAGE(*row)


def packed(
    calls: Sequence[Call],
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(the threads, the calls) as tuples: each thread object's fields, once; each call's
    fields in `Call`'s order, its thread the index of that thread and its usage the
    usage's fields (its iterations packed alike)."""
    index: dict[int, int] = {}  # id(thread) -> its index: equal ids may differ in type
    threads: list[tuple[Any, ...]] = []
    rows = []
    for call in calls:
        thread = call.thread
        number = index.get(id(thread))
        if number is None:
            number = index[id(thread)] = len(threads)
            threads.append(_THREAD(thread))
        row = _CALL(call)
        rows.append((number, row[1], row[2], _usage_row(row[3]), *row[4:]))
    return threads, rows


def unpacked(threads: Sequence[tuple[Any, ...]], rows: Sequence[tuple[Any, ...]]) -> list[Call]:
    """The calls `packed` was given, equal field by field, made as `Call.sound` makes them."""
    made = [ThreadId(*fields) for fields in threads]
    return [_MAKE_CALL(made[row[0]], row[1], row[2], _usage(row[3]), *row[4:]) for row in rows]

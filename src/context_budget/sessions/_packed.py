"""Calls as plain values, to send from one process to another: `packed` and `unpacked`;
a session's, `packed_session` and `unpacked_session`.

A forked child that has read calls sends them back as nested tuples of
numbers, strings and None, which `marshal` writes and reads many times
sooner than `pickle` writes and reads the records themselves. Each thread
and each usage is sent once, each call naming them by their index in the
lists of threads and usages: calls that shared a usage object share one
again (a bill prices a usage line with the cost of the call it shares its
usage with).

Example:
    >>> from context_budget.usage import Usage
    >>> from context_budget.sessions.session import Call, Session, ThreadId
    >>> call = Call(ThreadId("fe5e1c67"), 1.5, "claude-sonnet-4-5", Usage(3, 4))
    >>> threads, usages, rows = packed([call, call])
    >>> back = unpacked(threads, usages, rows)
    >>> back == [call, call] and back[0].usage is back[1].usage
    True
"""

from __future__ import annotations

import marshal
from collections.abc import Sequence
from dataclasses import fields, replace
from operator import attrgetter
from typing import Any

from context_budget.sessions.session import Call, Session, ThreadId
from context_budget.usage import Usage

__all__ = ["packed", "packed_session", "unpacked", "unpacked_session"]

#: A record as a tuple of its fields, in the order its class declares them.
_CALL = attrgetter(*(f.name for f in fields(Call)))
_USAGE = attrgetter(*(f.name for f in fields(Usage)))
_THREAD = attrgetter(*(f.name for f in fields(ThreadId)))
#: Where a packed call holds its thread and its usage; where a usage holds its iterations.
_AT_THREAD = [f.name for f in fields(Call)].index("thread")
_AT_USAGE = [f.name for f in fields(Call)].index("usage")
_AT_ITERATIONS = [f.name for f in fields(Usage)].index("iterations")

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
    return Usage.sound(*row)


def packed(
    calls: Sequence[Call],
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(the threads, the usages, the calls) as tuples: each thread object's fields and each
    usage object's fields (its iterations packed alike), once; each call's fields in
    `Call`'s order, its thread and its usage the index of theirs."""
    threads_at: dict[int, int] = {}  # id(thread) -> its index: equal ids may differ in type
    usages_at: dict[int, int] = {}  # id(usage) -> its index
    threads: list[tuple[Any, ...]] = []
    usages: list[tuple[Any, ...]] = []
    rows = []
    for call in calls:
        thread, usage = call.thread, call.usage
        number = threads_at.get(id(thread))
        if number is None:
            number = threads_at[id(thread)] = len(threads)
            threads.append(_THREAD(thread))
        counted = usages_at.get(id(usage))
        if counted is None:
            counted = usages_at[id(usage)] = len(usages)
            usages.append(_usage_row(usage))
        row = _CALL(call)
        rows.append((number, row[1], row[2], counted, *row[4:]))
    return threads, usages, rows


def unpacked(
    threads: Sequence[tuple[Any, ...]],
    usages: Sequence[tuple[Any, ...]],
    rows: Sequence[tuple[Any, ...]],
) -> list[Call]:
    """The calls `packed` was given, equal field by field, made as `Call.sound` makes them;
    those that shared a thread or a usage object share one."""
    made = [ThreadId(*fields) for fields in threads]
    counts = [_usage(row) for row in usages]
    return [Call.sound(made[row[0]], row[1], row[2], counts[row[3]], *row[4:]) for row in rows]


def packed_session(session: Session) -> tuple[Session, bytes]:
    """(the session without its calls and usage lines, them `marshal`led): the lines
    packed (`packed`), each call that is one of them named by its index among them, the
    others packed after them."""
    lines = session.usage_records
    at = {id(call): number for number, call in enumerate(lines)}
    others = [call for call in session.calls if id(call) not in at]
    for number, call in enumerate(others, start=len(lines)):
        at[id(call)] = number
    picks = [at[id(call)] for call in session.calls]
    data = marshal.dumps((*packed([*lines, *others]), len(lines), picks))
    return replace(session, calls=(), usage_records=()), data


def unpacked_session(bare: Session, data: bytes) -> Session:
    """The session `packed_session` was given: its calls and usage lines equal, a call that
    was one of the lines one again."""
    threads, usages, rows, count, picks = marshal.loads(data)
    made = unpacked(threads, usages, rows)
    return replace(bare, usage_records=tuple(made[:count]), calls=tuple(made[k] for k in picks))

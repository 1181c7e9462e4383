"""A bill's figures worked out in parts: on two cores, or as its files were read.

A large bill (`bills.ASIDE_CALLS` calls or more, in more than one session)
works out its report's figures in two parts of whole sessions (`figures_of`):
a forked child the later sessions', this process the rest (`_part`), and the
parts' figures are added (`_figures`), their dollars as exact sums, so that
the two give one pass's figures to the last bit. A bill read in parts
(`bills.read_bill`, where its files were read on two cores) has its figures
worked out by each process on its own part as its read ends (`side`), and
added the same way (`in_parts`); its calls are joined when first asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, fields, replace
from math import fsum
from typing import Any

from context_budget._aside import aside, can_fork
from context_budget.bills import (
    _KINDS,
    _READ,
    ASIDE_CALLS,
    Bill,
    Figures,
    Lifetime,
    Rebuild,
    _bill_of,
    _First,
    _merged,
    _stagger_saving,
    _what_if_of,
)
from context_budget.pricing import Cost, Price, charge_columns
from context_budget.sessions.detect import InParts
from context_budget.sessions.session import Call, Session
from context_budget.sessions.skips import Skip
from context_budget.sessions.text import gc_paused

__all__ = ["figures_in_parts", "in_parts", "joined", "side"]


def figures_in_parts(bill: Bill, prices: Mapping[str, Price] | None) -> Figures:
    """`bills.figures_of(bill, prices)`, the bill's own figures not kept: worked out in two
    parts on two cores where the bill is large (`_parts`), else in one; the cyclic
    garbage collector held off meanwhile (a quarter of the time, on a large bill)."""
    with gc_paused():  # the costs, tariffs and figures made hold no cycles
        parts, totals = _parts(bill, prices)
        return _figures(parts, totals, bill.skipped, bill.recorded_cost, bill.recorded_calls())


#: An exact sum as two terms: the sum rounded, then what that rounding left off.
_Exact = tuple[float, float]


def _exact(values: list[float]) -> _Exact:
    """`values` summed exactly, as (`math.fsum(values)`, the rest, rounded)."""
    high = fsum(values)
    values.append(-high)
    low = fsum(values)
    values.pop()
    return high, low


@dataclass(frozen=True)
class _Part:
    """What one part of a bill gives its figures, its calls numbered within the part."""

    calls: int
    charges: tuple[_Exact, ...]
    line_charges: tuple[_Exact, ...]
    usage_lines: int
    actual: _Exact
    no_caching: _Exact
    unpriced: tuple[int, ...]
    unpriced_models: tuple[str, ...]
    lower_bounds: tuple[int, ...]
    rebuilds: tuple[Rebuild, ...]
    rebuild_times: tuple[float | None, ...]
    lifetimes: tuple[tuple[int, Lifetime], ...]
    firsts: tuple[_First, ...]
    provider_reasons: dict[str, int]


def _part(bill: Bill, prices: Mapping[str, Price] | None) -> _Part:
    """The figures of `bill`, one part of a larger one, worked out here."""
    costs = bill._costs(prices)
    lines = bill.every_line()
    actual, no_caching = bill._input_sides(prices)
    first_priced: dict[object, int] = {}
    for number, (call, cost) in enumerate(zip(bill.calls, costs, strict=True), 1):
        if cost is not None and call.thread not in first_priced:
            first_priced[call.thread] = number
    rebuilds = bill.rebuilds(prices)
    return _Part(
        len(bill.calls),
        tuple(map(_exact, charge_columns(costs))),
        tuple(map(_exact, charge_columns(lines._costs(prices)))),
        len(lines.calls),
        _exact(actual),
        _exact(no_caching),
        bill.unpriced_calls(prices),
        bill.unpriced_models(prices),
        bill.output_lower_bounds(),
        tuple(rebuilds),
        tuple(bill.calls[rebuild.call - 1].timestamp for rebuild in rebuilds),
        tuple((first_priced[life.thread], life) for life in bill.lifetimes(prices)),
        tuple(bill._sidechain_firsts(prices)),
        bill.provider_reasons(),
    )


#: The share of a large bill's calls whose figures this process works out.
_HERE = 0.52


def _cut(bill: Bill) -> tuple[list[int], list[int]]:
    """The numbers (from 1) of the calls of each part: whole sessions, in order of first
    call, this process's part taking them until it holds `_HERE` of the calls (the
    child also adds up the whole bill's totals)."""
    counts: dict[str, int] = {}
    for call in bill.calls:
        session = call.thread.session
        counts[session] = counts.get(session, 0) + 1
    mine: set[str] = set()
    held = 0
    for session, count in counts.items():
        if held >= len(bill.calls) * _HERE:
            break
        mine.add(session)
        held += count
    first: list[int] = []
    second: list[int] = []
    for number, call in enumerate(bill.calls, 1):
        (first if call.thread.session in mine else second).append(number)
    return first, second


def _sub_bill(bill: Bill, numbers: Sequence[int], lines: Sequence[Call]) -> Bill:
    """The bill of the calls numbered `numbers`, its usage lines `lines`."""
    return replace(
        bill,
        calls=tuple(bill.calls[number - 1] for number in numbers),
        _lines=tuple(lines),
        _priced={},
        _answers={},
        _read=bill._read,
        _placed=bill._placed,
        _origin=(),
    )


def _lines_cut(bill: Bill, numbers: Sequence[int]) -> tuple[list[Call], list[Call]]:
    """The bill's usage lines cut as its calls are: those of the sessions of the calls
    numbered `numbers`, and the others."""
    sessions = {bill.calls[number - 1].thread.session for number in numbers}
    theirs: list[Call] = []
    mine: list[Call] = []
    for line in bill._lines:
        (theirs if line.thread.session in sessions else mine).append(line)
    return mine, theirs


#: A whole bill's totals: its models, threads, tokens and cache-read share.
_Totals = tuple[tuple[str, ...], dict[str, int], dict[str, int], float]


def _totals(bill: Bill) -> _Totals:
    """The whole bill's totals (`Bill.models`, `threads`, `tokens`, `cache_read_share`)."""
    return bill.models, bill.threads, bill.tokens(), bill.cache_read_share


def _parts(
    bill: Bill, prices: Mapping[str, Price] | None
) -> tuple[list[tuple[_Part, Sequence[int]]], _Totals]:
    """Each part's figures with the numbers of its calls in `bill`, and the bill's totals:
    two parts on two cores for a large bill whose calls are in more than one session
    (the child adding up the totals too), else one part, worked out here."""
    whole = range(1, len(bill.calls) + 1)
    if len(bill.calls) < ASIDE_CALLS or not can_fork():
        return [(_part(bill, prices), whole)], _totals(bill)
    first, second = _cut(bill)
    if not first or not second:
        return [(_part(bill, prices), whole)], _totals(bill)
    lines, their_lines = _lines_cut(bill, second)
    with aside(
        lambda: (_part(_sub_bill(bill, second, their_lines), prices), _totals(bill))
    ) as pending:
        mine = _part(_sub_bill(bill, first, lines), prices)
        theirs, totals = pending.result()
    return [(mine, first), (theirs, second)], totals


def _figures(
    parts: Sequence[tuple[_Part, Sequence[int]]],
    totals: _Totals,
    skipped: tuple[Skip, ...],
    recorded_cost: float | None,
    recorded_calls: int,
) -> Figures:
    """The figures of a bill whose calls are the parts' (each with the numbers its calls
    have in the bill), its totals `totals`."""
    models, threads, tokens, share = totals
    placed_rebuilds = sorted(
        (
            (numbers[r.call - 1], replace(r, call=numbers[r.call - 1]), time)
            for part, numbers in parts
            for r, time in zip(part.rebuilds, part.rebuild_times, strict=True)
        ),
        key=lambda placed: placed[0],
    )
    rebuilds = [rebuild for _, rebuild, _ in placed_rebuilds]
    placed = [(numbers[n - 1], life) for part, numbers in parts for n, life in part.lifetimes]
    lifetimes = [life for _, life in sorted(placed, key=lambda pair: pair[0])]
    firsts = sorted(
        ((numbers[n - 1], c, b, t) for part, numbers in parts for n, c, b, t in part.firsts),
        key=lambda first: first[0],
    )
    stagger = _stagger_saving([(c, b, t) for _, c, b, t in firsts])
    actual = _added([part.actual for part, _ in parts])
    no_caching = _added([part.no_caching for part, _ in parts])
    return Figures(
        calls=sum(part.calls for part, _ in parts),
        usage_lines=sum(part.usage_lines for part, _ in parts),
        models=models,
        unpriced_models=tuple(sorted({m for part, _ in parts for m in part.unpriced_models})),
        unpriced_calls=tuple(
            sorted(numbers[n - 1] for part, numbers in parts for n in part.unpriced)
        ),
        output_lower_bounds=tuple(
            sorted(numbers[n - 1] for part, numbers in parts for n in part.lower_bounds)
        ),
        threads=threads,
        tokens=tokens,
        cache_read_share=share,
        cost=_charges([part.charges for part, _ in parts]),
        every_line_cost=_charges([part.line_charges for part, _ in parts]),
        rebuilds=tuple(rebuilds),
        rebuild_times=tuple(time for _, _, time in placed_rebuilds),
        provider_reasons=_reasons([part.provider_reasons for part, _ in parts]),
        what_if=_what_if_of(actual, no_caching, lifetimes, rebuilds, stagger),
        lifetimes=tuple(lifetimes),
        skipped=skipped,
        recorded_cost=recorded_cost,
        recorded_calls=recorded_calls,
    )


def _added(sums: Sequence[_Exact]) -> float:
    """The parts' exact sums added: the exact sum of all their values, rounded once."""
    return fsum(term for pair in sums for term in pair)


def _charges(parts: Sequence[tuple[_Exact, ...]]) -> Cost:
    """The `Cost` whose charges are the parts' exact sums added, charge by charge."""
    return Cost(*(_added(charge) for charge in zip(*parts, strict=True)))


def _reasons(parts: Sequence[dict[str, int]]) -> dict[str, int]:
    """The parts' provider reasons counted together, most frequent first, then by name."""
    found: dict[str, int] = {}
    for reasons in parts:
        for reason, count in reasons.items():
            found[reason] = found.get(reason, 0) + count
    return dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))


# ------------------------------------------------------------ a bill read in parts


@dataclass(frozen=True)
class _Side:
    """What one part of a bill's read gives, its sessions read alone (`side`): its figures
    and totals, and what places its calls among the whole bill's.

    Attributes:
        part: its figures, its calls numbered within it.
        models, threads, totals: its `Bill.models`, `Bill.threads`, `Bill._totals`.
        firsts: the number (in the part) of each thread's first call, in `threads` order.
        times: each call's time (seconds, None for none), in the part's order.
        read: each call's index in the part's read (`Session.calls`), in the part's order.
        held: the index of the read from which its calls are `progress` calls held
            (`claude_code.Work`).
    """

    part: _Part
    models: tuple[str, ...]
    threads: dict[str, int]
    firsts: tuple[int, ...]
    totals: list[int]
    times: list[float | None]
    read: list[int]
    held: int


def side(session: Session, held: int) -> _Side:
    """The figures of one part of a bill's read, its sessions read alone as `session`
    (`claude_code.Work`); ValueError where a bill of them is no part of the whole's as
    `figures_of` adds parts (a recorded cost: the whole bill is read and worked out)."""
    bill, order = _merged([session.billed()], (), [])
    if bill.recorded_cost is not None or bill.recorded_tokens is not None:
        raise ValueError("a part that records its cost")
    threads = bill.threads
    firsts: dict[str, int] = {}
    for number, call in enumerate(bill.calls, 1):
        firsts.setdefault(call.thread.name, number)
    return _Side(
        _part(bill, None),
        bill.models,
        threads,
        tuple(firsts[name] for name in threads),
        bill._totals(),
        [call.timestamp for call in bill.calls],
        order,
        held,
    )


def _numbers(sides: Sequence[_Side]) -> list[list[int]]:
    """For each part, the number (from 1) each of its calls has in the whole bill: in
    time order, ties and calls without a time in the order of the whole read, whose
    calls are the parts' read calls, then their held ones (`_Side.held`), part by part."""
    keys = [
        (time is None, time or 0.0, (0 if index < side.held else 2) + at, index, at, number)
        for at, side in enumerate(sides)
        for number, (time, index) in enumerate(zip(side.times, side.read, strict=True))
    ]
    keys.sort()  # each part's keys are in order already: two runs merged
    numbers = [[0] * len(side.times) for side in sides]
    for number, key in enumerate(keys, 1):
        numbers[key[4]][key[5]] = number
    return numbers


def _side_totals(sides: Sequence[_Side], numbers: list[list[int]]) -> _Totals:
    """The whole bill's totals (`_Totals`) from its parts'."""
    models = tuple(sorted({model for side in sides for model in side.models}))
    placed = sorted(
        (found[first - 1], name, calls)
        for side, found in zip(sides, numbers, strict=True)
        for (name, calls), first in zip(side.threads.items(), side.firsts, strict=True)
    )
    totals = [sum(column) for column in zip(*(side.totals for side in sides), strict=True)]
    read, prompt = totals[_READ], totals[-1]
    return (
        models,
        {name: calls for _, name, calls in placed},
        dict(zip(_KINDS, totals, strict=False)),
        read / prompt if prompt else 0.0,
    )


#: The fields of a bill read in parts (`_InParts`) filled in when first asked for.
_LATER = frozenset(
    ("calls", "recorded_cost", "recorded_tokens", "_sessions", "_lines", "_messages", "_origin")
)


class _InParts(Bill):
    """A bill read in parts (`read_bill`), its figures worked out as the parts were read:
    the whole read's calls, sessions and usage lines (`_LATER`) are joined when one of
    them is first asked for, and the bill is then a `Bill` like any other."""

    def __getattribute__(self, name: str) -> Any:
        if name in _LATER:
            _join(self)
        return object.__getattribute__(self, name)


def joined(bill: Bill) -> Bill:
    """`bill` with every field filled in: a bill read in parts joined (`_join`) now."""
    if isinstance(bill, _InParts):
        _join(bill)
    return bill


def _join(bill: _InParts) -> None:
    """Fill in the fields a bill read in parts leaves for later, from the whole read."""
    whole: Bill = bill.__dict__["_later"]()  # should it raise, the next ask reads again
    for name in _LATER:
        object.__setattr__(bill, name, object.__getattribute__(whole, name))
    del bill.__dict__["_later"]
    object.__setattr__(bill, "__class__", Bill)  # no field left to fill in


def in_parts(found: InParts[_Side], files: tuple[str, ...], skipped: list[Skip]) -> Bill | None:
    """The bill of a read in parts (`InParts`), its figures added up from the parts' and
    the rest read when first asked for; None where the parts share a thread's name
    (the whole bill is then read and worked out)."""
    sides = (found.mine, found.theirs)
    if not found.mine.threads.keys().isdisjoint(found.theirs.threads):
        return None
    numbers = _numbers(sides)
    parts = [(side.part, placed) for side, placed in zip(sides, numbers, strict=True)]
    figures = _figures(parts, _side_totals(sides, numbers), tuple(skipped), None, 0)
    bill = _InParts.__new__(_InParts)
    given = {"format": "claude-code", "files": files, "skipped": tuple(skipped)}
    for kept in fields(Bill):
        if kept.name in _LATER:
            continue
        value = given.get(kept.name, kept.default)
        if kept.default_factory is not MISSING:
            value = kept.default_factory()
        object.__setattr__(bill, kept.name, value)
    object.__setattr__(bill, "_later", lambda: _bill_of(found.sessions(), files, skipped))
    bill._keep_figures(None, figures)
    return bill

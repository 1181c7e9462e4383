"""The floor of a bill: the least work that gives a Claude Code folder's totals.

`python -m benchmarks.floor FOLDER [json|msgspec] [report [two-cores]]` reads every `.jsonl` file
under FOLDER, decodes every line, keeps the assistant lines that record usage,
folds the lines of one response (its message id and request id) into the one
with the larger token total, adds the tokens up by model and kind, and prices
each model's sums at its list price. It prints the totals as JSON, in the
words `benchmarks.bill.bill_totals` uses, so the benchmark can check that the
floor and the bill agree.

Nothing else: no threads, no rebuilds, no what-ifs, no checks of a field's
type, no half-written line forgiven. It is what a bill cannot do without,
timed beside the bill so the distance between them is known (the bill
benchmark runs it with each decoder).

With `report`, the floor does the least work of the bill's report too
(`report_floor`): it also keeps each line's id and its parent's (the chains a
rebuild's trigger is looked for along), and each call's time and thread; it
prices every call (at the long-context rates when its prompt passes the band)
and every usage line, prices each call again with nothing cached and with its
writes under each lifetime on its thread's own gaps, and counts the calls
whose cache reads fell below the thread's call before (the rebuilds'
candidates). It adds to the totals the every-line bill and the no-caching
input side, which the benchmark can check against the bill's own. Still no
checks, no causes named and no trigger line read again: what any bill with
this report has to do, in one process.

With `report two-cores`, the same work is split as the bill splits its read: a
forked child reads and folds the files past the first half of the bytes and
sends them back (`marshal`), this process reads the first half, then folds
the child's calls into its own and does the rest. The least any bill with
this report needs on two cores, the cost of sending one half across
included.
"""

# subtle: no `from __future__ import annotations`: msgspec reads the classes' annotations,
# which must name the classes defined beside them, not strings
import json
import marshal
import os
import sys
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

#: (uncached input, cache reads, 5-minute writes, 1-hour writes, output), tokens.
Row = tuple[int, int, int, int, int]


def _files(folder: str) -> Iterator[str]:
    for root, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".jsonl"):
                yield os.path.join(root, name)


def _json_row(usage: dict[str, Any]) -> Row:
    """A decoded `message.usage` object's tokens (`Row`)."""
    written = usage.get("cache_creation_input_tokens", 0)
    split = usage.get("cache_creation") or {}
    return (
        usage.get("input_tokens", 0),
        usage.get("cache_read_input_tokens", 0),
        split.get("ephemeral_5m_input_tokens", written),
        split.get("ephemeral_1h_input_tokens", 0),
        usage.get("output_tokens", 0),
    )


def _json_rows(path: str) -> Iterator[tuple[object, object, str, Row]]:
    """(message id, request id, model, tokens) of each assistant line with usage, by json."""
    loads = json.loads
    with open(path, "rb") as handle:
        for line in handle:
            record = loads(line)
            message = record.get("message")
            if record.get("type") != "assistant" or not message or "usage" not in message:
                continue
            row = _json_row(message["usage"])
            yield message.get("id"), record.get("requestId"), message.get("model"), row


#: A response's call as the report floor keeps it: (model, tokens, seconds since the
#: epoch, thread).
Called = tuple[str, Row, float, tuple[object, ...]]
#: What the report floor reads of a line: its id, its parent's id, and (message id,
#: request id, the call) when it records usage, else None.
Read = tuple[object, object, tuple[object, object, Called] | None]


def _json_lines(path: str) -> Iterator[Read]:
    """Each line of `path` as the report floor reads it (`Read`), by json."""
    loads, agent = json.loads, os.path.basename(path).startswith("agent-")
    with open(path, "rb") as handle:
        for line in handle:
            record = loads(line)
            message = record.get("message")
            if record.get("type") != "assistant" or not message or "usage" not in message:
                yield record.get("uuid"), record.get("parentUuid"), None
                continue
            when = datetime.fromisoformat(record["timestamp"]).timestamp()
            thread = (record.get("sessionId"), path if agent else record.get("isSidechain"))
            called = (message.get("model") or "", _json_row(message["usage"]), when, thread)
            found = (message.get("id"), record.get("requestId"), called)
            yield record.get("uuid"), record.get("parentUuid"), found


def _msgspec_decoder(report: bool) -> Callable[[bytes], Any]:
    """msgspec's decoder of a line into the fields the floor reads (with `report`, those
    the report floor reads too), the rest skipped unread."""
    import msgspec

    class Split(msgspec.Struct):
        ephemeral_5m_input_tokens: int | None = None
        ephemeral_1h_input_tokens: int = 0

    class Used(msgspec.Struct):
        input_tokens: int = 0
        cache_read_input_tokens: int = 0
        cache_creation_input_tokens: int = 0
        output_tokens: int = 0
        cache_creation: Split | None = None

    class Message(msgspec.Struct):
        id: str | None = None
        model: str | None = None
        usage: Used | None = None

    fields: list[tuple[str, Any, Any]] = [
        ("type", str | None, None),
        ("requestId", str | None, None),
        ("message", Message | None, None),
    ]
    if report:
        fields += [(name, str | None, None) for name in ("uuid", "parentUuid", "timestamp")]
        fields += [("sessionId", str | None, None), ("isSidechain", bool, False)]
    return msgspec.json.Decoder(msgspec.defstruct("Line", fields)).decode


def _msgspec_row(usage: Any) -> Row:
    """A `message.usage` struct's tokens (`Row`), as `_json_row` reads the object."""
    split = usage.cache_creation
    five = split.ephemeral_5m_input_tokens if split else None
    return (
        usage.input_tokens,
        usage.cache_read_input_tokens,
        usage.cache_creation_input_tokens if five is None else five,
        split.ephemeral_1h_input_tokens if split else 0,
        usage.output_tokens,
    )


def _msgspec_rows() -> Callable[[str], Iterator[tuple[object, object, str, Row]]]:
    """`_json_rows`, decoding each line straight into the fields it reads, by msgspec."""
    decode = _msgspec_decoder(report=False)

    def rows(path: str) -> Iterator[tuple[object, object, str, Row]]:
        with open(path, "rb") as handle:
            for line in handle:
                record = decode(line)
                message = record.message
                if record.type != "assistant" or message is None or message.usage is None:
                    continue
                yield message.id, record.requestId, message.model or "", _msgspec_row(message.usage)

    return rows


def _msgspec_lines() -> Callable[[str], Iterator[Read]]:
    """`_json_lines`, decoding each line straight into the fields it reads, by msgspec."""
    decode = _msgspec_decoder(report=True)

    def lines(path: str) -> Iterator[Read]:
        agent = os.path.basename(path).startswith("agent-")
        with open(path, "rb") as handle:
            for line in handle:
                record = decode(line)
                message = record.message
                if record.type != "assistant" or message is None or message.usage is None:
                    yield record.uuid, record.parentUuid, None
                    continue
                when = datetime.fromisoformat(record.timestamp or "").timestamp()
                thread = (record.sessionId, path if agent else record.isSidechain)
                called = (message.model or "", _msgspec_row(message.usage), when, thread)
                yield record.uuid, record.parentUuid, (message.id, record.requestId, called)

    return lines


def floor(folder: str, decoder: str = "json") -> dict[str, Any]:
    """The totals of a Claude Code folder: tokens by kind and the cost in USD."""
    rows = _msgspec_rows() if decoder == "msgspec" else _json_rows
    calls: dict[tuple[object, object], tuple[str, Row]] = {}
    for path in _files(folder):
        for ident, request, model, row in rows(path):
            old = calls.get((ident, request))
            if old is None or sum(row) > sum(old[1]):
                calls[(ident, request)] = (model, row)
    by_model: dict[str, list[int]] = {}
    for model, row in calls.values():
        sums = by_model.setdefault(model, [0, 0, 0, 0, 0])
        for kind, tokens in enumerate(row):
            sums[kind] += tokens
    from context_budget.pricing import price_for

    cost = 0.0
    for model, sums in by_model.items():
        price = price_for(model)
        if price is not None:
            rates = (price.input, price.read, price.write_5m, price.write_1h, price.output)
            cost += sum(t * r for t, r in zip(sums, rates, strict=True)) / 1e6
    totals = [sum(sums[kind] for sums in by_model.values()) for kind in range(5)]
    return _said(len(calls), totals, cost)


def _said(calls: int, totals: list[int], cost: float) -> dict[str, Any]:
    """The totals as the floor prints them: calls, tokens by kind (a `Row`'s sums), USD."""
    return {
        "calls": calls,
        "input": totals[0],
        "cache_read": totals[1],
        "cache_write": totals[2] + totals[3],
        "output": totals[4],
        "cost_usd": round(cost, 6),
    }


#: What the report floor reads of files: (line id -> its parent's id, the calls folded by
#: response in the order read, the every-line bill: each usage line priced, USD).
Calls = tuple[dict[object, object], dict[tuple[object, object], Called], float]


def _read_calls(paths: list[str], decoder: str) -> Calls:
    """What the report floor reads of the files `paths`, in that order (`Calls`)."""
    lines = _msgspec_lines() if decoder == "msgspec" else _json_lines
    parents: dict[object, object] = {}
    calls: dict[tuple[object, object], Called] = {}
    rates: dict[str, Rates | None] = {}
    every_line = 0.0
    for path in paths:
        for ident, parent, found in lines(path):
            if ident is not None:
                parents[ident] = parent
            if found is None:
                continue
            message, request, called = found
            model = called[0]
            price = rates[model] if model in rates else rates.setdefault(model, _rates(model))
            if price is not None:
                every_line += sum(_charge(price, called[1]))
            _fold(calls, (message, request), called)
    return parents, calls, every_line


def _fold(
    calls: dict[tuple[object, object], Called], key: tuple[object, object], called: Called
) -> None:
    """Add a line's call to `calls`, or fold it into the call of its response read before:
    the larger token total kept, at the time and on the thread where the response began."""
    old = calls.get(key)
    if old is None:
        calls[key] = called
    elif sum(called[1]) > sum(old[1]):
        calls[key] = (called[0], called[1], old[2], old[3])


def _halves(paths: list[str]) -> tuple[list[str], list[str]]:
    """The files in two runs of about half the bytes each, in their order."""
    sizes = [os.path.getsize(path) for path in paths]
    half, here, cut = sum(sizes) / 2, 0, 0
    while cut < len(paths) and here + sizes[cut] <= half:
        here += sizes[cut]
        cut += 1
    return paths[:cut], paths[cut:]


def _read_split(paths: list[str], decoder: str) -> Calls:
    """`_read_calls` of `paths` on two cores: a child reads the second half (its usage
    lines priced) and sends it back marshalled, this process reads the first, then takes
    the child's calls in after its own, as one process reading them in turn would."""
    first, rest = _halves(paths)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # the child: read the second half, send it, and end, whatever happens
        status = 1
        try:
            os.close(read_end)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(marshal.dumps(_read_calls(rest, decoder)))
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    parents, calls, every_line = _read_calls(first, decoder)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    if os.waitpid(child, 0)[1] != 0:
        raise RuntimeError("the child reading the second half of the files failed")
    their_parents, their_calls, their_lines = marshal.loads(data)
    parents.update(their_parents)
    for key, called in their_calls.items():
        _fold(calls, key, called)
    return parents, calls, every_line + their_lines


#: A model's rates as the report floor uses them: (input, read, 5-minute write, 1-hour
#: write, output, the band's start in prompt tokens, the band's input and output rates),
#: USD per million tokens.
Rates = tuple[float, float, float, float, float, float, float, float]


def _rates(model: str) -> Rates | None:
    from context_budget.pricing import price_for

    price = price_for(model)
    if price is None:
        return None
    band = price.long_context
    over = (band.above, band.input, band.output) if band else (float("inf"), 0.0, 0.0)
    return (price.input, price.read, price.write_5m, price.write_1h, price.output, *over)


def _charge(rates: Rates, row: Row) -> tuple[float, float]:
    """(the input side, the output) of tokens `row` at `rates`, USD."""
    uncached, read, five, hour, output = row
    scale, out = 1.0, rates[4]
    if uncached + read + five + hour > rates[5]:
        scale, out = rates[6] / rates[0], rates[7]
    side = uncached * rates[0] + read * rates[1] + five * rates[2] + hour * rates[3]
    return side * scale / 1e6, output * out / 1e6


def report_floor(folder: str, decoder: str = "json", cores: int = 1) -> dict[str, Any]:
    """`floor`'s totals and the least work of the bill's report (the module's text): the
    totals; the every-line bill, the no-caching input side and the input side with every
    write a 5-minute one and a 1-hour one on the threads' gaps (USD); and the calls
    whose cache reads fell below their thread's call before. The files are read on
    two `cores` (`_read_split`) or one."""
    # the parent map is built as a bill builds it for its rebuilds' triggers; only the
    # lines a trigger is looked for from are walked, so the floor walks none
    paths = list(_files(folder))
    reads = _read_split if cores == 2 else _read_calls
    _, calls, every_line = reads(paths, decoder)
    rates = {model: _rates(model) for model in {called[0] for called in calls.values()}}
    totals, cost, drops = [0, 0, 0, 0, 0], 0.0, 0
    no_caching = five_minutes = one_hour = 0.0
    last: dict[tuple[object, ...], tuple[float, int]] = {}
    for model, row, when, thread in calls.values():
        for kind, tokens in enumerate(row):
            totals[kind] += tokens
        before, last[thread] = last.get(thread), (when, row[1])
        price = rates[model]
        if price is None:
            continue
        side, output = _charge(price, row)
        cost += side + output
        uncached, read, five, hour, _ = row
        no_caching += _charge(price, (uncached + read + five + hour, 0, 0, 0, 0))[0]
        gap = when - before[0] if before else 0.0
        five_minutes += (
            side if gap <= 300 else _charge(price, (uncached, 0, read + five + hour, 0, 0))[0]
        )
        one_hour += _charge(
            price,
            (uncached, read, 0, five + hour, 0)
            if gap <= 3600
            else (uncached, 0, 0, read + five + hour, 0),
        )[0]
        drops += bool(before and read < before[1])
    return {
        **_said(len(calls), totals, cost),
        "every_line_cost_usd": round(every_line, 6),
        "no_caching_usd": round(no_caching, 6),
        "lifetimes_usd": [round(five_minutes, 6), round(one_hour, 6)],
        "cache_drops": drops,
    }


if __name__ == "__main__":
    decoder = sys.argv[2] if len(sys.argv) > 2 else "json"
    if sys.argv[3:] == ["report", "two-cores"]:
        print(json.dumps(report_floor(sys.argv[1], decoder, cores=2)))
    elif sys.argv[3:] == ["report"]:
        print(json.dumps(report_floor(sys.argv[1], decoder)))
    else:
        print(json.dumps(floor(sys.argv[1], decoder)))

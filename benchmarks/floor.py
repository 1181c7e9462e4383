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

With `report two-cores`, the same work is split over two cores as far as it
can be: a forked child reads the files past the first half of the bytes and
works out every figure of their calls, this process does the same with the
first half, and the figures are added; the child sends only its figures and
the keys of its responses, which are checked against this process's (the
halves must share no response). The least any bill with this report needs on
two cores.
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


#: The report floor's figures of some calls: (tokens by kind (a `Row`'s sums), their
#: cost, the no-caching input side, the input side with every write a 5-minute one and
#: a 1-hour one on the threads' gaps, the calls whose cache reads fell, the every-line
#: bill), USD where not tokens or calls.
Sums = tuple[list[int], float, float, float, float, int, float]


def _sums(calls: dict[tuple[object, object], Called], every_line: float) -> Sums:
    """The report floor's figures (`Sums`) of `calls`, in their order, beside the
    every-line bill of their files."""
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
    return totals, cost, no_caching, five_minutes, one_hour, drops, every_line


def _added(one: Sums, two: Sums) -> Sums:
    """The figures of two sets of calls that share no thread, together."""
    totals = [a + b for a, b in zip(one[0], two[0], strict=True)]
    _, cost, no_caching, five, hour, drops, every_line = one
    _, more, more_uncached, more_five, more_hour, more_drops, more_lines = two
    return (
        totals,
        cost + more,
        no_caching + more_uncached,
        five + more_five,
        hour + more_hour,
        drops + more_drops,
        every_line + more_lines,
    )


def _split_report(paths: list[str], decoder: str) -> tuple[int, Sums]:
    """(the calls, every figure of the report floor) of `paths` on two cores: a child
    reads the second half of the bytes and works out its calls' figures, this process
    does the same with the first half, and the two are added.

    The halves must share no response (a response's lines in two files of different
    halves): each half's calls are then those one process folds, and each thread's in
    one half. The child sends its responses' keys, which are checked, and its figures;
    its calls and the parents of its lines stay with it.

    Raises:
        RuntimeError: the child failed, or the halves share a response.
    """
    first, rest = _halves(paths)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # the child: work out the second half, send it, and end, whatever happens
        status = 1
        try:
            os.close(read_end)
            _, calls, every_line = _read_calls(rest, decoder)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(marshal.dumps((list(calls), _sums(calls, every_line))))
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    _, calls, every_line = _read_calls(first, decoder)
    mine = _sums(calls, every_line)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    if os.waitpid(child, 0)[1] != 0:
        raise RuntimeError("the child reading the second half of the files failed")
    keys, theirs = marshal.loads(data)
    if any(key in calls for key in keys):
        raise RuntimeError("the two halves of the files share a response")
    return len(calls) + len(keys), _added(mine, theirs)


def report_floor(folder: str, decoder: str = "json", cores: int = 1) -> dict[str, Any]:
    """`floor`'s totals and the least work of the bill's report (the module's text): the
    totals; the every-line bill, the no-caching input side and the input side with every
    write a 5-minute one and a 1-hour one on the threads' gaps (USD); and the calls
    whose cache reads fell below their thread's call before. On two `cores`
    (`_split_report`) or one."""
    paths = list(_files(folder))
    if cores == 2:
        count, sums = _split_report(paths, decoder)
    else:
        # the parent map is built as a bill builds it for its rebuilds' triggers; only the
        # lines a trigger is looked for from are walked, so the floor walks none
        _, calls, every_line = _read_calls(paths, decoder)
        count, sums = len(calls), _sums(calls, every_line)
    totals, cost, no_caching, five_minutes, one_hour, drops, every = sums
    return {
        **_said(count, totals, cost),
        "every_line_cost_usd": round(every, 6),
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

"""The floor of a bill: the least work that gives a Claude Code folder's totals.

`python -m benchmarks.floor FOLDER [json|msgspec]` reads every `.jsonl` file
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
"""

# subtle: no `from __future__ import annotations`: msgspec reads the classes' annotations,
# which must name the classes defined beside them, not strings
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

#: (uncached input, cache reads, 5-minute writes, 1-hour writes, output), tokens.
Row = tuple[int, int, int, int, int]


def _files(folder: str) -> Iterator[str]:
    for root, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".jsonl"):
                yield os.path.join(root, name)


def _json_rows(path: str) -> Iterator[tuple[object, object, str, Row]]:
    """(message id, request id, model, tokens) of each assistant line with usage, by json."""
    loads = json.loads
    with open(path, "rb") as handle:
        for line in handle:
            record = loads(line)
            message = record.get("message")
            if record.get("type") != "assistant" or not message or "usage" not in message:
                continue
            usage = message["usage"]
            written = usage.get("cache_creation_input_tokens", 0)
            split = usage.get("cache_creation") or {}
            row = (
                usage.get("input_tokens", 0),
                usage.get("cache_read_input_tokens", 0),
                split.get("ephemeral_5m_input_tokens", written),
                split.get("ephemeral_1h_input_tokens", 0),
                usage.get("output_tokens", 0),
            )
            yield message.get("id"), record.get("requestId"), message.get("model"), row


def _msgspec_rows() -> Callable[[str], Iterator[tuple[object, object, str, Row]]]:
    """`_json_rows`, decoding each line straight into the fields it reads, by msgspec."""
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

    class Line(msgspec.Struct):
        type: str | None = None
        requestId: str | None = None
        message: Message | None = None

    decode = msgspec.json.Decoder(Line).decode

    def rows(path: str) -> Iterator[tuple[object, object, str, Row]]:
        with open(path, "rb") as handle:
            for line in handle:
                record = decode(line)
                message = record.message
                if record.type != "assistant" or message is None or message.usage is None:
                    continue
                usage, split = message.usage, message.usage.cache_creation
                five = split.ephemeral_5m_input_tokens if split else None
                row = (
                    usage.input_tokens,
                    usage.cache_read_input_tokens,
                    usage.cache_creation_input_tokens if five is None else five,
                    split.ephemeral_1h_input_tokens if split else 0,
                    usage.output_tokens,
                )
                yield message.id, record.requestId, message.model or "", row

    return rows


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
    return {
        "calls": len(calls),
        "input": totals[0],
        "cache_read": totals[1],
        "cache_write": totals[2] + totals[3],
        "output": totals[4],
        "cost_usd": round(cost, 6),
    }


if __name__ == "__main__":
    print(json.dumps(floor(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "json")))

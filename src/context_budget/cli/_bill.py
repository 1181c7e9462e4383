"""`context-budget bill PATH...`: what a saved session's API calls cost, and its rebuilds.

PATH is a Claude Code session or project folder, a Codex rollout, a
mini-swe-agent trajectory or an OpenHands event file (`read_bill`). The
summary lists the files and their format, the calls (one per API call, after
deduplication), models, threads, tokens by kind, the cost breakdown at list
prices (and what counting every line would say), the cache-read share, the
rebuilds with their causes, and the what-ifs; `--calls` adds one row per
call; `--json` prints the same as one object.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from context_budget.bills import BILL_FORMATS, Bill, read_bill
from context_budget.cli._render import one_line

__all__ = ["BillError", "add_parser", "report", "run"]

_BAR = 40  # characters of the widest prompt in the --calls table


class BillError(Exception):
    """Bad input the command reports in one line (exit status 2)."""


def add_parser(commands: Any) -> None:
    """Add the `bill` subcommand to `commands` (an argparse subparsers action)."""
    bill = commands.add_parser(
        "bill",
        help="what a saved session's API calls cost, and why its cache was rebuilt",
        description=(
            "The bill of saved sessions: one line per API call after deduplication, priced "
            "at dated list prices, with the cache-read share, the rebuilds and their causes, "
            "and what other caching choices would have cost. The files are only read."
        ),
        epilog="example: context-budget bill ~/.claude/projects/-home-me-myproject --calls",
    )
    bill.add_argument("paths", nargs="+", metavar="PATH", help="session files or folders")
    bill.add_argument(
        "--format",
        choices=BILL_FORMATS,
        default="auto",
        metavar="FORMAT",
        help=f"how to read PATH: {', '.join(BILL_FORMATS)} (default: auto)",
    )
    bill.add_argument("--calls", action="store_true", help="add one row per call")
    bill.add_argument("--json", action="store_true", help="print the bill as one JSON object")


def _time(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _usd(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _lifetime_line(lifetimes: list[dict[str, Any]]) -> str:
    """One line: on how many threads each write lifetime is cheaper, and what it would save."""
    parts = []
    for lifetime, name in (("5m", "5-minute"), ("1h", "1-hour")):
        won = [life for life in lifetimes if life["cheaper"] == lifetime and life["saving"]]
        if won:
            saving = sum(life["saving"] for life in won)
            parts.append(f"{name} writes cheaper on {len(won)} (by {_money(saving)})")
    found = " · ".join(parts) if parts else "no difference"
    return f"write lifetime per thread, on its own gaps: {found}"


def report(bill: Bill, *, calls: bool = False) -> dict[str, Any]:
    """The bill as plain data (the `--json` object); USD rounded to 6 places."""
    cost = bill.cost()
    what_if = bill.what_if()
    every_line = bill.every_line()
    priced = len(bill.unpriced_models()) < len(bill.models)

    def usd(value: float | None) -> float | None:  # no priced call: no dollars, not $0
        return _usd(value) if priced else None

    found: dict[str, Any] = {
        "files": list(bill.files),
        "format": bill.format,
        "calls": len(bill.calls),
        "usage_lines": len(every_line.calls),
        "models": list(bill.models),
        "unpriced_models": list(bill.unpriced_models()),
        "threads": bill.threads,
        "tokens": bill.tokens(),
        "cost_usd": usd(cost.total),
        "cost": {
            "uncached_input": usd(cost.uncached_input),
            "cache_writes": usd(cost.cache_writes),
            "cache_reads": usd(cost.cache_reads),
            "output": usd(cost.output),
            "server_tools": usd(cost.server_tools),
        },
        "every_line_cost_usd": usd(every_line.cost().total),
        "recorded_cost_usd": _usd(bill.recorded_cost),
        "cache_read_share": round(bill.cache_read_share, 4),
        "rebuilds": [
            {
                "call": r.call,
                "thread": r.thread,
                "time": _time(bill.calls[r.call - 1].timestamp),
                "cause": r.cause,
                "lost_tokens": r.lost_tokens,
                "gap_seconds": None if r.gap_seconds is None else round(r.gap_seconds, 3),
                "extra_usd": _usd(r.extra_usd),
                "first_difference": r.first_difference,
                "trigger": r.trigger,
                "line": r.line,
                "partial": r.partial,
            }
            for r in bill.rebuilds()
        ],
        "what_if": {
            "actual": usd(what_if.actual),
            "no_caching": usd(what_if.no_caching),
            "all_writes_1h": usd(what_if.all_writes_1h),
            "rebuilds_read": usd(what_if.rebuilds_read),
            "staggered_starts": usd(what_if.staggered_starts),
            "unavoidable_rebuilds": usd(what_if.unavoidable_rebuilds),
            "lifetimes": [
                {
                    "thread": life.thread,
                    "five_minutes": _usd(life.five_minutes),
                    "one_hour": _usd(life.one_hour),
                    "cheaper": life.cheaper,
                    "saving": _usd(life.saving),
                }
                for life in bill.lifetimes()
            ],
        },
    }
    if calls:
        found["per_call"] = [_row(bill, number) for number in range(1, len(bill.calls) + 1)]
    return found


def _row(bill: Bill, number: int) -> dict[str, Any]:
    call = bill.calls[number - 1]
    cost = bill.call_cost(number)
    return {
        "call": number,
        "thread": call.thread,
        "time": _time(call.timestamp),
        "model": call.model,
        "input": call.input_tokens,
        "cache_read": call.cache_read_input_tokens,
        "cache_write_5m": call.cache_creation_5m,
        "cache_write_1h": call.cache_creation_1h,
        "output": call.output_tokens,
        "cost_usd": None if cost is None else _usd(cost.total),
    }


def _money(value: float | None) -> str:
    return "unpriced" if value is None else f"${value:,.4f}"


def _adding_up(total: float, parts: list[float]) -> list[float]:
    """`parts` rounded to 4 places so that they add up to `total` rounded to 4 places.

    Each part is rounded down, then the tenths of a hundredth left over go,
    one each, to the parts that lost the most (largest remainders first).
    """
    scaled = [part * 10_000 for part in parts]
    floors = [int(part // 1) for part in scaled]
    short = round(total * 10_000) - sum(floors)
    order = sorted(range(len(parts)), key=lambda k: floors[k] - scaled[k])
    for k in order[: max(0, min(short, len(parts)))]:
        floors[k] += 1
    return [floor / 10_000 for floor in floors]


def _cost_line(data: dict[str, Any]) -> str:
    """The `cost:` line: the total and its parts, the parts adding up to the total shown."""
    cost = data["cost"]
    names = ["uncached_input", "cache_writes", "cache_reads", "output"]
    words = list(_WORDS)
    if cost.get("server_tools"):  # web search requests, shown only where a call made any
        names.append("server_tools")
        words.append("web search")
    parts = _adding_up(data["cost_usd"], [cost[name] for name in names])
    shown = [f"{word} {_money(part)}" for word, part in zip(words, parts, strict=True)]
    return f"cost: {_money(data['cost_usd'])} = " + " + ".join(shown)


_WORDS = ("input", "writes", "reads", "output")


def render(data: dict[str, Any]) -> str:
    """The text summary of `report`'s data."""
    tokens = data["tokens"]
    lines = [
        f"bill: {one_line(', '.join(data['files']))} ({data['format']})",
        f"calls: {data['calls']:,} (from {data['usage_lines']:,} usage lines) on "
        + one_line(", ".join(data["models"])),
        f"threads: {len(data['threads'])}: "
        + one_line(", ".join(f"{name} {n}" for name, n in data["threads"].items())),
        f"tokens: input {tokens['input']:,} · cache read {tokens['cache_read']:,} · "
        f"written 5m {tokens['cache_write_5m']:,} · written 1h {tokens['cache_write_1h']:,} · "
        f"output {tokens['output']:,}",
    ]
    if data["cost_usd"] is None:
        lines.append("cost: no call is on a model with a list price")
    else:
        lines.append(_cost_line(data))
        lines.append(f"  counting every usage line instead: {_money(data['every_line_cost_usd'])}")
    if data["unpriced_models"]:
        lines.append(
            f"  not priced (no list price): {one_line(', '.join(data['unpriced_models']))}"
        )
    if data["recorded_cost_usd"] is not None:
        lines.append(f"  cost the file recorded itself: {_money(data['recorded_cost_usd'])}")
    lines.append(f"cache-read share: {data['cache_read_share']:.1%}")
    if not data["rebuilds"]:
        lines.append("rebuilds: none")
    for r in data["rebuilds"]:
        gap = "" if r["gap_seconds"] is None else f", {r['gap_seconds']:,.0f} s after the last"
        lines.append(
            f"rebuild: call {r['call']} at {r['time']} ({one_line(r['thread'])}): {r['cause']}, "
            f"{r['lost_tokens']:,} tokens lost{gap}, {_money(r['extra_usd'])} extra"
        )
        if r["first_difference"]:
            lines.append(f"  first message that differs: {one_line(r['first_difference'])}")
        if r["trigger"]:
            lines.append(f"  trigger: {one_line(r['trigger'])}")
    w = data["what_if"]
    if w["actual"] is not None:
        lines.append(
            f"what if (input side; actual {_money(w['actual'])}): no caching "
            f"{_money(w['no_caching'])} · every write at 1h {_money(w['all_writes_1h'])} · "
            f"avoidable rebuilds read {_money(w['rebuilds_read'])} · parallel sub-agents "
            f"staggered {_money(w['staggered_starts'])} · unavoidable rebuilds (compaction, "
            f"model switch) cost {_money(w['unavoidable_rebuilds'])} extra"
        )
        lines.append(_lifetime_line(w["lifetimes"]))
    if "per_call" in data:
        lines.extend(_table(data["per_call"], {r["call"]: r["cause"] for r in data["rebuilds"]}))
    return "\n".join(lines) + "\n"


def _table(rows: list[dict[str, Any]], causes: dict[int, str]) -> list[str]:
    widest = (
        max(
            (r["input"] + r["cache_read"] + r["cache_write_5m"] + r["cache_write_1h"]) for r in rows
        )
        or 1
    )
    lines = [
        "",
        "   # time                 thread               prompt (= read, + written, "
        "- uncached)            cost",
    ]
    for r in rows:
        written = r["cache_write_5m"] + r["cache_write_1h"]
        bar = "=" * round(r["cache_read"] * _BAR / widest) + "+" * round(written * _BAR / widest)
        bar += "-" * round(r["input"] * _BAR / widest)
        mark = f" <- {causes[r['call']]}" if r["call"] in causes else ""
        lines.append(
            f"{r['call']:>4} {r['time'] or '-':<20} {one_line(r['thread'])[:20]:<20} {bar:<{_BAR}} "
            f"{_money(r['cost_usd']):>9}{mark}"
        )
    return lines


def run(args: argparse.Namespace) -> str:
    """The command's output for parsed `args`.

    Raises:
        BillError: a path missing or unreadable, or a file in no known format.
    """
    try:
        bill = read_bill(args.paths, format=args.format)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise BillError(str(error)) from None
    data = report(bill, calls=args.calls)
    if args.json:
        return json.dumps(data, indent=2) + "\n"
    return render(data)

"""`context-budget bill [PATH...]`: what a saved session's API calls cost, and its rebuilds.

PATH is a Claude Code session or project folder, a Codex rollout, a
mini-swe-agent trajectory or an OpenHands event file, or a folder of any of
them (`read_bill`). With no PATH, the folders Claude Code and Codex keep
their sessions in are read (`sessions.folders`), named in the first line on
stderr; when none exists, that is one error line (exit status 2). The
summary lists the files and their format, the calls (one per API call, after
deduplication), models, threads, tokens by kind, the cost breakdown at list
prices (and what counting every line would say), the cache-read share, the
rebuilds with their causes (the ten costliest when there are more), and the
what-ifs; `--calls` adds one row per call; `--by VIEW` a table by day, week,
month, session, project, model, thread or agent (the main threads, then each
sub-agent type), each row with its hit rate, and a totals row; `--since` and
`--until` keep the calls of a window of days; `--timezone NAME` counts the days
in an IANA time zone (the machine's own by default); `--html FILE` also writes
the bill as one self-contained page (`bill_page`), never over a file the bill
reads; `--json` prints the same as one object.

A file or line no reader can take (a half-written last line, a file that is
not a session, a rollout with no call) is left out and named in one warning
line on stderr; `--strict` refuses it instead (exit status 2).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from context_budget.bill_page import adding_up, bill_page, priced_parts, write_page
from context_budget.bill_page import money as _money
from context_budget.bills import BILL_FORMATS, TIME_VIEWS, VIEWS, Bill, Figures, read_bill
from context_budget.cli._render import one_line
from context_budget.errors import InputError
from context_budget.sessions.claude_code import START_OUTPUT_MOST
from context_budget.sessions.folders import default_folders, searched_folders
from context_budget.sessions.openhands_state import STATE_FILE, event_files
from context_budget.sessions.skips import summary
from context_budget.sessions.text import count_of, gc_paused
from context_budget.zones import (
    UTC_ZONE,
    Zone,
    find_zone,
    has_zone_database,
    instant_text,
    local_zone,
)

__all__ = [
    "SHOWN",
    "BillError",
    "add_parser",
    "call_row",
    "calls_table",
    "cost_parts",
    "html_page",
    "page_file",
    "read",
    "report",
    "run",
    "write_html",
    "zone_for",
]

_BAR = 40  # characters of the widest prompt in the --calls table
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
#: How many threads and rebuilds the summary names before "… and N more".
SHOWN = 10


class BillError(InputError):
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
    bill.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help=(
            "session files or folders (default: the folders Claude Code, Codex and OpenHands "
            "keep their sessions in: $CLAUDE_CONFIG_DIR/projects, else ~/.config/claude/projects "
            "and ~/.claude/projects; $CODEX_HOME/sessions and archived_sessions, else "
            "~/.codex/sessions and ~/.codex/archived_sessions; ~/.openhands/conversations)"
        ),
    )
    bill.add_argument(
        "--format",
        choices=BILL_FORMATS,
        default="auto",
        metavar="FORMAT",
        help=f"how to read PATH: {', '.join(BILL_FORMATS)} (default: auto)",
    )
    bill.add_argument("--calls", action="store_true", help="add one row per call")
    bill.add_argument(
        "--by",
        choices=VIEWS,
        metavar="VIEW",
        help=f"add a table of the calls by {', '.join(VIEWS)}",
    )
    bill.add_argument(
        "--html",
        type=page_file,
        metavar="FILE",
        help=(
            "also write the bill as one self-contained page: the per-call chart, the views "
            "(never over a file the bill reads)"
        ),
    )
    bill.add_argument("--since", metavar="DAY", help="only calls from DAY on (YYYY-MM-DD)")
    bill.add_argument("--until", metavar="DAY", help="only calls up to DAY (YYYY-MM-DD)")
    bill.add_argument(
        "--timezone",
        metavar="NAME",
        help=(
            "count days, weeks and months (--by, --since, --until) in this IANA time zone, "
            "e.g. Europe/Paris or UTC (default: the machine's)"
        ),
    )
    bill.add_argument("--json", action="store_true", help="print the bill as one JSON object")
    bill.add_argument(
        "--strict",
        action="store_true",
        help="refuse a file or line no reader can take (exit 2) instead of skipping it",
    )


def page_file(text: str) -> str:
    """An `--html` FILE, checked before any session is read: a name (not empty: an unset
    variable; not `-`, standard output), not a folder, in a folder that exists.

    Raises:
        argparse.ArgumentTypeError: what is wrong, in one line.
    """
    if not text:
        raise argparse.ArgumentTypeError("cannot write the page: an empty path names no file")
    if text == "-":  # the report goes there: a page there too would mix the two
        raise argparse.ArgumentTypeError(
            "-: cannot write the page to standard output, where the report goes: "
            "give a file name (./- for a file named -)"
        )
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text}: cannot write the page: it is a folder")
    folder = os.path.dirname(text) or "."
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"{text}: cannot write the page: no folder {folder}")
    return text


def _time(seconds: float | None) -> str | None:
    return None if seconds is None else instant_text(seconds)


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


def report(
    bill: Bill, *, calls: bool = False, by: str | None = None, zone: Zone = UTC_ZONE
) -> dict[str, Any]:
    """The bill as plain data (the `--json` object); USD rounded to 6 places.

    The dollars are those of the priced calls; they are null only when no
    call is priced. `unpriced_calls` counts the calls left out of them,
    `unpriced_call_numbers` names them (from 1, as in `per_call`).
    `output_lower_bound_calls` counts the calls whose file kept only the
    output count their stream began with (`Bill.output_lower_bounds`, named in
    `output_lower_bound_call_numbers`; a `per_call` row says it as
    `output_lower_bound`): their output, and so the cost, is a lower bound.
    With `by` (one of `VIEWS`), `groups` lists `{"key", "calls", "tokens",
    "cost_usd", "unpriced_calls", "cache_read_share"}` in the view's order,
    days counted in `zone` (named as `timezone`), the costs rounded so that
    they add up to `cost_usd`; a group with no priced call has `cost_usd` null.
    """
    figures = bill.figures()  # worked out once, on two cores where that pays
    cost = figures.cost
    unpriced = figures.unpriced_calls
    priced = len(unpriced) < figures.calls

    def usd(value: float | None) -> float | None:  # no priced call: no dollars, not $0
        return _usd(value) if priced else None

    found: dict[str, Any] = {
        "files": list(bill.files),
        "format": bill.format,
        "calls": figures.calls,
        "usage_lines": figures.usage_lines,
        "models": list(figures.models),
        "unpriced_models": list(figures.unpriced_models),
        "unpriced_calls": len(unpriced),
        "unpriced_call_numbers": list(unpriced),
        "output_lower_bound_calls": len(figures.output_lower_bounds),
        "output_lower_bound_call_numbers": list(figures.output_lower_bounds),
        "timezone": zone.name,
        "threads": figures.threads,
        "tokens": figures.tokens,
        "cost_usd": usd(cost.total),
        "cost": {name: usd(getattr(cost, name)) for name in _COST_PARTS},
        "every_line_cost_usd": usd(figures.every_line_cost.total),
        "recorded_cost_usd": _usd(figures.recorded_cost),
        "recorded_cost_calls": figures.recorded_calls
        if figures.recorded_cost is not None
        else None,
        "recorded_cost_reason": bill.recorded_cost_reason,
        "skipped": [
            {"kind": s.kind, "file": s.file, "line": s.line, "reason": s.reason}
            for s in figures.skipped
        ],
        "cache_read_share": round(figures.cache_read_share, 4),
        "rebuilds": _rebuild_rows(figures),
        "provider_reasons": figures.provider_reasons,
        "what_if": _what_if_section(figures, usd),
    }
    if by is not None:
        found["by"] = by
        found["groups"] = _groups(bill, by, found["cost_usd"], zone)
    if calls:
        found["per_call"] = [call_row(bill, number) for number in range(1, len(bill.calls) + 1)]
    return found


#: The charges of the JSON's `cost` object, in its order (`pricing.Cost`'s fields).
_COST_PARTS = ("uncached_input", "cache_writes", "cache_reads", "output", "server_tools")


def _rebuild_rows(figures: Figures) -> list[dict[str, Any]]:
    """The JSON's `rebuilds`: one object per rebuild (`Bill.rebuilds`), in call order."""
    return [
        {
            "call": r.call,
            "thread": r.thread.name,
            "time": _time(when),
            "cause": r.cause,
            "lost_tokens": r.lost_tokens,
            "gap_seconds": None if r.gap_seconds is None else round(r.gap_seconds, 3),
            "extra_usd": _usd(r.extra_usd),
            "first_difference": r.first_difference,
            "trigger": r.trigger,
            "line": r.line,
            "partial": r.partial,
            "provider_reason": r.provider_reason,
        }
        for r, when in zip(figures.rebuilds, figures.rebuild_times, strict=True)
    ]


def _what_if_section(
    figures: Figures, usd: Callable[[float | None], float | None]
) -> dict[str, Any]:
    """The JSON's `what_if`: the input side under other choices (`Bill.what_if`, dollars
    through `usd`) and each thread's two lifetimes (`Bill.lifetimes`)."""
    what_if = figures.what_if
    return {
        "actual": usd(what_if.actual),
        "no_caching": usd(what_if.no_caching),
        "all_writes_1h": usd(what_if.all_writes_1h),
        "rebuilds_read": usd(what_if.rebuilds_read),
        "staggered_starts": usd(what_if.staggered_starts),
        "unavoidable_rebuilds": usd(what_if.unavoidable_rebuilds),
        "lifetimes": [
            {
                "thread": life.thread.name,
                "five_minutes": _usd(life.five_minutes),
                "one_hour": _usd(life.one_hour),
                "cheaper": life.cheaper,
                "saving": _usd(life.saving),
            }
            for life in figures.lifetimes
        ],
    }


def _groups(bill: Bill, by: str, total: float | None, zone: Zone) -> list[dict[str, Any]]:
    """The `groups` of `report`: each group's cost rounded so that they add up to `total`.

    A group with no priced call keeps `cost_usd` null.
    """
    groups = bill.groups(by, zone=zone)
    costs: list[float | None] = [None] * len(groups)
    if total is not None:
        costs = priced_parts(total, [g.cost for g in groups], places=6)
    return [
        {
            "key": g.key,
            "calls": g.calls,
            "tokens": g.tokens,
            "cost_usd": cost,
            "unpriced_calls": g.unpriced_calls,
            "cache_read_share": round(g.cache_read_share, 4),
        }
        for g, cost in zip(groups, costs, strict=True)
    ]


def call_row(bill: Bill, number: int) -> dict[str, Any]:
    """Call number `number` (from 1) as a `per_call` row: its tokens by kind and its cost."""
    call = bill.calls[number - 1]
    cost = bill.call_cost(number)
    billed = call.usage.billed  # every iteration, as the call's dollars count them
    return {
        "call": number,
        "thread": call.thread.name,
        "time": _time(call.timestamp),
        "model": call.model,
        "input": billed.input_tokens,
        "cache_read": billed.cache_read_input_tokens,
        "cache_write_5m": billed.ephemeral_5m_input_tokens,
        "cache_write_1h": billed.ephemeral_1h_input_tokens,
        "cache_write_30m": billed.ephemeral_30m_input_tokens,
        "output": billed.output_tokens,
        "output_lower_bound": call.output_lower_bound,
        "cost_usd": None if cost is None else _usd(cost.total),
    }


def cost_parts(total: float, cost: dict[str, Any]) -> str:
    """`input $a + writes $b + reads $c + output $d`: the parts of `cost` (a `cost` object
    of the JSON, USD), each to 4 places, adding up to `total` as `money` shows it.

    Web search requests (`server_tools`) and a cache's storage (`storage`) are
    parts too, shown only where there are any.
    """
    names = ["uncached_input", "cache_writes", "cache_reads", "output"]
    words = ["input", "writes", "reads", "output"]
    for name, word in (("server_tools", "web search"), ("storage", "storage")):
        if cost.get(name):
            names.append(name)
            words.append(word)
    parts = adding_up(total, [cost[name] for name in names])
    return " + ".join(f"{word} {_money(part)}" for word, part in zip(words, parts, strict=True))


def _cost_line(data: dict[str, Any]) -> str:
    """The `cost:` line: the total and its parts, the parts adding up to the total shown."""
    return f"cost: {_money(data['cost_usd'])} = " + cost_parts(data["cost_usd"], data["cost"])


def render(data: dict[str, Any]) -> str:
    """The text summary of `report`'s data."""
    tokens = data["tokens"]
    lines = [
        f"bill: {one_line(', '.join(data['files']))} ({data['format']})",
        f"calls: {data['calls']:,} (from {data['usage_lines']:,} usage lines) on "
        + one_line(", ".join(data["models"])),
        _threads_line(data["threads"]),
        f"tokens: input {tokens['input']:,} · cache read {tokens['cache_read']:,} · "
        f"written 5m {tokens['cache_write_5m']:,} · written 1h {tokens['cache_write_1h']:,} · "
        + (f"written 30m {thirty:,} · " if (thirty := tokens["cache_write_30m"]) else "")
        + f"output {tokens['output']:,}",
    ]
    if data["cost_usd"] is None:
        lines.append("cost: no call is on a model with a list price")
    else:
        lines.append(_cost_line(data))
        lines.append(f"  counting every usage line instead: {_money(data['every_line_cost_usd'])}")
    if data["unpriced_models"]:
        lines.append(_unpriced_line(data))
    if data["output_lower_bound_calls"]:
        lines.append(_lower_bound_line(data["output_lower_bound_call_numbers"]))
    if data["recorded_cost_usd"] is not None:
        lines.append(_recorded_line(data))
    elif data["recorded_cost_reason"]:
        lines.append(f"  cost the file recorded itself: unknown ({data['recorded_cost_reason']})")
    lines.append(f"cache-read share: {data['cache_read_share']:.1%}")
    lines.extend(_rebuild_lines(data["rebuilds"]))
    if data["provider_reasons"]:
        counted = ", ".join(f"{one_line(k)} {n:,}" for k, n in data["provider_reasons"].items())
        lines.append(f"the provider's miss reasons on calls that are not rebuilds: {counted}")
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
    if "groups" in data:
        lines.extend(_group_table(data))
    if "per_call" in data:
        causes = {r["call"]: r["cause"] for r in data["rebuilds"]}
        lines.extend(
            calls_table(data["per_call"], [causes.get(r["call"], "") for r in data["per_call"]])
        )
    return "\n".join(lines) + "\n"


def _recorded_line(data: dict[str, Any]) -> str:
    """The cost the files recorded themselves, and for how many calls where not for all."""
    covered, calls = data["recorded_cost_calls"], data["calls"]
    if covered is None or covered >= calls:
        return f"  cost the file recorded itself: {_money(data['recorded_cost_usd'])}"
    return (
        f"  cost the files recorded themselves, for the {covered:,} of the {calls:,} calls "
        f"in files that record one: {_money(data['recorded_cost_usd'])}"
    )


def _unpriced_line(data: dict[str, Any]) -> str:
    """What the cost leaves out: the models (and fast modes) with no price, and their calls."""
    models = one_line(", ".join(data["unpriced_models"]))
    numbers = data["unpriced_call_numbers"]
    said = f"{len(numbers):,} call" if len(numbers) == 1 else f"{len(numbers):,} calls"
    if data["cost_usd"] is None:
        return f"  not priced (no list price): {models}; {said}, all of them"
    return f"  not priced (no list price): {models}; {said}: {_first_numbers(numbers)}"


def _first_numbers(numbers: list[int]) -> str:
    """`3, 8, 12 … and N more`: the first `SHOWN` call numbers, and how many follow."""
    more = f" … and {len(numbers) - SHOWN} more" if len(numbers) > SHOWN else ""
    return ", ".join(map(str, numbers[:SHOWN])) + more


def _lower_bound_line(numbers: list[int]) -> str:
    """The calls whose output the files kept only as their stream's first count."""
    return (
        f"  output a lower bound: {count_of(len(numbers), 'call')} ({_first_numbers(numbers)}) "
        "kept only "
        f"the output count their response began streaming with (no stop reason, at most "
        f"{START_OUTPUT_MOST} tokens); their real output, and the cost, are higher"
    )


def _threads_line(threads: dict[str, int]) -> str:
    """`threads: N: name calls, ...`: all of them, or the `SHOWN` with most calls and a count."""
    names = list(threads)
    if len(names) > SHOWN:
        top = set(sorted(names, key=lambda name: (-threads[name], names.index(name)))[:SHOWN])
        names = [name for name in names if name in top]
    said = one_line(", ".join(f"{name} {threads[name]}" for name in names))
    more = len(threads) - len(names)
    return f"threads: {len(threads)}: {said}" + (f" … and {more} more" if more else "")


def _rebuild_lines(rebuilds: list[dict[str, Any]]) -> list[str]:
    """A line per rebuild (and one each for its first differing message and its trigger),
    the `SHOWN` costliest."""
    if not rebuilds:
        return ["rebuilds: none"]
    shown = rebuilds
    if len(rebuilds) > SHOWN:
        costliest = sorted(rebuilds, key=lambda r: -(r["extra_usd"] or 0.0))[:SHOWN]
        shown = sorted(costliest, key=lambda r: r["call"])
    lines = []
    for r in shown:
        gap = "" if r["gap_seconds"] is None else f", {r['gap_seconds']:,.0f} s after the last"
        reason = r["provider_reason"]
        said = "" if reason is None else f" (the provider says {one_line(reason)})"
        when = f"at {r['time']} ({one_line(r['thread'])})"
        if r["time"] is None:
            when = f"({one_line(r['thread'])}, no time recorded)"
        lines.append(
            f"rebuild: call {r['call']} {when}: {r['cause']}{said}, "
            f"{r['lost_tokens']:,} tokens lost{gap}, {_money(r['extra_usd'])} extra"
        )
        if r["first_difference"]:
            lines.append(f"  first message that differs: {one_line(r['first_difference'])}")
        if r["trigger"]:
            lines.append(f"  trigger: {one_line(r['trigger'])}")
    if len(shown) < len(rebuilds):
        lines.append(
            f"… and {len(rebuilds) - len(shown)} more rebuilds, the costliest {SHOWN} shown "
            "(--json lists them all)"
        )
    return lines


def _group_table(data: dict[str, Any]) -> list[str]:
    """The `--by` table: a row per group, then the totals row.

    A time view's first column names the zone its days are counted in; the
    hit rate is the cache-read share; a group none of whose calls is priced
    reads `unpriced`, and the last column counts a group's unpriced calls
    where any group has some.
    """
    groups, by, total = data["groups"], data["by"], data["cost_usd"]
    costs: list[float | None] = [None] * len(groups)
    if total is not None:  # shown to 4 places, adding up to the total shown
        costs = priced_parts(total, [g["cost_usd"] for g in groups])
    rows = [(g["key"], g, cost) for g, cost in zip(groups, costs, strict=True)]
    whole = {
        "calls": data["calls"],
        "tokens": data["tokens"],
        "cache_read_share": data["cache_read_share"],
        "unpriced_calls": data["unpriced_calls"],
    }
    rows.append(("total", whole, total))
    name = f"{by} ({data['timezone']})" if by in TIME_VIEWS else by
    width = max(len(name), *(len(one_line(str(row[0]))) for row in rows))
    marks = any(g["unpriced_calls"] for g in groups)
    head = (
        f"{name:<{width}} {'calls':>7} {'input':>11} {'cache read':>13} {'written':>11} "
        f"{'output':>11} {'hit rate':>8} {'cost':>11}" + (f" {'unpriced':>8}" if marks else "")
    )
    lines = ["", head]
    for key, group, cost in rows:
        if key == "total" and group is whole:
            lines.append("-" * len(head))
        kinds = group["tokens"]
        written = _written(kinds)
        line = (
            f"{one_line(str(key)):<{width}} {group['calls']:>7,} {kinds['input']:>11,} "
            f"{kinds['cache_read']:>13,} {written:>11,} {kinds['output']:>11,} "
            f"{group['cache_read_share']:>8.1%} {_money(cost):>11}"
        )
        if marks:
            line += f" {group['unpriced_calls'] or '':>8}"
        lines.append(line.rstrip())
    return lines


def _written(row: dict[str, Any]) -> int:
    """A row's cache writes, every lifetime together (tokens)."""
    return int(row["cache_write_5m"] + row["cache_write_1h"] + row["cache_write_30m"])


def calls_table(rows: list[dict[str, Any]], marks: list[str]) -> list[str]:
    """The `--calls` table: a row per call, its prompt drawn as a bar, then its mark
    (`marks[k]` for row k: a rebuild's cause, or `""`); no rows, no table."""
    if not rows:
        return []
    widest = max(r["input"] + r["cache_read"] + _written(r) for r in rows) or 1
    lines = [
        "",
        "   # time                 thread               prompt (= read, + written, "
        "- uncached)            cost",
    ]
    for k, r in enumerate(rows):
        # each part drawn up to where the running total ends, so no bar outgrows the widest
        read = r["cache_read"]
        ends = (read, read + _written(r), read + _written(r) + r["input"])
        read, written, whole = (round(end * _BAR / widest) for end in ends)
        bar = "=" * read + "+" * (written - read) + "-" * (whole - written)
        mark = f" <- {marks[k]}" if marks[k] else ""
        lines.append(
            f"{r['call']:>4} {r['time'] or '-':<20} {one_line(r['thread'])[:20]:<20} {bar:<{_BAR}} "
            f"{_money(r['cost_usd']):>9}{mark}"
        )
    return lines


def zone_for(name: str | None, days: bool) -> tuple[Zone, str | None]:
    """The zone `--timezone` names (the machine's without it), and a warning to print, if any.

    Where Python has no time zone database, a zone other than UTC cannot be
    read: the days are counted in UTC, and the warning says so. The browser's
    Python cannot see the machine's zone either: where the output has days
    (`days`), the warning says they are UTC's.

    Raises:
        BillError: a name the database does not hold.
    """
    if name is None:
        found = local_zone()
        if days and sys.platform == "emscripten":
            return found, "this Python cannot see the machine's time zone: days are in UTC"
        return found, None
    try:
        return find_zone(name), None
    except ValueError as error:
        if has_zone_database():
            raise BillError(f"--timezone: {error}") from None
        return UTC_ZONE, (
            f"no time zone database in this Python: --timezone {name!r:.60} cannot be read, "
            "days are in UTC"
        )


def _day(text: str | None, flag: str) -> date | None:
    """A `--since` or `--until` day; BillError naming the flag and the value."""
    if text is None:
        return None
    try:
        if _DAY.fullmatch(text):
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise BillError(f"{flag} must be a day as YYYY-MM-DD, got {one_line(text)!r:.40}")


def run(args: argparse.Namespace) -> str:
    """The command's output for parsed `args`.

    Files and lines no reader can take are skipped and named in one warning
    line on stderr (`--strict`: refused).

    Raises:
        BillError: a path missing or unreadable, nothing to bill, or with
            `--strict` a file or line no reader can take.
    """
    with gc_paused():  # the bill's calls, lines and places are no cycles: nothing to collect
        return _run(args)


def read(
    paths: list[str],
    format: str,
    strict: bool,
    since: date | None = None,
    until: date | None = None,
    *,
    zone: Zone = UTC_ZONE,
    page: str | None = None,
    flags: bool = True,
) -> Bill:
    """The bill of `paths` (from `since` to `until`, days in `zone`), the files it
    skipped named on stderr; with `flags` False (a caller that is no command line, such
    as the course's page) the warning names no flag.

    Raises:
        BillError: a path missing or unreadable, nothing to bill (no call in the
            window, saying how many record no time), with `strict` a file or line
            no reader can take, or a `page` to write over a file the bill reads.
    """
    try:
        whole = read_bill(_paths(paths), format=format, strict=strict, lazy=True)
        bill = whole.between(since, until, zone=zone)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise BillError(str(error)) from None
    if not bill.figures().calls:  # a bill read in parts keeps its calls apart till asked
        untimed = sum(call.timestamp is None for call in whole.calls)
        verb = "records" if untimed == 1 else "record"
        said = f"; {count_of(untimed, 'call')} {verb} no time, and no window holds them"
        raise BillError(
            f"no call from {since or 'the first'} to {until or 'the last'} "
            f"(days in {zone.name})" + (said if untimed else "")
        )
    if page is not None:
        _check_page_target(bill, page)
    if bill.skipped:
        hint = " (--strict refuses them)" if flags else ""
        warning = f"{summary(bill.skipped)}; the rest is billed{hint}"
        sys.stderr.write(f"context-budget: warning: {one_line(warning)}\n")
    return bill


def _run(args: argparse.Namespace) -> str:
    since, until = _day(args.since, "--since"), _day(args.until, "--until")
    if since is not None and until is not None and since > until:
        raise BillError(f"--since {since} is after --until {until}: no day is in between")
    days = args.since is not None or args.until is not None or args.by in TIME_VIEWS
    zone, warning = zone_for(args.timezone, days or args.html is not None)
    if warning is not None:
        sys.stderr.write(f"context-budget: warning: {one_line(warning)}\n")
    bill = read(args.paths, args.format, args.strict, since, until, zone=zone, page=args.html)
    data = report(bill, calls=args.calls, by=args.by, zone=zone)
    shown = json.dumps(data, indent=2) + "\n" if args.json else render(data)
    if args.html is None:
        return shown
    write_html(html_page(bill, zone=zone), args.html)
    return shown if args.json else shown + f"page: {one_line(args.html)}\n"


def _paths(given: list[str]) -> list[str]:
    """The paths given, or the agents' own session folders that hold a session file
    (`default_folders`), named on stderr; BillError when there are none."""
    if given:
        return given
    found = [str(folder) for folder in default_folders()]
    if not found:
        looked = ", ".join(str(folder) for folder in searched_folders())
        raise BillError(f"no session folder found, and no PATH given (looked in {looked})")
    sys.stderr.write(f"context-budget: reading {one_line(', '.join(found))}\n")
    return found


def _read_files(bill: Bill) -> list[str]:
    """Every file the bill read: the paths given, the sessions', the skipped, the tasks',
    and the event files an OpenHands conversation's state file is read with."""
    found = list(bill.files)
    found += [name for session in bill.sessions_read for name in session.files]
    found += [skip.file for skip in bill.skipped]
    named = [Path(name) for name in found if Path(name).name]  # not `.`, a folder named so
    metas = [path.with_name(path.stem + ".meta.json") for path in named]
    events = [
        str(event) for path in named if path.name == STATE_FILE for event in event_files(path)
    ]
    return found + [str(meta) for meta in metas if meta.is_file()] + events


def _same_file(target: Path, name: str) -> bool:
    """True when `target` is the file `name`, by any path (a link, `./`, `..`)."""
    try:
        if Path(name).resolve() == target.resolve():
            return True
        return target.exists() and os.path.samefile(target, name)
    except (OSError, ValueError, RuntimeError):  # a loop of links, a path that cannot be
        return False


def _check_page_target(bill: Bill, path: str) -> None:
    """Refuse to write the page over a file the bill reads, however it is reached.

    Raises:
        BillError: `path` is one of the files read (named).
    """
    target = Path(path)
    for name in _read_files(bill):
        if _same_file(target, name):
            raise BillError(
                f"--html {path}: that is a file the bill reads ({name}); give the page another name"
            )


def html_page(bill: Bill, whatif: dict[str, Any] | None = None, *, zone: Zone = UTC_ZONE) -> str:
    """The bill as one page (`bill_page`): every call, every view (days in `zone`), and
    `whatif`'s replays."""
    data = report(bill, calls=True, zone=zone)
    views = {by: _groups(bill, by, data["cost_usd"], zone) for by in VIEWS}
    return bill_page(data, views, whatif)


def write_html(text: str, path: str) -> None:
    """Write a page to `path`, whole or not at all; BillError naming the path when it cannot."""
    try:
        write_page(path, text)
    except OSError as error:
        raise BillError(f"{path}: cannot write the page: {error.strerror or error}") from None

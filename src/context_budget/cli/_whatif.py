"""`context-budget whatif PATH...`: what saved sessions would have cost under another policy.

PATH is what `bill` reads. The calls are replayed (`context_budget.replay`):
the same calls, outputs and pauses, each request rebuilt from the files, sent
again to the package's cache model under the flags' policy, and priced:

- `--model ID`: every call on that model (its cache rules and prices);
- `--cache MODE`: every call's cache in that mode of its model (Gemini's or
  GPT-5.6's `explicit`; an explicit Gemini cache's storage billed by the
  hour), where the model has it;
- `--ttl 5m|1h`: every cache write of that lifetime, where the model's
  provider offers the choice;
- `--clear-at TOKENS` (with `--keep N`): old tool results cleared from every
  request over TOKENS, as the server's `clear_tool_uses` does it;
- `--compact-at TOKENS` (with `--summary-tokens N`): a client-side
  compaction once a request reaches TOKENS, its summarizing call priced;
- `--calls`: one row per replayed call; `--json`: the same as one object.

The summary names the policy and the replay's one assumption, the bill and
the replay side by side, how often clearing and compaction fired, the calls
where a replay under the session's own policy departs from its bill, the
ten costliest tool results (their rent) and the rent by tool. Bad input is
one line on stderr and exit status 2, as for `bill`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from typing import Any

from context_budget._aside import aside
from context_budget.bill_page import money
from context_budget.bills import ASIDE_CALLS, BILL_FORMATS, Bill
from context_budget.cli._bill import (
    BillError,
    call_row,
    calls_table,
    cost_parts,
    html_page,
    page_file,
    read,
    write_html,
    zone_for,
)
from context_budget.cli._flags import whole_number
from context_budget.cli._render import one_line
from context_budget.replay import Policy, Replay, lifetimes_offered, replay, summary_size
from context_budget.sessions.text import count_of, gc_paused
from context_budget.zones import Zone

__all__ = ["PAGE_SHARES", "SHOWN_RESULTS", "add_parser", "page", "page_policies", "report", "run"]

#: How many of the costliest tool results the text names.
SHOWN_RESULTS = 10
#: How many departures the text names before "… and N more".
_SHOWN_DEPARTURES = 10
#: The page's clearing and compaction thresholds: these shares of the way from the
#: smallest request of the bill (mostly a system prompt and tools) to its largest.
PAGE_SHARES = (0.6, 0.8)


_tokens = whole_number("token", least=1)
_count = whole_number()


def add_parser(commands: Any) -> None:
    """Add the `whatif` subcommand to `commands` (an argparse subparsers action)."""
    whatif = commands.add_parser(
        "whatif",
        help="what saved sessions would have cost under another model, lifetime, clearing "
        "or compaction",
        description=(
            "Replay saved sessions under another policy: the same calls, outputs and pauses, "
            "each request rebuilt from the files and sent again to the package's cache model, "
            "every call priced beside what the bill says it cost. The files are only read."
        ),
        epilog="example: context-budget whatif ~/.claude/projects/-home-me-app --compact-at 60000",
    )
    whatif.add_argument("paths", nargs="+", metavar="PATH", help="session files or folders")
    whatif.add_argument(
        "--format",
        choices=BILL_FORMATS,
        default="auto",
        metavar="FORMAT",
        help=f"how to read PATH: {', '.join(BILL_FORMATS)} (default: auto)",
    )
    whatif.add_argument("--model", metavar="ID", help="replay every call on this model")
    whatif.add_argument(
        "--cache",
        metavar="MODE",
        help="every call's cache in this mode of its model (e.g. explicit on Gemini or "
        "GPT-5.6; default: the model's own mode)",
    )
    whatif.add_argument(
        "--ttl", choices=("5m", "1h"), help="every cache write of this lifetime (5m or 1h)"
    )
    whatif.add_argument(
        "--clear-at",
        type=_tokens,
        metavar="TOKENS",
        help="clear old tool results from every request over TOKENS (server-side clearing)",
    )
    whatif.add_argument(
        "--keep",
        type=_count,
        metavar="N",
        help="with --clear-at: the latest tool uses left whole (default: 3)",
    )
    whatif.add_argument(
        "--compact-at",
        type=whole_number("token", least=2),  # a summary of 1 token or more is below it
        metavar="TOKENS",
        help="compact a thread once a request reaches TOKENS (client-side compaction)",
    )
    whatif.add_argument(
        "--summary-tokens",
        type=_tokens,
        metavar="N",
        help="with --compact-at: the summary's size (default: the files' own summaries, "
        "else 2,000)",
    )
    whatif.add_argument("--calls", action="store_true", help="add one row per replayed call")
    whatif.add_argument(
        "--html",
        type=page_file,
        metavar="FILE",
        help="also write one self-contained page: the bill, its views, the replays under "
        "other lifetimes, compactions and clearings, and the rent",
    )
    whatif.add_argument("--json", action="store_true", help="print the replay as one JSON object")
    whatif.add_argument(
        "--strict",
        action="store_true",
        help="refuse a file or line no reader can take (exit 2) instead of skipping it",
    )


#: The `Policy` fields that `replay` and `Policy` name in their errors, as the flags
#: that set them.
_FLAGS = {
    "compact_at": "--compact-at",
    "summary_tokens": "--summary-tokens",
    "clear_at": "--clear-at",
}


def _in_flags(message: str) -> str:
    """A library error's `message` in the command's words: each `Policy` field it names
    (`_FLAGS`) as its flag."""
    return re.sub(r"\b(compact_at|summary_tokens|clear_at)\b", lambda m: _FLAGS[m[1]], message)


def _policy(args: argparse.Namespace) -> Policy:
    """The flags as a `Policy`; BillError for a flag that needs another."""
    if args.keep is not None and args.clear_at is None:
        raise BillError("--keep needs --clear-at (it is how many tool uses clearing keeps)")
    if args.summary_tokens is not None and args.compact_at is None:
        raise BillError("--summary-tokens needs --compact-at (it is the compaction's summary)")
    try:
        return Policy(
            model=args.model,
            cache=args.cache,
            ttl=args.ttl,
            clear_at=args.clear_at,
            keep=3 if args.keep is None else args.keep,
            compact_at=args.compact_at,
            summary_tokens=args.summary_tokens,
        )
    except ValueError as error:
        raise BillError(_in_flags(str(error))) from None


def _usd(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _priced(bill: Bill) -> bool:
    """True when one call of `bill` at least has a price (its cost is then no guess)."""
    return len(bill.unpriced_calls()) < len(bill.calls)


def report(done: Replay, *, calls: bool = False) -> dict[str, Any]:
    """The replay as plain data (the `--json` object); USD rounded to 6 places.

    `bill_unpriced_calls` and `replayed_unpriced_calls` number the recorded calls
    (from 1) that `bill_usd` and `replayed_usd` leave out, on a model with no
    price (or, for the replay, no cache model): where they differ, the two
    dollars are not of the same calls.
    """
    bill, recorded = done.bill, done.recorded
    cost = bill.cost()
    found: dict[str, Any] = {
        "files": list(recorded.files),
        "format": recorded.format,
        "policy": _policy_data(done),
        "assumption": done.assumption,
        "calls": len(done.recorded.calls),
        "summarizing_calls": len(done.summaries),
        "models": list(bill.models),
        "unreplayed_models": list(done.unreplayed),
        "threads": bill.threads,
        "bill_usd": _usd(recorded.cost().total) if _priced(recorded) else None,
        "replayed_usd": _usd(cost.total) if _priced(bill) else None,
        "bill_unpriced_calls": list(recorded.unpriced_calls()),
        "replayed_unpriced_calls": _left_out(done),
        "cost": {
            "uncached_input": _usd(cost.uncached_input),
            "cache_writes": _usd(cost.cache_writes),
            "cache_reads": _usd(cost.cache_reads),
            "output": _usd(cost.output),
            "server_tools": _usd(cost.server_tools),
            "storage": _usd(cost.storage),
        },
        "warm_starts": [{"call": call, "tokens": tokens} for call, tokens in done.warm],
        "clearings": done.clearings,
        "compactions": done.compactions,
        "rebuilds": _causes(done),
        "departures": [
            {
                "call": d.call,
                "thread": d.thread,
                "bill_usd": _usd(d.bill_usd),
                "replayed_usd": _usd(d.replayed_usd),
                "read": d.read,
                "why": d.why,
            }
            for d in done.departures
        ],
        **_rent_data(done),
    }
    if calls:
        found["per_call"] = _per_call(done)
    return found


def _left_out(done: Replay) -> list[int]:
    """The numbers of the recorded calls the replayed dollars leave out: on a model with no
    cache model (never replayed) or with no price."""
    unpriced = set(done.bill.unpriced_calls())
    priced = {done.numbers[k - 1] for k in range(1, len(done.bill.calls) + 1) if k not in unpriced}
    return [number for number in range(1, len(done.recorded.calls) + 1) if number not in priced]


def _policy_data(done: Replay) -> dict[str, Any]:
    """The policy as `report` gives it: each choice, None where the session's own is kept."""
    policy = done.policy
    return {
        "model": policy.model,
        "cache": policy.cache,
        "ttl": policy.ttl,
        "clear_at": policy.clear_at,
        "keep": policy.keep if policy.clear_at is not None else None,
        "compact_at": policy.compact_at,
        "summary_tokens": done.summary_tokens if policy.compact_at is not None else None,
    }


def _rent_data(done: Replay) -> dict[str, Any]:
    """`rent` (by tool, the costliest first) and `costliest_results` (with where they are)."""
    return {
        "rent": [
            {"tool": r.tool, "results": r.results, "tokens": r.tokens, "cost_usd": _usd(r.cost_usd)}
            for r in done.rent()
        ],
        "costliest_results": [
            {
                "tool": r.tool,
                "tokens": r.tokens,
                "calls": r.calls,
                "cost_usd": _usd(r.cost_usd),
                "thread": r.thread,
                "where": r.where,
            }
            for r in done.results[:SHOWN_RESULTS]
        ],
    }


def _per_call(done: Replay) -> list[dict[str, Any]]:
    """One row per replayed call: the bill's row keys, `call` the recorded call it replays
    (the one a summarizing call came before), `summarizing`, and the replay's `rebuild`."""
    bill = done.bill
    summaries = set(done.summaries)
    causes = {rebuild.call: rebuild.cause for rebuild in bill.rebuilds()}
    return [
        {
            **call_row(bill, number),
            "call": source,
            "summarizing": number in summaries,
            "rebuild": causes.get(number),
        }
        for number, source in enumerate(done.numbers, 1)
    ]


def _causes(done: Replay) -> dict[str, int]:
    """The replay's rebuilds counted by cause."""
    found: dict[str, int] = {}
    for rebuild in done.bill.rebuilds():
        found[rebuild.cause] = found.get(rebuild.cause, 0) + 1
    return found


def _policy_line(policy: dict[str, Any]) -> str:
    parts = [f"model {policy['model']}" if policy["model"] else "each call's own model"]
    if policy["cache"] is not None:
        parts.append(f"its {policy['cache']} cache")
    parts.append(f"writes {policy['ttl']}" if policy["ttl"] else "each thread's own lifetime")
    if policy["clear_at"] is not None:
        parts.append(f"clear at {policy['clear_at']:,} keeping {policy['keep']:,} tool uses")
    if policy["compact_at"] is not None:
        parts.append(
            f"compact at {policy['compact_at']:,} (summary {policy['summary_tokens']:,} tokens)"
        )
    return "policy: " + one_line(" · ".join(parts))


def _compare_lines(data: dict[str, Any]) -> list[str]:
    """The bill beside the replay, and the change between them where both price the same
    calls; where they do not, a second line says which calls each leaves out."""
    bill, replayed = data["bill_usd"], data["replayed_usd"]
    if replayed is None:
        return [f"bill {money(bill)} · replayed: no replayed call is on a model with a price"]
    same = data["bill_unpriced_calls"] == data["replayed_unpriced_calls"]
    change = f" ({(replayed - bill) / bill:+.1%})" if bill and same else ""
    parts = cost_parts(replayed, data["cost"])
    line = f"bill {money(bill)} · replayed {money(replayed)}{change} = {parts}"
    if same or bill is None:  # an unpriced bill is compared with nothing already
        return [line]
    return [line, _not_compared(data["bill_unpriced_calls"], data["replayed_unpriced_calls"])]


def _not_compared(bill: list[int], replayed: list[int]) -> str:
    """Why the bill and the replay are not compared: they leave different calls out."""

    def said(numbers: list[int]) -> str:
        shown = ", ".join(map(str, numbers[:_SHOWN_DEPARTURES]))
        hidden = len(numbers) - _SHOWN_DEPARTURES
        more = f" … and {hidden} more" if hidden > 0 else ""
        return f"{count_of(len(numbers), 'call')} ({shown}{more})" if numbers else "none"

    return (
        f"  not compared: they price different calls (left out with no price: the bill's "
        f"{said(bill)}, the replay's {said(replayed)})"
    )


def render(data: dict[str, Any]) -> str:
    """The text summary of `report`'s data."""
    summarizing = data["summarizing_calls"]
    extra = f" (+{summarizing:,} summarizing)" if summarizing else ""
    lines = [
        f"whatif: {one_line(', '.join(data['files']))} ({data['format']})",
        _policy_line(data["policy"]),
        f"assumption: {data['assumption']}",
        f"calls: {data['calls']:,}{extra} on "
        + one_line(", ".join(data["models"]) or "no model replayed"),
        *_compare_lines(data),
        f"clearings: {data['clearings']:,} · compactions: {data['compactions']:,} · rebuilds: "
        + (", ".join(f"{cause} {n:,}" for cause, n in data["rebuilds"].items()) or "none"),
    ]
    if data["unreplayed_models"]:
        lines.append(
            "  not replayed (no cache model): " + one_line(", ".join(data["unreplayed_models"]))
        )
    lines.extend(_warm_lines(data["warm_starts"]))
    lines.extend(_departure_lines(data["departures"], data["calls"]))
    edited = bool(data["clearings"] or data["compactions"])
    left = bool(data["unreplayed_models"])
    lines.extend(_rent_lines(data["costliest_results"], data["rent"], edited, left))
    if "per_call" in data and not data["per_call"]:  # every call on a model left out
        lines.append("calls replayed: none, so no row per call")
    elif "per_call" in data:
        rows = data["per_call"]
        marks = ["summary" if r["summarizing"] else r["rebuild"] or "" for r in rows]
        lines.extend(calls_table(rows, marks))
    return "\n".join(lines) + "\n"


def _warm_lines(warm: list[dict[str, Any]]) -> list[str]:
    """The calls whose read proved a prefix a session outside the bill wrote, which the
    replay takes as written just before them."""
    if not warm:
        return []
    named = warm[:_SHOWN_DEPARTURES]
    shown = ", ".join(f"call {w['call']} ({w['tokens']:,} tokens)" for w in named)
    more = f", … and {len(warm) - len(named)} more" if len(warm) > len(named) else ""
    return [f"a prefix written outside the bill, taken as given: {shown}{more}"]


def _departure_lines(departures: list[dict[str, Any]], calls: int) -> list[str]:
    if not departures:
        return []
    lines = [f"departs from the bill on {len(departures):,} of {calls:,} calls:"]
    for d in departures[:_SHOWN_DEPARTURES]:
        lines.append(
            f"  call {d['call']} ({one_line(d['thread'])}): bill {money(d['bill_usd'])}, "
            f"replayed {money(d['replayed_usd'])}: {d['why']}"
        )
    if len(departures) > _SHOWN_DEPARTURES:
        lines.append(f"  … and {len(departures) - _SHOWN_DEPARTURES} more (--json lists them)")
    return lines


def _rent_lines(
    costliest: list[dict[str, Any]], rent: list[dict[str, Any]], edited: bool, left: bool
) -> list[str]:
    """The costliest results and the rent by tool; `edited` when clearing or compaction
    fired (then no rent means they took every result out before a request carried it),
    `left` when calls on a model with no cache model were not replayed (their results
    have no rent)."""
    if not rent and edited:
        return ["rent: no request carried a tool result (clearing or compaction took each out)"]
    if not rent and left:
        return ["rent: no replayed call carried a tool result (the calls not replayed have none)"]
    if not rent:
        return ["rent: no tool result in the files"]
    shown = "the costliest tool result" if len(costliest) == 1 else "the {} costliest tool results"
    lines = [f"rent: {shown.format(len(costliest))}"]
    for r in costliest:
        lines.append(
            f"  {money(r['cost_usd']):>9}  {one_line(r['tool'] or '(unnamed)'):<12} "
            f"{r['tokens']:>7,} tokens in {count_of(r['calls'], 'call')}  {one_line(r['where'])} "
            f"({one_line(r['thread'])})"
        )
    by_tool = " · ".join(
        f"{one_line(r['tool'] or '(unnamed)')} {money(r['cost_usd'])} "
        f"({count_of(r['results'], 'result')}, {count_of(r['tokens'], 'token')})"
        for r in rent
    )
    lines.append(f"rent by tool: {by_tool}")
    return lines


def page_policies(bill: Bill) -> list[tuple[str, Policy]]:
    """The policies the page replays: the session's own, the lifetimes its models offer,
    and compaction and clearing at `PAGE_SHARES` of the way up to its largest request
    (where that is 1,000 tokens or more; compaction only above the summary it writes)."""
    found = [("the session's own choices", Policy())]
    offered = set.intersection(*(set(lifetimes_offered(model)) for model in bill.models))
    for ttl, words in (("1h", "every write for 1 hour"), ("5m", "every write for 5 minutes")):
        if ttl in offered:
            found.append((words, Policy(ttl=ttl)))  # type: ignore[arg-type]
    sizes = [call.prompt_tokens for call in bill.calls]
    low, high = min(sizes), max(sizes)
    thresholds = sorted({round(low + share * (high - low), -3) for share in PAGE_SHARES})
    summary = summary_size(bill)  # a compaction at or below it could never make room
    for at in (int(at) for at in thresholds if at >= 1_000):
        if at > summary:
            found.append((f"compact at {at:,} tokens", Policy(compact_at=at)))
        found.append((f"clear at {at:,} tokens, keep 3", Policy(clear_at=at)))
    return found


def _page_data(
    bill: Bill, progress: Callable[[str], None], own: Replay | None = None
) -> dict[str, Any]:
    """What the page shows of the replays: each policy's cost, and the session's rent.

    The session's own choices are replayed here first (or `own`, that replay
    made already), so that the requests are rebuilt once; then a child replays
    the later half of the other policies (`_aside.aside`) while this process
    replays the rest: each replay sends the same requests to a cache of its own.
    """
    policies = page_policies(bill)
    say = _saying(progress, len(policies))
    if own is None:
        say(1, policies[0][0])
        own = replay(bill, policies[0][1])
    rest = policies[1:]
    half = (len(rest) + 1) // 2
    later = rest[half:]
    worth = bool(later) and len(bill.calls) >= ASIDE_CALLS
    first = report(own)
    with aside(lambda: _page_rows(bill, later), worth=worth) as pending:
        rows = [_page_row(policies[0][0], own, first), *_page_rows(bill, rest[:half], say, 2)]
        if pending.pid:  # a child replays them
            say(half + 2, f"the last {len(later)} in a second process")
            rows += pending.result()
        else:
            rows += _page_rows(bill, later, say, half + 2)
    return {
        "bill_usd": first["bill_usd"],
        "assumption": first["assumption"],
        "policies": rows,
        "rent": first["rent"],
        "costliest_results": first["costliest_results"],
        "unreplayed_models": first["unreplayed_models"],
    }


def _saying(progress: Callable[[str], None], count: int) -> Callable[[int, str], None]:
    """`progress` told of replay `number` of `count`, named by its policy's label."""

    def say(number: int, label: str) -> None:
        progress(f"replaying {number} of {count}: {label}")

    return say


def _page_rows(
    bill: Bill,
    policies: list[tuple[str, Policy]],
    say: Callable[[int, str], None] = lambda number, label: None,
    first: int = 1,
) -> list[dict[str, Any]]:
    """The page's rows of `policies`, each replayed; `say` told of each, numbered from
    `first`."""
    rows = []
    for number, (label, policy) in enumerate(policies, first):
        say(number, label)
        rows.append(_page_row(label, replay(bill, policy)))
    return rows


def _page_row(label: str, done: Replay, data: dict[str, Any] | None = None) -> dict[str, Any]:
    """One policy's row on the page: its label, its cost, its clearings and compactions
    (`data`: the replay's `report`, where it is made already)."""
    return {
        "label": label,
        "replayed_usd": (report(done) if data is None else data)["replayed_usd"],
        "clearings": done.clearings,
        "compactions": done.compactions,
    }


def _page_zone() -> Zone:
    """The zone the page's days are in: the machine's, as `bill --html` counts them
    (UTC, and a warning on stderr, where this Python cannot see it)."""
    zone, warning = zone_for(None, True)
    if warning is not None:
        sys.stderr.write(f"context-budget: warning: {one_line(warning)}\n")
    return zone


def page(
    paths: list[str], progress: Callable[[str], None] | None = None, *, strict: bool = False
) -> str:
    """The page of `context-budget whatif --html`: the bill, its replays and the rent.

    The course's *Bill your own session* page runs this in the reader's browser.

    Args:
        paths: session files or folders, as for `bill`.
        progress: called with one line before each step (reading, each replay).
        strict: refuse a file or line no reader can take.

    Raises:
        BillError: what `bill` refuses, in one line.
    """
    say = progress or (lambda _: None)
    say("reading the files")
    bill = read(paths, "auto", strict, flags=False)
    return html_page(bill, _page_data(bill, say), zone=_page_zone())


def run(args: argparse.Namespace) -> str:
    """The command's output for parsed `args`.

    Raises:
        BillError: what `bill` refuses, a flag that needs another, or a policy
            the bill's models cannot run under (`replay`'s ValueError).
    """
    policy = _policy(args)
    with gc_paused():
        bill = read(args.paths, args.format, args.strict, page=args.html)
        try:
            done = replay(bill, policy)
        except ValueError as error:
            raise BillError(_in_flags(str(error))) from None
        data = report(done, calls=args.calls)
        if args.html is not None:  # the replay above is the page's first, where it is
            page_data = _page_data(bill, lambda _: None, done if policy == Policy() else None)
            write_html(html_page(bill, page_data, zone=_page_zone()), args.html)
    shown = json.dumps(data, indent=2) + "\n" if args.json else render(data)
    if args.html is None or args.json:
        return shown
    return shown + f"page: {one_line(args.html)}\n"

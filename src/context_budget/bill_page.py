"""A bill as one self-contained HTML page: the per-call chart, the views and the what-ifs.

`bill_page(data, views)` turns the data `context-budget bill --json --calls`
prints (`data`) and its groups by every view (`views`: view -> the `groups`
list) into one page that needs nothing else: no script, no font, no style
sheet from elsewhere, so it opens offline. `write_page` writes it atomically.
Given `whatif` (what `context-budget whatif --html` and the course's *Bill
your own session* page compute), it adds the replays under other policies
and the rent of the tool results.

The chart is inline SVG, one bar per call, its height the call's prompt in
tokens, stacked from the bottom: read from the cache, written to it, uncached
input. Each rebuild is a dashed line through its call, coloured by cause,
named in its tooltip. Its axes count tokens from 0 (round steps up to just
above the tallest prompt, labelled 5k, 250k, 1M) and number the calls; the
labels are placed in percent of the chart, so they keep their size at any width
while the bars stretch. The page fits a phone's screen: there the tables leave
out their secondary columns (token counts beside a cost) and a note says which,
so that none scrolls sideways (one still too wide would, in its own box). It
follows the reader's light or dark scheme: the system's, or the one a page that
frames it sets on its root (`data-scheme`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from context_budget._files import write_atomic

__all__ = [
    "CAUSE_COLOURS",
    "KIND_COLOURS",
    "adding_up",
    "bill_page",
    "money",
    "priced_parts",
    "write_page",
]

#: The colour of each part of a bar (the prompt's tokens by kind).
KIND_COLOURS = {"read": "#4c78a8", "written": "#f58518", "uncached": "#9d9d9d"}
#: The colour of a rebuild's mark, by cause.
CAUSE_COLOURS = {
    "ttl": "#e45756",
    "prefix-changed": "#b279a2",
    "compaction": "#54a24b",
    "model-switch": "#eeca3b",
}
_WIDTH, _HEIGHT = 1000.0, 260.0  # the bars' view box, stretched to the plot area
#: The plot area in percent of the chart: left, top, width, height (the rest: the axes).
_PLOT = (13.0, 7.0, 85.0, 78.0)
#: At most this many steps on the token axis.
_STEPS = 5
#: Below this width (a phone's, or a frame of about 360 px inside one) the tables leave
#: out their `_MINOR` columns, so that every table fits the screen without a sideways scroll.
#: Just under 686 px: the course's *Bill your own session* frame on a desktop screen (the
#: site's 688 px content column less the frame's border) shows every column.
_NARROW = "42.8125em"
#: The columns (numbered from 1) a narrow screen leaves out, by the table's kind: the
#: views' token counts, a rebuild's thread and what its provider says, a replay's
#: clearings and compactions, a tool result's calls.
_MINOR = {"views": (3, 4, 5, 6), "rebuilds": (2, 4), "replays": (4, 5), "results": (4,)}
#: The column whose text (a session's id, a file's name) breaks anywhere rather than
#: widen the table, by the table's kind.
_WRAP = {"views": 1, "results": 5}
#: The dark scheme's colours: the system's choice, unless the page that shows the bill
#: says otherwise on its root (`data-scheme="light"` or `"dark"`, as the course's *Bill
#: your own session* page does when its reader switches the site's scheme).
_DARK = "--fg:#e8e8e8;--bg:#161616;--line:#444;--muted:#aaa"
_STYLE = (
    ":root{color-scheme:light dark;--fg:#222;--bg:#fff;--line:#ddd;--muted:#666}"
    f"@media (prefers-color-scheme:dark){{:root:not([data-scheme=light]){{{_DARK}}}}}"
    f":root[data-scheme=dark]{{color-scheme:dark;{_DARK}}}"
    ":root[data-scheme=light]{color-scheme:light}"
    "body{font:14px system-ui,sans-serif;margin:1em auto;padding:0 1em;max-width:70em;"
    "color:var(--fg);background:var(--bg);overflow-wrap:anywhere}"
    ".scroll{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em;overflow-wrap:normal}"
    "td,th{padding:.2em .6em;border-bottom:1px solid var(--line);text-align:right;"
    "white-space:nowrap}"
    "td:first-child,th:first-child{text-align:left}"
    "table.named td:first-child{white-space:normal;min-width:8em}"
    "table.named th{white-space:normal;vertical-align:bottom}"
    "svg#calls{display:block;width:100%;height:18em;border:1px solid var(--line)}"
    "svg#calls text{fill:var(--fg);font-size:11px}"
    "svg#calls text.title{fill:var(--muted)}"
    "svg#calls line.axis{stroke:var(--muted)}"
    "svg#calls line.grid{stroke:var(--line);stroke-dasharray:2 3}"
    ".key .item{white-space:nowrap}"
    ".key .item span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em}"
    + ",".join(f"table.{kind} td:nth-child({column})" for kind, column in _WRAP.items())
    + "{white-space:normal;overflow-wrap:anywhere;min-width:6em;text-align:left}"
    ".narrow{display:none;color:var(--muted)}"
    f"@media (max-width:{_NARROW}){{.narrow{{display:block}}"
    + ",".join(
        f"table.{kind} tr>:nth-child({column})"
        for kind, columns in _MINOR.items()
        for column in columns
    )
    + "{display:none}td,th{padding:.2em .35em}th{white-space:normal;vertical-align:bottom}}"
)


#: What a narrow screen is told of the columns it does not show.
_NARROW_NOTE = (
    "On a screen this narrow the tables leave out some columns: the token counts of the"
    " views, a rebuild's thread and what the provider says, a result's calls, a replay's"
    " clearings and compactions. A wider screen shows them."
)


def money(value: float | None) -> str:
    """`$1,234.5678`, or `unpriced` for None (no call with a list price)."""
    return "unpriced" if value is None else f"${value:,.4f}"


def adding_up(total: float, parts: list[float], places: int = 4) -> list[float]:
    """`parts` (USD) rounded to `places` so that they add up to `total` as `money` shows it.

    Each part is rounded down, then the units of the last place left over go,
    one each, to the parts that lost the most (largest remainders first).

    Example:
        >>> adding_up(0.00435, [0.0036, 0.00075])  # the total shows as $0.0043
        [0.0036, 0.0007]
    """
    scale = 10**places
    scaled = [part * scale for part in parts]
    floors = [int(part // 1) for part in scaled]
    # subtle: the total as `money` writes it (0.00435 is 0.0043499… and shows as 0.0043),
    # not round(total * scale), which the product's own error can carry to the next unit
    short = round(round(total, places) * scale) - sum(floors)
    order = sorted(range(len(parts)), key=lambda k: floors[k] - scaled[k])
    for k in order[: max(0, min(short, len(parts)))]:
        floors[k] += 1
    return [floor / scale for floor in floors]


def priced_parts(total: float, parts: list[float | None], places: int = 4) -> list[float | None]:
    """`adding_up` over the priced parts alone (USD); an unpriced part (None) stays None:
    a view's groups, each shown as its table shows it."""
    priced = [k for k, part in enumerate(parts) if part is not None]
    shown = adding_up(total, [parts[k] or 0.0 for k in priced], places)
    found: list[float | None] = [None] * len(parts)
    for k, value in zip(priced, shown, strict=True):
        found[k] = value
    return found


def _prompt(row: Mapping[str, Any]) -> int:
    """A call's prompt in tokens: uncached, read and written."""
    return int(row["input"] + row["cache_read"] + _written(row))


def _written(row: Mapping[str, Any]) -> int:
    """A call's or a group's cache writes in tokens, every lifetime together."""
    return int(row["cache_write_5m"] + row["cache_write_1h"] + row.get("cache_write_30m", 0))


def _ticks(widest: int) -> list[int]:
    """Token ticks from 0 in round steps (1, 2, 2.5 or 5 times a power of ten), the last
    at or above `widest`, at most `_STEPS` steps."""
    if widest <= 0:
        return [0, 1]
    power = 1
    while True:
        for factor in (1, 2, 2.5, 5):
            step = int(factor * power)
            if step and -(-widest // step) <= _STEPS:
                return [k * step for k in range(-(-widest // step) + 1)]
        power *= 10


def _short(tokens: int) -> str:
    """A token tick's label, short enough to fit left of the axis on a phone's screen: 0,
    500, 2.5k, 15k, 250k, 1M, 2.5M (a tick is a round number: nothing is rounded off)."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if tokens >= size:
            return f"{tokens / size:g}{unit}"
    return str(tokens)


def _bars(rows: Sequence[Mapping[str, Any]], top: int) -> list[str]:
    """Three SVG paths, one per kind, each holding a rectangle per call, `top` tokens high."""
    step = _WIDTH / len(rows)
    scale = _HEIGHT / top
    paths: dict[str, list[str]] = {kind: [] for kind in KIND_COLOURS}
    for k, r in enumerate(rows):
        base = _HEIGHT
        parts = (
            ("read", r["cache_read"]),
            ("written", _written(r)),
            ("uncached", r["input"]),
        )
        for kind, tokens in parts:
            tall = tokens * scale
            if tall > 0:
                paths[kind].append(
                    f"M{k * step:.2f} {base - tall:.2f}h{step:.2f}v{tall:.2f}h{-step:.2f}z"
                )
            base -= tall
    return [
        f'<path class="bar {kind}" fill="{KIND_COLOURS[kind]}" d="{"".join(d)}"/>'
        for kind, d in paths.items()
    ]


def _marks(rebuilds: Sequence[Mapping[str, Any]], calls: int) -> list[str]:
    """A dashed line through each rebuild's call, coloured by its cause, its tooltip saying why;
    2 px wide at any width of the chart (its stroke is not stretched with the view box)."""
    step = _WIDTH / calls
    marks = []
    for r in rebuilds:
        x = (r["call"] - 0.5) * step
        said = escape(
            f"call {r['call']}: {r['cause']}, {r['lost_tokens']:,} tokens lost, "
            f"{money(r['extra_usd'])} extra"
        )
        colour = CAUSE_COLOURS.get(r["cause"], "#000")
        marks.append(
            f'<line class="rebuild {escape(r["cause"])}" x1="{x:.2f}" x2="{x:.2f}" y1="0" '
            f'y2="{_HEIGHT:.0f}" stroke="{colour}" stroke-width="2" stroke-dasharray="4 3" '
            'vector-effect="non-scaling-stroke">'
            f"<title>{said}</title></line>"
        )
    return marks


def _axes(ticks: Sequence[int], calls: int) -> list[str]:
    """The token axis (a label and a grid line per tick) and the call axis (first, middle,
    last call), placed in percent of the chart around the plot area `_PLOT`."""
    left, top, width, height = _PLOT
    bottom = top + height
    parts = ['<g class="axis tokens">']
    for tick in ticks:
        y = bottom - height * tick / ticks[-1]
        parts.append(
            f'<line class="grid" x1="{left}%" x2="{left + width}%" y1="{y:.2f}%" y2="{y:.2f}%"/>'
            f'<text class="tick" x="{left - 1}%" y="{y:.2f}%" dy=".35em" text-anchor="end">'
            f"{_short(tick)}</text>"
        )
    parts.append(
        f'<line class="axis" x1="{left}%" x2="{left}%" y1="{top}%" y2="{bottom}%"/></g>'
        '<g class="axis calls">'
        f'<line class="axis" x1="{left}%" x2="{left + width}%" y1="{bottom}%" y2="{bottom}%"/>'
    )
    for number in sorted({1, (calls + 1) // 2, calls}):
        x = left + width * (number - 0.5) / calls
        anchor = "end" if number == calls and calls > 1 else "middle"  # kept inside the chart
        parts.append(
            f'<text class="tick" x="{x:.2f}%" y="{bottom + 6}%" text-anchor="{anchor}">'
            f"{number:,}</text>"
        )
    parts.append(  # the axis's title right of the axis, clear of the labels left of it
        f'</g><text class="title" x="{left + 1}%" y="4%">tokens</text>'
        f'<text class="title" x="{left + width}%" y="99%" text-anchor="end">call</text>'
    )
    return parts


def _chart(data: Mapping[str, Any]) -> str:
    rows = data["per_call"]
    ticks = _ticks(max(map(_prompt, rows)))
    left, top, width, height = _PLOT
    svg = [
        '<svg id="calls" role="img" xmlns="http://www.w3.org/2000/svg">',
        "<title>Each call's prompt: read, written, uncached; rebuilds marked by cause</title>",
        *_axes(ticks, len(rows)),
        f'<svg class="plot" x="{left}%" y="{top}%" width="{width}%" height="{height}%" '
        f'viewBox="0 0 {_WIDTH:.0f} {_HEIGHT:.0f}" preserveAspectRatio="none">',
        *_bars(rows, ticks[-1]),
        *_marks(data["rebuilds"], len(rows)),
        "</svg></svg>",
    ]
    causes = {r["cause"] for r in data["rebuilds"]}  # the key names the marks drawn, no other
    drawn = {cause: colour for cause, colour in CAUSE_COLOURS.items() if cause in causes}
    return "".join(svg) + _key("tokens", KIND_COLOURS) + (_key("rebuilds", drawn) if drawn else "")


def _key(title: str, colours: Mapping[str, str]) -> str:
    """The chart's key of `colours` (name -> colour): a swatch and its name for each, kept
    on one line together (a key that wraps moves both)."""
    items = "".join(
        f'<span class="item"><span style="background:{colour}"></span>{escape(name)}</span>'
        for name, colour in colours.items()
    )
    return f'<p class="key">{escape(title)}:{items}</p>'


def _table(
    head: Sequence[str], rows: Sequence[Sequence[object]], *, named: bool = False, kind: str = ""
) -> str:
    """A table in a box of its own that scrolls sideways where the screen is too narrow.

    `named`: each row's first cell is a phrase (a what-if, a replay's policy), which wraps
    at its spaces, as the headings do, so that on a phone the figures beside it stay on
    the screen. `kind`: the table's class, which names the columns a narrow screen leaves
    out (`_MINOR`) and those whose text breaks anywhere (`_WRAP`).
    """
    cells = "".join(f"<th>{escape(str(h))}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    classes = " ".join(name for name in ("named" if named else "", kind) if name)
    opening = f'<table class="{classes}">' if classes else "<table>"
    return f'<div class="scroll">{opening}<tr>{cells}</tr>{body}</table></div>'


def _view(by: str, groups: Sequence[Mapping[str, Any]], data: Mapping[str, Any]) -> str:
    """One view's table: a row per group, then the totals; a time view names its zone."""

    def row(key: str, group: Mapping[str, Any], cost: float | None) -> list[object]:
        tokens = group["tokens"]
        written = _written(tokens)
        unpriced = group.get("unpriced_calls", 0)
        return [
            key,
            f"{group['calls']:,}",
            f"{tokens['input']:,}",
            f"{tokens['cache_read']:,}",
            f"{written:,}",
            f"{tokens['output']:,}",
            f"{group.get('cache_read_share', 0.0):.1%}",
            money(cost) + (f" ({unpriced:,} unpriced)" if unpriced and cost is not None else ""),
        ]

    total = data["cost_usd"]
    costs: list[float | None] = [None] * len(groups)
    if total is not None:  # shown to 4 places, adding up to the total shown
        costs = priced_parts(total, [g["cost_usd"] for g in groups])
    rows = [row(g["key"], g, cost) for g, cost in zip(groups, costs, strict=True)]
    rows.append(row("total", data, total))
    name = f"{by} ({data.get('timezone', 'UTC')})" if by in ("day", "week", "month") else by
    head = [name, "calls", "input", "cache read", "written", "output", "hit rate", "cost"]
    return f"<h3>By {escape(by)}</h3>" + _table(head, rows, kind="views")


def _says_nothing(by: str, groups: Sequence[Mapping[str, Any]]) -> bool:
    """True for the project view of files that name no project: one group, the folder the
    files were read from, `.` (a file billed in its own folder, as the course's *Bill your
    own session* page bills the files a reader chooses)."""
    return by == "project" and [group["key"] for group in groups] == ["."]


def _what_ifs(what_if: Mapping[str, float | None]) -> str:
    names = {
        "actual": "as recorded",
        "no_caching": "no caching",
        "all_writes_1h": "every write a 1-hour one, on the calls' own gaps",
        "rebuilds_read": "rebuilds read instead of rewritten",
        "staggered_starts": "parallel sub-agents started one after another",
    }
    rows = [[names[k], money(what_if[k])] for k in names]
    return _table(["input side", "cost"], rows, named=True)


def _lower_bounds(numbers: Sequence[int]) -> str:
    """The calls whose file kept only the output count their stream began with, named
    (`Bill.output_lower_bounds`); nothing when there are none."""
    if not numbers:
        return ""
    said = ", ".join(map(str, numbers[:10])) + (" …" if len(numbers) > 10 else "")
    calls = "1 call" if len(numbers) == 1 else f"{len(numbers):,} calls"
    return (
        f"<p>The output of {calls} ({said}) is a lower bound: the file kept only the count "
        "each response's stream began with, so the real output, and the cost, are higher.</p>"
    )


def _skipped(skipped: Sequence[Mapping[str, Any]]) -> str:
    """What the bill left out: each skip's kind and its reason, which names its file (and
    line) and says why; a list, so that a long reason wraps on a phone."""
    if not skipped:
        return ""
    items = "".join(
        f'<li><span class="kind">{escape(s["kind"])}</span>: {escape(s["reason"])}</li>'
        for s in skipped
    )
    return f'<h2>Left out</h2><ul class="skipped">{items}</ul>'


def _replays(whatif: Mapping[str, Any]) -> str:
    """The replays' table: each policy, its cost beside the bill's, how often it fired."""
    bill = whatif["bill_usd"]
    rows = []
    for row in whatif["policies"]:
        usd = row["replayed_usd"]
        change = "" if usd is None or not bill else f"{usd / bill - 1:+.1%}"
        rows.append(
            [row["label"], money(usd), change, f"{row['clearings']:,}", f"{row['compactions']:,}"]
        )
    head = ["replayed under", "cost", "against the bill", "clearings", "compactions"]
    return (
        "<h2>What it would have cost</h2>"
        f"<p>{escape(whatif['assumption'])} The bill: {money(bill)}.</p>"
        + _table(head, rows, named=True, kind="replays")
    )


def _rent(whatif: Mapping[str, Any]) -> str:
    """The rent tables: the costliest tool results with where they are, then by tool."""
    results = [
        [money(r["cost_usd"]), r["tool"] or "(unnamed)", f"{r['tokens']:,}", r["calls"], r["where"]]
        for r in whatif["costliest_results"]
    ]
    tools = [
        [r["tool"] or "(unnamed)", r["results"], f"{r['tokens']:,}", money(r["cost_usd"])]
        for r in whatif["rent"]
    ]
    left = whatif.get("unreplayed_models")
    if not tools and left:  # their calls have no replay, so their results no rent
        return (
            "<h2>Rent of the tool results</h2><p>No replayed call carried a tool result; "
            f"the calls on {escape(', '.join(left))} were not replayed (no cache model).</p>"
        )
    if not tools:
        return "<h2>Rent of the tool results</h2><p>The files hold no tool result.</p>"
    return (
        "<h2>Rent of the tool results</h2>"
        "<p>What each result's tokens cost on every call that carried them.</p>"
        + _table(["rent", "tool", "tokens", "calls", "where"], results, kind="results")
        + _table(["tool", "results", "tokens", "rent"], tools)
    )


def bill_page(
    data: Mapping[str, Any],
    views: Mapping[str, Sequence[Mapping[str, Any]]],
    whatif: Mapping[str, Any] | None = None,
) -> str:
    """The page's HTML: a summary, the chart, the rebuilds, the views, the what-ifs.

    The project view is left out when the files name no project (`_says_nothing`).

    Args:
        data: `context-budget bill --json --calls` data (with `per_call`).
        views: view name -> its `groups` (each `{"key", "calls", "tokens", "cost_usd",
            "unpriced_calls", "cache_read_share"}`); a time view names `data["timezone"]`.
        whatif: the replays and the rent, or None: `{"bill_usd", "assumption",
            "policies": [{"label", "replayed_usd", "clearings", "compactions"}],
            "rent": [{"tool", "results", "tokens", "cost_usd"}],
            "costliest_results": [{"tool", "tokens", "calls", "cost_usd", "where"}],
            "unreplayed_models": [model id]}` (the last optional: the models whose
            calls were not replayed).

    A lone surrogate in any string (a JSON file may escape one) is written `\\udXXX`.
    """
    files = ", ".join(data["files"])
    rebuilds = [
        [
            r["call"],
            r["thread"],
            r["cause"],
            r.get("provider_reason") or "",
            f"{r['lost_tokens']:,}",
            money(r["extra_usd"]),
        ]
        for r in data["rebuilds"]
    ]
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        f"<title>Bill: {escape(files)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Bill</h1><p>{escape(files)} ({escape(data['format'])}): "
        f"{data['calls']:,} calls, {money(data['cost_usd'])}, "
        f"cache-read share {data['cache_read_share']:.1%}</p>",
        _lower_bounds(data.get("output_lower_bound_call_numbers", [])),
        f'<p class="narrow">{_NARROW_NOTE}</p>',
        "<h2>Every call</h2>",
        _chart(data),
        "<h2>Rebuilds</h2>",
        _table(
            ["call", "thread", "cause", "the provider says", "tokens lost", "extra"],
            rebuilds,
            kind="rebuilds",
        )
        if rebuilds
        else "<p>none</p>",
        _skipped(data.get("skipped", [])),
        "<h2>Views</h2>",
        *(_view(by, groups, data) for by, groups in views.items() if not _says_nothing(by, groups)),
        "<h2>What if</h2>",
        _what_ifs(data["what_if"]),
        "" if whatif is None else _replays(whatif) + _rent(whatif),
        "</body></html>\n",
    ]
    # subtle: a name from the files may hold a lone surrogate (JSON's "\ud800", a string cut
    # inside a pair); the page writes it as the text does, `\ud800`, so that UTF-8 can hold it
    return "".join(parts).encode("utf-8", "backslashreplace").decode("utf-8")


def write_page(path: str | os.PathLike[str], text: str) -> Path:
    """Write `text` to `path` atomically (a whole page or none), UTF-8; the path written.

    The page gets the mode a plain write gives, as every file the package
    writes: an existing file keeps its own, a new one 0o666 less the umask.

    Raises:
        OSError: the folder is missing or cannot be written (nothing is left behind).
    """
    return write_atomic(path, text)

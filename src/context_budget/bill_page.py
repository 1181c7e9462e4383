"""A bill as one self-contained HTML page: the per-call chart, the views and the what-ifs.

`bill_page(data, views)` turns the data `context-budget bill --json --calls`
prints (`data`) and its groups by every view (`views`: view -> the `groups`
list) into one page that needs nothing else: no script, no font, no style
sheet from elsewhere, so it opens offline. `write_page` writes it atomically.

The chart is inline SVG, one bar per call, its height the call's prompt in
tokens, stacked from the bottom: read from the cache, written to it, uncached
input. Each rebuild is a dashed line through its call, coloured by cause,
named in its tooltip.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from context_budget._files import write_atomic

__all__ = ["CAUSE_COLOURS", "KIND_COLOURS", "bill_page", "money", "write_page"]

#: The colour of each part of a bar (the prompt's tokens by kind).
KIND_COLOURS = {"read": "#4c78a8", "written": "#f58518", "uncached": "#9d9d9d"}
#: The colour of a rebuild's mark, by cause.
CAUSE_COLOURS = {
    "ttl": "#e45756",
    "prefix-changed": "#b279a2",
    "compaction": "#54a24b",
    "model-switch": "#eeca3b",
}
_WIDTH, _HEIGHT, _TOP = 1000.0, 260.0, 20.0  # the chart's view box; room above for marks
_STYLE = (
    "body{font:14px system-ui,sans-serif;margin:2em;color:#222;max-width:70em}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}"
    "td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}"
    "td:first-child,th:first-child{text-align:left}"
    "svg{width:100%;height:auto;border:1px solid #ddd}"
    ".key span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em}"
)


def money(value: float | None) -> str:
    """`$1,234.5678`, or `unpriced` for None (no call with a list price)."""
    return "unpriced" if value is None else f"${value:,.4f}"


def _bars(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Three SVG paths, one per kind, each holding a rectangle per call."""
    widest = (
        max(
            (r["input"] + r["cache_read"] + r["cache_write_5m"] + r["cache_write_1h"]) for r in rows
        )
        or 1
    )
    step = _WIDTH / len(rows)
    scale = (_HEIGHT - _TOP) / widest
    paths: dict[str, list[str]] = {kind: [] for kind in KIND_COLOURS}
    for k, r in enumerate(rows):
        base = _HEIGHT
        parts = (
            ("read", r["cache_read"]),
            ("written", r["cache_write_5m"] + r["cache_write_1h"]),
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
    """A dashed line through each rebuild's call, coloured by its cause, its tooltip saying why."""
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
            f'y2="{_HEIGHT:.0f}" stroke="{colour}" stroke-width="2" stroke-dasharray="4 3">'
            f"<title>{said}</title></line>"
        )
    return marks


def _chart(data: Mapping[str, Any]) -> str:
    rows = data["per_call"]
    svg = [
        f'<svg id="calls" role="img" viewBox="0 0 {_WIDTH:.0f} {_HEIGHT:.0f}" '
        'preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">',
        "<title>Each call's prompt: read, written, uncached; rebuilds marked by cause</title>",
        *_bars(rows),
        *_marks(data["rebuilds"], len(rows)),
        "</svg>",
    ]
    kinds = "".join(f'<span style="background:{c}"></span>{k}' for k, c in KIND_COLOURS.items())
    causes = "".join(f'<span style="background:{c}"></span>{k}' for k, c in CAUSE_COLOURS.items())
    return "".join(svg) + f'<p class="key">tokens:{kinds}</p><p class="key">rebuilds:{causes}</p>'


def _table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = "".join(f"<th>{escape(str(h))}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><tr>{cells}</tr>{body}</table>"


def _view(by: str, groups: Sequence[Mapping[str, Any]], data: Mapping[str, Any]) -> str:
    def row(key: str, calls: int, tokens: Mapping[str, int], cost: float | None) -> list[object]:
        written = tokens["cache_write_5m"] + tokens["cache_write_1h"]
        return [
            key,
            f"{calls:,}",
            f"{tokens['input']:,}",
            f"{tokens['cache_read']:,}",
            f"{written:,}",
            f"{tokens['output']:,}",
            money(cost),
        ]

    unpriced = set(data["unpriced_models"]) if by == "model" else set()
    rows = [
        row(g["key"], g["calls"], g["tokens"], None if g["key"] in unpriced else g["cost_usd"])
        for g in groups
    ]
    rows.append(row("total", data["calls"], data["tokens"], data["cost_usd"]))
    head = [by, "calls", "input", "cache read", "written", "output", "cost"]
    return f"<h3>By {escape(by)}</h3>" + _table(head, rows)


def _what_ifs(what_if: Mapping[str, float | None]) -> str:
    names = {
        "actual": "as recorded",
        "no_caching": "no caching",
        "all_writes_1h": "every write at the 1-hour rate",
        "rebuilds_read": "rebuilds read instead of rewritten",
        "staggered_starts": "parallel sub-agents started one after another",
    }
    return _table(["input side", "cost"], [[names[k], money(what_if[k])] for k in names])


def _skipped(skipped: Sequence[Mapping[str, Any]]) -> str:
    if not skipped:
        return ""
    rows = [[s["kind"], s["file"], "" if s["line"] is None else s["line"]] for s in skipped]
    return "<h2>Left out</h2>" + _table(["skipped", "file", "line"], rows)


def bill_page(data: Mapping[str, Any], views: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """The page's HTML: a summary, the chart, the rebuilds, the views, the what-ifs.

    Args:
        data: `context-budget bill --json --calls` data (with `per_call`).
        views: view name -> its `groups` (each `{"key", "calls", "tokens", "cost_usd"}`).
    """
    files = ", ".join(data["files"])
    rebuilds = [
        [r["call"], r["thread"], r["cause"], f"{r['lost_tokens']:,}", money(r["extra_usd"])]
        for r in data["rebuilds"]
    ]
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>Bill: {escape(files)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Bill</h1><p>{escape(files)} ({escape(data['format'])}): "
        f"{data['calls']:,} calls, {money(data['cost_usd'])}, "
        f"cache-read share {data['cache_read_share']:.1%}</p>",
        "<h2>Every call</h2>",
        _chart(data),
        "<h2>Rebuilds</h2>",
        _table(["call", "thread", "cause", "tokens lost", "extra"], rebuilds)
        if rebuilds
        else "<p>none</p>",
        _skipped(data.get("skipped", [])),
        "<h2>Views</h2>",
        *(_view(by, groups, data) for by, groups in views.items()),
        "<h2>What if</h2>",
        _what_ifs(data["what_if"]),
        "</body></html>\n",
    ]
    return "".join(parts)


def write_page(path: str | os.PathLike[str], text: str) -> Path:
    """Write `text` to `path` atomically (a whole page or none), UTF-8; the path written.

    The page gets the mode a plain write gives, as every file the package
    writes: an existing file keeps its own, a new one 0o666 less the umask.

    Raises:
        OSError: the folder is missing or cannot be written (nothing is left behind).
    """
    return write_atomic(path, text)

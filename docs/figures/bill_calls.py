"""Read your own bill: each call's prompt split into read, written and uncached tokens.

Two panels, one column per API call in time order: the real session
fe5e1c67 (170 calls on Sonnet 4, its five sub-agents included), and the
labelled synthetic session, whose rebuilds are marked with their cause.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from context_budget import Bill, read_bill

from _svg import (
    CHAR_WIDTH,
    PALETTE,
    _axis_title,
    _fmt,
    _legend,
    _nice_ticks,
    _open,
    _width,
    current_layout,
    tick_labels,
)

SESSIONS = Path(__file__).resolve().parent.parent / "measured" / "sessions"
REAL = SESSIONS / "sample-project" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
PARTS = ("read from the cache", "written to the cache", "uncached input")
_COLOURS = (PALETTE[0], PALETTE[1], PALETTE[3])
PANEL, LEFT = 170, 60


def _right() -> int:
    """The plot's right edge: the key sits beside it when wide, below it when narrow."""
    return _width(None) - 16 if current_layout().narrow else 560


def _panel(bill: Bill, top: float, heading: str) -> list[str]:
    calls = bill.calls
    right = _right()
    ticks = _nice_ticks(0, max(call.prompt_tokens for call in calls), 4)
    scale = PANEL / ticks[-1]
    bottom = top + PANEL
    step = (right - LEFT) / len(calls)
    out = [f'<text x="{LEFT}" y="{_fmt(top - 10)}" font-weight="bold">{escape(heading)}</text>']
    for tick, text in zip(ticks, tick_labels(ticks), strict=True):
        y = bottom - tick * scale
        out.append(
            f'<line x1="{LEFT}" x2="{right}" y1="{_fmt(y)}" y2="{_fmt(y)}" '
            f'stroke="currentColor" stroke-opacity="0.15"/>'
        )
        out.append(f'<text x="{LEFT - 6}" y="{_fmt(y + 4)}" text-anchor="end">{text}</text>')
    for index, call in enumerate(calls):
        x = LEFT + index * step
        y = bottom
        parts = (call.cache_read_input_tokens, call.cache_creation_input_tokens, call.input_tokens)
        for value, colour in zip(parts, _COLOURS, strict=True):
            height = value * scale
            if height > 0:
                out.append(
                    f'<rect x="{_fmt(x)}" y="{_fmt(y - height)}" width="{_fmt(max(step - 1, 1))}" '
                    f'height="{_fmt(height)}" fill="{colour}"/>'
                )
            y -= height
    out += _causes(bill, bottom, scale, step)
    title, _ = _axis_title(
        f"API call 1 to {len(calls)}, in time order (tokens of its prompt)",
        LEFT,
        right,
        bottom + 18,
    )
    out.append(title)
    return out


def _rows(spans: list[tuple[float, float]]) -> list[int]:
    """For labels spanning `(start, end)` left to right, the row of each (0 the lowest):
    the first row where it clears the label before it by 6 units.

    Example: `[(0, 50), (40, 90), (100, 120)]` -> `[0, 1, 0]`.
    """
    ends: list[float] = []  # row -> where its last label ends
    rows = []
    for start, end in spans:
        row = next((r for r, last in enumerate(ends) if start >= last + 6), len(ends))
        if row == len(ends):
            ends.append(end)
        else:
            ends[row] = end
        rows.append(row)
    return rows


def _causes(bill: Bill, bottom: float, scale: float, step: float) -> list[str]:
    """Each rebuild's cause above the panel's tallest column, in rows so that no two
    labels meet, with a dotted leader down to its own column."""
    rebuilds = bill.rebuilds()
    tallest = bottom - max(call.prompt_tokens for call in bill.calls) * scale
    middles = [LEFT + (rebuild.call - 0.5) * step for rebuild in rebuilds]
    halves = [len(rebuild.cause) * CHAR_WIDTH / 2 for rebuild in rebuilds]
    rows = _rows([(m - h, m + h) for m, h in zip(middles, halves, strict=True)])
    out = []
    for rebuild, middle, row in zip(rebuilds, middles, rows, strict=True):
        baseline = tallest - 8 - 15 * row
        column_top = bottom - bill.calls[rebuild.call - 1].prompt_tokens * scale
        out.append(
            f'<line x1="{_fmt(middle)}" x2="{_fmt(middle)}" y1="{_fmt(baseline + 3)}" '
            f'y2="{_fmt(column_top)}" stroke="currentColor" stroke-opacity="0.5" '
            f'stroke-dasharray="1 2"/>'
        )
        out.append(
            f'<text x="{_fmt(middle)}" y="{_fmt(baseline)}" text-anchor="middle">'
            f"{escape(rebuild.cause)}</text>"
        )
    return out


def draw() -> str:
    """The figure as SVG text."""
    real, synthetic = read_bill(REAL), read_bill(SYNTHETIC)
    causes = ", ".join(f"call {r.call} {r.cause}" for r in synthetic.rebuilds())
    narrow = current_layout().narrow
    width = _width(None)
    gap = 105 if narrow else 90  # the narrow layout wraps the axis title in two lines
    height = 2 * PANEL + gap + 55
    key: list[str] = []
    if narrow:
        key, end = _legend(PARTS, LEFT, height + 6)
        height = int(end) + 4
    else:
        key, _ = _legend(PARTS, _right() + 14, 40, limit=14)
    out = _open(
        width,
        height,
        "Each call's prompt, split into what the cache served, what it wrote and what "
        "it did not cache; the rebuilds marked with their cause",
        f"Top: the real session fe5e1c67, {len(real.calls)} calls, "
        f"{real.cache_read_share:.1%} of prompt tokens read from the cache and no rebuild. "
        f"Bottom: the labelled synthetic session, {len(synthetic.calls)} calls, rebuilds at "
        f"{causes}.",
    )
    out += _panel(real, 30, f"fe5e1c67 (real, Sonnet 4): {len(real.calls)} calls")
    out += _panel(synthetic, PANEL + gap, "synthetic session (labelled): 10 calls")
    out += key
    out.append("</svg>")
    return "\n".join(out) + "\n"

"""Small, deterministic SVG charts for the course's figures (standard library only).

Every figure of the site is a module beside this one whose `draw()` returns
the text of one SVG picture. The same input always gives the same bytes: no
dates, no random ids, numbers printed with fixed precision.

Text, axes and grid use `currentColor`, so an inline figure takes the page's
text colour in light and dark mode; series take colours from `PALETTE`,
chosen to read on both backgrounds.

Shapes:
    Series: `(label, [(x, y), ...])` for line charts.
    Bars: `(label, [(part_label, value), ...])`, one stacked bar per label.
    Grid: row labels, column labels and `cells[row][column]`, a bool each.
    Signed bars: `[(label, value), ...]`, drawn either side of zero.
    Strips: `[(label, [bool, ...]), ...]`, one thin cell per item.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from xml.sax.saxutils import escape

Point = tuple[float, float]
Series = tuple[str, Sequence[Point]]
Bar = tuple[str, Sequence[tuple[str, float]]]

#: Series colours: teal, amber, purple, red, blue, green (mid-tones for both themes).
PALETTE = ("#26a69a", "#f9a825", "#8e6bd1", "#e5534b", "#4a90d9", "#6aa84f")

_FONT = 'font-family="system-ui, sans-serif" font-size="13"'


def _fmt(value: float) -> str:
    """A coordinate with at most one decimal, and no "-0"."""
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _label(value: float) -> str:
    """A tick label: 1,250 / 1.5 / 12k / 3M style, stable across platforms."""
    magnitude = abs(value)
    if magnitude >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if magnitude >= 10_000:
        return f"{value / 1_000:g}k"
    if magnitude >= 1 and float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.3g}"


def _nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering `[low, high]`, about `count` of them."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= step * factor:
            step *= factor
            break
    first = math.floor(low / step) * step
    ticks = [round(first, 10) + 0.0]  # + 0.0 turns -0.0 into 0.0
    # subtle: the last tick is the first at or above `high`, so no point falls off the axis
    while ticks[-1] < high - step * 1e-9:
        ticks.append(round(ticks[-1] + step, 10) + 0.0)
    return ticks


def _log_ticks(low: float, high: float) -> list[float]:
    """Powers of ten covering `[low, high]` (both > 0)."""
    return [10.0**k for k in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)]


class _Axis:
    """Maps data values to pixels along one axis, linear or log."""

    def __init__(self, ticks: list[float], start: float, end: float, log: bool) -> None:
        self.ticks, self.start, self.end, self.log = ticks, start, end, log
        self.low, self.high = self._t(ticks[0]), self._t(ticks[-1])

    def _t(self, value: float) -> float:
        return math.log10(value) if self.log else value

    def __call__(self, value: float) -> float:
        share = (self._t(value) - self.low) / ((self.high - self.low) or 1)
        return self.start + share * (self.end - self.start)


def _open(width: int, height: int, title: str, desc: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="100%" style="max-width:{width}px" role="img" '
        f'aria-labelledby="t d" class="cb-svg" {_FONT} fill="currentColor">',
        f'<title id="t">{escape(title)}</title>',
        f'<desc id="d">{escape(desc)}</desc>',
    ]


def _legend(labels: Sequence[str], x: float, y: float) -> list[str]:
    out = []
    for i, label in enumerate(labels):
        colour = PALETTE[i % len(PALETTE)]
        top = y + i * 18
        out.append(
            f'<rect x="{_fmt(x)}" y="{_fmt(top - 9)}" width="12" height="10" fill="{colour}"/>'
        )
        out.append(f'<text x="{_fmt(x + 18)}" y="{_fmt(top)}">{escape(label)}</text>')
    return out


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    desc: str,
    x_label: str,
    y_label: str,
    log_x: bool = False,
    log_y: bool = False,
    hlines: Sequence[tuple[str, float]] = (),
    markers: bool = True,
    width: int = 720,
    height: int = 360,
    x_ticks: Sequence[float] | None = None,
) -> str:
    """A line chart of one or more series, with optional log axes and reference lines.

    Args:
        series: `(label, points)` pairs; points are `(x, y)` in data units.
        title: the figure's accessible name (its alt text).
        desc: one or two sentences saying what the figure shows.
        x_label: the x axis title, with its unit.
        y_label: the y axis title, with its unit.
        log_x: a base-10 log x axis (every x must be > 0).
        log_y: a base-10 log y axis (every y must be > 0).
        hlines: `(label, y)` dashed horizontal lines, e.g. a threshold.
        markers: draw a dot at every point.
        width: the picture's width in pixels.
        height: the picture's height in pixels.
        x_ticks: the x axis ticks, when the automatic ones do not suit (e.g. steps).

    Returns:
        The SVG document, as text.
    """
    xs = [x for _, points in series for x, _ in points]
    ys = [y for _, points in series for _, y in points] + [y for _, y in hlines]
    if not xs:
        raise ValueError("line_chart needs at least one point")
    left, right, top, bottom = 78, width - 170, 28, height - 52
    ticks_x: list[float]
    if x_ticks is not None:
        ticks_x = sorted(x_ticks)
    elif log_x:
        ticks_x = _log_ticks(min(xs), max(xs))
    else:
        ticks_x = _nice_ticks(min(xs), max(xs))
    y_low = min(ys) if log_y else min(0.0, min(ys))
    y_ticks = _log_ticks(y_low, max(ys)) if log_y else _nice_ticks(y_low, max(ys))
    fx = _Axis(ticks_x, left, right, log_x)
    fy = _Axis(y_ticks, bottom, top, log_y)
    out = _open(width, height, title, desc)
    for tick in y_ticks:
        y = fy(tick)
        out.append(
            f'<line x1="{left}" x2="{right}" y1="{_fmt(y)}" y2="{_fmt(y)}" '
            f'stroke="currentColor" stroke-opacity="0.15"/>'
        )
        out.append(
            f'<text x="{left - 6}" y="{_fmt(y + 4)}" text-anchor="end">{_label(tick)}</text>'
        )
    for tick in ticks_x:
        x = fx(tick)
        out.append(
            f'<line x1="{_fmt(x)}" x2="{_fmt(x)}" y1="{bottom}" y2="{bottom + 5}" '
            f'stroke="currentColor"/>'
        )
        out.append(
            f'<text x="{_fmt(x)}" y="{bottom + 19}" text-anchor="middle">{_label(tick)}</text>'
        )
    out.append(
        f'<path d="M{left} {top}V{bottom}H{right}" fill="none" stroke="currentColor" '
        f'stroke-opacity="0.6"/>'
    )
    out.append(
        f'<text x="{(left + right) // 2}" y="{height - 10}" text-anchor="middle">'
        f"{escape(x_label)}</text>"
    )
    out.append(
        f'<text transform="translate(16 {(top + bottom) // 2}) rotate(-90)" '
        f'text-anchor="middle">{escape(y_label)}</text>'
    )
    for label, value in hlines:
        y = fy(value)
        out.append(
            f'<line x1="{left}" x2="{right}" y1="{_fmt(y)}" y2="{_fmt(y)}" '
            f'stroke="currentColor" stroke-dasharray="6 4"/>'
        )
        out.append(
            f'<text x="{right - 4}" y="{_fmt(y - 6)}" text-anchor="end">{escape(label)}</text>'
        )
    for i, (_, points) in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        path = " ".join(
            f"{'M' if j == 0 else 'L'}{_fmt(fx(x))} {_fmt(fy(y))}"
            for j, (x, y) in enumerate(points)
        )
        out.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2.5"/>')
        if markers:
            out.extend(
                f'<circle cx="{_fmt(fx(x))}" cy="{_fmt(fy(y))}" r="3.5" fill="{colour}"/>'
                for x, y in points
            )
    out.extend(_legend([label for label, _ in series], right + 16, top + 12))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def stacked_bars(
    bars: Sequence[Bar],
    *,
    title: str,
    desc: str,
    value_label: str,
    width: int = 720,
    bar_height: int = 30,
) -> str:
    """Horizontal bars, one per label, each split into coloured parts.

    Args:
        bars: `(label, parts)` pairs; parts are `(part_label, value)` in data
            units, drawn left to right. Every bar lists the same part labels in
            the same order, which the legend names once.
        title: the figure's accessible name (its alt text).
        desc: one or two sentences saying what the figure shows.
        value_label: the value axis title, with its unit.
        width: the picture's width in pixels.
        bar_height: each bar's height in pixels.

    Returns:
        The SVG document, as text.
    """
    if not bars:
        raise ValueError("stacked_bars needs at least one bar")
    part_labels = [part for part, _ in bars[0][1]]
    left, right, top = 150, width - 170, 16
    bottom = top + len(bars) * (bar_height + 12)
    height = bottom + 50
    ticks = _nice_ticks(0, max(sum(v for _, v in parts) for _, parts in bars))
    fx = _Axis(ticks, left, right, False)
    out = _open(width, height, title, desc)
    for tick in ticks:
        x = fx(tick)
        out.append(
            f'<line x1="{_fmt(x)}" x2="{_fmt(x)}" y1="{top - 4}" y2="{bottom}" '
            f'stroke="currentColor" stroke-opacity="0.15"/>'
        )
        out.append(
            f'<text x="{_fmt(x)}" y="{bottom + 18}" text-anchor="middle">{_label(tick)}</text>'
        )
    for i, (label, parts) in enumerate(bars):
        y = top + i * (bar_height + 12)
        out.append(
            f'<text x="{left - 8}" y="{_fmt(y + bar_height / 2 + 4)}" text-anchor="end">'
            f"{escape(label)}</text>"
        )
        start = 0.0
        for j, (_, value) in enumerate(parts):
            colour = PALETTE[j % len(PALETTE)]
            x0, x1 = fx(start), fx(start + value)
            out.append(
                f'<rect x="{_fmt(x0)}" y="{y}" width="{_fmt(max(x1 - x0, 0))}" '
                f'height="{bar_height}" fill="{colour}"/>'
            )
            start += value
        out.append(
            f'<text x="{_fmt(fx(start) + 6)}" y="{_fmt(y + bar_height / 2 + 4)}">'
            f"{_label(start)}</text>"
        )
    out.append(
        f'<text x="{(left + right) // 2}" y="{height - 8}" text-anchor="middle">'
        f"{escape(value_label)}</text>"
    )
    out.extend(_legend(part_labels, right + 40, top + 12))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def grid(
    rows: Sequence[str],
    columns: Sequence[str],
    cells: Sequence[Sequence[bool]],
    *,
    title: str,
    desc: str,
    yes: str = "kept",
    no: str = "lost",
    cell: int = 34,
) -> str:
    """A grid of yes/no cells: one row per item, one column per condition.

    Args:
        rows: the row labels (e.g. facts).
        columns: the column labels (e.g. plans).
        cells: `cells[r][c]` is True where row `r` holds under column `c`.
        title: the figure's accessible name (its alt text).
        desc: one or two sentences saying what the figure shows.
        yes: the legend's word for a filled cell.
        no: the legend's word for an empty cell.
        cell: the side of one cell in pixels.

    Returns:
        The SVG document, as text.
    """
    if len(cells) != len(rows) or any(len(row) != len(columns) for row in cells):
        raise ValueError(
            f"grid needs {len(rows)} rows of {len(columns)} cells, "
            f"got {[len(row) for row in cells]}"
        )
    label_width = 9 * max((len(r) for r in rows), default=4) + 16
    left, top = label_width, 16 + 9 * max((len(c) for c in columns), default=4)
    width = left + cell * len(columns) + 120
    height = top + cell * len(rows) + 20
    out = _open(width, height, title, desc)
    for j, column in enumerate(columns):
        x = left + j * cell + cell / 2
        out.append(
            f'<text transform="translate({_fmt(x + 4)} {top - 8}) rotate(-60)">'
            f"{escape(column)}</text>"
        )
    for i, row in enumerate(rows):
        y = top + i * cell
        out.append(
            f'<text x="{left - 8}" y="{_fmt(y + cell / 2 + 4)}" text-anchor="end">'
            f"{escape(row)}</text>"
        )
        for j, kept in enumerate(cells[i]):
            x = left + j * cell
            if kept:
                out.append(
                    f'<rect x="{x + 3}" y="{y + 3}" width="{cell - 6}" height="{cell - 6}" '
                    f'rx="4" fill="{PALETTE[0]}"/>'
                )
            else:
                out.append(
                    f'<rect x="{x + 3}" y="{y + 3}" width="{cell - 6}" height="{cell - 6}" '
                    f'rx="4" fill="none" stroke="{PALETTE[3]}" stroke-width="2" '
                    f'stroke-dasharray="4 3"/>'
                )
    legend_x = left + cell * len(columns) + 16
    out.append(
        f'<rect x="{legend_x}" y="{top + 4}" width="14" height="14" rx="3" fill="{PALETTE[0]}"/>'
    )
    out.append(f'<text x="{legend_x + 20}" y="{top + 16}">{escape(yes)}</text>')
    out.append(
        f'<rect x="{legend_x}" y="{top + 28}" width="14" height="14" rx="3" fill="none" '
        f'stroke="{PALETTE[3]}" stroke-width="2" stroke-dasharray="4 3"/>'
    )
    out.append(f'<text x="{legend_x + 20}" y="{top + 40}">{escape(no)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def signed_bars(
    bars: Sequence[tuple[str, float]],
    *,
    title: str,
    desc: str,
    value_label: str,
    percent: bool = False,
    width: int = 720,
    bar_height: int = 30,
) -> str:
    """Horizontal bars around a zero line: positive values to the right, negative to the left.

    Args:
        bars: `(label, value)` pairs in data units, drawn top to bottom.
        title: the figure's accessible name (its alt text).
        desc: one or two sentences saying what the figure shows.
        value_label: the value axis title, with its unit.
        percent: values are fractions, labelled as signed percentages (`-0.49` -> `-49%`).
        width: the picture's width in pixels.
        bar_height: each bar's height in pixels.

    Returns:
        The SVG document, as text.
    """
    if not bars:
        raise ValueError("signed_bars needs at least one bar")

    def text(value: float) -> str:
        return f"{value:+.0%}" if percent else f"{value:+,.3g}"

    values = [value for _, value in bars]
    left, right, top = 120, width - 40, 16
    bottom = top + len(bars) * (bar_height + 12)
    height = bottom + 50
    ticks = _nice_ticks(min(0.0, min(values)), max(0.0, max(values)))
    fx = _Axis(ticks, left, right, False)
    out = _open(width, height, title, desc)
    for tick in ticks:
        x = fx(tick)
        out.append(
            f'<line x1="{_fmt(x)}" x2="{_fmt(x)}" y1="{top - 4}" y2="{bottom}" '
            f'stroke="currentColor" stroke-opacity="{0.7 if tick == 0 else 0.15}"/>'
        )
        tick_text = ("0%" if tick == 0 else f"{tick:+.0%}") if percent else _label(tick)
        out.append(f'<text x="{_fmt(x)}" y="{bottom + 18}" text-anchor="middle">{tick_text}</text>')
    zero = fx(0.0)
    for i, (label, value) in enumerate(bars):
        y = top + i * (bar_height + 12)
        middle = _fmt(y + bar_height / 2 + 4)
        out.append(f'<text x="{left - 8}" y="{middle}" text-anchor="end">{escape(label)}</text>')
        x0, x1 = sorted((zero, fx(value)))
        colour = PALETTE[0] if value >= 0 else PALETTE[3]
        out.append(
            f'<rect x="{_fmt(x0)}" y="{y}" width="{_fmt(x1 - x0)}" height="{bar_height}" '
            f'fill="{colour}"/>'
        )
        if value >= 0:
            out.append(f'<text x="{_fmt(x1 + 6)}" y="{middle}">{text(value)}</text>')
        else:
            out.append(
                f'<text x="{_fmt(x0 - 6)}" y="{middle}" text-anchor="end">{text(value)}</text>'
            )
    out.append(
        f'<text x="{(left + right) // 2}" y="{height - 8}" text-anchor="middle">'
        f"{escape(value_label)}</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def strips(
    rows: Sequence[tuple[str, Sequence[bool]]],
    *,
    title: str,
    desc: str,
    axis_label: str,
    yes: str = "kept",
    no: str = "dropped",
    width: int = 720,
    strip_height: int = 26,
) -> str:
    """One strip per row, a thin cell per item: filled where the item is kept.

    Made for "which lines of a log does each cut keep": a row per cut, a cell
    per line of the log, oldest on the left.

    Args:
        rows: `(label, flags)` pairs; every row has the same number of flags.
        title: the figure's accessible name (its alt text).
        desc: one or two sentences saying what the figure shows.
        axis_label: what the cells are, left to right, e.g. "line of the log".
        yes: the legend's word for a filled cell.
        no: the legend's word for an empty cell.
        width: the picture's width in pixels.
        strip_height: each strip's height in pixels.

    Returns:
        The SVG document, as text.
    """
    if not rows or len({len(flags) for _, flags in rows}) != 1 or not rows[0][1]:
        raise ValueError(
            f"strips needs rows with the same, non-zero number of cells, "
            f"got {[len(flags) for _, flags in rows]}"
        )
    count = len(rows[0][1])
    left, right, top = 150, width - 110, 16
    step = (right - left) / count
    bottom = top + len(rows) * (strip_height + 12)
    height = bottom + 50
    out = _open(width, height, title, desc)
    for i, (label, flags) in enumerate(rows):
        y = top + i * (strip_height + 12)
        kept = sum(flags)
        out.append(
            f'<text x="{left - 8}" y="{_fmt(y + strip_height / 2 + 4)}" text-anchor="end">'
            f"{escape(label)}</text>"
        )
        out.append(
            f'<rect x="{left}" y="{y}" width="{right - left}" height="{strip_height}" '
            f'fill="none" stroke="currentColor" stroke-opacity="0.35"/>'
        )
        for j, flag in enumerate(flags):
            if flag:
                out.append(
                    f'<rect x="{_fmt(left + j * step)}" y="{y}" width="{_fmt(max(step, 1))}" '
                    f'height="{strip_height}" fill="{PALETTE[0]}"/>'
                )
        out.append(
            f'<text x="{right + 8}" y="{_fmt(y + strip_height / 2 + 4)}">{kept} of {count}</text>'
        )
    for tick in (1, count):
        x = left + (tick - 0.5) * step
        out.append(f'<text x="{_fmt(x)}" y="{bottom + 16}" text-anchor="middle">{tick}</text>')
    out.append(
        f'<text x="{(left + right) // 2}" y="{height - 8}" text-anchor="middle">'
        f"{escape(axis_label)}</text>"
    )
    legend_y = bottom + 12
    out.append(
        f'<rect x="{right + 8}" y="{legend_y}" width="12" height="10" fill="{PALETTE[0]}"/>'
        f'<text x="{right + 24}" y="{legend_y + 9}">{escape(yes)}</text>'
    )
    out.append(
        f'<rect x="{right + 8}" y="{legend_y + 16}" width="12" height="10" fill="none" '
        f'stroke="currentColor" stroke-opacity="0.35"/>'
        f'<text x="{right + 24}" y="{legend_y + 25}">{escape(no)}</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"

"""Small, deterministic SVG charts for the course's figures (standard library only).

Every figure of the site is a module beside this one whose `draw()` returns
the text of one SVG picture. The same input always gives the same bytes: no
dates, no random ids, numbers printed with fixed precision.

Text, axes and grid use `currentColor`, so an inline figure takes the page's
text colour in light and dark mode; series take colours from `PALETTE`,
each at least 3:1 against both the light and the dark page background
(`tests/test_figures.py` computes it). Each series of a line chart also has
its own dash pattern and marker shape (`DASHES`, `MARKERS`), so no series
depends on colour alone, and its label sits at the end of its line.

Two layouts (`WIDE`, `NARROW`): every chart function draws for the layout
`layout()` selects, 720 units wide by default and 360 units in the narrow one
(labels and legends below the plot instead of beside it), so the same 13-unit
text reads at 11 px or more both in the 1280 px column and on a 390 px phone.
`docsite/figures.py` draws both and the page shows the one that fits.

Ids are unique per figure and layout (`cb-<hash of the title>-<layout>-t`),
so each picture on a page keeps its own accessible name.

Shapes:
    Series: `(label, [(x, y), ...])` for line charts.
    Bars: `(label, [(part_label, value), ...])`, one stacked bar per label.
    Grid: row labels, column labels and `cells[row][column]`, a bool each.
    Signed bars: `[(label, value), ...]`, drawn either side of zero.
    Strips: `[(label, [bool, ...]), ...]`, one thin cell per item.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from xml.sax.saxutils import escape

Point = tuple[float, float]
Series = tuple[str, Sequence[Point]]
Bar = tuple[str, Sequence[tuple[str, float]]]

#: Series colours: teal, amber, purple, red, blue, green, each at least 3:1 against
#: the light page (#ffffff) and the dark one (Material's slate, about #1e2129).
PALETTE = ("#00897b", "#b26a00", "#8e6bd1", "#d64541", "#2f7fd1", "#4c8f2f")
#: Dash patterns of a line chart's series, in series order ("" is solid).
DASHES = ("", "9 4", "2 3", "10 3 2 3", "5 2", "1 4")
#: Marker shapes of a line chart's series, in series order.
MARKERS = ("circle", "square", "triangle", "diamond", "plus", "cross")
#: Text size in picture units; both layouts show it at 11 px or more where they are used.
FONT_SIZE = 13
#: About the advance of one character of the text, in picture units (for layout only).
CHAR_WIDTH = 7.8

_FONT = f'font-family="system-ui, sans-serif" font-size="{FONT_SIZE}"'


@dataclass(frozen=True)
class Layout:
    """How wide a chart is drawn, in picture units, and where its labels go."""

    name: str
    width: int
    narrow: bool


WIDE = Layout("wide", 720, narrow=False)
NARROW = Layout("narrow", 360, narrow=True)
_current: list[Layout] = [WIDE]


@contextmanager
def layout(which: Layout) -> Iterator[Layout]:
    """Draw every chart inside the `with` block for `which` (`WIDE` or `NARROW`)."""
    _current.append(which)
    try:
        yield which
    finally:
        _current.pop()


def current_layout() -> Layout:
    """The layout the chart functions draw for now."""
    return _current[-1]


def _width(asked: int | None) -> int:
    """The picture's width: the narrow layout's, or what the figure asked for."""
    here = current_layout()
    return here.width if here.narrow else (asked or here.width)


def _tick_count() -> int:
    """About how many ticks a value axis gets: fewer in the narrow layout."""
    return 3 if current_layout().narrow else 5


def _wrap(text: str, limit: int) -> list[str]:
    """`text` in lines of at most `limit` characters, broken at spaces where it can."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= limit:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _text_lines(x: float, y: float, lines: Sequence[str], extra: str = "") -> str:
    """One `<text>` of several lines, 15 units apart, the first on baseline `y`."""
    spans = "".join(
        f'<tspan x="{_fmt(x)}" dy="{0 if i == 0 else 15}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f'<text x="{_fmt(x)}" y="{_fmt(y)}"{extra}>{spans}</text>'


def _attr(text: str) -> str:
    """`text` escaped for a double-quoted attribute."""
    return escape(text, {'"': "&quot;"})


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


def tick_labels(ticks: Sequence[float]) -> list[str]:
    """The labels of one axis's ticks, all in one format: in thousands (`k`) or millions
    (`M`) when the largest reaches 10,000 or 1,000,000, else as `_label` writes them.

    Example: `[0, 5000, 10000, 15000]` -> `["0", "5k", "10k", "15k"]`.
    """
    largest = max((abs(tick) for tick in ticks), default=0)
    if largest >= 1_000_000:
        return ["0" if tick == 0 else f"{tick / 1_000_000:g}M" for tick in ticks]
    if largest >= 10_000:
        return ["0" if tick == 0 else f"{tick / 1_000:g}k" for tick in ticks]
    return [_label(tick) for tick in ticks]


def _nice_ticks(low: float, high: float, count: int = 5, *, integer: bool = False) -> list[float]:
    """Round tick values covering `[low, high]`, about `count` of them; whole numbers
    only when `integer` (an axis of counts: calls, steps, facts)."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= step * factor and not (integer and not float(step * factor).is_integer()):
            step *= factor
            break
    else:
        step *= 10
    if integer:
        step = max(1.0, float(round(step)))
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


def figure_id(title: str) -> str:
    """The id prefix of the figure titled `title` in the current layout."""
    digest = hashlib.sha1(title.encode("utf-8")).hexdigest()[:8]
    return f"cb-{digest}-{current_layout().name}"


def _open(width: int, height: int, title: str, desc: str) -> list[str]:
    ident = figure_id(title)
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="100%" role="img" aria-labelledby="{ident}-t {ident}-d" '
        f'class="cb-svg cb-{current_layout().name}" data-layout="{current_layout().name}" '
        f'{_FONT} fill="currentColor">',
        f'<title id="{ident}-t">{escape(title)}</title>',
        f'<desc id="{ident}-d">{escape(desc)}</desc>',
    ]


def marker(shape: str, x: float, y: float, size: float, colour: str) -> str:
    """One marker of `shape` (one of `MARKERS`) centred on `(x, y)`, `size` units across/2."""
    cx, cy, r = _fmt(x), _fmt(y), size
    if shape == "circle":
        return f'<circle cx="{cx}" cy="{cy}" r="{_fmt(r)}" fill="{colour}"/>'
    if shape == "square":
        side = r * 1.7
        return (
            f'<rect x="{_fmt(x - side / 2)}" y="{_fmt(y - side / 2)}" width="{_fmt(side)}" '
            f'height="{_fmt(side)}" fill="{colour}"/>'
        )
    if shape == "triangle":
        return (
            f'<path d="M{cx} {_fmt(y - r * 1.25)}L{_fmt(x + r * 1.15)} {_fmt(y + r * 0.85)}'
            f'H{_fmt(x - r * 1.15)}Z" fill="{colour}"/>'
        )
    if shape == "diamond":
        return (
            f'<path d="M{cx} {_fmt(y - r * 1.3)}L{_fmt(x + r * 1.1)} {cy}L{cx} '
            f'{_fmt(y + r * 1.3)}L{_fmt(x - r * 1.1)} {cy}Z" fill="{colour}"/>'
        )
    if shape == "plus":
        return (
            f'<path d="M{_fmt(x - r * 1.2)} {cy}H{_fmt(x + r * 1.2)}M{cx} {_fmt(y - r * 1.2)}'
            f'V{_fmt(y + r * 1.2)}" stroke="{colour}" stroke-width="2.2"/>'
        )
    if shape == "cross":
        d = r * 0.95
        return (
            f'<path d="M{_fmt(x - d)} {_fmt(y - d)}L{_fmt(x + d)} {_fmt(y + d)}M{_fmt(x - d)} '
            f'{_fmt(y + d)}L{_fmt(x + d)} {_fmt(y - d)}" stroke="{colour}" stroke-width="2.2"/>'
        )
    raise ValueError(f"marker shape {shape!r} is not one of {MARKERS}")


def _swatch(i: int, x: float, y: float) -> list[str]:
    """Series `i`'s line sample (its colour, dash and marker), 22 units long, at `y`."""
    colour, dash = PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)]
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    return [
        f'<line x1="{_fmt(x)}" x2="{_fmt(x + 22)}" y1="{_fmt(y)}" y2="{_fmt(y)}" '
        f'stroke="{colour}" stroke-width="2.5"{dashed}/>',
        marker(MARKERS[i % len(MARKERS)], x + 11, y, 4, colour),
    ]


def _dashed(x: float, y: float) -> list[str]:
    """A reference line's sample in the key: dashed, the text's colour, 22 units long."""
    return [
        f'<line x1="{_fmt(x)}" x2="{_fmt(x + 22)}" y1="{_fmt(y)}" y2="{_fmt(y)}" '
        f'stroke="currentColor" stroke-dasharray="6 4"/>'
    ]


def _legend(labels: Sequence[str], x: float, y: float, limit: int = 40) -> tuple[list[str], float]:
    """Colour boxes and labels, one a row from `y`; and the y just below the last."""
    out = []
    top = y
    for i, label in enumerate(labels):
        colour = PALETTE[i % len(PALETTE)]
        lines = _wrap(label, limit)
        out.append(
            f'<rect x="{_fmt(x)}" y="{_fmt(top - 9)}" width="12" height="10" fill="{colour}"/>'
        )
        out.append(_text_lines(x + 18, top, lines))
        top += 15 * len(lines) + 4
    return out, top


#: How close a series may run to others, in picture units (about a CSS pixel each at
#: both layouts' widths), and still count as drawn along them: a line that close
#: cannot be told apart from theirs. The checks use one unit; the notes twice that.
ALONG = 2.0
_CELL = 8.0  # picture units: the side of a bucket of the spatial index below


def _samples(points: Sequence[Point], step: float = 1.0) -> list[Point]:
    """Points along the polyline `points`, at most `step` units apart, its vertices included."""
    out = [points[0]]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        count = max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / step))
        out += [
            (x0 + (x1 - x0) * k / count, y0 + (y1 - y0) * k / count) for k in range(1, count + 1)
        ]
    return out


def _to_segment(point: Point, a: Point, b: Point) -> float:
    """The distance from `point` to the segment `a`-`b`, in picture units."""
    (px, py), (ax, ay), (bx, by) = point, a, b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    share = 0.0 if length == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length))
    return math.hypot(px - ax - share * dx, py - ay - share * dy)


class _Near:
    """A polyline's segments bucketed on a grid, to ask which points lie within `tolerance`."""

    def __init__(self, points: Sequence[Point], tolerance: float) -> None:
        self.tolerance = tolerance
        pieces = list(itertools.pairwise(points)) or [(points[0], points[0])]
        self.cells: dict[tuple[int, int], list[tuple[Point, Point]]] = {}
        for a, b in pieces:
            low_x, high_x = sorted((a[0], b[0]))
            low_y, high_y = sorted((a[1], b[1]))
            for cx in range(_cell(low_x - tolerance), _cell(high_x + tolerance) + 1):
                for cy in range(_cell(low_y - tolerance), _cell(high_y + tolerance) + 1):
                    self.cells.setdefault((cx, cy), []).append((a, b))

    def __contains__(self, point: object) -> bool:
        x, y = point  # type: ignore[misc]
        pieces = self.cells.get((_cell(x), _cell(y)), [])
        return any(_to_segment((x, y), a, b) <= self.tolerance for a, b in pieces)


def _cell(value: float) -> int:
    return math.floor(value / _CELL)


def overlaps(
    drawn: Sequence[tuple[str, Sequence[Point]]], tolerance: float = ALONG
) -> dict[str, list[str]]:
    """For each series drawn entirely along others, the labels of those others.

    `drawn` holds each series' points in picture units. A series every point of
    whose line lies within `tolerance` units of some other series' line cannot
    be seen but for its style: its label says so. Of two series that run along
    each other whole, only the later is listed (it hides the earlier).

    Example: `[("a", [(0, 0), (9, 0)]), ("b", [(0, 0.5), (9, 0.5)])]` -> `{"b": ["a"]}`.
    """
    samples = [_samples(points) for _, points in drawn]
    near = [_Near(points, tolerance) for _, points in drawn]
    found: dict[str, list[str]] = {}
    for index, (label, _) in enumerate(drawn):
        counts = {}
        for other in range(len(drawn)):
            if other == index:
                continue
            hits = [point in near[other] for point in samples[index]]
            mutual = all(hits) and all(point in near[index] for point in samples[other])
            if other > index and mutual:
                continue  # subtle: of two identical lines the later one is the one listed
            counts[other] = hits
        if counts and all(any(column) for column in zip(*counts.values(), strict=True)):
            found[label] = _fewest(counts, [name for name, _ in drawn])
    return found


def unseen_lines(series: Sequence[Series], hidden: Mapping[str, Sequence[str]]) -> list[str]:
    """The series of `hidden` (label -> the series it is drawn along, from `overlaps`)
    whose data are not those of the series they are drawn along: a line that only looks
    like another at the figure's scale, which no style shows. A series whose every point
    is a point of one of them (the same x and y) is the same data, and its label says so.

    Example: `series` `[("a", [(1, 1000.0)]), ("b", [(1, 887.0)])]` with `hidden`
    `{"b": ["a"]}` -> `["b is drawn along a, with other values"]`.
    """
    points = {label: {(x, y) for x, y in values} for label, values in series}
    unseen = []
    for label, along in hidden.items():
        shared = set().union(*(points[other] for other in along))
        if not points[label] <= shared:
            unseen.append(f"{label} is drawn along {', '.join(along)}, with other values")
    return unseen


def _fewest(hits: dict[int, list[bool]], labels: Sequence[str]) -> list[str]:
    """The labels of the fewest series that between them cover every sample, the one
    covering most first (greedy; ties keep series order).

    Example: `{1: [True, True], 2: [False, True]}` -> `[labels[1]]`.
    """
    left = set(range(len(next(iter(hits.values())))))
    chosen: list[str] = []
    while left:
        best = max(hits, key=lambda other: (sum(hits[other][k] for k in left), -other))
        chosen.append(labels[best])
        left -= {k for k in left if hits[best][k]}
    return chosen


def same_line(first: Sequence[Point], second: Sequence[Point], tolerance: float = ALONG) -> bool:
    """Whether two lines run along each other whole, each within `tolerance` of the other."""
    return all(p in _Near(second, tolerance) for p in _samples(first)) and all(
        p in _Near(first, tolerance) for p in _samples(second)
    )


def _overlap_note(label: str, under: Sequence[str], same: bool) -> str:
    names = list(under[:2]) + (["others"] if len(under) > 2 else [])
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{label} (same line as {joined})" if same else f"{label} (drawn along {joined})"


def _spread(
    wanted: Sequence[float], heights: Sequence[float], low: float, high: float
) -> list[float]:
    """Label tops as close to `wanted` as they can be without overlapping, in `[low, high]`."""
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    tops = [0.0] * len(wanted)
    floor = low
    for i in order:
        tops[i] = max(wanted[i], floor)
        floor = tops[i] + heights[i] + 3
    overflow = floor - 3 - high
    if overflow > 0:  # push the stack back up, keeping the gaps
        ceiling = high
        for i in reversed(order):
            tops[i] = min(tops[i], ceiling - heights[i])
            ceiling = tops[i] - 3
    return tops


def _whole(values: Sequence[float]) -> bool:
    """Whether every value is a whole number: the axis counts things."""
    return all(float(value).is_integer() for value in values)


def _free_spot(
    label: str, y: float, span: tuple[float, float], lines: Sequence[Sequence[Point]]
) -> tuple[float, float] | None:
    """Where a reference line's label goes: the first place along the line, just above
    it and then just below, that no series crosses; None when there is none (the label
    then goes in the key).

    Returns the label's `(x, baseline)` in picture units.
    """
    width = len(label) * CHAR_WIDTH
    left, right = span
    for baseline in (y - 6, y + 17):
        x = left + 6
        while x + width <= right - 2:
            # the label's box, with 2 units to spare around its text
            if not any(
                _crosses(points, x - 2, x + width + 2, baseline - 13, baseline + 4)
                for points in lines
            ):
                return x, baseline
            x += 12
    return None


def _crosses(points: Sequence[Point], x0: float, x1: float, y0: float, y1: float) -> bool:
    """Whether the polyline `points` enters the box `[x0, x1] x [y0, y1]`."""
    return any(x0 <= x <= x1 and y0 <= y <= y1 for x, y in _samples(points, 1.0))


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
    width: int | None = None,
    height: int = 360,
    x_ticks: Sequence[float] | None = None,
) -> str:
    """A line chart of one or more series, with optional log axes and reference lines.

    Each series has its own colour, dash pattern and marker shape, and its label
    at the end of its line (in the narrow layout, in a key below the plot). A
    series drawn entirely along other series says so in its label ("same line
    as ...", "drawn along ..."), and its path carries `data-overlaps`.

    Args:
        series: `(label, points)` pairs; points are `(x, y)` in data units.
        title: the figure's accessible name (its alt text).
        desc: one or two sentences saying what the figure shows.
        x_label: the x axis title, with its unit.
        y_label: the y axis title, with its unit.
        log_x: a base-10 log x axis (every x must be > 0).
        log_y: a base-10 log y axis (every y must be > 0).
        hlines: `(label, y)` dashed horizontal lines, e.g. a threshold.
        markers: draw a marker at every point.
        width: the picture's width in picture units (the wide layout's 720 unless
            given; the narrow layout always draws 360).
        height: the plot's height in picture units, axis titles included (the
            narrow layout adds its key below).
        x_ticks: the x axis ticks, when the automatic ones do not suit (e.g. steps).

    Returns:
        The SVG document, as text.
    """
    xs = [x for _, points in series for x, _ in points]
    ys = [y for _, points in series for _, y in points] + [y for _, y in hlines]
    if not xs:
        raise ValueError("line_chart needs at least one point")
    narrow = current_layout().narrow
    width = _width(width)
    y_low = min(ys) if log_y else min(0.0, min(ys))
    y_ticks = (
        _log_ticks(y_low, max(ys)) if log_y else _nice_ticks(y_low, max(ys), integer=_whole(ys))
    )
    y_texts = tick_labels(y_ticks)
    # The y axis title (at x 16, 15 units high) clears the widest tick label.
    clear = int(30 + CHAR_WIDTH * max(len(text) for text in y_texts))
    # The key: each label with its overlap note, wrapped to the room it has.
    limit = 40 if narrow else 24
    if narrow:
        left, right, top, bottom = max(58, clear), width - 24, 20, 250
        height = bottom + 46
    else:
        longest = max(
            (len(line) for label, _ in series for line in _wrap(label + " (drawn along x)", limit)),
            default=8,
        )
        room = min(longest, limit) * CHAR_WIDTH + 40
        left, right, top, bottom = max(78, clear), int(width - room), 28, height - 52
    ticks_x: list[float]
    if x_ticks is not None:
        ticks_x = sorted(x_ticks)
    elif log_x:
        ticks_x = _log_ticks(min(xs), max(xs))
    else:
        ticks_x = _nice_ticks(min(xs), max(xs), _tick_count(), integer=_whole(xs))
    span_x = ticks_x
    if x_ticks is None and not log_x and ticks_x[-1] > max(xs):
        # the axis ends at the last point, not at a round tick past it
        ticks_x = [tick for tick in ticks_x if tick <= max(xs)]
        span_x = [*ticks_x, max(xs)]
    elif x_ticks is not None:
        # given ticks: the axis still reaches every point (a nudged line starts before 0)
        span_x = [min(ticks_x[0], min(xs)), max(ticks_x[-1], max(xs))]
    fx = _Axis(span_x, left, right, log_x)
    fy = _Axis(y_ticks, bottom, top, log_y)
    drawn = [(label, [(fx(x), fy(y)) for x, y in points]) for label, points in series]
    hidden = overlaps(drawn)
    unseen = unseen_lines(series, hidden)
    if unseen:
        raise ValueError(
            f"{title}: {'; '.join(unseen)}: the reader cannot see it (a log axis, or a figure"
            " of its own, would show it)"
        )
    labels = []
    for label, points in drawn:
        under = hidden.get(label, [])
        same = any(same_line(pts, points) for other, pts in drawn if other in under)
        labels.append(_overlap_note(label, under, same) if under else label)
    lines_drawn = [points for _, points in drawn]
    spots = [_free_spot(label, fy(value), (left, right), lines_drawn) for label, value in hlines]
    # a reference line whose label has no free spot on the plot is named in the key
    keyed = [
        (label, fy(value)) for (label, value), spot in zip(hlines, spots, strict=True) if not spot
    ]
    key_lines = [_wrap(text, limit) for text in [*labels, *(label for label, _ in keyed)]]
    if narrow:
        height = bottom + 56 + sum(15 * len(lines) + 6 for lines in key_lines)
    out = _open(width, height, title, desc)
    for tick, text in zip(y_ticks, y_texts, strict=True):
        y = fy(tick)
        out.append(
            f'<line x1="{left}" x2="{right}" y1="{_fmt(y)}" y2="{_fmt(y)}" '
            f'stroke="currentColor" stroke-opacity="0.15"/>'
        )
        out.append(f'<text x="{left - 6}" y="{_fmt(y + 4)}" text-anchor="end">{text}</text>')
    for tick, text in zip(ticks_x, tick_labels(ticks_x), strict=True):
        x = fx(tick)
        out.append(
            f'<line x1="{_fmt(x)}" x2="{_fmt(x)}" y1="{bottom}" y2="{bottom + 5}" '
            f'stroke="currentColor"/>'
        )
        out.append(f'<text x="{_fmt(x)}" y="{bottom + 19}" text-anchor="middle">{text}</text>')
    out.append(
        f'<path d="M{left} {top}V{bottom}H{right}" fill="none" stroke="currentColor" '
        f'stroke-opacity="0.6"/>'
    )
    out.append(
        f'<text x="{(left + right) // 2}" y="{bottom + 40}" text-anchor="middle">'
        f"{escape(x_label)}</text>"
    )
    out.append(
        f'<text transform="translate(16 {(top + bottom) // 2}) rotate(-90)" '
        f'text-anchor="middle">{escape(y_label)}</text>'
    )
    for (label, value), spot in zip(hlines, spots, strict=True):
        y = fy(value)
        out.append(
            f'<line x1="{left}" x2="{right}" y1="{_fmt(y)}" y2="{_fmt(y)}" '
            f'stroke="currentColor" stroke-dasharray="6 4"/>'
        )
        if spot is not None:
            out.append(f'<text x="{_fmt(spot[0])}" y="{_fmt(spot[1])}">{escape(label)}</text>')
    # Earlier series are drawn wider, later ones narrower on top: where lines run
    # together, each still shows (a band with a dashed line of another colour in it).
    for i, (label, points) in enumerate(drawn):
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)]
        stroke = max(1.5, 4.0 - 0.5 * i)
        path = " ".join(
            f"{'M' if j == 0 else 'L'}{_fmt(x)} {_fmt(y)}" for j, (x, y) in enumerate(points)
        )
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        if label in hidden:
            extra += f' data-overlaps="{_attr(", ".join(hidden[label]))}"'
        out.append(
            f'<path class="cb-series" data-series="{_attr(label)}" '
            f'd="{path}" fill="none" stroke="{colour}" stroke-width="{_fmt(stroke)}" '
            f'stroke-linejoin="round"{extra}/>'
        )
        if markers:
            size = max(2.5, 5.0 - 0.4 * i)
            out.extend(marker(MARKERS[i % len(MARKERS)], x, y, size, colour) for x, y in points)
    if narrow:
        y = bottom + 62
        for i, lines in enumerate(key_lines):
            out.extend(
                _swatch(i, left - 40, y - 4) if i < len(drawn) else _dashed(left - 40, y - 4)
            )
            out.append(_text_lines(left - 12, y, lines, ' class="cb-label"'))
            y += 15 * len(lines) + 6
    else:
        heights = [15.0 * len(lines) for lines in key_lines]
        wanted = [points[-1][1] - 10 for _, points in drawn] + [y - 10 for _, y in keyed]
        tops = _spread(wanted, heights, 4, height - 4)
        for i in range(len(drawn), len(key_lines)):
            out.extend(_dashed(right + 8, tops[i] + 6))
            out.append(_text_lines(right + 34, tops[i] + 10, key_lines[i], ' class="cb-label"'))
        for i, ((_, points), lines) in enumerate(zip(drawn, key_lines, strict=False)):
            end_x, end_y = points[-1]
            middle = tops[i] + 10
            # A line that ends far from the key gets no leader across the plot: its
            # swatch names it, as in a legend.
            if end_x >= right - (right - left) / 4:
                out.append(
                    f'<line x1="{_fmt(end_x + 6)}" x2="{right + 6}" y1="{_fmt(end_y)}" '
                    f'y2="{_fmt(middle - 4)}" stroke="currentColor" stroke-opacity="0.35" '
                    f'stroke-dasharray="1 2"/>'
                )
            out.extend(_swatch(i, right + 8, middle - 4))
            out.append(_text_lines(right + 34, middle, lines, ' class="cb-label"'))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _axis_title(text: str, left: float, right: float, y: float) -> tuple[str, int]:
    """An axis title centred under `[left, right]`, wrapped to fit; and its line count."""
    lines = _wrap(text, max(12, int((right - left + 60) / CHAR_WIDTH)))
    middle = (left + right) / 2
    spans = "".join(
        f'<tspan x="{_fmt(middle)}" dy="{0 if i == 0 else 15}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f'<text x="{_fmt(middle)}" y="{_fmt(y)}" text-anchor="middle">{spans}</text>', len(lines)


def stacked_bars(
    bars: Sequence[Bar],
    *,
    title: str,
    desc: str,
    value_label: str,
    width: int | None = None,
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
        width: the picture's width in picture units (720 unless given; the narrow
            layout always draws 360, its legend below the bars).
        bar_height: each bar's height in picture units.

    Returns:
        The SVG document, as text.
    """
    if not bars:
        raise ValueError("stacked_bars needs at least one bar")
    narrow = current_layout().narrow
    width = _width(width)
    part_labels = [part for part, _ in bars[0][1]]
    longest = max(len(label) for label, _ in bars)
    label_room = min(150, int(longest * CHAR_WIDTH) + 20)
    left, right, top = label_room, width - (50 if narrow else 170), 16
    bottom = top + len(bars) * (bar_height + 12)
    title_text, title_lines = _axis_title(value_label, left, right, bottom + 38)
    height = bottom + 30 + 15 * title_lines
    legend: list[str] = []
    if narrow:
        legend, end = _legend(part_labels, left, height + 10)
        height = int(end) + 4
    else:
        legend, _ = _legend(part_labels, right + 50, top + 12, limit=14)
    ticks = _nice_ticks(0, max(sum(v for _, v in parts) for _, parts in bars), _tick_count())
    fx = _Axis(ticks, left, right, False)
    out = _open(width, height, title, desc)
    for tick, text in zip(ticks, tick_labels(ticks), strict=True):
        x = fx(tick)
        out.append(
            f'<line x1="{_fmt(x)}" x2="{_fmt(x)}" y1="{top - 4}" y2="{bottom}" '
            f'stroke="currentColor" stroke-opacity="0.15"/>'
        )
        out.append(f'<text x="{_fmt(x)}" y="{bottom + 18}" text-anchor="middle">{text}</text>')
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
    out.append(title_text)
    out.extend(legend)
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

    In the narrow layout each row's label sits on a line of its own above its cells.

    Args:
        rows: the row labels (e.g. facts).
        columns: the column labels (e.g. plans).
        cells: `cells[r][c]` is True where row `r` holds under column `c`.
        title: the figure's accessible name (its alt text).
        desc: one or two sentences saying what the figure shows.
        yes: the legend's word for a filled cell.
        no: the legend's word for an empty cell.
        cell: the side of one cell in picture units.

    Returns:
        The SVG document, as text.
    """
    if len(cells) != len(rows) or any(len(row) != len(columns) for row in cells):
        raise ValueError(
            f"grid needs {len(rows)} rows of {len(columns)} cells, "
            f"got {[len(row) for row in cells]}"
        )
    narrow = current_layout().narrow
    column_room = 16 + 9 * max((len(c) for c in columns), default=4)
    top = column_room
    if narrow:
        left = 12
        width = NARROW.width
        labels = [_wrap(row, int((width - 2 * left) / CHAR_WIDTH)) for row in rows]
        # each row: its label's lines, then its cells
        tops = []
        y = top
        for lines in labels:
            tops.append(y + 15 * len(lines) + 8)
            y = tops[-1] + cell
        height = y + 20
        legend_x, legend_y = left + cell * len(columns) + 70, 16
    else:
        left = int(CHAR_WIDTH * max((len(r) for r in rows), default=4)) + 16
        width = left + cell * len(columns) + 120
        labels = [[row] for row in rows]
        tops = [top + i * cell for i in range(len(rows))]
        height = top + cell * len(rows) + 20
        legend_x, legend_y = left + cell * len(columns) + 16, top
    out = _open(width, height, title, desc)
    for j, column in enumerate(columns):
        x = left + j * cell + cell / 2
        out.append(
            f'<text transform="translate({_fmt(x + 4)} {top - 8}) rotate(-60)">'
            f"{escape(column)}</text>"
        )
    for i, row in enumerate(rows):
        y = tops[i]
        if narrow:
            out.append(_text_lines(left, y - 6 - 15 * (len(labels[i]) - 1), labels[i]))
        else:
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
    out.append(
        f'<rect x="{legend_x}" y="{legend_y + 4}" width="14" height="14" rx="3" '
        f'fill="{PALETTE[0]}"/>'
    )
    out.append(f'<text x="{legend_x + 20}" y="{legend_y + 16}">{escape(yes)}</text>')
    out.append(
        f'<rect x="{legend_x}" y="{legend_y + 28}" width="14" height="14" rx="3" fill="none" '
        f'stroke="{PALETTE[3]}" stroke-width="2" stroke-dasharray="4 3"/>'
    )
    out.append(f'<text x="{legend_x + 20}" y="{legend_y + 40}">{escape(no)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def signed_bars(
    bars: Sequence[tuple[str, float]],
    *,
    title: str,
    desc: str,
    value_label: str,
    percent: bool = False,
    width: int | None = None,
    bar_height: int = 30,
) -> str:
    """Horizontal bars around a zero line: positive values to the right, negative to the left.

    Args:
        bars: `(label, value)` pairs in data units, drawn top to bottom.
        title: the figure's accessible name (its alt text).
        desc: one or two sentences saying what the figure shows.
        value_label: the value axis title, with its unit.
        percent: values are fractions, labelled as signed percentages (`-0.49` -> `-49%`).
        width: the picture's width in picture units (720 unless given; the narrow
            layout always draws 360).
        bar_height: each bar's height in picture units.

    Returns:
        The SVG document, as text.
    """
    if not bars:
        raise ValueError("signed_bars needs at least one bar")

    def text(value: float) -> str:
        return f"{value:+.0%}" if percent else f"{value:+,.3g}"

    width = _width(width)
    values = [value for _, value in bars]
    longest = max(len(label) for label, _ in bars)
    left = min(120, int(longest * CHAR_WIDTH) + 20)
    right, top = width - 50, 16
    bottom = top + len(bars) * (bar_height + 12)
    title_text, title_lines = _axis_title(value_label, left, right, bottom + 38)
    height = bottom + 30 + 15 * title_lines
    ticks = _nice_ticks(min(0.0, min(values)), max(0.0, max(values)), _tick_count())
    fx = _Axis(ticks, left, right, False)
    out = _open(width, height, title, desc)
    for tick, plain in zip(ticks, tick_labels(ticks), strict=True):
        x = fx(tick)
        out.append(
            f'<line x1="{_fmt(x)}" x2="{_fmt(x)}" y1="{top - 4}" y2="{bottom}" '
            f'stroke="currentColor" stroke-opacity="{0.7 if tick == 0 else 0.15}"/>'
        )
        tick_text = ("0%" if tick == 0 else f"{tick:+.0%}") if percent else plain
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
    out.append(title_text)
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
    width: int | None = None,
    strip_height: int = 26,
) -> str:
    """One strip per row, a thin cell per item: filled where the item is kept.

    Made for "which lines of a log does each cut keep": a row per cut, a cell
    per line of the log, oldest on the left. In the narrow layout each row's
    label sits above its strip.

    Args:
        rows: `(label, flags)` pairs; every row has the same number of flags.
        title: the figure's accessible name (its alt text).
        desc: one or two sentences saying what the figure shows.
        axis_label: what the cells are, left to right, e.g. "line of the log".
        yes: the legend's word for a filled cell.
        no: the legend's word for an empty cell.
        width: the picture's width in picture units (720 unless given; the narrow
            layout always draws 360).
        strip_height: each strip's height in picture units.

    Returns:
        The SVG document, as text.
    """
    if not rows or len({len(flags) for _, flags in rows}) != 1 or not rows[0][1]:
        raise ValueError(
            f"strips needs rows with the same, non-zero number of cells, "
            f"got {[len(flags) for _, flags in rows]}"
        )
    narrow = current_layout().narrow
    width = _width(width)
    count = len(rows[0][1])
    if narrow:
        left, right, top, above = 12, width - 80, 16, 18
    else:
        longest = max(len(label) for label, _ in rows)
        left, right, top, above = min(260, int(longest * CHAR_WIDTH) + 16), width - 110, 16, 0
    step = (right - left) / count
    row_height = strip_height + 12 + above
    bottom = top + len(rows) * row_height
    height = bottom + 72
    out = _open(width, height, title, desc)
    for i, (label, flags) in enumerate(rows):
        y = top + i * row_height + above
        kept = sum(flags)
        if narrow:
            out.append(f'<text x="{left}" y="{_fmt(y - 5)}">{escape(label)}</text>')
        else:
            out.append(
                f'<text x="{left - 8}" y="{_fmt(y + strip_height / 2 + 4)}" text-anchor="end">'
                f"{escape(label)}</text>"
            )
        out.append(
            f'<rect x="{left}" y="{y}" width="{_fmt(right - left)}" height="{strip_height}" '
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
        out.append(f'<text x="{_fmt(x)}" y="{bottom + 4}" text-anchor="middle">{tick}</text>')
    out.append(
        f'<text x="{_fmt((left + right) / 2)}" y="{bottom + 32}" text-anchor="middle">'
        f"{escape(axis_label)}</text>"
    )
    # the key on a line of its own under the axis: beside the last tick it read with it
    # ("72 ■ kept")
    legend_y = height - 20
    second = left + 16 + int(len(yes) * CHAR_WIDTH) + 24
    out.append(
        f'<rect x="{left}" y="{legend_y}" width="12" height="10" fill="{PALETTE[0]}"/>'
        f'<text x="{left + 16}" y="{legend_y + 9}">{escape(yes)}</text>'
    )
    out.append(
        f'<rect x="{second}" y="{legend_y}" width="12" height="10" fill="none" '
        f'stroke="currentColor" stroke-opacity="0.35"/>'
        f'<text x="{second + 16}" y="{legend_y + 9}">{escape(no)}</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"

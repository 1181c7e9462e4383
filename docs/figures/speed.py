"""How fast is it: time per message against the number of messages, log-log.

Read from the committed results of the last full benchmark run
(`benchmarks/results.md`, written by `make bench`); nothing is timed while the
site builds. One line per operation: the floor (`message_tokens` on every
message), the package's functions, and LangChain's `trim_messages`.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from _svg import line_chart

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results.md"
# | operation | messages | ms per call | µs per message | ...
_ROW = re.compile(r"^\| (.+?) \| ([\d,]+) \| ([\d.]+) \| ([\d.]+) \|", re.MULTILINE)


def _short(operation: str) -> str:
    """A legend label short enough for the legend's column.

    The floor (`message_tokens` on each message) becomes "floor",
    `clear_old_tool_results` becomes "clearing", LangChain's
    `trim_messages(strategy="last")` becomes "trim_messages".
    """
    name = operation.replace("`", "")
    if "(the floor)" in name:
        return "floor"
    if name == "clear_old_tool_results":
        return "clearing"
    if name.startswith("trim_messages"):
        return "trim_messages"
    return name


def timings(
    text: str | None = None,
) -> list[tuple[str, list[tuple[float, float]]]]:
    """`(operation, [(messages, µs per message), ...])`, in the table's order.

    Raises:
        ValueError: the results hold no table rows.
    """
    text = RESULTS.read_text(encoding="utf-8") if text is None else text
    series: dict[str, list[tuple[float, float]]] = {}
    for name, messages, _, per_message in _ROW.findall(text):
        label = _short(name)
        series.setdefault(label, []).append((float(messages.replace(",", "")), float(per_message)))
    if not series:
        raise ValueError(f"{RESULTS} holds no benchmark rows")
    return list(series.items())


def steepest(
    series: list[tuple[str, list[tuple[float, float]]]],
) -> tuple[str, float, float, float]:
    """The largest rise of time per message from one size to the next:
    `(operation, factor, smaller size, larger size)`. Linear time is a factor of 1;
    a quadratic cost would rise by the sizes' own ratio (10 from 1,000 to 10,000)."""
    rises = [
        (label, later / earlier, x0, x1)
        for label, points in series
        for (x0, earlier), (x1, later) in itertools.pairwise(points)
    ]
    return max(rises, key=lambda rise: rise[1])


def draw() -> str:
    """The figure as SVG text."""
    series = timings()
    last = {label: points[-1] for label, points in series}
    label, factor, x0, x1 = steepest(series)
    return line_chart(
        series,
        title=f"Time per message as histories grow a hundredfold: it rises at most {factor:.2f}"
        f" times in one step ({label}, {x0:,.0f} to {x1:,.0f} messages), where a quadratic"
        f" cost would rise {x1 / x0:,.0f} times",
        desc="Microseconds per message at 1,000, 10,000 and 100,000 messages, from the "
        "last committed benchmark run (floor: message_tokens on every message; clearing: "
        "clear_old_tool_results; trim_messages: LangChain's); at the largest size: "
        + "; ".join(f"{label} {y:.2f}" for label, (_, y) in last.items())
        + ".",
        x_label="messages in the history (log scale)",
        y_label="µs per message (log scale)",
        log_x=True,
        log_y=True,
        width=760,
    )

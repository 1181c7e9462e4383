"""Cutting: which lines of the long sales log each cut keeps, under the same budget.

Drawn from `head`, `head_and_tail` and `transfer_filter` on the chapter's log:
72 sales, one every five minutes from 11:00, the flavours of Lucy's shop in
turn (rebuilt here with the page's recipe). Every cut gets 60 tokens; the
filter looks for "pistachio".
"""

from __future__ import annotations

from context_budget import head, head_and_tail, transfer_filter
from context_budget.scenarios.lucy import FLAVORS

from _svg import strips

BUDGET = 60  # tokens, by estimate_tokens
NEEDLE = "pistachio"


def sale(i: int) -> str:
    """Row i of the log: one sale every five minutes from 11:00 (the page's recipe)."""
    minute = 11 * 60 + 5 * i
    scoops = 1 + i % 3
    noun = "scoop" if scoops == 1 else "scoops"
    return f"{minute // 60}:{minute % 60:02} | {FLAVORS[i % 10]} | {scoops} {noun}"


def kept() -> list[tuple[str, list[bool]]]:
    """`(cut, [line i kept?, ...])` for each cut, lines oldest first."""
    lines = [sale(i) for i in range(72)]
    log = "\n".join(lines)
    cuts = {
        "head": head(log, BUDGET),
        "head_and_tail": head_and_tail(log, BUDGET),
        f'filter "{NEEDLE}"': transfer_filter(log, NEEDLE, BUDGET),
    }
    # subtle: every line of the log is unique (its time), so membership is exact
    return [(name, [line in set(out.splitlines()) for line in lines]) for name, out in cuts.items()]


def draw() -> str:
    """The figure as SVG text."""
    rows = kept()
    return strips(
        rows,
        title=f"What each cut keeps of a 72-line log at {BUDGET} tokens: "
        "the start, both ends, or the matches nearest the end",
        desc="One strip per cut, one cell per line of the sales log, oldest on the left: "
        + "; ".join(f"{name} keeps {sum(flags)} lines" for name, flags in rows)
        + ".",
        axis_label="line of the log, oldest to newest",
    )

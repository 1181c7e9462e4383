"""The report as text: what ``inspect`` prints without ``--json``.

``_render(report)`` takes the dict ``_report`` builds (its keys are drawn in
``context_budget.cli._report``) and gives the whole text, sections separated by
a blank line and ending in a newline: the header, the layer table, the largest
messages, the tool results, the history, then the budget (``_budget_lines``).
Counts print with thousands separators, shares as percentages to one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from context_budget.layers import BudgetReport
from context_budget.tokens import MESSAGE_OVERHEAD_TOKENS

# --counter name -> how the header describes it
_COUNTERS = {
    "estimate": "estimate_tokens (4 characters a token, rounded up)",
    "qwen": "the Qwen2.5 tokenizer",
}


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def _percent(share: float) -> str:
    return f"{share:.1%}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    """Aligned columns; those in ``right`` right-aligned; the last column is not padded."""
    widths = [max(len(row[c]) for row in [header, *rows]) for c in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            cell.rjust(widths[c]) if c in right else cell.ljust(widths[c])
            for c, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _over(total: int, budget: int) -> str:
    return "fits" if total <= budget else f"{total - budget:,} over"


def _render(report: dict[str, Any]) -> str:
    layers = report["layers"]
    messages = _plural(report["messages"], "message")
    if report["shape"] == "object":
        system = "a system prompt" if layers["system"] else "no system prompt"
        pinned = _plural(report["pinned_records"], "pinned record")
        what = f"an object with {system}, {pinned} and {messages}"
    else:
        what = f"a list of {messages}"
    lines = [
        f"{report['file']}: {what}",
        f"tokens: {_COUNTERS[report['counter']]}, "
        f"plus {MESSAGE_OVERHEAD_TOKENS} a message for its framing",
        "",
        *_layer_lines(layers),
        "",
    ]

    largest = report["largest"]
    lines.append(f"largest messages ({len(largest)} of {report['messages']:,})")
    if largest:
        rows = [
            [
                str(row["index"]),
                row["role"],
                row["kind"],
                f"{row['tokens']:,}",
                _percent(row["share"]),
                ", ".join(row["tools"]),
            ]
            for row in largest
        ]
        lines += _table(["index", "role", "kind", "tokens", "share", "tools"], rows, {0, 3, 4})
    lines.append("")

    results = report["tool_results"]
    if results["count"]:
        lines.append(
            f"tool results: {_plural(results['count'], 'result')}, "
            f"{results['tokens']:,} tokens of content, "
            f"{_percent(results['share'])} of the total"
        )
        rows = [
            [t["tool"], str(t["count"]), f"{t['tokens']:,}", _percent(t["share"])]
            for t in results["by_tool"]
        ]
        lines += _table(["tool", "results", "tokens", "share"], rows, {1, 2, 3})
    else:
        lines.append("tool results: none")
    lines.append("")

    problems = report["history"]
    if problems:
        lines.append(
            f"history: {_plural(len(problems), 'broken tool-call pair')}; "
            "the API would refuse this history"
        )
        lines += [f"  message {p['index']}: {p['problem']} {p['tool_use_id']}" for p in problems]
    else:
        lines.append("history: no broken tool-call pairs")
    lines.append("")

    lines += _budget_lines(report["budget"])
    return "\n".join(lines) + "\n"


def _layer_lines(layers: dict[str, int]) -> list[str]:
    # the core's own table, the same one ``print(budget_report(...))`` shows
    return str(BudgetReport(layers)).splitlines()


def _budget_lines(section: dict[str, Any] | None) -> list[str]:
    if section is None:
        return ["budget: none given; add --budget N to see what clearing and compaction free"]
    budget, total = section["budget"], section["total"]
    clearing, compaction = section["clearing"], section["compaction"]
    lines = [
        f"budget: {budget:,} tokens; the context is {total:,} tokens, {_over(total, budget)}",
        f"clearing old tool results (all but the last {clearing['keep_last']}): "
        f"clears {clearing['cleared']}, frees {clearing['freed']:,} tokens "
        f"-> {clearing['total']:,} tokens, {_over(clearing['total'], budget)}",
    ]
    if compaction["error"] is not None:
        lines.append(f"compaction: impossible, ContextOverflowError: {compaction['error']}")
        return lines
    step = compaction["step"]
    if step == 0:
        lines.append("compaction: nothing to do, the context already fits")
        return lines
    if step == 1:
        how = "step 1, clearing old tool results, is enough"
    else:
        summarized = compaction["summarized"]
        how = (
            f"step 2, messages 0-{summarized - 1} summarized into one by {compaction['summarizer']}"
        )
    lines.append(
        f"compaction: {how}; frees {compaction['freed']:,} tokens "
        f"-> {compaction['total']:,} tokens, {_over(compaction['total'], budget)}"
    )
    return lines

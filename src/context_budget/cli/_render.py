"""The report as text: what `inspect` prints without `--json`.

`render_report(report)` takes the dict `build_report` builds (its keys are listed in
`context_budget.cli._report`) and gives the whole text, sections separated by
a blank line and ending in a newline: the header, the layer table, the largest
messages, the tool results, the history, then the budget (`_budget_lines`).
Counts print with thousands separators, shares as percentages to one place.
No line is wider than `WIDTH` columns: a longer one is wrapped, its
continuation indented.
"""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Sequence
from typing import Any

from context_budget.layers import BudgetReport
from context_budget.tokens import MESSAGE_OVERHEAD_TOKENS

#: The widest line the report prints, in columns.
WIDTH = 80
#: The widest a sub-agent's task is printed in the threads table, in columns.
TASK_WIDTH = 28

# --counter name -> how the header describes it
COUNTERS = {
    "estimate": "estimate_tokens (4 characters a token, rounded up)",
    "qwen": "the Qwen2.5 tokenizer",
}


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: The bidirectional embeddings, overrides (U+202A-U+202E) and isolates (U+2066-U+2069).
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def one_line(text: str) -> str:
    """`text` with every line break and control character escaped, so it prints on one line.

    Escaped: the C0 and C1 controls and DEL (as `\\n`, `\\r`, `\\t` or
    `\\xNN`), the Unicode line and paragraph separators and the bidirectional
    embeddings, overrides and isolates (`\\uNNNN`), every character
    `str.splitlines` or a terminal would break a line at or act on (an
    override shows the rest of the line backwards). Anything else,
    backslashes included, is left as it is.

    Examples:
        >>> print(one_line("two\\nlines\\x1b[2J.json"))
        two\\nlines\\x1b[2J.json
    """
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[char])
        elif unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in _BIDI_CONTROLS:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def _percent(share: float) -> str:
    return f"{share:.1%}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    """Aligned columns; those in `right` right-aligned; the last column is not padded."""
    widths = [max(len(row[c]) for row in [header, *rows]) for c in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            cell.rjust(widths[c]) if c in right else cell.ljust(widths[c])
            for c, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _fit(line: str) -> list[str]:
    """`line` as lines of at most `WIDTH` columns, continuations indented by 4."""
    if len(line) <= WIDTH:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.wrap(
        line,
        WIDTH,
        subsequent_indent=indent,
        break_on_hyphens=False,
        drop_whitespace=True,
    )


def _over(total: int, budget: int) -> str:
    return "fits" if total <= budget else f"{total - budget:,} over"


def _header(report: dict[str, Any]) -> str:
    layers = report["layers"]
    messages = _plural(report["messages"], "message")
    fmt = report["format"]
    how = "detected" if report["detected"] else "from --format"
    system = "a system prompt" if layers["system"] else "no system prompt"
    skipped = _plural(report["skipped_records"], "other record")
    if fmt == "layers":
        pinned = _plural(report["pinned_records"], "pinned record")
        what = f"an object with {system}, {pinned} and {messages}"
    elif fmt == "messages":
        what = f"a list of {messages}"
    elif fmt == "openai":
        what = f"OpenAI messages, {system} and {messages}"
    elif fmt == "mini-swe-agent":
        what = f"a mini-swe-agent trajectory, {system} and {messages}"
    elif fmt == "codex":
        what = f"a Codex rollout, {system} and {messages} ({skipped} skipped)"
    elif fmt == "openhands":
        events = _plural(report["skipped_records"], "other event")
        what = f"OpenHands events, {messages} ({events} skipped)"
    else:
        threads = report["threads"]
        main = "main chain of " if threads else ""
        what = f"a Claude Code session, {main}{messages} ({skipped} skipped)"
        if threads:
            what += f", and {_plural(len(threads), 'sub-agent thread')}"
    files = len(report["files"])
    name = one_line(report["file"])
    where = name if files == 1 else f"{name} and {_plural(files - 1, 'more file')}"
    return f"{where}: {what} [{fmt}, {how}]"


def _clip(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis when longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _thread_lines(threads: Sequence[dict[str, Any]]) -> list[str]:
    if not threads:
        return []
    rows = [
        [
            thread["name"],
            f"{thread['messages']:,}",
            f"{thread['tokens']:,}",
            f"{thread['broken_pairs']:,}",
            _clip(thread["description"], TASK_WIDTH),
        ]
        for thread in threads
    ]
    header = ["thread", "messages", "tokens", "broken", "task"]
    return [
        f"sub-agent threads: {len(threads)}, kept apart; every other figure is the main chain's",
        *_table(header, rows, {1, 2, 3}),
        "",
    ]


def _segment_lines(segments: Sequence[dict[str, Any]]) -> list[str]:
    if len(segments) < 2:
        return []
    count = len(segments) - 1
    boundaries = f"{count:,} compaction boundar{'y' if count == 1 else 'ies'}"
    lines = [f"compaction: {boundaries} cut the main chain into {len(segments)} segments"]
    for segment in segments:
        last = segment["first"] + segment["messages"] - 1
        span = (
            f"message {last}" if segment["messages"] == 1 else f"messages {segment['first']}-{last}"
        )
        line = f"  {span}: {segment['tokens']:,} tokens"
        if segment["line"] is not None:
            line += f", after the boundary at line {segment['line']:,}"
            details = []
            if segment["trigger"] is not None:
                details.append(segment["trigger"])
            if segment["pre_tokens"] is not None:
                details.append(f"{segment['pre_tokens']:,} tokens before")
            if details:
                line += f" ({', '.join(details)})"
        lines.append(line)
    return [*lines, ""]


def _final_lines(final: dict[str, Any] | None) -> list[str]:
    if final is None:
        return []
    status = final["status"] or "no exit status"
    return [
        f"final output (the exit message, not a turn): {status}, "
        f"{final['characters']:,} characters, {final['tokens']:,} tokens",
        "",
    ]


def render_report(report: dict[str, Any]) -> str:
    lines = [
        _header(report),
        f"tokens: {COUNTERS[report['counter']]}, plus {MESSAGE_OVERHEAD_TOKENS} per message",
    ]
    if report["undercount"]:
        lines += [
            f"note: {_percent(report['dense_share'])} of the text is digits, punctuation "
            "or line breaks,",
            "      which the estimate likely undercounts: try --counter qwen",
        ]
    lines += ["", *_layer_lines(report["layers"]), ""]
    lines += _thread_lines(report["threads"])
    lines += _segment_lines(report["segments"])
    lines += _final_lines(report["final"])
    lines += _largest_lines(report["largest"], report["messages"])
    lines += _result_lines(report["tool_results"])
    lines += _history_lines(report["history"])
    lines += _budget_lines(report["budget"])
    return "\n".join(part for line in lines for part in _fit(line) or [""]) + "\n"


def _largest_lines(largest: list[dict[str, Any]], messages: int) -> list[str]:
    """The largest messages' table (or its heading alone when there are none)."""
    lines = [f"largest messages ({len(largest)} of {messages:,})"]
    if largest:
        rows = [
            [
                str(row["index"]),
                row["role"],
                row["kind"],
                f"{row['tokens']:,}",
                _percent(row["share"]),
                one_line(", ".join(row["tools"])),
            ]
            for row in largest
        ]
        lines += _table(["index", "role", "kind", "tokens", "share", "tools"], rows, {0, 3, 4})
    lines.append("")
    return lines


def _result_lines(results: dict[str, Any]) -> list[str]:
    """The tool results: how many and their share, then a row per tool."""
    lines: list[str] = []
    if results["count"]:
        lines.append(
            f"tool results: {_plural(results['count'], 'result')}, "
            f"{_plural(results['tokens'], 'token')} of content, "
            f"{_percent(results['share'])} of the total"
        )
        rows = [
            [one_line(t["tool"]), str(t["count"]), f"{t['tokens']:,}", _percent(t["share"])]
            for t in results["by_tool"]
        ]
        lines += _table(["tool", "results", "tokens", "share"], rows, {1, 2, 3})
    else:
        lines.append("tool results: none")
    lines.append("")
    return lines


def _history_lines(problems: list[dict[str, Any]]) -> list[str]:
    """The history check: each broken tool-call pair, or that there is none."""
    lines: list[str] = []
    if problems:
        lines.append(
            f"history: {_plural(len(problems), 'broken tool-call pair')}; "
            "the API would refuse this history"
        )
        lines += [
            f"  message {p['index']}: {p['problem']} {one_line(p['tool_use_id'])}" for p in problems
        ]
    else:
        lines.append("history: no broken tool-call pairs")
    lines.append("")
    return lines


def _layer_lines(layers: dict[str, int]) -> list[str]:
    # the core's own table, the same one `print(budget_report(...))` shows
    return str(BudgetReport(layers)).splitlines()


def _compaction_line(outcome: dict[str, Any], budget: int, label: str) -> str:
    if outcome["error"] is not None:
        return f"{label}: impossible, ContextOverflowError: {outcome['error']}"
    step = outcome["step"]
    if step == 0:
        return f"{label}: nothing to do, the context already fits"
    if step == 1:
        how = "step 1, clearing old tool results, is enough"
    else:
        first, count = outcome["first"], outcome["summarized"]
        span = f"message {first}" if count == 1 else f"messages {first}-{first + count - 1}"
        how = f"step 2, {span} summarized into one"
    return (
        f"{label}: {how}; frees {outcome['freed']:,} tokens "
        f"-> {outcome['total']:,} tokens, {_over(outcome['total'], budget)}"
    )


def _budget_lines(section: dict[str, Any] | None) -> list[str]:
    if section is None:
        return ["budget: none given; add --budget N to see what clearing and compaction free"]
    budget, total = section["budget"], section["total"]
    clearing = section["clearing"]
    lines = [
        f"budget: {budget:,} tokens; the context is {total:,} tokens, {_over(total, budget)}",
        f"clearing old tool results (all but the last {clearing['keep_last']}): "
        f"clears {clearing['cleared']}, frees {clearing['freed']:,} tokens "
        f"-> {clearing['total']:,} tokens, {_over(clearing['total'], budget)}",
        _compaction_line(section["compaction"], budget, "compaction"),
    ]
    single = section["single_task"]
    if single is not None:
        lines.append(
            _compaction_line(single, budget, "compaction keeping the task and the latest rounds")
        )
    lines += [
        f"smallest budget compaction can reach for this file: {section['smallest']:,} tokens",
        f"(compaction's summaries come from {section['compaction']['summarizer']}, a "
        "deterministic stand-in that keeps lines with a digit, not a model)",
    ]
    return lines

"""The ``context-budget`` command: a budget report for a saved conversation.

Usage::

    context-budget inspect FILE.json [--budget N] [--counter estimate|qwen] [--json]

FILE holds a JSON list of messages, or an object
``{"system": str, "pinned": [str, ...], "conversation": [message, ...]}``
(``system`` and ``pinned`` optional), in either message shape the
``messages`` module describes. The report is read-only and deterministic:

- tokens per layer (``budget_report``), as ``/context`` shows them in a coding agent;
- the ten largest messages (``message_tokens``), ties in message order;
- the tool results: how many, the tokens of their content, and per tool;
- broken tool-call pairs (``validate_history``);
- with ``--budget N``: what ``clear_old_tool_results`` (keeping the last
  ``KEEP_TOOL_RESULTS``) and ``compact`` (with ``keep_numbers``) would free, or
  why compaction cannot fit the budget. An overflow is a finding, not a failure.

Exit status: 0 for a report; 2 for bad input (a file missing, unreadable, not
JSON, of the wrong shape, or holding an invalid message) and for usage errors,
after one line on stderr: ``context-budget: error: <what is wrong>``.

Every figure comes from the package's own counting functions; this module only
arranges them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from context_budget import __version__
from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import KEEP_TOOL_RESULTS, compact
from context_budget.errors import ContextOverflowError
from context_budget.history import validate_history
from context_budget.layers import BudgetReport, Layers, budget_report
from context_budget.messages import Message
from context_budget.summarizers import keep_numbers
from context_budget.tokens import (
    MESSAGE_OVERHEAD_TOKENS,
    TokenCounter,
    estimate_tokens,
    message_tokens,
    qwen_counter,
)

PROG = "context-budget"
#: How many messages the "largest" table lists.
LARGEST = 10
#: Exit status for bad input and usage errors (argparse's own).
EXIT_BAD_INPUT = 2

_TOP_KEYS = ("system", "pinned", "conversation")
_COUNTERS = {
    "estimate": "estimate_tokens (4 characters a token, rounded up)",
    "qwen": "the Qwen2.5 tokenizer",
}
# Python type -> its name in JSON, for messages about the file's content
_JSON_TYPES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


class _InputError(Exception):
    """Bad input: the one line to print after ``context-budget: error:``."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error printed as one line (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, _error_line(f"{message} (see {self.prog} --help)"))


def _error_line(message: str) -> str:
    # subtle: a path or a key from the file may hold a newline; the error stays one line
    flat = message.replace("\r", "\\r").replace("\n", "\\n")
    return f"{PROG}: error: {flat}\n"


def _budget(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of tokens: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0 tokens, got {value}")
    return value


def _parser() -> _Parser:
    parser = _Parser(
        prog=PROG,
        description="Count, layer, clear and compact an LLM agent's context.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    inspect = commands.add_parser(
        "inspect",
        help="a budget report for a saved conversation",
        description=(
            "A budget report for a saved conversation: tokens per layer, the ten largest "
            "messages, the tool results' share, broken tool-call pairs and, with --budget, "
            "what clearing and compaction would free. The file is only read."
        ),
    )
    inspect.add_argument(
        "file",
        metavar="FILE",
        help="JSON: a list of messages, or an object with system, pinned and conversation",
    )
    inspect.add_argument(
        "--budget",
        type=_budget,
        metavar="N",
        help="a budget in tokens: report what clearing and compaction would free",
    )
    inspect.add_argument(
        "--counter",
        choices=sorted(_COUNTERS),
        default="estimate",
        help="how to count tokens: estimate (default) or qwen (needs the tokenizer extra)",
    )
    inspect.add_argument(
        "--json", action="store_true", help="print the report as JSON with stable keys"
    )
    return parser


# ---------------------------------------------------------------- reading the file


def _json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _read(path: str) -> object:
    """The parsed JSON in ``path``; ``_InputError`` naming the problem otherwise."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise _InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise _InputError(f"{path}: is a directory, not a file") from None
    except PermissionError:
        raise _InputError(f"{path}: permission denied") from None
    except OSError as error:
        raise _InputError(f"{path}: cannot read it: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _InputError(
            f"{path}: not UTF-8 text (byte {raw[error.start]:#04x} at offset {error.start})"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise _InputError(
            f"{path}: not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except RecursionError:
        raise _InputError(f"{path}: the JSON is nested too deeply to read") from None


def _layers(data: object, path: str) -> tuple[Layers, str]:
    """The file's content as ``Layers`` (a plain list is a conversation alone), and its shape.

    The shape is ``"list"`` or ``"object"``. ``Layers`` checks the types of
    system, pinned and conversation; the messages are checked later.
    """
    system: Any = ""
    pinned: Any = []
    conversation: Any = data
    if isinstance(data, list):
        shape = "list"
    elif isinstance(data, dict):
        unknown = sorted(key for key in data if key not in _TOP_KEYS)
        if unknown:
            raise _InputError(
                f"{path}: unexpected key {unknown[0]!r} in the top-level object "
                "(expected system, pinned, conversation)"
            )
        if "conversation" not in data:
            raise _InputError(f"{path}: the top-level object has no 'conversation'")
        shape = "object"
        system = data.get("system", "")
        pinned = data.get("pinned", [])
        conversation = data["conversation"]
    else:
        raise _InputError(
            f"{path}: expected a list of messages or an object with system, pinned and "
            f"conversation, found {_json_type(data)}"
        )
    try:
        return Layers(system, pinned, conversation), shape
    except TypeError as error:
        raise _InputError(f"{path}: {error}") from None


# ---------------------------------------------------------------- the report


def _share(part: int, total: int) -> float:
    """``part / total`` as a fraction rounded to 4 places (0.0 for an empty context)."""
    return round(part / total, 4) if total else 0.0


def _call_names(conversation: Sequence[Message]) -> dict[str, str]:
    # tool_use id -> tool name, over the whole conversation
    return {
        block["id"]: block["name"]
        for message in conversation
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_use"
    }


def _shorthand_name(message: Message) -> str:
    """The tool a role "tool" message reports on; its ``name`` is optional."""
    name = message.get("name")
    return name if isinstance(name, str) and name else "(unnamed)"


def _kind(message: Message) -> str:
    """What a message holds: ``text``, ``tool_result``, or block types joined by ``+``.

    Example: [text, tool_use] -> "text+tool_use"; role "tool" -> "tool_result".
    """
    if message["role"] == "tool":
        return "tool_result"
    content = message["content"]
    if isinstance(content, str):
        return "text"
    kinds = list(dict.fromkeys(block["type"] for block in content))
    return "+".join(kinds) if kinds else "empty"


def _tool_results(
    conversation: Sequence[Message], names: dict[str, str], counter: TokenCounter
) -> list[tuple[int, str, int]]:
    """(message index, tool name, tokens of the result's content), in order.

    A result whose call is not in the conversation is named ``(no call)``.

    A result's tokens are those of its content alone: ``message_tokens`` of a
    message holding only that result, less the per-message framing.
    """
    found: list[tuple[int, str, int]] = []
    for index, message in enumerate(conversation):
        content = message["content"]
        if message["role"] == "tool":
            tokens = message_tokens(message, counter) - MESSAGE_OVERHEAD_TOKENS
            found.append((index, _shorthand_name(message), tokens))
        elif isinstance(content, list):
            for block in content:
                if block["type"] == "tool_result":
                    alone: Message = {"role": message["role"], "content": [block]}
                    tokens = message_tokens(alone, counter) - MESSAGE_OVERHEAD_TOKENS
                    found.append((index, names.get(block["tool_use_id"], "(no call)"), tokens))
    return found


def _tools_of(message: Message, names: dict[str, str]) -> list[str]:
    """Names of the tools a message calls or answers, first seen first."""
    if message["role"] == "tool":
        return [_shorthand_name(message)]
    content = message["content"]
    if isinstance(content, str):
        return []
    tools = []
    for block in content:
        if block["type"] == "tool_use":
            tools.append(block["name"])
        elif block["type"] == "tool_result":
            tools.append(names.get(block["tool_use_id"], "(no call)"))
    return list(dict.fromkeys(tools))


def _results_cleared(before: Sequence[Message], after: Sequence[Message]) -> int:
    """How many tool results differ between a conversation and its cleared copy."""
    changed = 0
    for old, new in zip(before, after, strict=True):
        if old["role"] == "tool" or not isinstance(old["content"], list):
            changed += old["content"] != new["content"]
        else:
            changed += sum(a != b for a, b in zip(old["content"], new["content"], strict=True))
    return changed


def _budget_section(
    layers: Layers, total: int, budget: int, counter: TokenCounter
) -> dict[str, Any]:
    conversation = layers.conversation
    cleared = clear_old_tool_results(conversation, KEEP_TOOL_RESULTS, counter)
    after_clearing = budget_report(Layers(layers.system, layers.pinned, cleared), counter)["total"]
    compaction: dict[str, Any] = {
        "summarizer": "keep_numbers",
        "fits": False,
        "step": None,
        "summarized": None,
        "freed": None,
        "total": None,
        "error": None,
    }
    try:
        compacted = compact(layers, budget, keep_numbers, counter)
    except ContextOverflowError as error:
        compaction["error"] = str(error)
    else:
        size = budget_report(compacted, counter)["total"]
        if compacted.conversation == conversation:
            step, summarized = 0, 0
        elif len(compacted.conversation) == len(conversation) and all(
            # step 1 clears a result only where its marker is the smaller of the two
            new in (old, clear)
            for new, old, clear in zip(compacted.conversation, conversation, cleared, strict=True)
        ):
            step, summarized = 1, 0
        else:  # one summary message replaced the messages before the kept tail
            step, summarized = 2, len(conversation) - len(compacted.conversation) + 1
        compaction.update(
            fits=True, step=step, summarized=summarized, freed=total - size, total=size
        )
    return {
        "budget": budget,
        "total": total,
        "fits": total <= budget,
        "clearing": {
            "keep_last": KEEP_TOOL_RESULTS,
            "cleared": _results_cleared(conversation, cleared),
            "freed": total - after_clearing,
            "total": after_clearing,
            "fits": after_clearing <= budget,
        },
        "compaction": compaction,
    }


def _report(
    layers: Layers,
    shape: str,
    path: str,
    counter_name: str,
    counter: TokenCounter,
    budget: int | None,
) -> dict[str, Any]:
    """The whole report as plain data; the text form and ``--json`` both print this."""
    conversation = layers.conversation
    layer_tokens = dict(budget_report(layers, counter))
    total = layer_tokens["total"]
    names = _call_names(conversation)
    sizes = [message_tokens(message, counter) for message in conversation]  # index -> tokens
    order = sorted(range(len(conversation)), key=lambda i: (-sizes[i], i))
    largest = [
        {
            "index": i,
            "role": conversation[i]["role"],
            "kind": _kind(conversation[i]),
            "tools": _tools_of(conversation[i], names),
            "tokens": sizes[i],
            "share": _share(sizes[i], total),
        }
        for i in order[:LARGEST]
    ]
    results = _tool_results(conversation, names, counter)
    by_tool: dict[str, list[int]] = {}  # tool name -> [results, tokens]
    for _, tool, tokens in results:
        count = by_tool.setdefault(tool, [0, 0])
        count[0] += 1
        count[1] += tokens
    result_tokens = sum(tokens for _, _, tokens in results)
    return {
        "file": path,
        "counter": counter_name,
        "shape": shape,
        "messages": len(conversation),
        "pinned_records": len(layers.pinned),
        "layers": layer_tokens,
        "largest": largest,
        "tool_results": {
            "count": len(results),
            "tokens": result_tokens,
            "share": _share(result_tokens, total),
            "by_tool": [
                {"tool": tool, "count": count, "tokens": tokens, "share": _share(tokens, total)}
                for tool, (count, tokens) in sorted(by_tool.items(), key=lambda t: (-t[1][1], t[0]))
            ],
        },
        "history": [
            {"index": p.index, "tool_use_id": p.tool_use_id, "problem": p.problem}
            for p in validate_history(conversation)
        ],
        "budget": None if budget is None else _budget_section(layers, total, budget, counter),
    }


# ---------------------------------------------------------------- the text form


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


# ---------------------------------------------------------------- the command


def _counter(name: str) -> TokenCounter:
    if name == "qwen":
        try:
            return qwen_counter()
        except ImportError as error:
            raise _InputError(f"--counter qwen: {error}") from None
    return estimate_tokens


def _inspect(args: argparse.Namespace) -> str:
    counter = _counter(args.counter)
    layers, shape = _layers(_read(args.file), args.file)
    try:
        budget_report(layers, counter)  # checks every message; names the first bad one
    except (TypeError, ValueError) as error:
        raise _InputError(f"{args.file}: {error}") from None
    report = _report(layers, shape, args.file, args.counter, counter, args.budget)
    if args.json:
        return json.dumps(report, indent=2) + "\n"
    return _render(report)


def _exit_status(code: object) -> int:
    # SystemExit.code: None means 0, an int is the status, anything else was printed
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def main(argv: list[str] | None = None) -> int:
    """Run ``context-budget`` with ``argv`` (``sys.argv[1:]`` when None).

    Returns:
        The exit status: 0 after a report, 2 after bad input or a usage error
        (one line on stderr).
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:  # --help, --version, or a usage error already printed
        return _exit_status(stop.code)
    try:
        text = _inspect(args)
    except _InputError as error:
        sys.stderr.write(_error_line(str(error)))
        return EXIT_BAD_INPUT
    sys.stdout.write(text)
    return 0

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

Every figure comes from the package's own counting functions; this package only
arranges them, in three steps, one module each:

- ``_input``: the file -> ``(Layers, shape)``, or an ``_InputError``;
- ``_report``: the layers -> the report, a dict of plain data (its keys are
  drawn there), which ``--json`` prints as is;
- ``_render``: the report -> the text.

This module holds the argument parser and ``main``, which runs the three.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn

from context_budget import __version__
from context_budget.cli import _demo
from context_budget.cli._input import _InputError, _layers, _read
from context_budget.cli._render import _COUNTERS, _render
from context_budget.cli._report import LARGEST as LARGEST
from context_budget.cli._report import _report
from context_budget.layers import budget_report
from context_budget.tokens import TokenCounter, estimate_tokens, qwen_counter

PROG = "context-budget"
#: Exit status for bad input and usage errors (argparse's own).
EXIT_BAD_INPUT = 2


# ---------------------------------------------------------------- the parser


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
    _demo.add_parser(commands)
    return parser


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
        text = _demo.run(args) if args.command == "demo" else _inspect(args)
    except (_InputError, _demo.DemoError) as error:
        sys.stderr.write(_error_line(str(error)))
        return EXIT_BAD_INPUT
    sys.stdout.write(text)
    return 0

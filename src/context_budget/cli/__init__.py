"""The `context-budget` command and its four subcommands.

- `context-budget inspect FILE...`: a budget report for a saved conversation
  (described below; this module and `_input`, `_report`, `_render`);
- `context-budget bill [PATH...]`: what a saved session's API calls cost, and
  its rebuilds (`_bill`);
- `context-budget whatif PATH...`: what they would have cost under another
  model, cache lifetime, clearing or compaction (`_whatif`);
- `context-budget demo`: the incident-report experiment, one strategy or all
  of them (`_demo`).

A run imports its own subcommand's modules alone: the parser lists the
others by name and help (`COMMANDS`), so `bill` imports neither the
experiment nor `inspect`'s report.

Usage of `inspect`: `context-budget inspect FILE... [--budget N] [--counter
estimate|qwen] [--format FORMAT] [--max-bytes N] [--json]`.

FILE is a transcript in one of the formats `load_transcript` reads (a list of
messages, an object with system, pinned and conversation, a Claude Code
session, a Codex rollout, a mini-swe-agent trajectory, OpenHands events,
OpenAI messages); `--format auto`, the default, detects which, and the
report's first line says what it chose. Several FILEs, or a folder, are one
Claude Code session and its sub-agents' files. The report is read-only and
deterministic:

- for a Claude Code session, the main chain: the sub-agents' threads are
  named, with their sizes, and kept out of every other figure; where
  compaction boundaries cut the main chain into segments;
- a run's final output (a mini-swe-agent exit message), apart from the turns;

- tokens per layer (`budget_report`), as `/context` shows them in a coding agent;
- the ten largest messages (`message_tokens`), ties in message order;
- the tool results: how many, the tokens of their content, and per tool;
- broken tool-call pairs (`validate_history`);
- with `--budget N`: what clearing old tool results (keeping the last
  `KEEP_TOOL_RESULTS`) and `compact` (with `keep_numbers`) would free, or why
  compaction cannot fit the budget; when the default cannot, what the
  single-task mode reaches; and the smallest budget compaction can reach. An
  overflow is a finding, not a failure.

Exit status: 0 for a report; 2 for bad input (a file missing, unreadable, not a
regular file, over `--max-bytes`, not JSON, of no known format, of a format of
records that holds no conversation, or holding an invalid message), for usage
errors and for a report that cannot be written (a full disk, a closed pipe),
after one line on stderr: `context-budget: error: <what is wrong>`. A file
whose last line is half-written (a live session's) and reads without it is
read so, with a warning on stderr naming the line. A line break
or control character in a file name (or a tool name) is printed escaped, so
every line stays one.

Every figure comes from the package's own counting functions; this package only
arranges them, in three steps, one module each:

- `_input`: the file -> a transcript (`Layers` and what was read), or an
  `InputError`;
- `_report` (`build_report`): the transcript -> the report, a dict of plain data (its keys are
  listed there), which `--json` prints as is;
- `_render` (`render_report`): the report -> the text.

This module holds the argument parser and `main`, which runs the three (or
hands `bill`, `whatif` and `demo` to their modules), and `entry`, the
installed command, which runs `main` and ends the process.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from context_budget import __version__
from context_budget.cli._flags import whole_number
from context_budget.cli._render import one_line
from context_budget.errors import InputError

if TYPE_CHECKING:
    from context_budget.tokens import TokenCounter

PROG = "context-budget"
#: Exit status for bad input and usage errors (argparse's own).
EXIT_BAD_INPUT = 2
#: Exit status after Ctrl-C (128 + SIGINT's number, as a shell gives it).
EXIT_INTERRUPTED = 130
#: Each subcommand and the one-line help `--help` lists it with. A run imports the
#: modules of its own subcommand alone (`bill` neither the experiment nor `inspect`'s).
COMMANDS = {
    "inspect": "a budget report for a saved conversation",
    "demo": "run the incident-report experiment under one strategy, or all",
    "bill": "what a saved session's API calls cost, and why its cache was rebuilt",
    "whatif": "what saved sessions would have cost under another model, lifetime, clearing "
    "or compaction",
}
#: Names this module gives, each from the module that defines it, imported when first read.
_LAZY = {
    "LARGEST": "context_budget.cli._report",
    "TokenCounter": "context_budget.tokens",
    "estimate_tokens": "context_budget.tokens",
    "qwen_counter": "context_budget.tokens",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


# ---------------------------------------------------------------- the parser


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error printed as one line (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, _error_line(f"{message} (see {self.prog} --help)"))


def _error_line(message: str) -> str:
    # subtle: a path or a key from the file may hold a newline; the error stays one line
    return f"{PROG}: error: {one_line(message)}\n"


_EPILOG = "example: context-budget inspect session.jsonl --budget 50000 --counter qwen"


def _parser(command: str | None = None) -> _Parser:
    """The command's parser; given the subcommand the arguments name (`command`), the
    others are listed by name and help alone, their modules not imported."""
    parser = _Parser(
        prog=PROG,
        description="Count, layer, clear and compact an LLM agent's context.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    adders = {"inspect": _add_inspect, "demo": _add_demo, "bill": _add_bill, "whatif": _add_whatif}
    for name, add in adders.items():
        if command is None or command == name:
            add(commands)
        else:
            commands.add_parser(name, help=COMMANDS[name])
    return parser


def _add_demo(commands: Any) -> None:
    import context_budget.cli._demo as demo

    demo.add_parser(commands)


def _add_bill(commands: Any) -> None:
    import context_budget.cli._bill as bill

    bill.add_parser(commands)


def _add_whatif(commands: Any) -> None:
    import context_budget.cli._whatif as whatif

    whatif.add_parser(commands)


def _add_inspect(commands: Any) -> None:
    from context_budget.cli._input import MAX_BYTES
    from context_budget.cli._render import COUNTERS
    from context_budget.conversations import FORMATS

    inspect = commands.add_parser(
        "inspect",
        help=COMMANDS["inspect"],
        epilog=_EPILOG,
        description=(
            "A budget report for a saved conversation: tokens per layer, the ten largest "
            "messages, the tool results' share, broken tool-call pairs and, with --budget, "
            "what clearing and compaction would free. The file is only read."
        ),
    )
    inspect.add_argument(
        "file",
        metavar="FILE",
        nargs="+",
        help=(
            "a transcript: messages, layers, a Claude Code session, a Codex rollout, a "
            "mini-swe-agent trajectory, OpenHands events or OpenAI messages; several "
            "files or a folder: one Claude Code session and its sub-agents' files"
        ),
    )
    inspect.add_argument(
        "--budget",
        type=whole_number("token"),
        metavar="N",
        help="a budget in tokens: report what clearing and compaction would free",
    )
    inspect.add_argument(
        "--counter",
        choices=sorted(COUNTERS),
        default="estimate",
        help="how to count tokens: estimate (default) or qwen (needs the tokenizer extra)",
    )
    inspect.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        metavar="FORMAT",
        help=f"how to read FILE: {', '.join(FORMATS)} (default: auto, from its shape)",
    )
    inspect.add_argument(
        "--max-bytes",
        type=whole_number("byte", least=1),
        default=MAX_BYTES,
        metavar="N",
        help=f"refuse a file over N bytes (default: {MAX_BYTES:,}), each file when several",
    )
    inspect.add_argument(
        "--json", action="store_true", help="print the report as JSON with stable keys"
    )


# ---------------------------------------------------------------- the command


def _counter(name: str) -> TokenCounter:
    this = sys.modules[__name__]  # read here, where a test may have put another
    if name == "qwen":
        try:
            return this.qwen_counter()  # type: ignore[no-any-return]
        except ImportError as error:
            raise InputError(f"--counter qwen: {error}") from None
    return this.estimate_tokens  # type: ignore[no-any-return]


def _inspect(args: argparse.Namespace) -> str:
    from context_budget.cli._input import load_paths
    from context_budget.cli._render import render_report
    from context_budget.cli._report import build_report
    from context_budget.sessions.skips import Skip, summary

    counter = _counter(args.counter)
    skipped: list[Skip] = []
    transcript = load_paths(args.file, args.max_bytes, args.format, skipped)
    if skipped:  # a live session's last line, still being written
        warning = f"{summary(skipped)}; the rest is read"
        sys.stderr.write(f"context-budget: warning: {one_line(warning)}\n")
    report = build_report(transcript, args.file[0], args.counter, counter, args.budget, skipped)
    if args.json:
        return json.dumps(report, indent=2) + "\n"
    return render_report(report)


def _write(stream: TextIO, text: str) -> None:
    """Write `text`, escaping what the stream's encoding cannot hold (a path's odd bytes)."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = stream.encoding or "utf-8"
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))


def _write_out(text: str) -> str | None:
    """Print `text` on stdout and flush it; what went wrong, or None.

    A full disk (`> /dev/full`), a closed pipe or any other failed write is
    reported, not raised; stdout is then pointed at the null device, so the
    interpreter's own flush at exit does not fail a second time with a traceback.
    A process started with stdout closed (`>&-`) has no stdout: that is said too.
    """
    if sys.stdout is None:
        return "cannot write the report to stdout: it is closed"
    try:
        _write(sys.stdout, text)
        sys.stdout.flush()
    except OSError as error:
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no real file: a capture
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
        return f"cannot write the report to stdout: {error.strerror or error}"
    return None


def _runner(command: str) -> Callable[[argparse.Namespace], str]:
    """The function that runs `command`; each reports bad input as an `InputError`."""
    if command == "bill":
        import context_budget.cli._bill as bill

        return bill.run
    if command == "whatif":
        import context_budget.cli._whatif as whatif

        return whatif.run
    if command == "demo":
        import context_budget.cli._demo as demo

        return demo.run
    return _inspect


def _exit_status(code: object) -> int:
    # SystemExit.code: None means 0, an int is the status, anything else was printed
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def main(argv: list[str] | None = None) -> int:
    """Run `context-budget` with `argv` (`sys.argv[1:]` when None).

    Args:
        argv: the command's arguments, without the program's name.

    Returns:
        The exit status: 0 after a report, 2 after bad input or a usage error
        (one line on stderr).
    """
    given = sys.argv[1:] if argv is None else argv
    named = given[0] if given and given[0] in COMMANDS else None
    try:
        args = _parser(named).parse_args(given)
    except SystemExit as stop:  # --help, --version, or a usage error already printed
        return _exit_status(stop.code)
    run = _runner(args.command)
    try:
        text = run(args)
    except InputError as error:  # the bill's and the demo's own kinds included
        _write(sys.stderr, _error_line(str(error)))
        return EXIT_BAD_INPUT
    problem = _write_out(text)
    if problem is not None:
        _write(sys.stderr, _error_line(problem))
        return EXIT_BAD_INPUT
    return 0


class _Unfailing:
    """stderr, whose failed write (`2>/dev/full`, a closed pipe) is dropped: a warning or
    an error line that cannot be written has nowhere else to go, and the command's
    status must stay its own (not 1, after a traceback no one can read either)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:  # `encoding`, `fileno`: the stream's own
        return getattr(self._stream, name)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError:
            return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError):
            self._stream.flush()


def entry() -> NoReturn:
    """The installed `context-budget` (and `python -m context_budget`): `main` on the
    process's own arguments, then the process ends with its status.

    Once the report is written and both streams flushed, the process ends at
    once (`os._exit`) rather than freeing one by one the objects a bill made
    (hundreds of thousands for a large folder). Nothing is left to do by
    then: every page is written whole before the report is printed, and the
    package registers no exit handler. Started with stderr closed, or with one
    that cannot be written (`2>/dev/full`), its lines are dropped; with stdout
    closed, the status is 2. Ctrl-C ends it with one line, `context-budget:
    interrupted`, and status 130; a page being written is left as it was.
    """
    if sys.stderr is None:  # started with stderr closed (`2>&-`): its lines go nowhere
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - until the exit
    sys.stderr = _Unfailing(sys.stderr)
    try:
        status = main()
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's status for it, no traceback
        sys.stderr.write(f"{PROG}: interrupted\n")
        status = EXIT_INTERRUPTED
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):  # a closed pipe or
            stream.flush()  # a stream closed from the start (None): said already
    os._exit(status)

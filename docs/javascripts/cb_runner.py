"""Runs the page's Python blocks inside the reader's browser (Pyodide, in a Web Worker).

The worker loads this file once, then calls `run_block` for each block: all the blocks
of one page share `NAMESPACE`, in page order, as the page checker runs them. A plain
block's printed text, or a doctest's outputs, come back with whether they equal what
CI compared (the same normalisation as `docsite/pagecheck.py`) and a diff when they do
not. An exercise's checker block also comes back with its verdict: `pass` when what it
printed says `PASS`, `needs_work` when any line says `NEEDS_WORK` (the reader is judged
by the checker, not by whether the first attempt's output is reproduced). A block that
raises gives a traceback trimmed to the reader's code.
"""

from __future__ import annotations

import contextlib
import difflib
import doctest
import io
import linecache
import re
import textwrap
import traceback
from types import TracebackType
from typing import Any

NAMESPACE: dict[str, Any] = {"__name__": "__main__"}
#: What the blocks wrote to stderr (warnings): shown to the reader, never compared.
STDERR = io.StringIO()
_CHECKER = doctest.OutputChecker()
#: The verdict words `context_budget.grading` prints.
_NEEDS_WORK = re.compile(r"\bNEEDS_WORK\b")
_PASS = re.compile(r"\bPASS\b")


def verdict(output: str) -> str | None:
    """`"needs_work"` when any line of `output` says NEEDS_WORK, else `"pass"` when one
    says PASS, else None (the block printed no verdict)."""
    if _NEEDS_WORK.search(output):
        return "needs_work"
    if _PASS.search(output):
        return "pass"
    return None


def _normalise(text: str) -> list[str]:
    return [line.rstrip() for line in textwrap.dedent(text).strip("\n").splitlines()]


def _diff(expected: str, actual: str) -> str:
    lines = difflib.unified_diff(
        _normalise(expected), _normalise(actual), "shown on the page", "your run", lineterm=""
    )
    return "\n".join(lines)


def _register(source: str, name: str) -> None:
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)


def _trimmed(error: BaseException, name: str) -> str:
    """The traceback from the first frame of the reader's block on."""
    tb: TracebackType | None = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != name:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(error), error, tb))


def _run_plain(source: str, name: str) -> tuple[str, str | None]:
    _register(source, name)
    buffer = io.StringIO()
    try:
        code = compile(source, name, "exec", dont_inherit=True)
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(STDERR):
            exec(code, NAMESPACE)
    except BaseException as error:  # the reader's code may raise anything, even SystemExit
        return buffer.getvalue(), _trimmed(error, name)
    return buffer.getvalue(), None


def _run_doctest(source: str, name: str) -> tuple[str, str | None, bool]:
    """Run each `>>>` statement; the transcript of what it printed, and whether all match."""
    transcript: list[str] = []
    matches = True
    for number, example in enumerate(doctest.DocTestParser().get_examples(source)):
        where = f"{name}, statement {number + 1}"
        _register(example.source, where)
        buffer = io.StringIO()
        try:
            code = compile(example.source, where, "single", dont_inherit=True)
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(STDERR):
                exec(code, NAMESPACE)
        except BaseException as error:
            got = buffer.getvalue()
            only = "".join(traceback.format_exception_only(type(error), error))
            if example.exc_msg is None:
                transcript.append(got)
                return "".join(transcript), _trimmed(error, where), False
            transcript.append("Traceback (most recent call last):\n    ...\n" + only)
            matches = matches and _CHECKER.check_output(example.exc_msg, only, 0)
            continue
        got = buffer.getvalue()
        transcript.append(got)
        matches = (
            matches and example.exc_msg is None and _CHECKER.check_output(example.want, got, 0)
        )
    return "".join(transcript), None, matches


def run_block(
    order: int, source: str, is_doctest: bool, expected: str | None, checker: bool = False
) -> dict[str, Any]:
    """Run one block of the page in the shared namespace.

    Args:
        order: the block's place on the page (0-based), used to name it in tracebacks.
        source: the block's code (doctest text for a doctest).
        is_doctest: True to run `source` statement by statement, as a doctest.
        expected: what CI compared the block's output with, or None.
        checker: True for an exercise's checker block: its verdict is returned too.

    Returns:
        `{"output": str, "error": str | None, "match": bool | None, "diff": str,
        "stderr": str, "verdict": str | None}`: `match` is None when CI compares
        nothing; `diff` is empty when it matches; `stderr` holds warnings, never
        compared; `verdict` is `"pass"` or `"needs_work"` for a checker block that
        printed one and did not raise, else None.
    """
    name = f"<block {order + 1}>"
    STDERR.seek(0)
    STDERR.truncate()
    if is_doctest:
        output, error, matches = _run_doctest(source, name)
    else:
        output, error = _run_plain(source, name)
        matches = expected is None or _normalise(expected) == _normalise(output)
    match: bool | None = None if expected is None else (matches and error is None)
    diff = "" if match in (None, True) else _diff(expected or "", output)
    return {
        "output": output,
        "error": error,
        "match": match,
        "diff": diff,
        "stderr": STDERR.getvalue(),
        "verdict": verdict(output) if checker and error is None else None,
    }

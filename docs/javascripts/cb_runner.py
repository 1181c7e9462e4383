"""Runs the page's Python blocks inside the reader's browser (Pyodide, in a Web Worker).

The worker loads this file once, then calls `run_block` for each block: all the blocks
of one page share `NAMESPACE`, in page order, as the page checker runs them. A plain
block's printed text, or a doctest's outputs, come back with whether they equal what
CI compared (the same normalisation as `docsite/pagecheck.py`) and a diff when they do
not. A block that calls an exercise's checker (a `check_*` function of
`context_budget.grading`) also comes back with the checker's verdict, as the checker
returned it, whatever the block printed: `pass` when every checker it called said
`PASS`, `needs_work` when one said `NEEDS_WORK`, none when no checker ran (a block that
only prints "PASS" has no verdict); and with whether its code is the reader's own or
one the page ships (the first attempt, or a solution). A block that raises gives a
traceback trimmed to the reader's code. In a doctest block, a line the reader typed
without a `>>>` prompt, where the page shows no such output, runs as a statement. A
block has nothing to read from: `input()` raises an EOFError that says so (`NoInput`).
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import doctest
import functools
import importlib
import io
import linecache
import pkgutil
import sys
import textwrap
import traceback
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Any

import context_budget.grading as grading

NAMESPACE: dict[str, Any] = {"__name__": "__main__"}
#: What the blocks wrote to stderr (warnings): shown to the reader, never compared.
STDERR = io.StringIO()
_CHECKER = doctest.OutputChecker()


class NoInput(io.TextIOBase):
    """The blocks' standard input: the page gives a running block nothing to read, so
    `input()` (or a read of `sys.stdin`) raises an EOFError that says what to do instead.
    Pyodide's own in a Web Worker raised `OSError: [Errno 29] I/O error`, and logged a
    JavaScript error (a worker has no `prompt()` to ask with)."""

    WHY = "a block run in this page has no input to read: put the value in the code instead"

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        raise EOFError(self.WHY)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        raise EOFError(self.WHY)


NO_INPUT = NoInput()


@contextlib.contextmanager
def _reading_nothing() -> Iterator[None]:
    """`sys.stdin` is `NO_INPUT` inside, what it was after."""
    kept = sys.stdin
    sys.stdin = NO_INPUT
    try:
        yield
    finally:
        sys.stdin = kept


#: What the checkers the current block called returned: (checker's name, its verdict).
GIVEN: list[tuple[str, grading.Verdict]] = []
_depth = [0]  # checkers running now: a checker that calls another reports once, itself


def _reporting(check: Callable[..., Any]) -> Callable[..., Any]:
    """`check`, which also records each `Verdict` it returns in `GIVEN`."""

    @functools.wraps(check)
    def reported(*args: Any, **kwargs: Any) -> Any:
        _depth[0] += 1
        try:
            result = check(*args, **kwargs)
        finally:
            _depth[0] -= 1
        if _depth[0] == 0 and isinstance(result, grading.Verdict):
            GIVEN.append((check.__name__, result))
        return result

    reported.__cb_reports__ = True  # type: ignore[attr-defined]
    return reported


def report_checkers() -> list[str]:
    """Make every `check_*` function of `context_budget.grading`'s modules report its
    verdict to this runner, in each module that holds it (a block imports them from
    there); a checker another copy of the runner made report is made to report here
    instead. Returns the modules' dotted names and checkers, `module.check_x`, sorted."""
    wrapped: dict[int, Callable[..., Any]] = {}
    reached: list[str] = []
    prefix = f"{grading.__name__}."
    names = [grading.__name__]
    names += [info.name for info in pkgutil.iter_modules(grading.__path__, prefix)]
    for name in names:
        module = importlib.import_module(name)
        for attribute, value in list(vars(module).items()):
            if not attribute.startswith("check_") or not callable(value):
                continue
            if getattr(value, "__cb_reports__", False):
                value = value.__wrapped__  # another runner's: report here
            if id(value) not in wrapped:
                wrapped[id(value)] = _reporting(value)
            setattr(module, attribute, wrapped[id(value)])
            reached.append(f"{module.__name__}.{attribute}")
    return sorted(reached)


def verdict(given: Sequence[tuple[str, grading.Verdict]]) -> str | None:
    """`"needs_work"` when a checker said NEEDS_WORK, `"pass"` when every one said
    PASS, None when none was called."""
    if not given:
        return None
    if any(said.status != grading.PASS for _, said in given):
        return "needs_work"
    return "pass"


def _statements(source: str) -> str | None:
    """The code of `source` (a doctest's statements, for doctest text) without its
    imports, comments and layout (an AST dump), or None when it does not parse."""
    if any(line.lstrip().startswith(">>>") for line in source.splitlines()):
        examples = doctest.DocTestParser().get_examples(source)
        source = "".join(example.source for example in examples)
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return None
    body = [node for node in tree.body if not isinstance(node, ast.Import | ast.ImportFrom)]
    return ast.dump(ast.Module(body=body, type_ignores=[]))


def is_own(source: str, shipped: Sequence[str]) -> bool:
    """True when `source` is not one of the `shipped` codes (the page's first attempt
    and solutions), imports, comments and layout aside."""
    mine = _statements(source)
    return mine is None or mine not in {_statements(code) for code in shipped}


def _normalise(text: str) -> list[str]:
    return [line.rstrip() for line in textwrap.dedent(text).strip("\n").splitlines()]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _diff(expected: str, actual: str) -> str:
    """The unified diff of the output shown on the page against the run's.

    Each side loses an indentation common to its lines, as `_normalise` compares them;
    the run's is the one that lines it up best with the page's. A line the reader's
    code adds at the margin leaves the run's lines no common indentation, and each
    indented line the page shows would otherwise be shown removed and put back with
    more spaces, instead of the one line added."""
    shown = _normalise(expected)
    ran = [line.rstrip() for line in actual.strip("\n").splitlines()]

    def dedented(margin: int) -> list[str]:
        return [line[min(margin, _indent(line)) :] for line in ran]

    margins = sorted({0} | {_indent(line) for line in ran if line.strip()})
    best = max(margins, key=lambda m: difflib.SequenceMatcher(None, shown, dedented(m)).ratio())
    lines = difflib.unified_diff(
        shown, dedented(best), "shown on the page", "your run", lineterm=""
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
        with (
            contextlib.redirect_stdout(buffer),
            contextlib.redirect_stderr(STDERR),
            _reading_nothing(),
        ):
            exec(code, NAMESPACE)
    except BaseException as error:  # the reader's code may raise anything, even SystemExit
        return buffer.getvalue(), _trimmed(error, name)
    return buffer.getvalue(), None


def _is_code(line: str) -> bool:
    """True for a line that parses as a Python statement other than a bare value (`700`,
    `'abc'`, `[1, 2]` stay output: a reader who changes an expected value wrote them)."""
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return False
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
        try:
            ast.literal_eval(tree.body[0].value)
        except ValueError:
            return True
        return False
    return bool(tree.body)


def prompted(source: str, expected: str | None) -> tuple[str, list[str]]:
    """`source` with a `>>> ` prompt put before each line that the page does not show as
    output (`expected`, taken in order) and that is code (`_is_code`), and the lines so
    prompted: in a doctest block, the reader's new lines of code run, not taken for
    output."""
    shown = [line.strip() for line in _normalise(expected or "")]
    lines: list[str] = []
    added: list[str] = []
    at = 0
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith((">>>", "...")):
            lines.append(line)
        elif stripped in shown[at:]:
            at = shown.index(stripped, at) + 1
            lines.append(line)
        elif _is_code(stripped):
            lines.append(f">>> {stripped}")
            added.append(stripped)
        else:
            lines.append(line)
    return "\n".join(lines) + "\n", added


def _run_doctest(source: str, name: str) -> tuple[str, str | None, bool, list[str]]:
    """Run each `>>>` statement; the transcript of what it printed, whether all match,
    and a line for each statement whose output differs from the one shown under it."""
    transcript: list[str] = []
    matches = True
    differs: list[str] = []
    for number, example in enumerate(doctest.DocTestParser().get_examples(source)):
        where = f"{name}, statement {number + 1}"
        _register(example.source, where)
        buffer = io.StringIO()
        try:
            code = compile(example.source, where, "single", dont_inherit=True)
            with (
                contextlib.redirect_stdout(buffer),
                contextlib.redirect_stderr(STDERR),
                _reading_nothing(),
            ):
                exec(code, NAMESPACE)
        except BaseException as error:
            got = buffer.getvalue()
            only = "".join(traceback.format_exception_only(type(error), error))
            if example.exc_msg is None:
                transcript.append(got)
                return "".join(transcript), _trimmed(error, where), False, differs
            transcript.append("Traceback (most recent call last):\n    ...\n" + only)
            if not _CHECKER.check_output(example.exc_msg, only, 0):
                matches = False
                differs.append(f"statement {number + 1} raised {only.strip()!r}")
            continue
        got = buffer.getvalue()
        transcript.append(got)
        if example.exc_msg is not None or not _CHECKER.check_output(example.want, got, 0):
            matches = False
            shown = example.want.strip() or "nothing"
            differs.append(
                f"statement {number + 1} ({example.source.strip()[:60]}): the block shows"
                f" {shown!r} under it, it printed {got.strip() or 'nothing'!r}"
            )
    return "".join(transcript), None, matches, differs


def run_block(
    order: int,
    source: str,
    is_doctest: bool,
    expected: str | None,
    checker: bool = False,
    shipped: Sequence[str] = (),
) -> dict[str, Any]:
    """Run one block of the page in the shared namespace.

    Args:
        order: the block's place on the page (0-based), used to name it in tracebacks.
        source: the block's code (doctest text for a doctest).
        is_doctest: True to run `source` statement by statement, as a doctest.
        expected: what CI compared the block's output with, or None.
        checker: True for an exercise's checker block: its verdict is returned too.
        shipped: the codes the page ships for this exercise (the block's first attempt
            and the page's solutions): a run of one of them is not the reader's own.

    Returns:
        `{"output": str, "error": str | None, "match": bool | None, "diff": str,
        "stderr": str, "verdict": str | None, "checkers": list[str], "own": bool,
        "prompted": list[str]}`: `match` is None when CI compares nothing; `diff` is
        empty when it matches; `stderr` holds warnings, never compared; `verdict` is
        `"pass"` or `"needs_work"` as the checkers the block called returned it (None
        when it called none, or raised); `checkers` names them, one entry a call;
        `own` is False when the code is one the page ships; `prompted` holds the lines
        of a doctest block run as statements though they had no prompt.
    """
    name = f"<block {order + 1}>"
    STDERR.seek(0)
    STDERR.truncate()
    GIVEN.clear()
    added: list[str] = []
    differs: list[str] = []
    if is_doctest:
        source, added = prompted(source, expected)
        output, error, matches, differs = _run_doctest(source, name)
    else:
        output, error = _run_plain(source, name)
        matches = expected is None or _normalise(expected) == _normalise(output)
    match: bool | None = None if expected is None else (matches and error is None)
    diff = "" if match in (None, True) else _diff(expected or "", output)
    if match is False and not diff and error is None:
        diff = "\n".join(differs)
    given = list(GIVEN)
    return {
        "output": output,
        "error": error,
        "match": match,
        "diff": diff,
        "stderr": STDERR.getvalue(),
        "verdict": verdict(given) if checker and error is None else None,
        "checkers": [checker_name for checker_name, _ in given],
        "own": is_own(source, shipped),
        "prompted": added,
    }


report_checkers()

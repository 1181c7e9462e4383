"""How every code block on every page is checked (Sybil parsers and evaluators).

The stock Sybil Markdown parsers silently ignore ```` ```py ````, ```` ```pycon ````
and any fence with attributes (``title="x.py"``, ``hl_lines="2"``), and never
compare what a block prints with anything on the page. This module closes
those gaps:

- ``python``, ``py`` and ``pycon`` fences run, with or without attributes. A
  fence with a ``>>>`` line is a doctest (its output is compared); any other
  fence runs as plain Python, and what it prints is captured.
- An ``output`` fence right after a plain Python fence must equal what that
  block printed (trailing spaces and blank lines aside).
- A ``console`` fence shows ``$ command`` lines and their output; the command
  is run (only the project's own commands) and its output compared.
- ``<!-- skip: next "reason" -->`` skips the next block and must give a reason.
- Hidden setup goes in ``<!-- invisible-code-block: python ... -->`` comments.

Page shape -> examples: every fence becomes at least one Sybil example (a
doctest fence one per ``>>>`` statement); ``page_coverage`` counts both so the
guard test can prove that no fence escaped.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import shlex
import subprocess
import sys
import textwrap
import unittest
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
from sybil import Document, Example, Region, Sybil
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.evaluators.python import pad
from sybil.evaluators.skip import Skipper
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer, RawFencedCodeBlockLexer
from sybil.parsers.markdown.skip import SkipParser
from sybil.parsers.rest import DocTestParser as SourceDocTestParser

ROOT = Path(__file__).resolve().parent.parent

#: Fence languages and what checks them.
PYTHON_LANGUAGES = frozenset({"python", "py", "pycon"})
OUTPUT_LANGUAGE = "output"
CONSOLE_LANGUAGE = "console"
#: Programs a ``console`` block may run: the project's own commands.
CONSOLE_PROGRAMS = frozenset({"context-budget"})
#: Key in a page's namespace: python block start offset -> what it printed.
PRINTED = "__printed_by_block__"

# Info string: a language word, then optional attributes (title="...", hl_lines="...").
_INFO = re.compile(r"[ \t]*(?P<language>[\w+-]*)(?P<attributes>[^\n]*)$\n", re.MULTILINE)
_SKIP = re.compile(r"^[ \t]*<!--+\s*skip:?\s*(?P<arguments>[^\n]*?)\s*--+>", re.MULTILINE)


def _fences(document: Document) -> Iterable[Region]:
    """Every fenced block of a Markdown page, whatever its info string."""
    lexer = RawFencedCodeBlockLexer(
        info_pattern=_INFO, mapping={"language": "language", "source": "source"}
    )
    return lexer(document)


def _invisible_blocks(document: Document) -> Iterable[Region]:
    lexer = DirectiveInHTMLCommentLexer(directive=r"invisible-code-block", arguments=r"python")
    return lexer(document)


def _is_doctest(source: str) -> bool:
    return any(line.lstrip().startswith(">>>") for line in source.splitlines())


def _run_printing(example: Example) -> None:
    """Run a plain Python block, keeping what it printed for an ``output`` block."""
    __tracebackhide__ = True
    source = pad(example.parsed, example.line + example.parsed.line_offset)
    code = compile(source, example.path, "exec", dont_inherit=True)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(code, example.namespace)
    example.namespace.pop("__builtins__", None)
    example.namespace.setdefault(PRINTED, {})[example.region.start] = buffer.getvalue()


def _normalise(text: str) -> list[str]:
    # subtle: Sybil dedents a fence's content, so compare both sides dedented.
    return [line.rstrip() for line in textwrap.dedent(text).strip("\n").splitlines()]


def _compare(expected: str, actual: str, what: str) -> str | None:
    """None when equal, else a located, readable diff."""
    want, got = _normalise(expected), _normalise(actual)
    if want == got:
        return None
    diff = "\n".join(
        difflib.unified_diff(want, got, "shown on the page", f"{what} printed", lineterm="")
    )
    return f"the page shows output that {what} does not print:\n{diff}"


@dataclass(frozen=True)
class _OutputCheck:
    expected: str
    block_start: int  # offset of the python fence whose output this is


def _check_output(example: Example) -> str | None:
    check: _OutputCheck = example.parsed
    printed = example.namespace.get(PRINTED, {})
    if check.block_start not in printed:
        pytest.skip("the block this output belongs to did not run (skipped)")
    return _compare(check.expected, printed[check.block_start], "the code block above")


def _console_commands(source: str) -> list[tuple[str, list[str]]]:
    """``$ cmd`` lines with the output lines shown under each."""
    commands: list[tuple[str, list[str]]] = []
    for line in source.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"console block: output {line!r} before any '$ ' command")
    if not commands:
        raise ValueError("console block has no '$ ' command line")
    return commands


def _check_console(example: Example) -> str | None:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["COLUMNS"] = "100"
    for command, shown in _console_commands(example.parsed):
        argv = shlex.split(command)
        if argv[0] not in CONSOLE_PROGRAMS:
            return (
                f"console block runs {argv[0]!r}, which the checker does not run "
                f"(it runs {sorted(CONSOLE_PROGRAMS)}); put "
                '<!-- skip: next "why" --> before it'
            )
        result = subprocess.run(
            argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        problem = _compare("\n".join(shown), result.stdout + result.stderr, f"`{command}`")
        if problem:
            return problem
    return None


def _reject(message: str):  # type: ignore[no-untyped-def]
    def evaluate(example: Example) -> str:
        return message

    return evaluate


class PageParser:
    """Turns every fence and hidden block of a Markdown page into Sybil examples."""

    def __init__(self) -> None:
        self.doctests = DocTestStringParser(DocTestEvaluator())

    def __call__(self, document: Document) -> Iterable[Region]:
        previous_python: Region | None = None  # the plain python fence just before, if any
        blocks = [*_fences(document), *_invisible_blocks(document)]
        for region in sorted(blocks, key=lambda block: block.start):
            language = region.lexemes.get("language", "python")
            source = region.lexemes["source"]
            block_before = previous_python
            if block_before is not None and document.text[block_before.end : region.start].strip():
                block_before = None
            previous_python = None
            if language in PYTHON_LANGUAGES and (language == "pycon" or _is_doctest(source)):
                for doctest in self.doctests(source, document.path):
                    doctest.adjust(region, source)
                    yield doctest
                continue
            if language in PYTHON_LANGUAGES:
                region.parsed = source
                region.evaluator = _run_printing
                previous_python = region
            elif language == OUTPUT_LANGUAGE and block_before is not None:
                region.parsed = _OutputCheck(source, block_before.start)
                region.evaluator = _check_output
            elif language == OUTPUT_LANGUAGE:
                region.evaluator = _reject(
                    "an output block must directly follow a plain python block"
                )
            elif language == CONSOLE_LANGUAGE:
                region.parsed = source
                region.evaluator = _check_console
            else:
                region.evaluator = _reject(
                    f"a {language or 'plain'!r} fence is checked by nothing: use python, "
                    "pycon, output or console, or skip it with a reason"
                )
            yield region


class ReasonedSkipParser(SkipParser):
    """Sybil's skip directive, refusing a skip that gives no reason."""

    def __call__(self, document: Document) -> Iterable[Region]:
        for region in super().__call__(document):
            action, reason = region.parsed
            if action == "next" and not (reason and reason.strip("'\" ")):
                line = document.text.count("\n", 0, region.start) + 1
                raise ValueError(f"{document.path}, line {line}: a skip needs a reason")
            yield region


def page_sybil() -> Sybil:
    """The Sybil that checks Markdown pages (the site's and the README)."""
    return Sybil(
        parsers=[PageParser(), ReasonedSkipParser()],
        patterns=["*.md"],
        path=str(ROOT),
        name="pages",
    )


def docstring_sybil() -> Sybil:
    """The Sybil that runs the ``>>>`` examples in the package's docstrings."""
    return Sybil(
        parsers=[SourceDocTestParser()],
        patterns=["*.py"],
        path=str(ROOT / "src"),
        name="docstrings",
    )


@dataclass(frozen=True)
class PageCoverage:
    """What the checks of one page cover.

    Attributes:
        fences: fenced blocks found in the file.
        checked: fences covered by at least one Sybil example.
        examples: Sybil examples on the page (doctest statements counted one by one).
        skips: reasoned skip directives on the page.
        unchecked: line numbers (1-based) of fences that no example covers.
    """

    fences: int
    checked: int
    examples: int
    skips: int
    unchecked: tuple[int, ...]


def page_coverage(path: Path) -> PageCoverage:
    """Count a page's fences and the examples Sybil made of them."""
    document = page_sybil().parse(path)
    examples = [
        example for example in document if not isinstance(example.region.evaluator, Skipper)
    ]
    starts = sorted(example.region.start for example in examples)
    fences = list(_fences(document))
    unchecked = tuple(
        document.text.count("\n", 0, fence.start) + 1
        for fence in fences
        if not any(fence.start <= start < fence.end for start in starts)
    )
    return PageCoverage(
        fences=len(fences),
        checked=len(fences) - len(unchecked),
        examples=len(examples),
        skips=len(_SKIP.findall(document.text)),
        unchecked=unchecked,
    )


def run_page(path: Path) -> list[str]:
    """Evaluate every example of one page in order, as pytest would.

    Raises the first failure; returns the reasons of the examples that were skipped.
    """
    skipped = []
    for example in page_sybil().parse(path):
        try:
            example.evaluate()
        except (unittest.SkipTest, pytest.skip.Exception) as skip:
            skipped.append(str(skip))
    return skipped

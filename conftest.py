"""Sybil wiring: every code block in the pages, the README and the docstrings is a test.

The parsers live in docsite/pagecheck.py (the root is on sys.path: pytest's ``pythonpath``).
"""

from collections.abc import Callable, Generator
from pathlib import Path

import pluggy
import pytest
from profiles import register_profiles

from docsite.pagecheck import docstring_sybil, page_sybil

#: The Hypothesis profile every property runs under: ``ci`` unless HYPOTHESIS_PROFILE says
#: ``soak`` (tests/profiles.py). Loaded here, before any test module is imported.
HYPOTHESIS_PROFILE = register_profiles()

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
    """Refuse a browser test outside tests/browser/: `make browser` would never run it.

    Also mark every Hypothesis property ``property``, so ``make soak`` (``-m property``)
    finds them all without a list to keep up to date.
    """
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)
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


def _guard_counts() -> dict[str, dict[str, int]]:
    """This process's page-guard counts: page -> {field: count}, plain data for xdist."""
    try:
        from test_pages_guard import COVERAGE
    except ImportError:  # the guard test was not collected
        return {}
    return {
        page: {
            "fences": c.fences,
            "checked": c.checked,
            "examples": c.examples,
            "skips": c.skips,
            "hidden": c.hidden,
            "tables": c.tables,
            "unchecked": len(c.unchecked),
        }
        for page, c in COVERAGE.items()
    }


_GUARD = pytest.StashKey[dict[str, dict[str, int]]]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist, hand this worker's page-guard counts to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["pages_guard"] = _guard_counts()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """The controller side of pytest-xdist: gather every worker's page-guard counts."""
    counts = getattr(node, "workeroutput", {}).get("pages_guard", {})
    config: pytest.Config = getattr(node, "config")  # noqa: B009 (an xdist node)
    config.stash.setdefault(_GUARD, {}).update(counts)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """Report, over every page, how many fences there are and how many the checks ran."""
    pages: dict[str, dict[str, int]] = {}
    if _GUARD in config.stash:
        stored = config.stash[_GUARD]
        pages.update(stored)
    pages.update(_guard_counts())
    if not pages:
        return

    def total(field: str) -> int:
        return sum(page[field] for page in pages.values())

    terminalreporter.write_line(
        f"pages guard: {len(pages)} pages, {total('fences')} fences, "
        f"{total('checked')} checked, {total('unchecked')} unchecked, "
        f"{total('hidden')} hidden checks, {total('tables')} output tables, "
        f"{total('examples')} examples, {total('skips')} reasoned skips"
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

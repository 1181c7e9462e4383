"""What the build writes into ``site/``, read as files: no file that sets up the project's
tools, no id twice in one page, no link a keyboard stops on that says nothing, no
docstring example printed as quoted prose.

Like the link check, it reads the built site with no browser (a second), after
``make site``; each check fails on a small site written into a temporary folder.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import SITE_DIR, require_site

pytestmark = pytest.mark.browser

#: Folders whose files the theme, the in-page Python and the search bring, not the pages.
SERVED_WHOLE = ("assets/", "pyodide/", "search/")
#: The files that set up the project's tools, never a reader's: by name, and by kind.
TOOL_FILES = frozenset(
    {"ruff.toml", "pyproject.toml", "setup.cfg", "tox.ini", "conftest.py", "package.json"}
)
TOOL_SUFFIXES = (".toml", ".cfg", ".ini", ".pyc")
#: A link with an address and nothing in it: no text, no label, no picture. Tab stops on it
#: (unless its tabindex is -1) and a screen reader reads its address.
_EMPTY_LINK = re.compile(r"<a\b(?=[^>]*\shref=)(?![^>]*(?:tabindex=\"-1\"|aria-label=))[^>]*></a>")
_ID = re.compile(r"""<[a-zA-Z][^>]*?\sid="([^"]+)\"""")
#: A doctest line (``>>> code``) read as Markdown: three quotes, one in another, around
#: the code's words as a paragraph.
_DOCTEST_AS_QUOTE = re.compile(r"<blockquote>\s*<blockquote>\s*<blockquote>\s*<p>([^<]{0,60})")


def tool_files(site_dir: Path) -> list[str]:
    """Every file of `site_dir` (its path under it) that sets up one of the project's
    tools (a linter's settings, a test's set-up, compiled bytecode): a file of the
    repository the build copied along with the pages beside it."""
    return [
        relative
        for path in sorted(site_dir.rglob("*"))
        if path.is_file()
        and not (relative := path.relative_to(site_dir).as_posix()).startswith(SERVED_WHOLE)
        and (path.name in TOOL_FILES or path.suffix in TOOL_SUFFIXES or "__pycache__" in relative)
    ]


def repeated_ids(site_dir: Path) -> list[str]:
    """Each built page that gives one id to two elements, with the first such ids: a link
    to it lands on the first, and a script that looks it up finds only that one."""
    problems = []
    for path in sorted(site_dir.rglob("*.html")):
        if path.relative_to(site_dir).as_posix().startswith(SERVED_WHOLE):
            continue
        counts = Counter(_ID.findall(path.read_text(encoding="utf-8", errors="replace")))
        twice = [f"{name} ({count})" for name, count in counts.items() if count > 1]
        if twice:
            page = path.relative_to(site_dir).as_posix()
            problems.append(f"{page}: {len(twice)} ids repeated: {', '.join(twice[:4])}")
    return problems


def test_the_file_check_names_a_tool_s_settings(tmp_path: Path) -> None:
    (tmp_path / "figures" / "__pycache__").mkdir(parents=True)
    (tmp_path / "figures" / "plot.py").write_text("from _svg import WIDE\n")
    (tmp_path / "figures" / "__pycache__" / "plot.cpython-312.pyc").write_bytes(b"")
    (tmp_path / "figures" / "ruff.toml").write_text('extend = "../pyproject.toml"\n')
    (tmp_path / "pyodide").mkdir()
    (tmp_path / "pyodide" / "package.json").write_text("{}")
    assert tool_files(tmp_path) == [
        "figures/__pycache__/plot.cpython-312.pyc",
        "figures/ruff.toml",
    ]


def test_the_site_holds_no_tool_s_settings() -> None:
    """The linter's settings beside the pages (docs/ruff.toml, and one in each of three
    folders under it) were copied into the site and served to anyone who asked."""
    require_site()
    assert tool_files(SITE_DIR) == []


def test_the_id_check_names_a_page_with_an_id_twice(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "index.html").write_text(
        '<code><span id="__span-0-1">a</span></code><code><span id="__span-0-1">b</span></code>'
        '<h2 id="x">x</h2>'
    )
    (tmp_path / "index.html").write_text('<span id="__span-0-1"></span><h2 id="x"></h2>')
    assert repeated_ids(tmp_path) == ["api/index.html: 1 ids repeated: __span-0-1 (2)"]


def test_no_page_gives_one_id_to_two_elements() -> None:
    """An API page highlights each signature and docstring example on its own, and each
    began its lines' ids again at __span-0-1: the bills module's page gave that id to 30
    lines, so a link to a line of any of them landed on the first."""
    require_site()
    problems = repeated_ids(SITE_DIR)
    assert problems == [], "\n".join(problems)


def _found_in_pages(site_dir: Path, pattern: re.Pattern[str]) -> Iterator[tuple[str, list[str]]]:
    """Each built page (those served whole aside) where `pattern` finds something: its
    path in the site, and what it found."""
    for path in sorted(site_dir.rglob("*.html")):
        page = path.relative_to(site_dir).as_posix()
        if page.startswith(SERVED_WHOLE):
            continue
        found = pattern.findall(path.read_text(encoding="utf-8", errors="replace"))
        if found:
            yield page, found


def empty_links(site_dir: Path) -> list[str]:
    """Each built page with links a keyboard stops on that hold nothing, and how many."""
    return [
        f"{page}: {len(found)} empty links, the first {found[0][:80]}"
        for page, found in _found_in_pages(site_dir, _EMPTY_LINK)
    ]


def test_the_empty_link_check_names_a_line_s_anchor(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(
        '<code><span id="__span-0-1"><a id="__codelineno-0-1" name="__codelineno-0-1"'
        ' href="#__codelineno-0-1"></a>x = 1</span></code>'
        '<a href="#a" tabindex="-1"></a><a href="#b" aria-label="Note 1"></a><a href="#c">c</a>'
    )
    assert empty_links(tmp_path) == [
        'index.html: 1 empty links, the first <a id="__codelineno-0-1" name="__codelineno-0-1"'
        ' href="#__codelineno-0-1"></a>'
    ]


def test_no_page_has_a_link_that_says_nothing() -> None:
    """Each line of each code block that is not an editor began with an empty link to
    itself (``anchor_linenums``, with no line numbers shown): a reader going through a
    page with Tab stopped on each, as many times as the block has lines, and heard its
    address read out."""
    require_site()
    problems = empty_links(SITE_DIR)
    assert problems == [], "\n".join(problems)


def doctests_as_quotes(site_dir: Path) -> list[str]:
    """Each built page that shows a docstring's example (``>>>`` lines) as quoted prose,
    its words run together, and how many: the Markdown read each ``>`` as a quote."""
    return [
        f"{page}: {len(found)} examples as quotes, the first {' '.join(found[0].split())!r}"
        for page, found in _found_in_pages(site_dir, _DOCTEST_AS_QUOTE)
    ]


def test_the_example_check_names_a_doctest_shown_as_quotes(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "index.html").write_text(
        '<details class="example"><summary>Example</summary><blockquote>\n<blockquote>\n'
        "<blockquote>\n<p>from context_budget import read_bill\nlen(bill.calls)</p>"
        "</blockquote></blockquote></blockquote></details>"
    )
    (tmp_path / "index.html").write_text(
        "<blockquote><p>A quote.</p></blockquote><pre><code>&gt;&gt;&gt; 1 + 1\n2</code></pre>"
    )
    assert doctests_as_quotes(tmp_path) == [
        "api/index.html: 1 examples as quotes,"
        " the first 'from context_budget import read_bill len(bill.calls)'"
    ]


def test_every_docstring_example_shows_as_code() -> None:
    """A docstring whose examples stood under ``Example:`` (not ``Examples:``) had them
    read as Markdown: each ``>>>`` line a quote in a quote in a quote, the code run
    together into one paragraph, on fourteen API pages, the bills module's first."""
    require_site()
    problems = doctests_as_quotes(SITE_DIR)
    assert problems == [], "\n".join(problems)


def marked_search_titles(site_dir: Path) -> list[str]:
    """Each entry of the built search index whose title shows a heading's permalink mark
    (``¶``): the theme leaves its own permalinks out of a title, but not a mark it does
    not know as one."""
    index = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    return [f"{doc['location']}: {doc['title']!r}" for doc in index["docs"] if "¶" in doc["title"]]


def test_the_search_title_check_names_a_heading_with_its_mark(tmp_path: Path) -> None:
    (tmp_path / "search").mkdir()
    docs = [{"location": "a/#s", "title": "Sources¶"}, {"location": "b/", "title": "Sources"}]
    (tmp_path / "search" / "search_index.json").write_text(f'{{"docs": {json.dumps(docs)}}}')
    assert marked_search_titles(tmp_path) == ["a/#s: 'Sources¶'"]


def test_no_search_result_shows_a_permalink_mark() -> None:
    """A notebook's headings came into the search's results with their permalink's mark,
    "Sources¶", "3. Break 2: a layout that defeats the cache¶": a notebook draws its
    permalinks as ``anchor-link``, which the theme's search reads as a heading's words."""
    require_site()
    problems = marked_search_titles(SITE_DIR)
    assert problems == [], f"{len(problems)} titles, the first: " + "\n".join(problems[:5])

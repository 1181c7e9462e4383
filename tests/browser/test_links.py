"""Every link a reader can follow in the built site lands: on a file the site serves and,
where it names one, on an anchor of that page.

mkdocs checks the links of its Markdown pages (``validation`` in mkdocs.yml), but not
those of a notebook page, whose HTML mkdocs-jupyter writes, nor the HTML a hook adds.
This check reads the built pages themselves, as the server hands them to a browser.
Run after ``make site`` (it reads ``site/``, no browser needed, so it takes a second).
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from docsite.notebook_links import MARKDOWN_LINK

from .conftest import SITE_DIR, require_site

pytestmark = pytest.mark.browser

#: The built HTML files a reader opens as pages (Pyodide's own files are not pages).
NOT_PAGES = ("pyodide/",)
#: The elements whose attribute points at something a reader follows or the page loads.
LINKING = {"a": "href", "img": "src", "script": "src", "link": "href", "iframe": "src"}


class _Page(HTMLParser):
    """The ids of a page, and each link of it: ``(tag, target)``."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in ("id", "name") if tag == "a" else ("id",):
            if values.get(name):
                self.ids.add(str(values[name]))
        target = values.get(LINKING.get(tag, ""))
        if target is not None:
            self.links.append((tag, target))


@functools.cache
def _parsed(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def link_problems(site_dir: Path, page: str, target: str) -> str | None:
    """What is wrong with link `target` on built page `page` (its path under `site_dir`),
    or None when it lands; a link off the site (a scheme, a host) is not this check's."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith(("mailto:", "javascript:")):
        return None
    # the 404 page links from the site's root (the local build's site_url is served at /)
    base = "" if parts.path.startswith("/") else posixpath.dirname(page)
    where = posixpath.normpath(posixpath.join(base, unquote(parts.path).lstrip("/")))
    if not parts.path:
        where = page
    if where.startswith(".."):
        return f"{target!r}: outside the site"
    file = site_dir / where
    if file.is_dir() or parts.path.endswith("/"):
        file = file / "index.html"
    if not file.is_file():
        return f"{target!r}: no such file ({where})"
    anchor = unquote(parts.fragment)
    if anchor and file.suffix == ".html" and anchor not in _parsed(file).ids:
        return f"{target!r}: {file.relative_to(site_dir).as_posix()} has no such anchor"
    return None


def site_link_problems(site_dir: Path) -> list[str]:
    """Every link of every built page that does not land, named with its page."""
    problems = []
    for path in sorted(site_dir.rglob("*.html")):
        page = path.relative_to(site_dir).as_posix()
        if page.startswith(NOT_PAGES):
            continue
        for tag, target in _parsed(path).links:
            problem = link_problems(site_dir, page, target)
            if problem:
                problems.append(f"{page}: <{tag}> {problem}")
    return problems


def test_the_link_check_names_a_missing_page_and_a_missing_anchor(tmp_path: Path) -> None:
    """The check fails on the links a notebook page once carried: a chapter's Markdown
    source (``../budget/layers.md``, which no browser is served) and an anchor no
    heading has; it passes a page's own URL and an anchor that is there."""
    (tmp_path / "budget" / "layers").mkdir(parents=True)
    (tmp_path / "budget" / "layers" / "index.html").write_text('<h2 id="the-report">x</h2>')
    (tmp_path / "notebooks" / "unit").mkdir(parents=True)
    (tmp_path / "notebooks" / "unit" / "index.html").write_text(
        '<a href="../budget/layers.md">a</a> <a href="../../budget/layers/#nowhere">b</a>'
        ' <a href="../../budget/layers/#the-report">c</a> <a href="#top">d</a>'
        ' <a href="https://example.org/x.md">e</a> <h1 id="top">t</h1>'
    )
    assert site_link_problems(tmp_path) == [
        "notebooks/unit/index.html: <a> '../budget/layers.md': no such file"
        " (notebooks/budget/layers.md)",
        "notebooks/unit/index.html: <a> '../../budget/layers/#nowhere':"
        " budget/layers/index.html has no such anchor",
    ]


def test_every_link_of_the_site_lands() -> None:
    """Every link, image, script and frame of every built page points at a file the site
    serves, and at an anchor that page has: notebook pages included, whose links mkdocs
    does not check (Unit A's once pointed at ``../budget/layers.md``, a 404)."""
    require_site()
    problems = site_link_problems(SITE_DIR)
    assert problems == [], "\n".join(problems)


def download_link_problems(site_dir: Path) -> list[str]:
    """Every link of a downloaded notebook's Markdown that leads nowhere: one by a relative
    path (the notebook opens away from the site, in Jupyter or Colab), or one to the
    site's own address (its canonical URL) that does not land."""
    home = re.search(r'<link rel="canonical" href="([^"]*)"', (site_dir / "index.html").read_text())
    root = home.group(1) if home else ""
    problems = []
    for notebook in sorted(site_dir.glob("notebooks/*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for target in (match.group(2) for match in MARKDOWN_LINK.finditer(text)):
            name = notebook.name
            if target.startswith("#") or (urlsplit(target).scheme and not target.startswith(root)):
                continue
            if not urlsplit(target).scheme:
                problems.append(f"{name}: {target!r}: a path, which leads nowhere once downloaded")
            elif problem := link_problems(site_dir, "index.html", target.removeprefix(root)):
                problems.append(f"{name}: {problem}")
    return problems


def test_a_downloaded_notebook_s_links_lead_to_the_site() -> None:
    """A notebook downloaded from its page links the course's other pages by their
    addresses on the site: Unit A's linked them by their Markdown sources
    (``../budget/layers.md``), which lead nowhere in the reader's Jupyter."""
    require_site()
    problems = download_link_problems(SITE_DIR)
    assert problems == [], "\n".join(problems)

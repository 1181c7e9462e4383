"""mkdocs hook: a notebook page's links to other pages of the course land on those pages.

A lesson written as a notebook links a chapter as a Markdown page does, by its source
file (``[Layers](../budget/layers.md)``, ``[student edition](unit-a-student.py)``), so
that the link reads the same in the repository. mkdocs turns such a link into the
page's URL on a Markdown page; on a notebook page, whose HTML mkdocs-jupyter writes,
it is left as written, and a reader who follows it gets a 404 (the site serves
``budget/layers/``, never ``notebooks/budget/layers.md``).

This hook does for a notebook page what mkdocs does for a Markdown one: each relative
link whose path is a page of the site becomes that page's URL, relative to the
notebook's page, its anchor kept. A relative link to a ``.md`` or ``.py`` file the site
has no page for fails the build, as a broken link on a Markdown page does.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote, urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from docsite.notebook_download import is_lesson

#: An ``href`` attribute, quoted with double quotes (as nbconvert writes every link).
HREF = re.compile(r'(<a\s[^>]*?href=")([^"]*)(")')
#: The source files a link names where it means a page.
PAGE_SOURCES = (".md", ".py")


def page_url(target: str, page: Page, files: Files) -> str | None:
    """The URL (relative to `page`) of the page that link `target` names by its source
    file, its anchor kept; None for a link that names no source file (an anchor of this
    page, a URL with a scheme or host, a file the site serves as it is).

    Raises:
        PluginError: `target` names a ``.md`` or ``.py`` file that is no page of the site.
    """
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.endswith(PAGE_SOURCES):
        return None
    source = posixpath.normpath(
        posixpath.join(posixpath.dirname(page.file.src_uri), unquote(parts.path))
    )
    found = files.get_file_from_path(source)
    if found is None or not found.is_documentation_page():
        raise PluginError(
            f"{page.file.src_uri}: the link {target!r} names {source}, which is no page of the site"
        )
    url = found.url_relative_to(page.file)
    return f"{url}#{parts.fragment}" if parts.fragment else url


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Point a lesson notebook's links to other pages at those pages' URLs."""
    if not is_lesson(page.file.src_uri):
        return html

    def resolved(match: re.Match[str]) -> str:
        url = page_url(match.group(2), page, files)
        return match.group(0) if url is None else match.group(1) + url + match.group(3)

    return HREF.sub(resolved, html)

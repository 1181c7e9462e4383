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

The lesson's download (``notebook_download``) gets the same links as the pages'
addresses on the published site (``site_url``), since it is opened away from the site.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote, urljoin, urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

#: An ``href`` attribute, quoted with double quotes (as nbconvert writes every link).
HREF = re.compile(r'(<a\s[^>]*?href=")([^"]*)(")')
#: A Markdown link's target (``[text](target)``, a title after it left as it is).
MARKDOWN_LINK = re.compile(r"(\]\()([^)\s]+)((?:\s[^)]*)?\))")
#: The source files a link names where it means a page.
PAGE_SOURCES = (".md", ".py")


def linked_page(target: str, src_uri: str, files: Files) -> tuple[File, str] | None:
    """The page that link `target`, written in source file `src_uri`, names by its source
    file, and the link's anchor (``""`` when none); None for a link that names no source
    file (an anchor of the page itself, a URL with a scheme or host, a file the site
    serves as it is).

    Raises:
        PluginError: `target` names a ``.md`` or ``.py`` file that is no page of the site.
    """
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.endswith(PAGE_SOURCES):
        return None
    source = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), unquote(parts.path)))
    found = files.get_file_from_path(source)
    if found is None or not found.is_documentation_page():
        raise PluginError(
            f"{src_uri}: the link {target!r} names {source}, which is no page of the site"
        )
    return found, parts.fragment


def _with_anchor(url: str, anchor: str) -> str:
    return f"{url}#{anchor}" if anchor else url


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Point a notebook page's links to other pages at those pages' URLs (a Markdown
    page's links are mkdocs' own to resolve)."""
    if page.file.src_uri.endswith(".md"):
        return html

    def resolved(match: re.Match[str]) -> str:
        found = linked_page(match.group(2), page.file.src_uri, files)
        if found is None:
            return match.group(0)
        url = _with_anchor(found[0].url_relative_to(page.file), found[1])
        return match.group(1) + url + match.group(3)

    return HREF.sub(resolved, html)


def site_links(markdown: str, src_uri: str, files: Files, site_url: str) -> str:
    """`markdown` (a cell of lesson `src_uri`) with each link to another page of the course
    made that page's address on the published site (`site_url`): a downloaded notebook
    opens away from the site, where a link by source file leads nowhere."""

    def resolved(match: re.Match[str]) -> str:
        found = linked_page(match.group(2), src_uri, files)
        if found is None:
            return match.group(0)
        url = _with_anchor(urljoin(site_url, found[0].url), found[1])
        return match.group(1) + url + match.group(3)

    return MARKDOWN_LINK.sub(resolved, markdown)

"""mkdocs hook: a notebook page's table of contents keeps its headings' inline code.

mkdocs-jupyter builds a notebook's table of contents from a Markdown export in
which it deletes every inline code span first (``nbconvert2.nb2md`` strips
`` `...` `` so that code never passes for a heading). A heading such as
"Exercise 1: `clear_old_tool_results`" then shows as "Exercise 1:" in the
table of contents, and its link points at an id the page does not have.

This hook rebuilds the table of contents of every notebook page from the page's
rendered HTML instead: each Markdown heading that nbconvert drew (it carries an
``anchor-link``) becomes an entry with the heading's own id and its HTML, inline
code included.

It also gives each such anchor link the theme's class for a heading's permalink
(``headerlink``): the theme's search leaves a permalink's mark out of a section's
title, but read nbconvert's as the heading's last word, and listed a notebook's
sections as "Sources¶". The theme draws it as the chapters' permalinks.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, TableOfContents

HEADINGS = {f"h{level}": level for level in range(1, 7)}
ANCHOR_CLASS = "anchor-link"
#: The theme's class for a heading's permalink (its search leaves such a link's text out).
PERMALINK_CLASS = "headerlink"
#: The opening tag of nbconvert's anchor link, as it writes it.
_ANCHOR_TAG = re.compile(rf'<a class="{ANCHOR_CLASS}" ')


class _Headings(HTMLParser):
    """Collects ``(level, id, inner HTML)`` of every heading that has an anchor link."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: list[tuple[int, str, str]] = []
        self._level = 0
        self._id = ""
        self._parts: list[str] = []
        self._has_anchor = False
        self._skip_depth = 0  # > 0 inside the heading's anchor link

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in HEADINGS and not self._level:
            self._level, self._id = HEADINGS[tag], values.get("id") or ""
            self._parts, self._has_anchor, self._skip_depth = [], False, 0
            return
        if not self._level:
            return
        if self._skip_depth:
            self._skip_depth += 1
        elif tag == "a" and ANCHOR_CLASS in (values.get("class") or "").split():
            self._has_anchor, self._skip_depth = True, 1
        else:
            self._parts.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        if not self._level:
            return
        if tag in HEADINGS and HEADINGS[tag] == self._level and not self._skip_depth:
            if self._has_anchor and self._id:
                self.found.append((self._level, self._id, "".join(self._parts).strip()))
            self._level = 0
        elif self._skip_depth:
            self._skip_depth -= 1
        else:
            self._parts.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self._level and not self._skip_depth:
            self._parts.append(html.escape(data, quote=False))

    def handle_entityref(self, name: str) -> None:
        self.handle_data(html.unescape(f"&{name};"))

    def handle_charref(self, name: str) -> None:
        self.handle_data(html.unescape(f"&#{name};"))


def headings(content: str) -> list[tuple[int, str, str]]:
    """``(level, id, title HTML)`` of each notebook Markdown heading in ``content``."""
    parser = _Headings()
    parser.feed(content)
    parser.close()
    return parser.found


def nested_toc(found: list[tuple[int, str, str]]) -> TableOfContents:
    """Headings in page order, each nested under the last heading of a lower level."""
    roots: list[AnchorLink] = []
    stack: list[AnchorLink] = []
    for level, anchor_id, title in found:
        link = AnchorLink(title, anchor_id, level)
        while stack and stack[-1].level >= level:
            stack.pop()
        (stack[-1].children if stack else roots).append(link)
        stack.append(link)
    return TableOfContents(roots)


def is_notebook_page(page: Page) -> bool:
    src = page.file.src_uri
    return src.startswith("notebooks/") and src.endswith((".py", ".ipynb"))


def on_page_content(html_text: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace a notebook page's table of contents with one built from its headings, and
    make their anchor links the theme's permalinks."""
    if is_notebook_page(page):
        found = headings(html_text)
        if found:
            page.toc = nested_toc(found)
        html_text = _ANCHOR_TAG.sub(f'<a class="{PERMALINK_CLASS}" ', html_text)
    return html_text

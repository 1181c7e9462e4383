"""A page's links, code and header read on either colour scheme: 4.5:1 or more against
the page (WCAG 2, level AA), on a chapter and on a notebook lesson, whose download button
is a link too and whose plot's cell is code the browser does not run; and the phone's
menu. Run after ``make site``."""

from __future__ import annotations

import pytest

from .conftest import PHONE, OpenPage
from .reader_checks import CONTRAST_JS, MIN_CONTRAST, SCHEMES

pytestmark = pytest.mark.browser

#: A chapter (Markdown) and a notebook lesson, each with links to other pages and sites,
#: code in editors and code shown as it is (the lesson's plotting cell).
PAGES = ("budget/tokens/", "notebooks/the-bill/")
#: The links a reader reads: in the text, in code, the download button. The heading's
#: permalink (shown on hover) and Material's annotation markers are not text.
LINKS = "article a:not(.headerlink, .md-annotation__index), article a code"
#: The words of code: a static block's or a notebook cell's tokens, and an editor's.
CODE = "article :is(.highlight, .highlight-ipynb) code span:not(:has(span)), article .cm-line span"
#: The header's text: the site's name (the page's title beside it is shown on a scroll)
#: and the tabs of the course's parts.
HEADER = ".md-header__topic:first-child .md-ellipsis, .md-tabs__link"
#: The phone's menu, opened at the page's part: its title bar, and the part's title and
#: links (the menu's other levels wait off the screen).
_OPEN = ".md-nav--primary .md-nav__toggle:checked ~ .md-nav"
MENU = (
    f".md-nav--primary > .md-nav__title, {_OPEN} > .md-nav__title,"
    f" {_OPEN} > .md-nav__list > .md-nav__item > .md-nav__link"
)


@pytest.mark.parametrize("path", PAGES)
def test_links_and_code_read_on_either_scheme(open_page: OpenPage, path: str) -> None:
    """The light scheme drew links in Material's teal, 3.8:1 on white (3.5:1 in code),
    and the download button kept that teal on the dark scheme too (4.3:1). On the dark
    scheme the code's numbers were 4.45:1, and a notebook's static cell drew its code in
    JupyterLab's palette (comments 4.2:1 on the light scheme, operators 3.4:1 on the
    dark). White on the header's teal was 3.8:1 for the site's name and 2.6:1 for the
    tabs (70% white), and the phone menu's title of the part opened 4.4:1."""
    loaded = open_page(path)
    # the theme fades a link's colour in on a switch: measured mid-fade, it reads as neither
    loaded.page.add_style_tag(content="* { transition: none !important; }")
    faint: dict[str, list[tuple[str, float]]] = {}
    for scheme in SCHEMES:
        loaded.page.evaluate("name => { document.body.dataset.mdColorScheme = name; }", scheme)
        for what, selector in (("links", LINKS), ("code", CODE), ("header", HEADER)):
            found = loaded.page.evaluate(CONTRAST_JS, selector)
            assert len(found) >= 3, (what, found)  # the page's links and code were measured
            low = sorted(
                {
                    (item["text"][:40], item["ratio"])
                    for item in found
                    if item["ratio"] < MIN_CONTRAST
                }
            )
            if low:
                faint[f"{what}, {scheme}"] = low[:5]
    # the same load on a phone, its menu open
    loaded.page.set_viewport_size(PHONE)
    loaded.page.locator(".md-header label[for='__drawer']").click()
    for scheme in SCHEMES:
        loaded.page.evaluate("name => { document.body.dataset.mdColorScheme = name; }", scheme)
        found = loaded.page.evaluate(CONTRAST_JS, MENU)
        assert len(found) >= 3, found  # the title bar, the part's title, its pages
        low = sorted({(i["text"][:40], i["ratio"]) for i in found if i["ratio"] < MIN_CONTRAST})
        if low:
            faint[f"phone menu, {scheme}"] = low[:5]
    assert faint == {}, faint

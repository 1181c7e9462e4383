"""A page as a reader prints it, and as a reader who uses only the keyboard sees it.

Run after ``make site`` with ``make browser``.
"""

from __future__ import annotations

import pytest

from .conftest import OpenPage

pytestmark = pytest.mark.browser

#: A chapter with runnable blocks, static blocks and output blocks, and a notebook lesson
#: (its cells have Run buttons too, and the page a download button).
PRINTED = ("spending/cutting/", "notebooks/unit-a-student/")
#: `{what it is: how many}` of the page's controls drawn on the page: buttons, and a code
#: block's bar of them (copy, Run, Stop, Reset).
DRAWN_CONTROLS_JS = """() => {
  const found = {};
  for (const el of document.querySelectorAll('article button, article .md-code__nav')) {
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === 'hidden') continue;
    const name = (el.textContent.trim() || el.getAttribute('title') || el.className).slice(0, 30);
    const kind = `${el.tagName.toLowerCase()} ${name}`;
    found[kind] = (found[kind] || 0) + 1;
  }
  return found;
}"""


@pytest.mark.parametrize("path", PRINTED)
def test_a_printed_page_shows_the_code_without_its_buttons(open_page: OpenPage, path: str) -> None:
    """On paper every code block carried its buttons: a copy icon on each (33 on the
    cutting chapter) and a Run button on each runnable one (21), which do nothing there
    and sat over the first line of the code."""
    page = open_page(path).page
    assert page.evaluate(DRAWN_CONTROLS_JS), "the page drew no button on the screen"
    page.emulate_media(media="print")
    assert page.evaluate(DRAWN_CONTROLS_JS) == {}

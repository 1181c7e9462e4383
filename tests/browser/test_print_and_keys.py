"""A page as a reader prints it, and as a reader who uses only the keyboard sees it.

Run after ``make site`` with ``make browser``.
"""

from __future__ import annotations

import pytest

from .conftest import OpenPage
from .reader_checks import CONTRAST_JS, MIN_CONTRAST, SCHEMES

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
#: What a reader moves to with Tab on a chapter, and the element that draws its focus
#: ring: a link in the text, a link of the side menu, a Run button and a code editor
#: (its text area takes the focus; the editor around it draws the ring).
FOCUSED = {
    "link in the text": ("article p a[href]:not(.headerlink)", None),
    "menu link": (".md-sidebar--primary .md-nav__link[href]", None),
    "Run button": ("button.cb-run", None),
    "code editor": (".cm-content", ".cm-editor.cm-focused"),
}
#: The least contrast a focus ring may have against what lies beside it (WCAG 2.2,
#: non-text contrast and focus appearance).
MIN_RING_CONTRAST = 3.0
#: Give the first element `selector` matches that the reader can see the focus, as Tab
#: does, and mark it `data-cb-focused`; whether it shows that it has the focus.
FOCUS_JS = """(selector) => {
  for (const old of document.querySelectorAll('[data-cb-focused]')) delete old.dataset.cbFocused;
  const el = [...document.querySelectorAll(selector)].find((node) => node.checkVisibility());
  el.scrollIntoView({ block: 'center' });
  el.focus();
  el.dataset.cbFocused = '';
  return el.matches(':focus-visible');
}"""


def test_what_the_keyboard_is_on_shows_and_reads_on_either_scheme(open_page: OpenPage) -> None:
    """On the light scheme the focus ring was the theme's amber, 1.9:1 on white, and a
    focused link turned amber too: a keyboard reader lost track of where they were,
    and could hardly read the link they were on."""
    page = open_page(PRINTED[0]).page
    # the theme fades colours in on a focus or a switch: measured mid-fade, it reads as neither
    page.add_style_tag(content="* { transition: none !important; }")
    page.keyboard.press("Tab")  # the reader is on the keyboard: a focus shows its ring
    faint: dict[str, list[tuple[str, str, float]]] = {}
    for scheme in SCHEMES:
        page.evaluate("name => { document.body.dataset.mdColorScheme = name; }", scheme)
        for name, (target, ring) in FOCUSED.items():
            assert page.evaluate(FOCUS_JS, target), f"{name} ({target}) shows no focus"
            drawn = ring or "[data-cb-focused]"
            page.wait_for_selector(drawn)  # the editor marks its focus a frame later
            outline = page.evaluate(CONTRAST_JS, [drawn, "outlineColor", True])
            style = page.eval_on_selector(drawn, "el => getComputedStyle(el).outlineStyle")
            found = [("ring", outline[0]["ratio"], MIN_RING_CONTRAST)]
            if "link" in name:
                found.append(("text", page.evaluate(CONTRAST_JS, drawn)[0]["ratio"], MIN_CONTRAST))
            assert style != "none", f"{name} draws no focus ring on {scheme}"
            low = [(name, what, ratio) for what, ratio, least in found if ratio < least]
            if low:
                faint.setdefault(scheme, []).extend(low)
    assert faint == {}, faint


@pytest.mark.parametrize("path", PRINTED)
def test_a_printed_page_shows_the_code_without_its_buttons(open_page: OpenPage, path: str) -> None:
    """On paper every code block carried its buttons: a copy icon on each (33 on the
    cutting chapter) and a Run button on each runnable one (21), which do nothing there
    and sat over the first line of the code."""
    page = open_page(path).page
    assert page.evaluate(DRAWN_CONTROLS_JS), "the page drew no button on the screen"
    page.emulate_media(media="print")
    assert page.evaluate(DRAWN_CONTROLS_JS) == {}


def test_a_keyboard_reader_in_an_editor_is_shown_the_way_out(open_page: OpenPage) -> None:
    """Tab indents in a code editor, so a reader going through the page with Tab was held
    in its first editor: Escape then Tab leaves it, but only a screen reader said so (in
    the editor's label); on the screen nothing did."""
    page = open_page(PRINTED[0]).page
    block = page.locator("div[data-cb-order]").first
    page.keyboard.press("Tab")
    block.locator(".cm-content").focus()
    shown = block.inner_text()  # the text drawn on the screen, no label
    assert "Escape, then Tab" in shown, shown[-300:]
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('.cm-editor')")

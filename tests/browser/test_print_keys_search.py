"""A page as a reader prints it, as a reader who uses only the keyboard sees it, and
the search box as a reader types into it.

Run after ``make site`` with ``make browser``.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page

from .conftest import SITE_DIR, OpenPage, SitePages, require_site
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
#: What a reader moves to with Tab, on a chapter and on the page that bills the reader's
#: own session, and the element that draws its focus ring: a link in the text, a link of
#: the side menu, a Run button, a code editor (its text area takes the focus; the editor
#: around it draws the ring), the file chooser, and a notebook lesson's link, folded hint
#: and copy button.
FOCUSED = {
    "link in the text": (PRINTED[0], "article p a[href]:not(.headerlink)", None),
    "menu link": (PRINTED[0], ".md-sidebar--primary .md-nav__link[href]", None),
    "Run button": (PRINTED[0], "button.cb-run", None),
    "code editor": (PRINTED[0], ".cm-content", ".cm-editor.cm-focused"),
    "file chooser": ("measured/your-own-session/", "input[type=file]", None),
    "link in a notebook": (PRINTED[1], ".jupyter-wrapper a[href^='../']", None),
    "notebook's hint": (PRINTED[1], ".jupyter-wrapper summary", None),
    "notebook cell's copy button": (PRINTED[1], ".jupyter-wrapper button[data-md-type=copy]", None),
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
    and could hardly read the link they were on. The file chooser of the page that
    bills the reader's own session drew no ring at all, nor did anything in a notebook
    lesson (the notebook's stylesheet takes every focus ring off)."""
    faint: dict[str, list[tuple[str, str, float]]] = {}
    for path in dict.fromkeys(path for path, _, _ in FOCUSED.values()):
        page = open_page(path).page
        # the theme fades colours in on a focus or a switch: measured mid-fade, it reads
        # as neither
        page.add_style_tag(content="* { transition: none !important; }")
        page.keyboard.press("Tab")  # the reader is on the keyboard: a focus shows its ring
        for scheme in SCHEMES:
            page.evaluate("name => { document.body.dataset.mdColorScheme = name; }", scheme)
            for name, (on, target, ring) in FOCUSED.items():
                if on == path:
                    low = _focus_problems(page, name, target, ring)
                    faint.setdefault(scheme, []).extend(low)
    assert faint == {scheme: [] for scheme in SCHEMES}, faint


def _focus_problems(
    page: Page, name: str, target: str, ring: str | None
) -> list[tuple[str, str, float | str]]:
    """What is wrong with the focus of the first visible `target` on `page`, as
    (name, what, its contrast or "none" where no ring is drawn)."""
    assert page.evaluate(FOCUS_JS, target), f"{name} ({target}) shows no focus"
    drawn = ring or "[data-cb-focused]"
    page.wait_for_selector(drawn)  # the editor marks its focus a frame later
    if page.eval_on_selector(drawn, "el => getComputedStyle(el).outlineStyle") == "none":
        return [(name, "ring", "none")]
    outline = page.evaluate(CONTRAST_JS, [drawn, "outlineColor", True])
    found = [("ring", outline[0]["ratio"], MIN_RING_CONTRAST)]
    if "link" in name:
        found.append(("text", page.evaluate(CONTRAST_JS, drawn)[0]["ratio"], MIN_CONTRAST))
    return [(name, what, ratio) for what, ratio, least in found if ratio < least]


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
    the editor's label); on the screen nothing did. It leaves with text selected too."""
    page = open_page(PRINTED[0]).page
    block = page.locator("div[data-cb-order]").first
    page.keyboard.press("Tab")
    block.locator(".cm-content").focus()
    shown = block.inner_text()  # the text drawn on the screen, no label
    assert "Escape, then Tab" in shown, shown[-300:]
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('.cm-editor')")
    # with text selected too: the Escape that reduced the selection to its cursor did not
    # arm the way out, and the Tab after it indented the selected line
    code = block.locator(".cm-content")
    before = code.inner_text()
    code.focus()
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('.cm-editor')")
    assert code.inner_text() == before


def test_the_words_a_search_found_read_in_its_results(open_page: OpenPage) -> None:
    """The results of a search draw the words it found in the theme's amber, which on the
    light scheme's white was 1.9:1: the words the reader looked for were the faintest
    on the list."""
    loaded = open_page("", search=True)
    page = loaded.page
    page.add_style_tag(content="* { transition: none !important; }")
    page.keyboard.press("/")  # Material's key for the search box
    page.wait_for_function(
        "() => document.querySelector('.md-search-result__meta')?.textContent.trim()"
    )
    page.keyboard.type("compaction")  # key by key: Material searches on each key up
    page.locator(".md-search-result mark").first.wait_for()
    faint = {}
    for scheme in SCHEMES:
        page.evaluate("name => { document.body.dataset.mdColorScheme = name; }", scheme)
        found = page.evaluate(CONTRAST_JS, ".md-search-result mark")
        assert found, "no word marked in the results"
        low = sorted(
            {(item["text"], item["ratio"]) for item in found if item["ratio"] < MIN_CONTRAST}
        )
        if low:
            faint[scheme] = low[:3]
    assert faint == {}, faint


#: Run in the page with [the search index, queries]: the number of results Material's
#: search worker (the page's own) gives each query, asked as the search box asks it.
SEARCH_WORKER_JS = """async ([index, queries]) => {
  const workerUrl = JSON.parse(document.getElementById('__config').textContent).search;
  const worker = new Worker(workerUrl);
  const ask = (message) => new Promise((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.postMessage(message);
  });
  await ask({ type: 0, data: { config: index.config, docs: index.docs, options: {} } });
  const found = {};
  for (const query of queries) {
    found[query] = (await ask({ type: 2, data: query })).data.items.length;
  }
  worker.terminate();
  return found;
}"""
_TERM = re.compile(r"<dt>(.*?)</dt>", re.DOTALL)


_OPTION = re.compile(r"<code>(--[a-z][a-z-]*)")


def glossary_queries() -> list[str]:
    """What a reader types into the search box for each of the glossary's terms and each
    option of the command's page: every word of the term, from its third letter on,
    letter by letter, a hyphen too (the box searches at each key; fewer letters match
    most of the site, and take the longest to search)."""
    glossary = (SITE_DIR / "reference" / "glossary" / "index.html").read_text(encoding="utf-8")
    cli = (SITE_DIR / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    words = {
        word
        for term in _TERM.findall(glossary)
        for word in re.sub(r"<[^>]+>", " ", term).lower().split()
    } | set(_OPTION.findall(cli))
    return sorted({word[:end] for word in words for end in range(3, len(word) + 1)})


def test_every_word_of_the_glossary_finds_pages_at_every_key(open_page: OpenPage) -> None:
    """Searching "tool" found nothing, nor "tool result", nor anything typed from "t"
    on: the search library's set of indexed words took two of its nodes for one (its key
    for a node ran each letter into the next node's number, and the course's numbers and
    ids give it letters that are digits), so it expanded "tool" into a word the index did
    not hold and failed the query, and the box said "No matching documents". An option
    of the command ("--timezone") found nothing either (lunr refused the query), and a
    word typed up to its hyphen ("sub-") matched every page."""
    require_site()
    queries = glossary_queries()
    assert "tool" in queries, queries  # the glossary's "Orphaned tool result"
    hyphened = [query for query in queries if query.endswith("-") and query.strip("-")]
    assert {"sub-", "--timezone", "--compact-"} <= set(queries), queries
    index = json.loads((SITE_DIR / "search" / "search_index.json").read_text(encoding="utf-8"))
    # the page's own search gets no documents (the opener's default): this check's worker
    # is the only one that builds the index
    page = open_page("").page
    found = page.evaluate(SEARCH_WORKER_JS, [index, queries])
    assert [query for query in queries if not found[query]] == []
    # A word typed up to its hyphen ("sub-", "--compact-") finds what the word before it
    # finds: the theme searched "sub-*", whose lone "*" matched every page (slowly)
    assert [q for q in hyphened if found[q] != found[q.rstrip("-")]] == []


#: The elements of a page's text that Tab stops on, though they are no control: no link,
#: button, fold, field or editor (as "<tag>.<class>: <first words>").
IDLE_TAB_STOPS_JS = """() => {
  const controls = 'a[href], button, summary, input, select, textarea, [contenteditable]';
  return [...document.querySelectorAll('article [tabindex]')]
    .filter((el) => el.tabIndex >= 0 && el.checkVisibility() && !el.matches(controls))
    .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${el.textContent.trim()}`)
    .map((stop) => stop.slice(0, 60));
}"""


def test_tab_stops_only_on_what_a_reader_can_use(site_page: SitePages, notebook_path: str) -> None:
    """A notebook lesson made every cell's box and every output a Tab stop (nbconvert
    marks them so that a box that scrolls can be scrolled from the keyboard; here none
    scrolls): 47 stops that do nothing on Unit A's student edition, between the links,
    buttons and editors a reader tabs to."""
    idle = site_page(notebook_path).page.evaluate(IDLE_TAB_STOPS_JS)
    assert idle == [], f"{len(idle)} idle Tab stops, the first {idle[:3]}"


#: Run in the page with [the search index, queries]: the pages (their paths, without a
#: heading's anchor) of the first five results Material's search worker gives each query.
SEARCH_PAGES_JS = SEARCH_WORKER_JS.replace(
    "(await ask({ type: 2, data: query })).data.items.length",
    "(await ask({ type: 2, data: query })).data.items.slice(0, 5)"
    ".map((group) => group[0].location.split('#')[0])",
)
#: Paths and a call a reader copies from the course into the search box, each with a page
#: that gives it: where the sessions are kept, a function of the package.
PATH_QUERIES = {
    "tokens_read()": "reference/api/budget/",
    "~/.claude/projects": "measured/your-own-session/",
    "~/.claude/projects/": "measured/your-own-session/",
    ".claude/projects": "measured/your-own-session/",
    "~/.codex/sessions": "measured/your-own-session/",
    "~/.openhands/conversations/": "measured/your-own-session/",
}


def test_a_path_copied_from_a_page_finds_that_page(open_page: OpenPage) -> None:
    """Searching "~/.claude/projects", where Claude Code keeps its sessions, found nothing:
    the index kept "~/.claude/projects/" whole, as one word (it split words at spaces and
    hyphens only), so "claude" or ".claude/projects" was no word's start, and the search
    library read the "~" as an operator and refused the query; "tokens_read()" found
    nothing either (the index held "tokens_read(steps=10,")."""
    require_site()
    index = json.loads((SITE_DIR / "search" / "search_index.json").read_text(encoding="utf-8"))
    page = open_page("").page
    found = page.evaluate(SEARCH_PAGES_JS, [index, list(PATH_QUERIES)])
    assert {q: found[q] for q, where in PATH_QUERIES.items() if where not in found[q]} == {}

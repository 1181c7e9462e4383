"""The built site in a real browser: every page loads clean, offline, and works.

Run after ``make site`` with ``make browser`` (``pytest -m browser``).
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .conftest import (
    REPO,
    SITE_DIR,
    LoadedPage,
    OpenPage,
    SitePages,
    Watch,
    is_local,
    new_context,
    notebook_pages,
    page_params,
    require_site,
    settle,
)

pytestmark = pytest.mark.browser

# A word from chapter 1 that the search box must find, and the page it must lead to.
SEARCH_WORD = "quadratic"
CHAPTER_PATH = "budget/context-is-a-budget/"

# Material 9.8 draws `nav.md-code__nav > button.md-code__button[data-md-type=copy]`;
# older 9.x releases drew `button.md-clipboard`. Either one is a copy button.
COPY_BUTTON = "button.md-clipboard, button.md-code__button[data-md-type='copy']"
CONTENT = "article.md-content__inner"
NOTEBOOK_CONTENT = f"{CONTENT} .jupyter-wrapper"
CODE_IN_CONTENT = f"{CONTENT} pre:has(> code)"
#: `[place among the content's code blocks (0-based), its first 60 characters]` for each
#: `pre > code` of the content that holds no copy button.
MISSING_COPY_JS = """([blocks, copy]) => [...document.querySelectorAll(blocks)]
  .map((pre, index) => [index, pre])
  .filter(([, pre]) => pre.querySelector(copy) === null)
  .map(([index, pre]) => [index, pre.querySelector('code').innerText.slice(0, 60)])"""
PAYLOAD_TIMEOUT_S = 60
SEARCH_TIMEOUT_MS = 10_000
#: How many documents the search index a page fetches holds.
INDEX_DOCS_JS = "async () => (await (await fetch('search/search_index.json')).json()).docs.length"


def _report(loaded: LoadedPage, problems: list[str]) -> str:
    return f"{loaded.url}\n  " + "\n  ".join(problems)


def _page_with_code(path: str) -> bool:
    html = (SITE_DIR / path / "index.html").read_text(encoding="utf-8")
    return "<pre" in html


def test_page_loads_clean_and_offline(site_page: SitePages, page_path: str) -> None:
    """No console error, no page error, no failed request, nothing fetched off 127.0.0.1."""
    loaded = site_page(page_path)
    assert loaded.page.locator(CONTENT).count() == 1, f"{loaded.url}: no article content"
    problems = loaded.problems.lines()
    assert not problems, _report(loaded, problems)


def test_search_finds_a_chapter_word(open_page: OpenPage) -> None:
    """Material's search (its index loads over http) leads from a word to its chapter."""
    require_site()
    chapter_html = SITE_DIR / CHAPTER_PATH / "index.html"
    assert chapter_html.is_file(), f"the chapter {CHAPTER_PATH} was not built"
    assert SEARCH_WORD in chapter_html.read_text(encoding="utf-8").lower(), (
        f"{SEARCH_WORD!r} is not in {CHAPTER_PATH}: change SEARCH_WORD to a word the chapter has"
    )
    loaded = open_page("", search=True)
    page = loaded.page
    query = page.locator("input.md-search__input")
    meta = page.locator(".md-search-result__meta")
    query.click()
    # Material writes its placeholder into the result meta once the worker has the index.
    page.wait_for_function(
        "() => document.querySelector('.md-search-result__meta')?.textContent.trim()"
    )
    # Type key by key: Material runs the query on keyup, which fill() never sends.
    query.press_sequentially(SEARCH_WORD)
    target = loaded.url + CHAPTER_PATH
    # On a timeout, the assertion below says what the search showed instead.
    with contextlib.suppress(PlaywrightTimeoutError):
        page.locator(f".md-search-result__link[href^='{target}']").first.wait_for(
            state="attached", timeout=SEARCH_TIMEOUT_MS
        )
    hrefs = [
        href
        for link in page.locator(".md-search-result__link").all()
        if (href := link.get_attribute("href")) is not None
    ]
    assert any(href.split("#")[0].split("?")[0] == target for href in hrefs), (
        f"searching {SEARCH_WORD!r} gave no link to {target}"
        f" ({meta.inner_text().strip()!r}); results: {hrefs}"
    )
    problems = loaded.problems.lines()
    assert not problems, _report(loaded, problems)


def test_only_the_search_test_loads_the_whole_search_index(open_page: OpenPage) -> None:
    """A load gets the index with no documents (Material's worker then has nothing to
    build); ``search=True`` gets the built index whole."""
    require_site()
    index = json.loads((SITE_DIR / "search" / "search_index.json").read_text(encoding="utf-8"))
    plain = open_page("").page.evaluate(INDEX_DOCS_JS)
    searched = open_page("", search=True).page.evaluate(INDEX_DOCS_JS)
    assert (plain, searched) == (0, len(index["docs"])), (
        f"documents in the index a load fetched: {plain} by default, {searched} with"
        f" search=True; the built index has {len(index['docs'])}"
    )


def test_code_blocks_have_copy_buttons(site_page: SitePages, page_path: str) -> None:
    """Every ``pre > code`` in a Markdown page's content has Material's copy button."""
    if page_path == CHAPTER_PATH:
        assert _page_with_code(page_path), f"the chapter {CHAPTER_PATH} has no code block"
    if page_path.startswith("notebooks/") or not _page_with_code(page_path):
        return  # nothing to copy (a notebook's cells: `test_a_notebook_cell_has_one_copy_button`)
    loaded = site_page(page_path)
    # One evaluation a page, not two round trips a block: the same blocks, in order.
    missing = [
        f"block {index + 1}: {code!r}"
        for index, code in loaded.page.evaluate(MISSING_COPY_JS, [CODE_IN_CONTENT, COPY_BUTTON])
    ]
    assert not missing, _report(loaded, ["code blocks with no copy button:", *missing])


#: Per code cell of a notebook page: [Material's copy buttons, the copy controls on show].
CELL_COPY_CONTROLS_JS = """
() => [...document.querySelectorAll('.jupyter-wrapper .jp-CodeCell')].map(cell => [
  cell.querySelectorAll("button[data-md-type='copy']").length,
  [...cell.querySelectorAll("button[data-md-type='copy'], clipboard-copy")]
    .filter(control => control.getBoundingClientRect().width > 0).length,
])
"""


def test_a_notebook_cell_has_one_copy_button(site_page: SitePages, notebook_path: str) -> None:
    """Each code cell of a notebook page shows one copy button, Material's (the one that
    copies, `tests/browser/test_run_blocks.py`). The notebook plugin's own copy icon, which
    copies nothing without a script the site does not load, once showed beside it, the
    two icons drawn one over the other in the cell's corner."""
    loaded = site_page(notebook_path)
    cells = loaded.page.evaluate(CELL_COPY_CONTROLS_JS)
    assert cells, f"{notebook_path}: no code cell"
    assert [tuple(cell) for cell in cells] == [(1, 1)] * len(cells), cells


def test_the_copy_button_check_names_a_block_without_one(chromium: Browser) -> None:
    """On a page whose second code block lost its button, the check names that block only."""
    context = chromium.new_context()
    context.route("**/*", lambda route: route.abort())
    try:
        page = context.new_page()
        page.set_content(
            "<article class='md-content__inner'>"
            "<pre><nav class='md-code__nav'><button class='md-code__button'"
            " data-md-type='copy'></button></nav><code>print('kept')</code></pre>"
            "<pre><code>print('lost')</code></pre><pre>no code here</pre></article>"
        )
        found = page.evaluate(MISSING_COPY_JS, [CODE_IN_CONTENT, COPY_BUTTON])
    finally:
        context.close()
    assert found == [[1, "print('lost')"]]


def _plot_widths(page: Page) -> list[int]:
    """Widths of the notebook's plots: each inline SVG as laid out, each inline PNG once
    decoded (0 when it does not decode)."""
    widths = [
        round(box["width"])
        for box in page.locator(f"{NOTEBOOK_CONTENT} .jp-RenderedSVG svg").evaluate_all(
            "svgs => svgs.map(svg => svg.getBoundingClientRect().toJSON())"
        )
    ]
    images = page.locator(f"{NOTEBOOK_CONTENT} img[src^='data:image/png']")
    for index in range(images.count()):
        image = images.nth(index)
        image.scroll_into_view_if_needed()
        image.evaluate("img => img.decode().catch(() => undefined)")
        widths.append(int(image.evaluate("img => img.naturalWidth")))
    return widths


def test_notebook_shows_its_outputs(site_page: SitePages, notebook_path: str) -> None:
    """A notebook page shows text outputs, and every plot it carries has a width."""
    loaded = site_page(notebook_path)
    page = loaded.page
    assert page.locator(NOTEBOOK_CONTENT).count() > 0, f"{loaded.url}: no notebook content"
    outputs = page.locator(f"{NOTEBOOK_CONTENT} .jp-OutputArea-output").all_inner_texts()
    assert any(text.strip() for text in outputs), f"{loaded.url}: no output area has text"
    widths = _plot_widths(page)
    assert all(width > 0 for width in widths), f"{loaded.url}: a plot did not show: {widths}"


def test_a_notebook_shows_its_plot(open_page: OpenPage) -> None:
    """At least one notebook page draws a plot with a real width.

    It opens its own loads: it is no page's test, so it runs outside the page groups
    whose loads the read-only checks share."""
    require_site()
    pages = notebook_pages()
    assert pages, f"no notebook page under {SITE_DIR / 'notebooks'}"
    seen: dict[str, list[int]] = {}
    # One page at a time: the first that shows a plot ends the test, the others never load.
    for path in pages:
        seen[path] = _plot_widths(open_page(path).page)
        if any(width > 0 for width in seen[path]):
            return
    pytest.fail(f"no notebook page shows a plot (plot widths per page: {seen})")


def _first_code_cell(notebook: dict[str, Any]) -> str:
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            return "".join(source) if isinstance(source, list) else str(source)
    return ""


def _download(site_page: SitePages, notebook_path: str) -> tuple[str, dict[str, Any]]:
    """Follow the page's ``a.notebook-download`` link; return its URL and the notebook."""
    loaded = site_page(notebook_path)
    link = loaded.page.locator("a.notebook-download")
    assert link.count() > 0, f"{loaded.url}: no a.notebook-download link"
    href = str(link.first.evaluate("a => a.href"))
    assert is_local(href), f"{loaded.url}: the download leaves the site: {href}"
    response = loaded.page.request.get(href)
    assert response.status == 200, f"{href}: HTTP {response.status}"
    try:
        notebook = json.loads(response.text())
    except json.JSONDecodeError as error:
        pytest.fail(f"{href} is not JSON: {error}", pytrace=False)
    assert isinstance(notebook, dict), f"{href}: not a notebook object"
    return href, notebook


def test_notebook_download_carries_the_package(site_page: SitePages, notebook_path: str) -> None:
    """The download link gives an nbformat 4 notebook whose first code cell holds the package."""
    href, notebook = _download(site_page, notebook_path)
    assert notebook.get("nbformat") == 4, f"{href}: nbformat is {notebook.get('nbformat')!r}"
    first = _first_code_cell(notebook)
    assert first, f"{href}: no code cell"
    assert "context_budget" in first, (
        f"{href}: the first code cell does not carry the context_budget package:\n{first[:300]}"
    )


_PAYLOAD_CHECK = """
import context_budget, pathlib, sys
where = pathlib.Path(context_budget.__file__).resolve()
assert not where.is_relative_to(pathlib.Path(sys.argv[1])), f"imported from the repo: {where}"
print(context_budget.__version__)
"""


def test_notebook_payload_imports_in_bare_python(
    site_page: SitePages, notebook_path: str, tmp_path: Path
) -> None:
    """Run the first code cell in a bare interpreter (no site-packages, no repo on the path):
    afterwards ``import context_budget`` works, as it would on Colab with nothing installed."""
    href, notebook = _download(site_page, notebook_path)
    first = _first_code_cell(notebook)
    assert first, f"{href}: no code cell"
    magics = [line for line in first.splitlines() if re.match(r"\s*[%!]", line)]
    assert not magics, f"{href}: the first code cell needs IPython ({magics[0]!r}); keep it plain"
    # subtle: a file, not -c: the payload is larger than one argument may be.
    script = tmp_path / "first_cell.py"
    script.write_text(first + "\n" + _PAYLOAD_CHECK, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(script), str(REPO)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=PAYLOAD_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, (
        f"{href}: the first code cell does not make context_budget importable in a bare "
        f"Python:\n{result.stderr[-2000:]}"
    )


@pytest.mark.parametrize("after_ms", [0, 120])
def test_a_page_is_read_once_the_requests_it_sends_after_its_load_are_answered(
    chromium: Browser, site_url: str, after_ms: int
) -> None:
    """`settle` waits out a request the page sends once loaded (a script's fetch on a
    timer), as Playwright's networkidle did: reading the page at its load event alone
    would find the request not yet sent, and the checks would miss what it brings."""
    context = new_context(chromium)
    try:
        watch = Watch(context, search=False)
        answered: list[str] = []
        context.on("requestfinished", lambda request: answered.append(request.url))
        page = context.new_page()
        page.add_init_script(
            "addEventListener('load', () => setTimeout(() => "
            f"fetch('{site_url}sitemap.xml?late'), {after_ms}))"
        )
        page.goto(site_url, wait_until="commit")
        settle(page, watch)
        assert f"{site_url}sitemap.xml?late" in answered
        assert watch.in_flight() == []
    finally:
        context.close()


@pytest.mark.parametrize("notebook", page_params(["notebooks/the-bill/"]))
def test_the_bill_lab_s_axes_start_at_a_plain_zero(site_page: SitePages, notebook: str) -> None:
    """The lab's plot counts tokens in k and M from a plain 0: its axes once started at
    "0k" and "0M", a unit on nothing. (On the page's shared load, with its other checks.)"""
    loaded = site_page(notebook)
    ticks = loaded.page.locator(f"{NOTEBOOK_CONTENT} .jp-RenderedSVG svg text").all_text_contents()
    labels = [tick.strip() for tick in ticks]
    assert "0" in labels and "100k" in labels and "1M" in labels, labels
    assert not {"0k", "0M"} & set(labels), labels


#: An address the site has no page at, two folders under the root (an old link to a module).
MISSING_PAGE = "reference/api/no-such-module/"


def test_a_missing_page_leads_the_reader_back_to_the_course(
    chromium: Browser, site_url: str
) -> None:
    """The page a host serves at an address the site has no page at (the built 404.html)
    said "404 - Not found" and nothing else: no word of what happened, no link in the
    page. It says what happened and links the home page, which it reaches from an
    address in a folder too."""
    require_site()
    not_found = (SITE_DIR / "404.html").read_text(encoding="utf-8")
    context = new_context(chromium)
    try:
        watch = Watch(context, search=False)
        context.route(
            f"**/{MISSING_PAGE}",
            lambda route: route.fulfill(status=404, content_type="text/html", body=not_found),
        )
        page = context.new_page()
        page.goto(site_url + MISSING_PAGE)
        settle(page, watch)
        article = page.locator(CONTENT)
        said = article.locator("p").all_inner_texts()
        assert said, f"the page says only {article.inner_text()!r}"
        home = article.locator("a[href]", has_text="home page")
        assert home.count() == 1, said
        home.click()
        page.wait_for_load_state("load")
        assert page.url == site_url, page.url
        problems = [
            line for line in watch.problems.lines() if MISSING_PAGE not in line
        ]  # the missing page's own 404 is the point
        assert problems == []
    finally:
        context.close()

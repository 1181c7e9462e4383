"""The reader runs a page's Python blocks in the browser: outputs equal CI's, offline.

Every page with a block list (`site/pyodide/pages/*.json`, written by
`docsite/browser_run.py`) is opened and its runnable blocks are run in page order
by one click on the last one's Run button (a block's Run first runs the earlier
blocks it shares a namespace with, each shown with its own verdict): each must
print what CI checked (or, where CI compares nothing, run without an error); an
exercise's checker block must also show the verdict it printed (PASS, or
NEEDS_WORK and what is wrong), not a comparison; no result panel scrolls. Pyodide
starts once per page. The tests below click single buttons too, type into a block's
editor (CodeMirror) and check what Python received, and reload a page to find the
reader's edits and passed exercises kept. The fixture page
`tests/fixtures/browser/raises.md` is rendered by the test itself and served beside
the site, to show a traceback, a page that stays usable, and the Stop button; the
fixture `shifts.md`, a long editor of wrapped lines above a short block, shows a Run
button moving once the editor's lines are measured, and the click that waits for it.

Run after `make site` with `make browser` (`pytest -m browser`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
import warnings
from pathlib import Path
from typing import Any

import markdown
import pytest
from playwright.sync_api import Browser, Locator, Page, Route
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from benchmarks.browser_run import BOX, REVEAL, STILL_MS, aim, expected_status
from docsite.browser_run import annotate
from docsite.pagecheck import browser_blocks

from .conftest import (
    PHONE,
    POLL_MS,
    REPO,
    RUN_TIMEOUT_MS,
    SITE_DIR,
    LoadedPage,
    OpenPage,
    SitePages,
    Watch,
    new_context,
    wait_for_run_end,
)
from .reader_checks import CONTRAST_JS, MIN_CONTRAST, OVERFLOW_JS, RUN_PANELS, SCHEMES

pytestmark = pytest.mark.browser

PAGES_DIR = SITE_DIR / "pyodide" / "pages"
FIXTURES = REPO / "tests" / "fixtures" / "browser"
FIXTURE = FIXTURES / "raises.md"
#: Every runnable block of the longest page, run by one click, on a busy machine.
PAGE_RUN_TIMEOUT_MS = 300_000


#: True once a click on the block's Run has started something: its button turned into Stop,
#: or its panel shows (a quick block may be done before this is asked).
STARTED = """div => Boolean(div._cbPanel)
  || div.querySelector('button.cb-run').classList.contains('cb-stop')"""
#: How long a click may take to start a run on a busy machine (it starts at once).
START_TIMEOUT_MS = 30_000
#: What a reader would see of a Run button: its state, and the element at its middle.
WHAT_IS_THERE = """button => {
  const box = button.getBoundingClientRect();
  const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return {
    text: button.textContent, disabled: button.disabled, classes: button.className,
    box: [box.left, box.top, box.width, box.height].map(Math.round), scrollY: window.scrollY,
    atItsMiddle: top === button ? 'the button' : (top ? top.outerHTML.slice(0, 160) : null),
    busy: document.querySelectorAll('button.cb-stop').length,
  };
}"""


#: Scrolls a Run button to the middle of the window, as a click does, and gives its box
#: at once, before the page has drawn again: where a click aimed at that moment lands.
SCROLLED_BOX = """button => {
  button.scrollIntoView({block: 'center'});
  const box = button.getBoundingClientRect();
  return [box.left, box.top, box.width, box.height].map(Math.round);
}"""
#: What a click at a box's middle reaches: 'the button' (the one whose box it is) or the
#: start of the element that is there instead.
AT_MIDDLE = """([button, box]) => {
  const top = document.elementFromPoint(box[0] + box[2] / 2, box[1] + box[3] / 2);
  return top === button ? 'the button' : (top ? top.outerHTML.slice(0, 80) : null);
}"""


def _prepared(page: Page) -> None:
    """Wait until run-blocks.js has put its buttons and editors in: network idle does not
    promise it. It marks the page `data-cb-ready` when it is done (the editor's script
    loaded, or failed to)."""
    page.wait_for_function("() => document.documentElement.dataset.cbReady === 'true'")


def _in_each_editor(page: Page, script: str) -> dict[str, Any]:
    """What `script` finds in each runnable block's editor, scrolled into view first (an
    editor draws only the lines in view): `"editor <n>"` -> its answer, where it found any."""
    editors = page.locator("div[data-cb-order] .cb-editor")
    found = {}
    for k in range(editors.count()):
        editors.nth(k).scroll_into_view_if_needed()
        page.wait_for_timeout(50)
        answer = editors.nth(k).evaluate(script)
        if answer:
            found[f"editor {k + 1}"] = answer
    return found


def _editor_text(div: Locator) -> str:
    """What block `div`'s editor shows: the text of its lines, as the reader sees them."""
    return "\n".join(div.locator(".cm-line").all_text_contents())


def _block_lists() -> list[Path]:
    return sorted(PAGES_DIR.glob("*.json")) if PAGES_DIR.is_dir() else []


def _url_path(data: dict[str, Any]) -> str:
    page = str(data["page"]).removesuffix(".md").removesuffix(".py")  # .py: a notebook
    page = "" if page == "index" else page.removesuffix("/index")
    return f"{page}/" if page else ""


def _problems(loaded: LoadedPage) -> list[str]:
    return loaded.problems.lines()


def _run(page: Page, order: int, *, timeout: float = RUN_TIMEOUT_MS) -> dict[str, str]:
    """Click block `order`'s Run button once it stays put (`aim`), and wait for its verdict.

    A click that still starts nothing (the button never turns into Stop and no panel
    shows) is clicked again, once, with a warning that says what the button looked like
    and what was at its middle, so that a new cause is seen without failing the run."""
    div = page.locator(f"div[data-cb-order='{order}']")
    button = div.locator("button.cb-run")
    aim(page, button)
    button.click()
    try:
        page.wait_for_function(
            STARTED, arg=div.element_handle(), timeout=START_TIMEOUT_MS, polling=POLL_MS
        )
    except PlaywrightTimeoutError:
        seen = button.evaluate(WHAT_IS_THERE)
        warnings.warn(f"{page.url}: Run of block {order + 1} started nothing: {seen}", stacklevel=2)
        button.click()
    try:
        wait_for_run_end(page, div, timeout)
    except PlaywrightTimeoutError:
        shown = div.evaluate("div => div._cbPanel?.textContent ?? '(no panel)'")
        started = page.evaluate("() => document.documentElement.dataset.cbPython ?? 'not yet'")
        raise AssertionError(
            f"{page.url}: block {order + 1} gave no verdict in {timeout / 1000:.0f} s;"
            f" Python's start: {started}; its panel: {shown!r}"
        ) from None
    return _verdict(div)


def _verdict(div: Locator) -> dict[str, str]:
    return dict(
        div.evaluate(
            """div => ({
              status: div._cbPanel.dataset.status,
              match: div._cbPanel.dataset.match ?? '',
              text: div._cbPanel.textContent,
              output: div._cbPanel.querySelector('.cb-run-output')?.textContent ?? '',
              diff: div._cbPanel.querySelector('.cb-run-diff')?.textContent ?? '',
              traceback: div._cbPanel.querySelector('.cb-run-traceback')?.textContent ?? '',
            })"""
        )
    )


def _block_list_params() -> list[Any]:
    """One parameter per block list, in the ``xdist_group`` of its page's read-only checks
    (``page_params``), so its run shares their load."""
    lists = _block_lists()
    if not lists:
        return [pytest.param(PAGES_DIR / "<none>", id="<none>")]
    return [
        pytest.param(path, id=path.stem, marks=pytest.mark.xdist_group(name=f"page:{page}"))
        for path in lists
        for page in [_url_path(json.loads(path.read_text(encoding="utf-8")))]
    ]


@pytest.mark.changes_the_page
@pytest.mark.parametrize("block_list", _block_list_params())
def test_every_runnable_block_prints_what_ci_checked(
    site_page: SitePages, block_list: Path
) -> None:
    """Run each runnable block of the page in order, through its button, as a reader who
    came from other pages would (Python starts from their snapshot), on the load the
    page's read-only checks measured."""
    assert block_list.is_file(), f"no block list in {PAGES_DIR}: run make site"
    data = json.loads(block_list.read_text(encoding="utf-8"))
    loaded = site_page.to_change(_url_path(data), "running every block")
    page = loaded.page
    _prepared(page)
    visible = [block for block in data["blocks"] if not block["hidden"]]
    runnable = [block for block in visible if block["runnable"]]
    assert page.locator("button.cb-run").count() == len(runnable), loaded.url
    assert page.locator(".cb-run-why").count() == len(visible) - len(runnable), loaded.url
    failures = []
    if runnable:
        # One click runs them all: the last block's Run first runs every earlier block of
        # the page, in order, on the page's one Python, and gives each its own verdict.
        try:
            _run(page, runnable[-1]["order"], timeout=PAGE_RUN_TIMEOUT_MS)
        except AssertionError as gave_none:
            waiting = loaded.watch.in_flight() if loaded.watch else []
            said = [*_problems(loaded), f"requests still waiting for an answer: {waiting}"]
            raise AssertionError(f"{gave_none}\n  " + "\n  ".join(said)) from None
        # The reader's context was a fresh browser at its first page, which fetched the
        # snapshot the site serves; every page after takes it from the browser's cache.
        started = page.evaluate(PYTHON_START)
        if started != "snapshot":
            failures.append(f"Python started {started!r}, not from the site's snapshot")
    for block in runnable:
        verdict = _verdict(page.locator(f"div[data-cb-order='{block['order']}']"))
        wanted = expected_status(block)
        if block["checker"] and block["expected"] is not None and verdict["match"] != "true":
            wanted = "what CI checked"  # judged by its checker, and printing what CI checked
        if verdict["status"] != wanted:
            failures.append(f"block {block['order'] + 1} (line {block['line']}): {verdict['text']}")
    # every panel wraps what it shows: nothing the checker says is cut off
    failures += [f"panel scrolls: {line}" for line in page.evaluate(OVERFLOW_JS, RUN_PANELS)]
    assert not failures, f"{loaded.url}\n" + "\n".join(failures)
    problems = _problems(loaded)
    assert not problems, f"{loaded.url}\n  " + "\n  ".join(problems)


#: How long (ms) a settled page is watched for a request sent late, as Playwright's
#: ``networkidle`` watches a load: half a second with none.
IDLE_MS = 500


def test_nothing_loads_before_the_first_run(open_page: OpenPage) -> None:
    """A reader who only reads fetches no Pyodide file and no block list: every request
    of the page's load (its context is its own, and records them all from the start),
    and of half a second after it settled."""
    loaded = open_page("budget/context-is-a-budget/")
    _prepared(loaded.page)
    loaded.page.wait_for_timeout(IDLE_MS)
    assert loaded.page.locator("button.cb-run").count() > 0
    assert loaded.watch is not None  # every page an opener loads has its context's watch
    requested = loaded.watch.requested
    assert any(url.endswith("run-blocks.js") for url in requested), requested  # the load's
    assert not [url for url in requested if "/pyodide/" in url or "run-worker" in url], requested


def _fixture_html(fixture: Path) -> tuple[str, str]:
    """The fixture page rendered as the site renders fences, and its block list."""
    blocks = browser_blocks(fixture)
    text = fixture.read_text(encoding="utf-8")
    body = markdown.markdown(
        text,
        extensions=["pymdownx.superfences", "pymdownx.highlight"],
        extension_configs={"pymdownx.highlight": {"pygments_lang_class": True}},
    )
    fences = [line for line in text.splitlines() if line.startswith("```")]
    kinds = [fence.removeprefix("```") for fence in fences if fence != "```"]
    marked = annotate(body, kinds, blocks, f"../{fixture.stem}.json")
    assert marked is not None, "the fixture's fences do not line up with its code blocks"
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>fixture</title>"
        "<link rel='stylesheet' href='../../stylesheets/run-blocks.css'></head>"
        f"<body><article class='md-typeset'>{marked}</article>"
        "<script src='../../javascripts/run-blocks.js'></script></body></html>"
    )
    listing = {
        "page": fixture.name,
        "blocks": [{k: v for k, v in vars(b).items() if k not in {"start", "end"}} for b in blocks],
    }
    return page, json.dumps(listing)


def _open_fixture(page: Page, site_url: str, fixture: Path) -> None:
    """Serve `fixture` beside the site (at `__fixtures__/<its stem>/`) and open it."""
    html, listing = _fixture_html(fixture)

    def serve(route: Route) -> None:
        if route.request.url.endswith(".json"):
            route.fulfill(status=200, content_type="application/json", body=listing)
        else:
            route.fulfill(status=200, content_type="text/html", body=html)

    page.route(f"{site_url}__fixtures__/**", serve)
    page.goto(f"{site_url}__fixtures__/{fixture.stem}/", wait_until="networkidle")


def test_a_raising_block_shows_a_traceback_and_stop_ends_a_runaway(
    reader_page: OpenPage, site_url: str
) -> None:
    """On the fixture page, one load and the Pythons its Stops restart: a traceback, a
    page that stays usable, Stop on a runaway loop, a block asking for input or printing
    a lot, and a block that matched run again as a loop (once a test of its own, with a
    load and a Python of its own for one check)."""
    loaded = reader_page("")
    page = loaded.page
    _open_fixture(page, site_url, FIXTURE)
    raised = _run(page, 1)
    assert raised["status"] == "error", raised["text"]
    assert "First ran the earlier block 1" in raised["text"]
    traceback = raised["traceback"]
    assert traceback.startswith('Traceback (most recent call last):\n  File "<block 2>"')
    assert "KeyError: 'missing'" in traceback and "cb_runner" not in traceback
    assert _run(page, 2)["status"] == "match"
    # A runaway loop: Stop ends it, Python restarts, and the page still runs blocks.
    runaway = page.locator("div[data-cb-order='3'] button.cb-run")
    runaway.click()
    page.wait_for_function(
        "() => document.querySelector(\"div[data-cb-order='3'] button.cb-stop\")",
        polling=POLL_MS,
    )
    page.wait_for_timeout(1_500)
    assert runaway.get_attribute("aria-label") == "Stop this block (restarts Python)"
    runaway.click()
    stopped = _verdict(page.locator("div[data-cb-order='3']"))
    assert stopped["status"] == "stopped", stopped["text"]
    again = _run(page, 2)
    assert again["status"] == "match", again["text"]
    assert "First ran the earlier blocks 1, 2" in again["text"]
    # A later block does not run the stopped loop on its way, and says so.
    after = _run(page, 4)
    assert after["status"] == "match", after["text"]
    assert "Did not run block 4, which you stopped" in after["text"], after["text"]
    # Run on the stopped block itself runs it again (the reader asked), and says so.
    runaway.click()
    page.wait_for_function(
        "() => /which you stopped last time/.test("
        "document.querySelector(\"div[data-cb-order='3']\")._cbPanel.textContent)",
        polling=POLL_MS,
    )
    runaway.click()
    assert _verdict(page.locator("div[data-cb-order='3']"))["status"] == "stopped"
    _asking_and_printing_a_lot(page)
    _a_block_run_again_says_it_runs(page)
    assert not _problems(loaded), _problems(loaded)


#: What the runner's `input()` says (docs/javascripts/cb_runner.py, `NoInput`).
NO_INPUT = "a block run in this page has no input to read: put the value in the code instead"
#: The height (px) of a block's panel that prints 2,000 lines, of each of its boxes, and
#: the height of what each box holds.
PANEL_HEIGHTS = """div => ({
  panel: div._cbPanel.getBoundingClientRect().height,
  boxes: [...div._cbPanel.querySelectorAll('pre')].map(pre => [pre.clientHeight, pre.scrollHeight]),
  labels: [...div._cbPanel.querySelectorAll('.cb-run-label')].map(label => label.textContent),
})"""


def _asking_and_printing_a_lot(page: Page) -> None:
    """A block that asks for input is told it has none, in Python's words: Pyodide's own
    standard input raised "OSError: [Errno 29] I/O error" and logged a JavaScript error.
    A block that prints 2,000 lines shows them in a box that scrolls, under a screen
    high (the page went on for 80,000 px: its diff against the one line the page shows,
    then the output, each line again), and its warning on standard error under a label
    that says what it is."""
    asked = _run(page, 5)
    assert asked["status"] == "error", asked["text"]
    said = asked["traceback"].rstrip().splitlines()[-1]
    assert said == f"EOFError: {NO_INPUT}", asked["traceback"]
    assert "Errno" not in asked["traceback"]
    printed = _run(page, 6)
    assert printed["status"] == "mismatch", printed["text"][:200]  # the page shows one line
    assert printed["output"].startswith("line 0\nline 1\n"), printed["output"][:40]
    heights = page.locator("div[data-cb-order='6']").evaluate(PANEL_HEIGHTS)
    window = page.viewport_size["height"] if page.viewport_size else 900
    assert heights["panel"] < window, heights
    assert [room < held for room, held in heights["boxes"]] == [True, True, False], heights
    assert heights["labels"] == ["Output", "Printed to standard error (not compared)"], heights


def _a_block_run_again_says_it_runs(page: Page) -> None:
    """A block whose last run matched CI (block 3 of the fixture), changed into a loop and
    run again with Python up: while the loop runs, its panel says the block is running,
    not the match its old code earned (the panel kept that verdict beside the Stop button
    for as long as the loop ran), and Stop ends it."""
    div = page.locator("div[data-cb-order='2']")
    assert _verdict(div)["status"] == "match"
    div.locator(".cm-line").first.click()
    page.keyboard.press("Control+a")
    page.keyboard.type("while True: pass")
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "div => div.querySelector('button.cb-stop')", arg=div.element_handle(), polling=POLL_MS
    )
    page.wait_for_timeout(1_000)
    running = _verdict(div)
    assert running["status"] == "busy", running
    assert "Matches" not in running["text"] and "Running block 3" in running["text"], running
    div.locator("button.cb-run").click()
    assert _verdict(div)["status"] == "stopped"


def test_a_run_button_is_clicked_where_it_stays_after_the_editors_above_are_measured(
    reader_page: OpenPage, site_url: str
) -> None:
    """A long editor of wrapped lines grows when its lines come into view, and the Run
    button below it moves: a click aimed at once would reach the code above; `aim`
    waits until the button stays put, and a click there reaches the button."""
    loaded = reader_page("")
    page = loaded.page
    _open_fixture(page, site_url, FIXTURES / "shifts.md")
    _prepared(page)
    button = page.locator("div[data-cb-order='1'] button.cb-run")
    at_once = button.evaluate(SCROLLED_BOX)
    aimed = aim(page, button)
    assert aimed[1] > at_once[1], f"the fixture's editor did not grow: {at_once} {aimed}"
    page.wait_for_timeout(4 * STILL_MS)
    assert button.evaluate(BOX) == aimed, "the button moved after aim said it stayed put"
    handle = button.element_handle()
    assert page.evaluate(AT_MIDDLE, [handle, aimed]) == "the button"
    assert page.evaluate(AT_MIDDLE, [handle, at_once]) != "the button"
    assert not _problems(loaded), _problems(loaded)


#: How the page's Python started, as run-blocks.js marks it once the worker is ready.
PYTHON_START = "() => document.documentElement.dataset.cbPython ?? null"


def snapshot_url(site_url: str) -> str:
    """Where the site serves Python's snapshot for this build (docsite/browser_run.py):
    named by the SHA-256 of the package zip, the runner and Pyodide's lock file, in that
    order, as run-worker.mjs computes it."""
    parts = ("pyodide/context_budget.zip", "javascripts/cb_runner.py", "pyodide/pyodide-lock.json")
    digest = hashlib.sha256(b"".join((SITE_DIR / part).read_bytes() for part in parts))
    return f"{site_url}pyodide/snapshot-{digest.hexdigest()}.gz"


def _first_block(loaded: LoadedPage) -> tuple[str | None, dict[str, str]]:
    """Run the page's first block: (how its Python started, the block's verdict)."""
    _prepared(loaded.page)
    verdict = _run(loaded.page, 0)
    assert not _problems(loaded), _problems(loaded)
    return loaded.page.evaluate(PYTHON_START), verdict


def test_python_starts_cold_when_the_sites_snapshot_is_not_one(
    chromium: Browser, site_url: str
) -> None:
    """A fresh browser whose snapshot is not a snapshot (gzipped junk) starts Python cold
    and prints what CI checked. (That Python starts from the snapshot the site serves,
    fetched by a fresh browser and then from its cache, is asserted on every page whose
    blocks `test_every_runnable_block_prints_what_ci_checked` runs.)"""
    assert Path(snapshot_url(site_url).removeprefix(site_url)).name in {
        path.name for path in (SITE_DIR / "pyodide").glob("snapshot-*.gz")
    }, "the build serves no snapshot under the key run-worker.mjs computes"
    junk = gzip.compress(bytes(4096))
    context = new_context(chromium)
    context.route(snapshot_url(site_url), lambda route: route.fulfill(status=200, body=junk))
    opener = OpenPage(chromium, site_url, set(), reader=Watch(context, search=False))
    try:
        started, verdict = _first_block(opener(FIRST_PAGE))
        assert (started, verdict["status"]) == ("cold", "match"), (started, verdict["text"])
    finally:
        opener.close()
        context.close()


#: Records the source of every block the page hands to its Python worker, in order.
RECORD_SENT = """
(() => {
  window.__cbSent = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === "run") window.__cbSent.push([message.order, message.source]);
    return post.call(this, message, ...rest);
  };
})();
"""
FIRST_PAGE = "budget/context-is-a-budget/"


def test_the_editor_runs_what_it_shows_and_keeps_the_readers_work(reader_page: OpenPage) -> None:
    """One page, one Python: typing into the middle of a block runs what the editor
    shows; that edit and a passed exercise then survive a reload until the reader
    resets and clears them."""
    loaded = reader_page(FIRST_PAGE, init_script=RECORD_SENT)
    page = loaded.page
    _prepared(page)
    original = _editor_text(page.locator("div[data-cb-order='0']"))
    edited = _type_in_the_middle_and_run(page)
    _keep_the_work_until_reset(page, loaded.url, original, edited)
    _an_edit_too_large_to_keep(page)
    assert not _problems(loaded), _problems(loaded)


def _an_edit_too_large_to_keep(page: Page) -> None:
    """An edit larger than the browser's storage takes (6 MB pasted into the first block)
    is said not to be kept, and no older edit of the block is kept in its place; Reset
    still shows and puts the page's code back. The storage's refusal was thrown at every
    key (an error in the console), and stopped the Reset button from showing."""
    first = page.locator("div[data-cb-order='0']")
    first.locator(".cm-line").first.click()
    page.keyboard.press("End")
    page.keyboard.type("  # kept")
    key = "cb-edit:/" + FIRST_PAGE + ":0"
    assert page.evaluate("key => localStorage.getItem(key) !== null", key)
    first.evaluate("div => div._cbEditor.replace('x = 1\\n# ' + 'a'.repeat(6_000_000))")
    unkept = page.locator(".cb-unkept")
    assert unkept.count() == 1 and "not kept" in unkept.inner_text()
    assert page.evaluate("key => localStorage.getItem(key)", key) is None
    reset = first.locator("button.cb-reset")
    assert reset.is_visible()
    reset.click()
    assert unkept.count() == 0 and not reset.is_visible()


def _type_in_the_middle_and_run(page: Page) -> str:
    """Click line 3 of the first block, End, Enter, type a call, run (Shift+Enter twice,
    quickly: one run): Python receives exactly the text the editor shows, and the verdict
    says the output no longer matches CI's, with the diff. Tab inserts spaces at the
    cursor, or indents the selected lines, and keeps the focus; undo takes it back.
    Returns the edited text."""
    div = page.locator("div[data-cb-order='0']")
    lines = _editor_text(div).split("\n")
    div.locator(".cm-line").nth(2).click()
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    page.keyboard.type("print('hello')")
    shown = _editor_text(div)
    assert shown.split("\n") == [*lines[:3], "print('hello')", *lines[3:]]
    # a second Shift+Enter while Python starts does not stop the first run
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    wait_for_run_end(page, div)
    verdict = _verdict(div)
    assert verdict["traceback"] == "", verdict["traceback"]
    assert verdict["output"].startswith("hello\ncall 1:"), verdict["output"]
    assert verdict["status"] == "mismatch" and "\n+hello\n" in verdict["diff"], verdict["text"]
    assert page.evaluate("() => window.__cbSent") == [[0, shown]]
    # Tab in the middle of a line puts spaces at the cursor (to the next multiple of four)
    # and leaves the line's start alone; the focus stays in the editor.
    page.keyboard.press("Home")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Tab")
    assert _editor_text(div).split("\n")[3] == "print   ('hello')"
    assert page.evaluate("() => document.activeElement.classList.contains('cm-content')")
    page.keyboard.press("Control+z")
    # with lines selected, Tab indents each of them
    page.keyboard.press("Shift+ArrowUp")
    page.keyboard.press("Tab")
    assert _editor_text(div).split("\n")[2:4] == [f"    {lines[2]}", "    print('hello')"]
    page.keyboard.press("Control+z")
    assert _editor_text(div) == shown
    return shown


def _typed_run(page: Page, order: int, code: str) -> dict[str, str]:
    """Put `code` in block `order`'s editor and run it."""
    div = page.locator(f"div[data-cb-order='{order}']")
    div.evaluate("(div, text) => div._cbEditor.replace(text)", code)
    return _run(page, order)


#: How long a change of colour scheme takes to settle: Material's buttons fade their
#: colour over 250 ms, and a colour read sooner is the old scheme's.
SCHEME_CHANGE_MS = 400


def _low_contrast(page: Page, selector: str) -> list[str]:
    """The elements matching `selector` whose text is under `MIN_CONTRAST` against its
    background, in either of Material's colour schemes (the scheme is put back)."""
    scheme = page.evaluate("() => document.body.dataset.mdColorScheme")
    low = []
    try:
        for name in SCHEMES:
            page.evaluate("name => { document.body.dataset.mdColorScheme = name; }", name)
            page.wait_for_timeout(SCHEME_CHANGE_MS)  # Material's colours change over 250 ms
            low += [
                f"{name}: {found['text']!r} at {found['ratio']}:1"
                for found in page.evaluate(CONTRAST_JS, selector)
                if found["ratio"] < MIN_CONTRAST
            ]
    finally:
        page.evaluate("name => { document.body.dataset.mdColorScheme = name; }", scheme)
    return low


def _nav_marked(page: Page) -> list[str]:
    """The pages the navigation marks as holding an exercise the reader passed."""
    return sorted(
        set(
            page.evaluate(
                "() => [...document.querySelectorAll('a.md-nav__link.cb-nav-passed')]"
                ".map(a => new URL(a.href).pathname)"
            )
        )
    )


def _reload(page: Page) -> None:
    page.reload(wait_until="networkidle")
    _prepared(page)


def _keep_the_work_until_reset(page: Page, url: str, original: str, edited: str) -> None:
    """The first block's edit is kept per page and block, and Reset forgets it; the
    exercise whose solution passes stays marked on its page and in the navigation until
    the reader clears it."""
    data = json.loads((PAGES_DIR / "budget--context-is-a-budget.json").read_text("utf-8"))
    solution = next(b for b in data["blocks"] if b["checker"] and b["solution"])
    exercise = next(b for b in data["blocks"] if b["checker"] and not b["solution"])
    first = page.locator("div[data-cb-order='0']")
    marks = page.locator(".cb-pass-mark")
    # the page's own solution passes, and says so, but is no pass of the reader's
    shipped = _run(page, solution["order"])
    assert shipped["status"] == "solution" and "own solution" in shipped["text"], shipped
    # nor is a block that prints PASS without a checker
    forged = _typed_run(page, exercise["order"], 'print("PASS")')
    assert forged["status"] == "noverdict" and "No checker ran" in forged["text"], forged
    assert marks.count() == 0 and _nav_marked(page) == []
    # the reader's own answer, judged by the checker, is
    mine = exercise["source"].replace("24 * 1_875 + 2_000", "610_500")
    assert _typed_run(page, exercise["order"], mine)["status"] == "pass"
    assert marks.count() == 1 and _nav_marked(page) == [f"/{FIRST_PAGE}"]
    _reload(page)
    assert _editor_text(first) == edited and first.locator("button.cb-reset").is_visible()
    # Reset, Clear and Run read without a hover, in both colour schemes (a touch screen
    # has no hover: Reset was Material's faint copy-button grey, 1.17:1)
    assert _low_contrast(page, "button.cb-reset, button.cb-pass-clear, button.cb-run") == []
    assert marks.count() == 1 and _nav_marked(page) == [f"/{FIRST_PAGE}"]
    # kept per page and block: the next page's first block is its own
    page.goto(url.replace(FIRST_PAGE, "budget/tokens/"), wait_until="networkidle")
    _prepared(page)
    assert page.locator("div.cb-edited").count() == 0 and marks.count() == 0
    assert _nav_marked(page) == [f"/{FIRST_PAGE}"]
    page.go_back(wait_until="networkidle")
    _prepared(page)
    first.locator("button.cb-reset").click()
    assert _editor_text(first) == original
    clear = marks.locator("button.cb-pass-clear")
    clear.evaluate(REVEAL)
    clear.click()
    assert marks.count() == 0 and _nav_marked(page) == []
    _reload(page)
    assert _editor_text(first) == original and not first.locator("button.cb-reset").is_visible()
    assert marks.count() == 0 and _nav_marked(page) == []


def test_an_annotated_block_keeps_its_source_whenever_material_marks_it(
    chromium: Browser, site_url: str
) -> None:
    """Material turns a `# (1)!` comment into an annotation whose tooltip holds the note.

    The editor once read the code after that had happened, when it happened first, and
    Python got the note's words (a SyntaxError). Here run-blocks.js is held back until
    Material has marked the annotations, so the editor is always made second. The editor
    then shows each note as a button that opens it (it once showed the raw comment, and
    no note could be opened), while Python still gets the comment.
    """
    context = chromium.new_context()
    try:
        page = context.new_page()

        def late(route: Route) -> None:
            response = route.fetch()
            time.sleep(1.5)
            route.fulfill(response=response)

        page.route("**/javascripts/run-blocks.js", late)
        page.goto(site_url + "budget/context-is-a-budget/", wait_until="networkidle")
        block = page.locator("div[data-cb-order='1']")
        block.locator(".cb-editor").wait_for()
        assert block.locator("pre > code .md-annotation").count() > 0  # Material came first
        text = block.evaluate("div => div._cbEditor.text()")
        assert "last = calls[-1]  # (1)!" in text.splitlines(), text
        assert "loop_steps returned above" not in text
        # the editor shows each note as the page did: a button that opens its text
        content = block.locator(".cm-content")
        notes = content.locator("button.cb-note__button")
        assert notes.all_text_contents() == ["1", "2"]
        assert "(1)!" not in content.inner_text() and "(2)!" not in content.inner_text()
        first = content.locator(".cb-note__text").first
        assert not first.is_visible()
        notes.first.click()
        assert first.is_visible() and "is the list loop_steps returned above" in first.inner_text()
    finally:
        context.close()


#: The lines of code in `root` (an editor's, or a static block's) that wrap with a row
#: starting left of where the line's code starts, after its indentation, or too close to
#: it to be told from a line of its own: each as [the line's first 40 characters, how far
#: (px) the row's start is from the code's].
UNINDENTED_ROWS = """root => {
  const found = [];
  for (const line of root.querySelectorAll('.cm-line, pre > code > span[id^="__span-"]')) {
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    const rows = new Map();  // a row's top (px) -> its leftmost character's left (px)
    let width = 0;
    let code = null;  // the left (px) of the line's first character that is not a space
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (!box || box.width === 0) continue;
        width = width || box.width;
        if (code === null && !/\\s/.test(node.data[i])) code = box.left;
        const top = Math.round(box.top);
        rows.set(top, Math.min(rows.get(top) ?? Infinity, box.left));
      }
    }
    const [, ...more] = [...rows.values()];
    for (const left of more) {
      if (left < code + 2 * width) found.push([line.textContent.slice(0, 40), left - code]);
    }
  }
  return found;
}"""


@pytest.mark.xdist_group(name="page:measured/speed/")
def test_a_wrapped_line_of_code_is_indented_under_its_start_in_the_editor_too(
    site_page: SitePages,
) -> None:
    """On a phone, a line of code too long for its block wraps, and its continuation is
    indented under its code, past its own indentation, as the site's stylesheet promises
    for code: in the editors of the blocks a reader can run as in the static blocks. The
    editors once started each continuation at the line's own start (on *How fast is it*,
    `if` alone at the end of a line, and the condition it tests under it, read as a line
    of its own); then 4 columns in from it, left of the code of an indented line, so
    that `if`'s condition, 8 columns in, stood 4 columns in, as if a block had ended."""
    loaded = site_page("measured/speed/", PHONE)
    page = loaded.page
    _prepared(page)
    assert page.locator("div[data-cb-order] .cb-editor").count() > 0
    found = _in_each_editor(page, UNINDENTED_ROWS)
    statics = page.locator("article .highlight:not(.language-output) pre:has(> code:not([hidden]))")
    for k in range(statics.count()):
        rows = statics.nth(k).evaluate(UNINDENTED_ROWS)
        if rows:
            found[f"static block {k + 1}"] = rows
    assert found == {}, found
    assert not _problems(loaded), _problems(loaded)


def test_a_line_the_reader_adds_is_the_only_difference_the_diff_shows(
    reader_page: OpenPage,
) -> None:
    """The notebook cell of *Plot the bill* prints three lines that each start with a
    space (`f"{n:3} steps"`). The reader adds a line at the end of the cell, with the
    keyboard, and runs it: the diff shows that line added and nothing else. It once
    showed each of the three lines removed and put back with a space more, as each
    side lost its own common indentation and the reader's line left the run none. The
    verdict reads as the page's text, under the cell's output."""
    loaded = reader_page("notebooks/the-bill/")
    page = loaded.page
    _prepared(page)
    div = page.locator("div[data-cb-order='2']")
    aim(page, div.locator("button.cb-run"))
    div.locator(".cm-line").first.click()
    page.keyboard.press("Control+End")
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Tab")  # the new line starts indented, inside the call
    page.keyboard.press("Shift+Tab")
    page.keyboard.type("print('done')")
    assert _editor_text(div).endswith("\n    )\nprint('done')"), _editor_text(div)
    page.keyboard.press("Shift+Enter")
    wait_for_run_end(page, div)
    verdict = _verdict(div)
    assert verdict["status"] == "mismatch", verdict["text"]
    changed = [line for line in verdict["diff"].splitlines()[2:] if line[:1] in "+-"]
    assert changed == ["+done"], verdict["diff"]
    # what the run says is in the page's words, under the cell: it once sat in the cell's
    # code box, and said "Does not match" in the code's font and colour
    assert div.evaluate(PANEL_IN_THE_TEXT) == [], div.evaluate(PANEL_IN_THE_TEXT)
    assert not _problems(loaded), _problems(loaded)


#: What in block `div`'s result panel does not read as the page's text: the panel inside
#: a notebook cell's code box, its words in another font or colour than a paragraph's.
PANEL_IN_THE_TEXT = """div => {
  const panel = div._cbPanel;
  const text = getComputedStyle(document.querySelector('article p'));
  const words = getComputedStyle(panel.querySelector('.cb-run-verdict'));
  const found = [];
  if (panel.closest('.jp-Cell-inputWrapper')) found.push("in the cell's code box");
  if (words.fontFamily !== text.fontFamily) found.push(`font ${words.fontFamily}`);
  if (words.color !== text.color) found.push(`colour ${words.color}, not ${text.color}`);
  return found;
}"""


#: The lines in `root` (an editor's, or a notebook cell's static code) whose indentation
#: sits alone on their first row, the code starting a row further down: each line's first
#: 40 characters.
INDENT_ALONE = """root => {
  const found = [];
  for (const line of root.querySelectorAll('.cm-line, pre > code > span.cb-line')) {
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    let top = null;
    search: for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (!box) continue;
        top = top ?? box.top;
        if (node.data[i].trim()) {
          if (box.top > top + 2) found.push(line.textContent.trim().slice(0, 40));
          break search;
        }
      }
    }
  }
  return found;
}"""


@pytest.mark.xdist_group(name="page:measured/read-your-own-bill/")
def test_an_indented_line_keeps_its_indentation_on_its_first_row(site_page: SitePages) -> None:
    """On a phone, an indented line whose first word does not fit after its indentation
    still starts there: the indentation says where the line belongs. In the editors of
    *Read your own bill* at 390 px, five such lines once wrapped right after their
    indentation, leaving it alone on a row and the code on the next, 4ch in."""
    loaded = site_page("measured/read-your-own-bill/", PHONE)
    page = loaded.page
    _prepared(page)
    found = _in_each_editor(page, INDENT_ALONE)
    assert found == {}, found
    assert not _problems(loaded), _problems(loaded)


#: The source lines of `code` (a static block's code) that wrap onto a row starting
#: where a line of its own would start: each as [its first 40 characters, how far (px)
#: the row starts right of the line's start]. Read character by character, whatever
#: the markup: a source line ends at each newline.
FLUSH_CONTINUATIONS = """code => {
  const found = [];
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  let line = null;  // {start, top, text}: the current source line's first box, its row
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const char = node.data[i];
      if (char === '\\n') { line = null; continue; }
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const box = range.getClientRects()[0];
      if (!box || box.width === 0) continue;
      if (line === null) { line = { start: box.left, top: box.top, text: '', width: box.width }; }
      line.text += char;
      if (box.top > line.top + 2) {  // the first character of a row the line wraps onto
        if (box.left < line.start + 2 * line.width) {
          found.push([line.text.trim().slice(0, 40), Math.round(box.left - line.start)]);
        }
        line.top = box.top;
      }
    }
  }
  return found;
}"""


@pytest.mark.xdist_group(name="page:notebooks/the-bill/")
def test_a_notebook_s_static_cell_indents_its_wrapped_lines(site_page: SitePages) -> None:
    """A notebook cell that cannot run in the browser (the plot of *Plot the bill*) stays
    static code, and on a phone its long lines wrap as every other block's do: each
    continuation indented under its line. Its continuations once started at the left
    edge, as lines of their own (`set_major_formatter(thousands` alone at the margin)."""
    loaded = site_page("notebooks/the-bill/", PHONE)
    page = loaded.page
    _prepared(page)
    static = page.locator(".jupyter-wrapper .highlight-ipynb[data-cb-why] pre > code")
    assert static.count() == 1
    found = static.first.evaluate(FLUSH_CONTINUATIONS)
    assert found == [], found
    # and a line whose first word does not fit after its indentation starts there all
    # the same (`left.yaxis.set_major_formatter(thousands)` once left it alone on a row)
    alone = static.first.locator("..").evaluate(INDENT_ALONE)
    assert alone == [], alone
    assert not _problems(loaded), _problems(loaded)


@pytest.mark.parametrize(
    ("path", "block"),
    [
        ("measured/speed/", "div.highlight[data-cb-why]"),
        ("notebooks/the-bill/", ".highlight-ipynb[data-cb-why]"),
        ("notebooks/the-bill/", ".highlight-ipynb[data-cb-order='0']"),
    ],
    ids=["a page's static block", "a notebook's static cell", "a notebook's cell it runs"],
)
def test_the_copy_button_copies_the_code_as_it_is(
    open_page: OpenPage, site_url: str, path: str, block: str
) -> None:
    """Material's copy button on a block the page does not run copies its code line for
    line. It once copied a blank line after each line (it reads the text as laid out,
    and the stylesheet lays each line out as a block of its own so that its wrap is
    indented), and nothing at all from a notebook's cell, whose id (`cell-id=...`)
    made the button's selector for its code invalid."""
    loaded = open_page(path)
    page = loaded.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url)
    _prepared(page)
    div = page.locator(block).first
    code = str(div.locator("pre > code").evaluate("code => code.textContent")).rstrip()
    div.locator("button[data-md-type='copy'], button.md-clipboard").first.evaluate(
        "button => button.click()"
    )
    copied = ""
    for _ in range(50):  # the copy lands in the clipboard a moment after the click
        copied = page.evaluate("() => navigator.clipboard.readText()")
        if copied:
            break
        page.wait_for_timeout(POLL_MS)
    assert copied == code, f"{len(copied.splitlines())} lines copied of {len(code.splitlines())}"
    assert not _problems(loaded), _problems(loaded)


#: In `div` (a runnable `>>>` block), the editor's characters that do not take the colour
#: the page gives the same part of the block's static code (kept, hidden, under the
#: editor): a prompt (`>>> `, `... `) that of the static prompt, each character of an
#: output line that of the static output. As [line, character, its colour, the colour
#: wanted], at most 5.
DOCTEST_COLOURS = """div => {
  const colour = (el) => getComputedStyle(el).color;
  const want = {
    prompt: colour(div.querySelector('pre > code .gp')),
    output: colour(div.querySelector('pre > code .go')),
  };
  const wrong = [];
  let after = false;  // the line before was a prompt's or its continuation's
  for (const line of div.querySelectorAll('.cb-editor .cm-line')) {
    const text = line.textContent;
    const prompted = /^(>>>|\\.\\.\\.)( |$)/.test(text) && (after || text.startsWith('>>>'));
    after = prompted;
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    let at = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const char of node.data) {
        const kind = prompted ? (at < 4 ? 'prompt' : null) : text.trim() ? 'output' : null;
        const found = colour(node.parentElement);
        const off = kind && char.trim() && found !== want[kind];
        if (off) wrong.push([text, char, found, want[kind]]);
        at += 1;
      }
    }
  }
  return wrong.slice(0, 5);
}"""


def test_a_doctest_s_prompts_and_output_look_in_the_editor_as_on_the_page(
    open_page: OpenPage,
) -> None:
    """A `>>>` block a reader can run is an editor of Python: it coloured a doctest's
    output as code (the numbers of `(3.77, 3.99)` in the colour of numbers, a name in that
    of names) and its `>>>` as an operator, where the page's static blocks show both in
    the plain grey of a prompt and its output."""
    loaded = open_page(FIRST_PAGE)
    page = loaded.page
    _prepared(page)
    blocks = page.locator("div.language-pycon[data-cb-order]:has(.cb-editor)")
    assert blocks.count() > 0
    found = {}
    for k in range(blocks.count()):
        blocks.nth(k).scroll_into_view_if_needed()
        wrong = blocks.nth(k).evaluate(DOCTEST_COLOURS)
        if wrong:
            found[f"block {k + 1}"] = wrong
    assert found == {}, found

"""Serve the built ``site/`` on 127.0.0.1 and open it in Debian's headless Chromium.

One HTTP server and one browser for the whole session. Tests open pages through
``open_page``: each page in a fresh browser context (its own cookies, storage
and cache, closed when the test ends), loaded until the network settles, with
every console error, page error, failed request and request that leaves
127.0.0.1 recorded (requests off the site are blocked, so nothing waits on a
network that is not there). A load gets the site's search index with its
configuration but no documents, unless the test asks for search
(``open_page(path, search=True)``): Material's search worker builds its index on
every load, a third of the page's time in the browser, and only the search test
reads it.

Each worker has one reader's context (``reader_context``): its pages open there
one after another, as one reader's tabs, so they find what earlier pages left in
the browser's cache (Pyodide and Python's start-up snapshot, see
``docs/javascripts/run-worker.mjs``) and start Python without downloading them
again. What a page kept in local storage (edits, passed exercises) is cleared when
it closes, so every page opens as it does for a reader who never typed in it.

A check that only reads a page (measures it, reads its text, fetches one of its
links) takes it from ``site_page``: each page is loaded once per worker, at 1280 px
in the reader's context, and every such check of that page runs on that one load; a
check at 390 px narrows the window of the same load. The tests of one page are one ``xdist_group``
(``page_params``), so ``--dist loadgroup`` sends them to one worker. The check
that runs every block of a page takes the same load, after the page's read-only
checks (it is marked ``changes_the_page``, and such tests are collected last). A
check that types, reloads or runs single blocks opens its page with
``reader_page`` (in the reader's context) or ``open_page`` (a fresh context).

The pages are found by walking ``site/**/index.html``, never listed by hand, so
a new chapter or notebook is checked the moment it is built.
``BROWSER_SITE_DIR`` points the check at another built site (a scratch copy
used to show that each check can fail); by default it is this project's
``site/``.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Locator,
    Page,
    Playwright,
    Request,
    Response,
    Route,
    ViewportSize,
    sync_playwright,
)

REPO = Path(__file__).resolve().parents[2]
SITE_DIR = Path(os.environ.get("BROWSER_SITE_DIR", REPO / "site")).resolve()
# Debian's headless shell (package chromium-headless-shell): the same engine as the
# chromium package, without the desktop browser around it, at about half its CPU time a load.
CHROMIUM = "/usr/bin/chromium-headless-shell"
# Flags that work on these machines: without the background-networking ones
# Chromium keeps trying to reach Google's hosts through a closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL_HOST = "127.0.0.1"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}
NAVIGATION_TIMEOUT_MS = 30_000
#: How often (ms) a wait that can last seconds, such as a block's run, asks the page again.
#: Playwright's default asks on every animation frame, which keeps Chromium drawing 60
#: frames a second for the whole wait: on a chapter page, 0.75 s of CPU in a 10 s wait
#: against 0.27 s asked every 100 ms (both measured on this machine).
POLL_MS = 100
#: Pyodide's start (about 5-9 s here) plus a chapter's blocks, on a busy machine.
RUN_TIMEOUT_MS = 120_000
#: True once block ``div``'s run is over: its panel shows a verdict and its button says
#: Run again (run-blocks.js gives the button class ``cb-stop`` while the block runs).
RUN_DONE = """div => {
  const button = div.querySelector('button.cb-run');
  const panel = div._cbPanel;
  return panel && panel.dataset.status !== 'busy' && !button.classList.contains('cb-stop');
}"""
ACTION_TIMEOUT_MS = 15_000
#: How long (ms) a loaded page's requests must all have been answered before it is read,
#: and how often that is asked (`settle`). A page's timer fires late while the gate's
#: two stages share the cores: at 150 ms, a fetch a page sent 120 ms after its load was
#: once sent after the wait had ended (`test_a_page_is_read_once_the_requests_...`).
QUIET_MS = 200
QUIET_POLL_MS = 50
#: True once run-blocks.js has put in the page's Run buttons and code editors (every page
#: of the site loads it; a page without it, such as a 404, has nothing to wait for).
READY = (
    "() => document.documentElement.dataset.cbReady === 'true'"
    " || !document.querySelector('script[src*=\"run-blocks.js\"]')"
)
#: Where Material's search worker fetches the index from, under any page.
SEARCH_INDEX = "**/search/search_index.json"
MISSING_SITE = f"site/ is missing: run make site (looked for {SITE_DIR / 'index.html'})"
NO_PAGES = "<no pages found>"
#: Resolves once the page has drawn two frames: after a change of the window's size, the
#: resize observers (the editors', Material's) have run, and the layout is the new width's.
LAID_OUT = (
    "() => new Promise(done =>"
    " requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
)

PAGES_CHECKED = pytest.StashKey[set[str]]()
#: The shared loads a process made, one "<path> <width>" each (a worker's, or all of them).
SHARED_LOADS = pytest.StashKey[list[str]]()


def site_pages(site_dir: Path = SITE_DIR) -> list[str]:
    """URL paths of every built page, relative to the site root ('' is the home page)."""
    pages: list[str] = []
    for index in sorted(site_dir.rglob("index.html")):
        relative = index.parent.relative_to(site_dir).as_posix()
        pages.append("" if relative == "." else f"{relative}/")
    return pages


def notebook_pages(site_dir: Path = SITE_DIR) -> list[str]:
    """The pages built from notebooks: everything under ``notebooks/``."""
    return [page for page in site_pages(site_dir) if page.startswith("notebooks/")]


#: How the site build marks a drawn figure (docsite/figures.py).
FIGURE_MARK = 'class="cb-figure"'


def figure_pages(site_dir: Path = SITE_DIR) -> list[str]:
    """The pages whose built HTML holds a drawn figure: those whose layout at 390 px
    the figure checks measure (a page without one has nothing there that the width moves)."""
    return [
        page
        for page in site_pages(site_dir)
        if FIGURE_MARK in (site_dir / page / "index.html").read_text(encoding="utf-8")
    ]


@functools.cache
def empty_search_index(site_dir: Path = SITE_DIR) -> str:
    """The built search index with its ``config`` and an empty ``docs`` list, as JSON."""
    built = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    return json.dumps({"config": built["config"], "docs": []})


def serve_empty_search_index(route: Route) -> None:
    """Answer a request for the search index with `empty_search_index()`."""
    route.fulfill(status=200, content_type="application/json", body=empty_search_index())


def require_site(site_dir: Path = SITE_DIR) -> None:
    if not (site_dir / "index.html").is_file():
        pytest.fail(MISSING_SITE, pytrace=False)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``page_path`` over every page, ``notebook_path`` over notebook pages and
    ``figure_page_path`` over the pages with a drawn figure.

    With no site (or no notebook page) the test still runs once, and fails with
    a message that says why, instead of being collected as nothing.
    """
    finders = (
        ("page_path", site_pages),
        ("notebook_path", notebook_pages),
        ("figure_page_path", figure_pages),
    )
    for name, finder in finders:
        if name in metafunc.fixturenames:
            found = finder() if (SITE_DIR / "index.html").is_file() else []
            metafunc.parametrize(name, page_params(found or [NO_PAGES]))


def page_params(paths: Sequence[str], *, trailing_slash: bool = False) -> list[Any]:
    """One parameter per page, in the page's ``xdist_group``, so that ``--dist loadgroup``
    runs every test of a page on one worker, where ``site_page`` loads it once.

    The id is the page's path without its last slash ('home' for the home page);
    ``trailing_slash`` keeps the slash (the phone check's ids have always had it).
    """
    return [
        pytest.param(
            path,
            id=path if trailing_slash else (path.rstrip("/") or "home"),
            marks=pytest.mark.xdist_group(name=f"page:{path}"),
        )
        for path in paths
    ]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        """Keep the test output free of one access-log line per request."""


@pytest.fixture(scope="session")
def site_url() -> Iterator[str]:
    """The built site served by a threaded http.server on 127.0.0.1 and a free port."""
    require_site()
    handler = functools.partial(_QuietHandler, directory=str(SITE_DIR))
    server = ThreadingHTTPServer((LOCAL_HOST, 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://{LOCAL_HOST}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    # Not named `playwright`, so the pytest-playwright plugin could never clash with it.
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def chromium(playwright_driver: Playwright) -> Iterator[Browser]:
    """Debian's Chromium, headless; Playwright gives it a fresh temporary profile."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(
            f"{CHROMIUM} is missing: run `bash tools/ensure-chromium.sh`"
            " (never `playwright install`)",
            pytrace=False,
        )
    browser = playwright_driver.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    try:
        yield browser
    finally:
        browser.close()


def is_local(url: str) -> bool:
    """True for a URL served by the test server or needing no network at all."""
    parts = urlsplit(url)
    if parts.scheme in {"data", "blob", "about"}:
        return True
    return parts.scheme in {"http", "https", "ws", "wss"} and parts.hostname == LOCAL_HOST


@dataclass
class PageProblems:
    """Everything that went wrong while a page loaded and was used."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        groups = {
            "console error": self.console_errors,
            "page error": self.page_errors,
            "failed request": self.failed_requests,
            "request leaving 127.0.0.1": self.external_requests,
        }
        return [f"{kind}: {item}" for kind, items in groups.items() for item in items]


@dataclass
class LoadedPage:
    page: Page
    url: str
    problems: PageProblems
    #: The context's watch (requests still in flight, for a check that waited in vain).
    watch: Watch | None = None


class OpenPage:
    """Opens pages of the served site, each in a fresh browser context.

    ``open_page(path)`` loads one page at 1280 px (``viewport=PHONE``: 390 px) and
    waits for the network to settle and the page's Run buttons and editors (``READY``);
    ``open_page.all(paths)`` starts every load before waiting for any, so the
    browser fetches them side by side. Each page records its own problems; no
    listener, cache or route is shared, and every context closes with the test.
    The search index comes with no documents unless ``search=True``; ``init_script``
    runs in the page before its own scripts (as Playwright's ``add_init_script``), on that
    page alone, so a check that listens from the start needs no second load.

    Given ``reader`` (a `Watch` on a context of its own), it opens its pages there
    instead, one at a time, as one reader's tabs: what the site keeps in the browser
    (local storage, the HTTP cache) carries from one page to the next. The
    context's listeners stay; each page gets problems of its own, and closes when the
    test ends.
    """

    def __init__(
        self, chromium: Browser, site_url: str, checked: set[str], *, reader: Watch | None = None
    ) -> None:
        self._chromium = chromium
        self._site_url = site_url
        self._checked = checked
        self._reader = reader
        self._contexts: list[BrowserContext] = []
        self._pages: list[Page] = []

    def __call__(
        self,
        path: str,
        viewport: ViewportSize = DESKTOP,
        *,
        search: bool = False,
        init_script: str | None = None,
    ) -> LoadedPage:
        return self.all([path], viewport, search=search, init_script=init_script)[0]

    def all(
        self,
        paths: Sequence[str],
        viewport: ViewportSize = DESKTOP,
        *,
        search: bool = False,
        init_script: str | None = None,
    ) -> list[LoadedPage]:
        if self._reader is not None and (search or len(paths) > 1):
            raise ValueError("a reader's context opens one page at a time, without search")
        started = [self._start(path, viewport, search, init_script) for path in paths]
        for loaded in started:
            assert loaded.watch is not None  # `_start` gives every page its context's watch
            settle(loaded.page, loaded.watch)
        return started

    def close(self) -> None:
        for page in self._pages:
            _forget_storage(page)
            page.close()
        self._pages.clear()
        for context in self._contexts:
            context.close()
        self._contexts.clear()

    def close_one(self, loaded: LoadedPage) -> None:
        """Close the context of one page this opener loaded (its problems stay recorded)."""
        context = loaded.page.context
        if loaded.page in self._pages:
            self._pages.remove(loaded.page)
            _forget_storage(loaded.page)
            loaded.page.close()
        elif context in self._contexts:
            self._contexts.remove(context)
            context.close()

    def _start(
        self, path: str, viewport: ViewportSize, search: bool, init_script: str | None
    ) -> LoadedPage:
        if path == NO_PAGES:
            pytest.fail(f"no such page was found in {SITE_DIR}", pytrace=False)
        if self._reader is None:
            context = new_context(self._chromium, viewport)
            self._contexts.append(context)
            watch = Watch(context, search=search)
            page = context.new_page()
        else:
            watch = self._reader
            watch.problems = PageProblems()
            page = watch.context.new_page()
            self._pages.append(page)
            page.set_viewport_size(viewport)
        problems = watch.problems
        page.on("pageerror", lambda error: problems.page_errors.append(str(error)))
        if init_script is not None:  # runs before the page's own scripts, on this page only
            page.add_init_script(init_script)
        url = self._site_url + path
        page.goto(url, wait_until="commit")
        self._checked.add(path)
        return LoadedPage(page=page, url=url, problems=problems, watch=watch)


def settle(page: Page, watch: Watch) -> None:
    """Wait until ``page`` has loaded, its fonts are in, run-blocks.js has put in its Run
    buttons and editors (`READY`), and its context has had no request waiting for an
    answer for `QUIET_MS` in a row.

    Playwright's ``networkidle`` asks for 500 ms with no request, on every load: over
    a gate's hundreds of loads, a minute of waiting for nothing. This watches the
    requests themselves (`Watch.in_flight`), so a page whose requests are done is
    read as soon as a short quiet confirms it; a request sent later, while the checks
    run, is still recorded by the watch.
    """
    page.wait_for_load_state("load")
    page.wait_for_function(READY)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    waited = 0
    quiet = 0
    while quiet < QUIET_MS:
        if waited > NAVIGATION_TIMEOUT_MS:
            pytest.fail(f"{page.url}: requests still waiting: {watch.in_flight()}")
        page.wait_for_timeout(QUIET_POLL_MS)  # lets the watch hear of finished requests
        waited += QUIET_POLL_MS
        quiet = quiet + QUIET_POLL_MS if not watch.in_flight() else 0


def _forget_storage(page: Page) -> None:
    """Clear the local storage of a reader's page before it closes (its edits, its passed
    exercises): the next page of the context opens as a reader who never typed sees it.
    The HTTP cache, which holds Pyodide and Python's start-up snapshot, stays."""
    if not page.is_closed() and page.url.startswith(("http://", "https://")):
        page.evaluate("() => window.localStorage.clear()")


def new_context(chromium: Browser, viewport: ViewportSize = DESKTOP) -> BrowserContext:
    """A fresh browser context at ``viewport``, with the check's timeouts."""
    context = chromium.new_context(viewport=viewport)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
    return context


def wait_for_run_end(page: Page, div: Locator, timeout: float = RUN_TIMEOUT_MS) -> None:
    """Wait until block ``div``'s run is over (``RUN_DONE``), asking every ``POLL_MS``;
    Playwright's ``TimeoutError`` after ``timeout`` ms."""
    page.wait_for_function(RUN_DONE, arg=div.element_handle(), timeout=timeout, polling=POLL_MS)


class Watch:
    """Records what goes wrong in ``context`` into ``problems``, blocks requests off the
    site, and gives the search index without documents unless ``search``.

    Context-wide, so requests and messages from the page's workers count too. Set
    ``problems`` to a new `PageProblems` to record a new page's apart.
    """

    def __init__(self, context: BrowserContext, *, search: bool) -> None:
        self.context = context
        self.problems = PageProblems()
        #: Requests sent and not yet finished or failed, in the order sent (their URLs).
        self._in_flight: dict[Request, str] = {}
        #: The URL of every request the context sent, in the order sent.
        self.requested: list[str] = []
        context.route(lambda url: not is_local(url), self._block_external)
        if not search:
            context.route(SEARCH_INDEX, serve_empty_search_index)
        context.on("console", self._on_console)
        context.on("request", self._on_request)
        context.on("requestfinished", self._on_finished)
        context.on("requestfailed", self._on_failed)
        context.on("response", self._on_response)

    def in_flight(self) -> list[str]:
        """The URLs of the context's requests still waiting for an answer (a check that
        waited in vain says them)."""
        return list(self._in_flight.values())

    def _on_request(self, req: Request) -> None:
        self._in_flight[req] = req.url
        self.requested.append(req.url)

    def _on_finished(self, req: Request) -> None:
        self._in_flight.pop(req, None)

    def _block_external(self, route: Route) -> None:
        self.problems.external_requests.append(route.request.url)
        route.abort("blockedbyclient")

    def _on_console(self, message: ConsoleMessage) -> None:
        where = message.location.get("url", "")
        # A blocked request off the site logs an error too; it is reported once, above.
        if message.type == "error" and is_local(where or "about:"):
            self.problems.console_errors.append(f"{message.text} ({where})")

    def _on_failed(self, req: Request) -> None:
        self._in_flight.pop(req, None)
        if is_local(req.url):  # external ones are already reported, and were blocked
            self.problems.failed_requests.append(f"{req.url}: {req.failure}")

    def _on_response(self, response: Response) -> None:
        if response.status >= 400:
            self.problems.failed_requests.append(f"{response.url}: HTTP {response.status}")


class SitePages:
    """Each page of the site loaded once, for the checks that only read it.

    ``site_page(path)`` is the page at 1280 px, opened by ``reader`` (the worker's
    reader's context); ``site_page(path, PHONE)`` is that same load with the window
    narrowed to 390 px, as a phone turned upright, and a later ``site_page(path)``
    widens it again. Nothing the site's scripts do depends on the width they loaded at
    (its layout is its stylesheets' media queries; the editors and Material measure again
    when the window changes), so a narrowed load lays out as one made at 390 px, for the
    price of a layout instead of a load. The load is made on first use; every later call
    for the same page returns it, with the problems recorded since it began. The tests of
    a page run one after another on one worker (their ``xdist_group``), so when a test
    asks for another page, the load of the page before is closed: a worker holds one
    page open, not the whole site. A page asked for again after that is loaded again,
    and the run fails, naming it as a repeated load.
    """

    def __init__(self, reader: OpenPage) -> None:
        self._reader = reader
        self._loaded: dict[str, LoadedPage] = {}
        #: The viewport each held load is at now.
        self._viewports: dict[str, ViewportSize] = {}
        #: The loads a check has changed, and the check that did.
        self._changed: dict[str, str] = {}
        #: (path, width) -> how many times the page was loaded: once, or something is wrong.
        #: Every load is made at 1280 px; the narrowed views are not loads.
        self.loads: dict[tuple[str, int], int] = {}

    def __call__(self, path: str, viewport: ViewportSize = DESKTOP) -> LoadedPage:
        if path in self._changed:
            pytest.fail(
                f"{path} was changed by {self._changed[path]} before this read-only check"
                f" at {viewport['width']} px ran: mark the check that changes it"
                " changes_the_page",
                pytrace=False,
            )
        if path not in self._loaded:
            self._close(lambda open_path: open_path != path)
            self._loaded[path] = self._reader(path, DESKTOP)
            self._viewports[path] = DESKTOP
            key = (path, DESKTOP["width"])
            self.loads[key] = self.loads.get(key, 0) + 1
        loaded = self._loaded[path]
        if self._viewports[path] != viewport:
            loaded.page.set_viewport_size(viewport)
            self._viewports[path] = viewport
            loaded.page.evaluate(LAID_OUT)
        return loaded

    def to_change(self, path: str, check: str) -> LoadedPage:
        """The page at 1280 px, for ``check``, which changes it (runs its blocks): after
        this, a read-only check that asks for that load, at any width, fails, naming
        ``check``."""
        loaded = self(path)
        self._changed[path] = check
        return loaded

    def close_all(self) -> None:
        """Close every load held, so that another test can open pages in the reader's
        context (one page at a time there)."""
        self._close(lambda open_path: True)

    def _close(self, which: Callable[[str], bool]) -> None:
        for path in [path for path in self._loaded if which(path)]:
            self._reader.close_one(self._loaded.pop(path))
            self._viewports.pop(path, None)
            self._changed.pop(path, None)


@pytest.fixture(scope="session")
def site_page(
    request: pytest.FixtureRequest, site_url: str, chromium: Browser, reader_context: Watch
) -> Iterator[SitePages]:
    """The site's pages, each loaded once per worker, at 1280 px and narrowed to 390 px
    (read-only checks, then the check that runs every block of the page)."""
    checked = request.config.stash.setdefault(PAGES_CHECKED, set())
    reader = OpenPage(chromium, site_url, checked, reader=reader_context)
    pages = SitePages(reader)
    try:
        yield pages
    finally:
        request.config.stash[SHARED_LOADS] = sorted(
            f"{p} {w}" for (p, w), count in pages.loads.items() for _ in range(count)
        )
        reader.close()


class _KeepXdistGroups:
    """Make ``--dist loadgroup`` group again under pytest 9.2 (a worker-side plugin).

    pytest-xdist 3.8 tells the controller a test's group by appending ``@<group>``
    to its ``_nodeid``; pytest 9.2 keeps a node's id in ``_id`` and no longer reads
    ``_nodeid``, so the groups are silently lost and a page's tests are spread over
    the workers (https://github.com/pytest-dev/pytest-xdist/issues/1386, open; the
    fix proposed there, pull request 1388, sets the structured id as done here).
    Drop this class once a pytest-xdist release carries the fix.
    """

    @pytest.hookimpl(trylast=True)  # after pytest-xdist's own hook has written _nodeid
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        from _pytest.nodeid import coerce_node_id

        for item in items:
            legacy = getattr(item, "_nodeid", None)
            if isinstance(legacy, str) and legacy != item.nodeid:
                item._id = coerce_node_id(legacy)  # type: ignore[attr-defined]


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker
        config.pluginmanager.register(_KeepXdistGroups(), "keep-xdist-groups")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the tests of each ``xdist_group`` side by side, where the group's first test
    was, with the checks marked ``changes_the_page`` last in their group: the order the
    tests of a page run in on one worker, and in a run without workers (``make test
    JOBS=0``) too, so the check that runs a page's blocks comes after the checks that read
    the same load, and each page is loaded once."""
    first: dict[str, int] = {}  # group name -> where its first test was
    keyed = []
    for position, item in enumerate(items):
        group = item.get_closest_marker("xdist_group")
        name = str(group.kwargs.get("name", group.args[0] if group.args else "")) if group else ""
        rank = first.setdefault(name, position) if name else position
        changes = item.get_closest_marker("changes_the_page") is not None
        keyed.append((rank, changes, position, item))  # positions differ: items never compared
    items[:] = [item for *_, item in sorted(keyed)]


@pytest.fixture
def blank_page(chromium: Browser) -> Iterator[Page]:
    """A page of its own at 1280 px, off the network, for a fixture's HTML."""
    context = chromium.new_context(viewport=DESKTOP)
    context.route("**/*", lambda route: route.abort())
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="session")
def reader_context(chromium: Browser) -> Iterator[Watch]:
    """One reader's browser context for the whole run of a worker (see ``reader_page``)."""
    context = new_context(chromium)
    try:
        yield Watch(context, search=False)
    finally:
        context.close()


@pytest.fixture
def reader_page(
    request: pytest.FixtureRequest,
    site_url: str,
    chromium: Browser,
    reader_context: Watch,
    site_page: SitePages,
) -> Iterator[OpenPage]:
    """Open pages as one reader going through the course: in a worker's one context, so a
    page finds what earlier pages left in the browser's cache (Pyodide, Python's snapshot). The
    shared loads are closed first: the context holds one page at a time."""
    site_page.close_all()
    checked = request.config.stash.setdefault(PAGES_CHECKED, set())
    opener = OpenPage(chromium, site_url, checked, reader=reader_context)
    try:
        yield opener
    finally:
        opener.close()


@pytest.fixture
def open_page(
    request: pytest.FixtureRequest, site_url: str, chromium: Browser
) -> Iterator[OpenPage]:
    """Open pages of the site in fresh browser contexts, recording what goes wrong."""
    opener = OpenPage(chromium, site_url, request.config.stash.setdefault(PAGES_CHECKED, set()))
    try:
        yield opener
    finally:
        opener.close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist, hand this worker's checked pages and shared loads to the
    controller; in the controller (or a run without workers), fail a run in which a shared
    load was made twice: a page's checks were split between workers, or ran apart."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["pages_checked"] = sorted(session.config.stash.get(PAGES_CHECKED, set()))
        output["shared_loads"] = session.config.stash.get(SHARED_LOADS, [])
        return
    twice = repeated_loads(session.config.stash.get(SHARED_LOADS, []))
    if twice and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def repeated_loads(loads: list[str]) -> list[str]:
    """The shared loads ("<path> <width>") made more than once."""
    return sorted({load for load in loads if loads.count(load) > 1})


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """The controller side of pytest-xdist: add up what every worker checked and loaded."""
    output = getattr(node, "workeroutput", {})
    node.config.stash.setdefault(PAGES_CHECKED, set()).update(output.get("pages_checked", []))
    loads = node.config.stash.get(SHARED_LOADS, []) + list(output.get("shared_loads", []))
    node.config.stash[SHARED_LOADS] = loads


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    checked = config.stash.get(PAGES_CHECKED, set())
    if checked:
        loads = config.stash.get(SHARED_LOADS, [])
        twice = repeated_loads(loads)
        terminalreporter.write_line(
            f"browser: {len(checked)} pages checked; the read-only checks shared"
            f" {len(loads)} loads, {len(twice)} of them repeated"
            + (f" ({', '.join(twice[:3])}): FAILED, each should load once" if twice else "")
        )

"""Bill your own session: a file from the reader's disk, billed by the page's Python, sent nowhere.

The page's file input hands the chosen files to Pyodide in the page; the bill comes
back as the page `context-budget whatif --html` writes, in a frame. Every request
made once a file is chosen is recorded: each must be a GET of one of the site's own
files (Pyodide, the package), never anything else, and nothing may leave 127.0.0.1.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from openhands_files import CONVERSATION, EVALUATION
from playwright.sync_api import Browser, FrameLocator, Request

from .conftest import (
    DESKTOP,
    PAGES_CHECKED,
    PHONE,
    POLL_MS,
    REPO,
    RUN_TIMEOUT_MS,
    SITE_DIR,
    LoadedPage,
    OpenPage,
    is_local,
)

pytestmark = pytest.mark.browser

PAGE = "measured/your-own-session/"
SESSIONS = REPO / "docs" / "measured" / "sessions"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"
REAL = SESSIONS / "sample-project" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
ROLLOUT = SESSIONS / "synthetic" / "rollout-2026-03-02T09-00-00-synthetic.jsonl"
#: True once the page has said how the files went: billed, or refused.
SETTLED = """() => {
  const status = document.querySelector('.cb-own-status');
  return status && ['done', 'error'].includes(status.dataset.kind);
}"""
#: Keeps every text the status line shows, in order, on `window.cbSaid`, and on
#: `window.cbHeard` each with whether a screen reader reads it out (the live region not
#: marked busy). Each call starts both records afresh; the one listener stays, so a page
#: whose files are chosen again records each text once. The status's kind is cleared too:
#: until the page takes up the next choice it still says how the last one went.
LISTEN = """() => {
  const status = document.querySelector('.cb-own-status');
  window.cbSaid = [];
  window.cbHeard = [];
  status.dataset.kind = '';
  if (window.cbListening) return;
  window.cbListening = true;
  new MutationObserver(() => {
    window.cbSaid.push(status.textContent);
    window.cbHeard.push([status.textContent, status.getAttribute('aria-busy') !== 'true']);
  }).observe(status, { childList: true, characterData: true, subtree: true });
}"""


def _choose(loaded: LoadedPage, *paths: Path, field: str = "#cb-own-files") -> list[Request]:
    """Choose `paths` in the page's file input (`field`: another input, such as the one
    that chooses a folder) and wait until it has answered; the requests made from the
    moment of the choice."""
    asked: list[Request] = []
    loaded.page.on("request", lambda request: asked.append(request))
    loaded.page.evaluate(LISTEN)
    loaded.page.locator(field).set_input_files([str(path) for path in paths])
    loaded.page.wait_for_function(SETTLED, timeout=RUN_TIMEOUT_MS, polling=POLL_MS)
    return asked


#: The checks that bill their files on one load of the page, one after another, as a reader
#: who chooses file after file does: Python starts once for them all, not once a check.
#: One group, so that `--dist loadgroup` runs them on one worker, which loads the page once.
SHARED = pytest.mark.xdist_group(name="own-session-shared")


@pytest.fixture(scope="module")
def own_page(
    request: pytest.FixtureRequest, chromium: Browser, site_url: str
) -> Iterator[LoadedPage]:
    """The page loaded once (at 1280 px, in a context of its own) for the checks marked
    `SHARED`: each chooses its files there in turn, and reads what that choice gave."""
    opener = OpenPage(chromium, site_url, request.config.stash.setdefault(PAGES_CHECKED, set()))
    try:
        yield opener(PAGE)
    finally:
        opener.close()


def _bill(loaded: LoadedPage) -> FrameLocator:
    return loaded.page.frame_locator("iframe.cb-own-bill")


def _static(request: Request, site: str) -> bool:
    """A GET of a file of the site itself (or data the page made, such as the frame's page)."""
    parts = urlsplit(request.url)
    if parts.scheme in {"data", "blob", "about"}:
        return True
    if request.method != "GET" or not request.url.startswith(site):
        return False
    served = SITE_DIR / parts.path.removeprefix(urlsplit(site).path).lstrip("/")
    return served.is_file() or (served / "index.html").is_file()


def test_a_session_from_disk_is_billed_in_the_page_and_nothing_leaves_it(
    open_page: OpenPage, site_url: str
) -> None:
    """The page says the file never leaves the browser, and it does not: the session is
    billed in the page, and every request that choosing it made is a GET of the site's
    own files, on 127.0.0.1. (The same load and choice show what Python's start fetches:
    `_python_s_download_problems`.)"""
    loaded = open_page(PAGE)
    text = loaded.page.locator("article").inner_text()
    assert "Your files never leave your browser" in text
    assert loaded.page.locator("#cb-own-files").get_attribute("type") == "file"
    asked = _choose(loaded, SYNTHETIC)
    status = loaded.page.locator(".cb-own-status")
    assert status.get_attribute("data-kind") == "done", status.inner_text()
    bill = _bill(loaded)
    headings = bill.locator("h2").all_inner_texts()
    assert "What it would have cost" in headings and "Rent of the tool results" in headings
    marks = bill.locator("svg#calls line.rebuild")
    assert marks.count() == 4  # the bill's rebuilds, drawn as bill --html draws them
    assert "every write for 1 hour" in bill.locator("body").inner_text()
    assert bill.locator("script").count() == 0
    assert asked, "choosing a file started Python: it fetches the site's own files"
    strays = [f"{r.method} {r.url}" for r in asked if not _static(r, site_url)]
    assert strays == []
    assert all(is_local(r.url) for r in asked)
    assert loaded.problems.lines() == []
    assert _python_s_download_problems(loaded, asked, site_url) == []


@SHARED
def test_a_live_session_cut_inside_a_character_is_billed_without_its_last_line(
    own_page: LoadedPage, tmp_path: Path
) -> None:
    """A file chosen while its agent writes it may stop inside a character of its last
    line: the page bills the lines before it and says the last one was left out, where
    it once refused the whole file as not UTF-8. It names no flag of the command line,
    which the page has not got (it said "the rest is billed (--strict refuses them)")."""
    lines = SYNTHETIC.read_bytes().rstrip(b"\n").split(b"\n")
    wide = '{"type":"user","message":{"role":"user","content":"日本語"}}'.encode()
    live = tmp_path / SYNTHETIC.name
    live.write_bytes(b"\n".join([*lines, wide[: wide.index("本".encode()) + 1]]))
    loaded = own_page
    _choose(loaded, live)
    status = loaded.page.locator(".cb-own-status")
    said = status.inner_text()
    assert status.get_attribute("data-kind") == "done", said
    assert f"1 half-written line ({SYNTHETIC.name}:{len(lines) + 1})" in said
    assert "--" not in said, said
    assert _bill(loaded).locator("svg#calls line.rebuild").count() == 4  # the whole bill
    assert loaded.problems.lines() == []


@SHARED
def test_a_file_in_no_known_format_gets_one_clear_message(
    own_page: LoadedPage, tmp_path: Path
) -> None:
    """Notes in JSON are no session, in one line. So is a session chosen while its agent
    writes its first line, cut inside a string: the page said where the JSON breaks with
    one "at" too many ("Unterminated string starting at at line 1")."""
    notes = tmp_path / "notes.json"
    notes.write_text('{"shopping": ["milk"]}\n', encoding="utf-8")
    loaded = own_page
    _choose(loaded, notes)
    status = loaded.page.locator(".cb-own-status")
    assert status.get_attribute("data-kind") == "error"
    said = status.inner_text()
    assert said.startswith("Not billed: notes.json: not a session in a format bills read")
    assert "\n" not in said
    assert loaded.page.locator("iframe.cb-own-bill").is_hidden()
    begun = tmp_path / SYNTHETIC.name
    first = SYNTHETIC.read_text(encoding="utf-8").splitlines()[0]
    begun.write_text(first[:30], encoding="utf-8")  # ends inside its second key
    column = first.rindex('"', 0, 30) + 1
    loaded.page.evaluate("() => { document.querySelector('.cb-own-status').dataset.kind = '' }")
    _choose(loaded, begun)
    said = status.inner_text()
    assert said.endswith(f"Unterminated string starting at line 1, column {column}"), said


@SHARED
def test_a_package_json_is_named_a_file_in_no_format_not_a_conversation(
    own_page: LoadedPage, tmp_path: Path
) -> None:
    """A reader who chooses a project's package.json is told it is in no known format,
    with the keys found; the page said it "reads as layers, which records no usage", as
    if it were a conversation of the course's own kind without its tokens."""
    package = tmp_path / "package.json"
    package.write_text('{"name": "app", "version": "1.0.0", "dependencies": {}}\n')
    loaded = own_page
    _choose(loaded, package)
    said = loaded.page.locator(".cb-own-status").inner_text()
    assert said.startswith("Not billed: package.json: not a session"), said
    assert "layers" not in said and "no known format" in said, said
    assert "'dependencies', 'name', 'version'" in said, said


#: Each table box of the bill in the frame that scrolls sideways: [its first heading, its
#: width, the box's], in px; and the first cell of each row of the project view.
FRAME_TABLES = """frame => {
  const bill = frame.contentDocument;
  const scrolling = [...bill.querySelectorAll('div.scroll')]
    .filter(box => box.scrollWidth > box.clientWidth)
    .map(box => [box.querySelector('th').textContent, box.scrollWidth, box.clientWidth]);
  const heading = [...bill.querySelectorAll('h3')].find(h => h.textContent === 'By project');
  const projects = heading
    ? [...heading.nextElementSibling.querySelectorAll('td:first-child')].map(td => td.textContent)
    : [];
  return [scrolling, projects];
}"""


@SHARED
def test_the_page_says_how_far_it_has_gone_and_a_screen_reader_hears_each_step_once(
    own_page: LoadedPage,
) -> None:
    """One real session chosen, what the status line said and what of it was read out.

    The page says how far it has gone: reading the file, replaying call by call, billed.
    The status line is a live region: reading a file chunk by chunk and replaying it
    call by call change its text many times, each once read out to a screen reader."""
    loaded = own_page
    _choose(loaded, REAL)
    said: list[str] = loaded.page.evaluate("() => window.cbSaid")
    assert any(text.startswith("Reading fe5e1c67") and "kB" in text for text in said), said
    assert any(text.startswith("Python: replaying 1 of") for text in said), said
    assert said[-1].startswith("Billed fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl.")
    # the browser's Python cannot see the machine's zone: the page says its days are UTC's
    assert said[-1].endswith("(this Python cannot see the machine's time zone: days are in UTC)")
    heard: list[list[Any]] = loaded.page.evaluate("() => window.cbHeard")
    assert [text for text, _ in heard] == said  # the two records of one listener
    out_loud = [text for text, loud in heard if loud]
    # the browser hands the file over in chunks of its choosing (one here, two there)
    assert sum(text.startswith("Reading ") for text in out_loud) == 1, out_loud
    assert sum(text.startswith("Python: replaying") for text in said) > 3, said
    assert sum(text.startswith("Python: replaying") for text in out_loud) == 1, out_loud
    assert out_loud[-1].startswith("Billed "), out_loud  # the outcome is read out


@SHARED
def test_an_openhands_evaluation_output_is_billed_an_instance_a_session(
    own_page: LoadedPage,
) -> None:
    loaded = own_page
    _choose(loaded, EVALUATION)
    status = loaded.page.locator(".cb-own-status")
    assert status.get_attribute("data-kind") == "done", status.inner_text()
    text = _bill(loaded).locator("body").inner_text()
    for instance in ("ponylang__ponyc-4595", "ponylang__ponyc-4593", "ponylang__ponyc-4588"):
        assert instance in text
    assert loaded.problems.lines() == []


@SHARED
def test_one_file_s_bill_reads_on_a_phone_and_names_no_project_as_dot(
    own_page: LoadedPage,
) -> None:
    """At 390 px the bill in the frame (356 px wide) has no table that scrolls sideways:
    the views' eight columns did, their costs off the screen. A file chosen alone was
    billed under the project ".", the folder the page's Python reads it from, which
    means nothing to a reader: the view is left out. (On the shared load, its window
    narrowed to a phone's before the file is chosen and widened again after; it stands
    between checks that choose other files: `set_input_files` with the file already
    chosen sends no change, and the page waits for one.)"""
    loaded = own_page
    loaded.page.set_viewport_size(PHONE)
    try:
        _choose(loaded, REAL)
        assert loaded.page.locator(".cb-own-status").get_attribute("data-kind") == "done"
        scrolling, projects = loaded.page.locator("iframe.cb-own-bill").evaluate(FRAME_TABLES)
    finally:
        loaded.page.set_viewport_size(DESKTOP)
    assert scrolling == [], scrolling
    assert "." not in projects, projects
    headings = _bill(loaded).locator("h3").all_inner_texts()
    assert "By session" in headings and "By model" in headings, headings
    assert loaded.problems.lines() == []


@SHARED
def test_a_conversation_s_state_and_events_chosen_together_are_one_session(
    own_page: LoadedPage,
) -> None:
    state = CONVERSATION / "base_state.json"
    events = sorted(state.parent.glob("events/event-*.json"))
    loaded = own_page
    _choose(loaded, state, *events)  # a file picker lays them side by side
    status = loaded.page.locator(".cb-own-status")
    assert status.get_attribute("data-kind") == "done", status.inner_text()
    text = _bill(loaded).locator("body").inner_text()
    assert state.parent.name in text and "gpt-4o-mini" in text
    assert "not a session" not in text  # the event files are the conversation's, read by it
    rent = _bill(loaded).locator("table", has_text="finish").last.inner_text()
    assert "terminal" in rent  # its tool results' rent, from the events beside the state


#: The background of the bill's page in the frame, and the frame's box against what its
#: page holds: [relative luminance of the body's background, the frame's height in px,
#: the height of its page's content in px].
FRAME = """frame => {
  const inner = frame.contentDocument.documentElement;
  const rgb = getComputedStyle(frame.contentDocument.body).backgroundColor
    .match(/[0-9.]+/g).slice(0, 3).map(Number).map(v => v / 255);
  const light = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
  return [light, frame.clientHeight, inner.getBoundingClientRect().height];
}"""


def _toggle_scheme(loaded: LoadedPage) -> str:
    """Press the site's palette switch, as a reader does; the scheme it then shows."""
    loaded.page.locator("form[data-md-component='palette'] label:visible").click()
    loaded.page.wait_for_timeout(300)
    return str(loaded.page.evaluate("() => document.body.dataset.mdColorScheme"))


@SHARED
def test_the_bill_follows_the_scheme_the_reader_switches_the_site_to(
    own_page: LoadedPage,
) -> None:
    """The browser asks for light; the reader switches the site to dark with its palette
    button, before and after choosing a file: the bill in the frame goes dark with the
    page around it, and light again. It once stayed white on the dark page, following
    the system's scheme alone."""
    loaded = own_page
    frame = loaded.page.locator("iframe.cb-own-bill")
    assert _toggle_scheme(loaded) == "slate"
    _choose(loaded, SYNTHETIC)
    assert frame.evaluate(FRAME)[0] < 0.2, "the bill is light on the dark site"
    assert _toggle_scheme(loaded) == "default"
    assert frame.evaluate(FRAME)[0] > 0.9, "the bill stayed dark on the light site"
    assert _toggle_scheme(loaded) == "slate"
    assert frame.evaluate(FRAME)[0] < 0.2, "the bill stayed light on the dark site"
    assert loaded.problems.lines() == []


@SHARED
def test_the_frame_fits_its_bill_when_the_screen_changes_width(own_page: LoadedPage) -> None:
    """A bill drawn at 1280 px, then the window narrowed to a phone's 390 (a phone turned
    upright) and widened again: at each width the frame is as tall as its page, neither
    cutting the bill's end off behind a scroll of its own (it kept its height at 1280
    px's, 88 px short at 390) nor leaving a gap below it."""
    loaded = own_page
    _choose(loaded, TRAJECTORY)
    frame = loaded.page.locator("iframe.cb-own-bill")
    for viewport in (DESKTOP, PHONE, DESKTOP):
        loaded.page.set_viewport_size(viewport)
        loaded.page.wait_for_timeout(300)
        _, tall, content = frame.evaluate(FRAME)
        assert content <= tall <= content + 48, (viewport["width"], tall, content)
    assert loaded.problems.lines() == []


@SHARED
def test_the_reading_gives_a_small_file_s_size_in_a_unit_that_shows_it(
    own_page: LoadedPage,
) -> None:
    """A Codex rollout of 3,033 bytes is read in kB: the page once said it was reading
    "0 of 0 MB"."""
    loaded = own_page
    _choose(loaded, ROLLOUT)
    said: list[str] = loaded.page.evaluate("() => window.cbSaid")
    reading = [text for text in said if text.startswith("Reading ")]
    size = f"{ROLLOUT.stat().st_size / 1000:.0f}"
    assert reading == [f"Reading {ROLLOUT.name}: {size} of {size} kB…"], said
    assert loaded.page.locator(".cb-own-status").get_attribute("data-kind") == "done"


def _python_s_download_problems(
    loaded: LoadedPage, asked: list[Request], site_url: str
) -> list[str]:
    """The first choice of a file starts Python, and the page says how much that loads
    from the site: the files it then fetches (`asked`) must add up to that, within a
    quarter. It once said 13 MB, from before Python started from the site's snapshot,
    while the page fetched 23 MB (and the course's other pages say 20)."""
    said: list[str] = loaded.page.evaluate("() => window.cbSaid")
    starting = [text for text in said if text.startswith("Starting Python")]
    if len(starting) != 1:
        return [f"{len(starting)} lines say Python is starting: {said}"]
    found = re.search(r"about (\d+) MB", starting[0])
    if not found:
        return [f"no size said: {starting[0]}"]
    sizes = []
    for request in asked:
        served = SITE_DIR / urlsplit(request.url).path.removeprefix(urlsplit(site_url).path)
        if request.url.startswith(site_url) and served.is_file():
            sizes.append(served.stat().st_size)
    fetched = sum(sizes) / 1e6
    if abs(int(found.group(1)) - fetched) > fetched / 4:
        return [f"{starting[0]!r}, but the page fetched {fetched:.1f} MB"]
    return []


def _choose_in_the_picker(loaded: LoadedPage, path: Path) -> None:
    """Choose `path` as a reader does: click the input, pick the file in the dialog; wait
    until the page has answered (or at once, when it started nothing)."""
    loaded.page.evaluate(LISTEN)  # the status's kind cleared: the wait is for this choice
    with loaded.page.expect_file_chooser() as chooser:
        loaded.page.locator("#cb-own-files").click()
    chooser.value.set_files(str(path))
    loaded.page.wait_for_function(SETTLED, timeout=RUN_TIMEOUT_MS, polling=POLL_MS)


@SHARED
def test_the_same_file_chosen_again_is_billed_again(own_page: LoadedPage, tmp_path: Path) -> None:
    """A live session is billed, its agent writes on, and the reader chooses the same file
    again to see the new calls: the page bills it again. The browser sends no change
    when the same file is chosen twice, and the page once kept the old bill on show."""
    lines = SYNTHETIC.read_text(encoding="utf-8").splitlines(keepends=True)
    live = tmp_path / SYNTHETIC.name
    live.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    loaded = own_page
    _choose_in_the_picker(loaded, live)
    summary = _bill(loaded).locator("h1 + p")
    first = summary.inner_text()
    assert "10 calls" not in first, first
    live.write_text("".join(lines), encoding="utf-8")  # the agent wrote the rest
    # the status still says the first bill is done until the page takes up the choice:
    # the picker's choice clears it, so the wait ends only once the page answered this one
    _choose_in_the_picker(loaded, live)
    assert "10 calls" in summary.inner_text(), summary.inner_text()
    assert loaded.problems.lines() == []


#: A Claude Code project's folder whose session has a sub-agent under
#: `<session>/subagents/` (with the file that names its type), and an OpenHands
#: conversation's folder: its `base_state.json`, and its events under `events/`.
COMPACTED = REPO / "tests" / "fixtures" / "transcripts" / "synthetic" / "claude-code-compacted"


@SHARED
def test_a_folder_chosen_bills_its_sessions_with_the_sub_agents_under_them(
    own_page: LoadedPage, tmp_path: Path
) -> None:
    """Claude Code keeps a sub-agent's file under `<session>/subagents/`, and OpenHands a
    conversation's events under `events/`: a folder apart from the file they belong to.
    The page told the reader to choose them together, which one file picker cannot do
    (it shows one folder); the page had no way to choose a folder, and billed a session
    without its sub-agents. A folder chosen is read as `bill` reads a folder; what is
    in it besides sessions (a note, a picture) is left unread."""
    loaded = own_page
    folder = tmp_path / "my-project"
    shutil.copytree(COMPACTED, folder)
    (folder / "notes.txt").write_text("not a session", encoding="utf-8")
    assert loaded.page.locator("#cb-own-folder[type=file]").count() == 1
    _choose(loaded, folder, field="#cb-own-folder")
    status = loaded.page.locator(".cb-own-status")
    assert status.get_attribute("data-kind") == "done", status.inner_text()
    assert "my-project" in status.inner_text(), status.inner_text()
    agents = _bill(loaded).locator("table:has(th:text-is('agent'))").inner_text()
    assert "Explore" in agents, agents  # the sub-agent, its type from the file beside it
    summary = _bill(loaded).locator("h1 + p").inner_text()
    assert "8 calls" in summary, summary  # the session's 6 and its sub-agent's 2
    _choose(loaded, CONVERSATION, field="#cb-own-folder")
    assert status.get_attribute("data-kind") == "done", status.inner_text()
    assert "3 calls" in _bill(loaded).locator("h1 + p").inner_text()
    for empty in (tmp_path / "empty", tmp_path / "only-notes"):  # nothing to bill, said so
        empty.mkdir()
        if empty.name == "only-notes":
            (empty / "notes.txt").write_text("not a session", encoding="utf-8")
        _choose(loaded, empty, field="#cb-own-folder")
        assert status.get_attribute("data-kind") == "error", status.inner_text()
        assert status.inner_text().startswith("Not billed: the folder"), status.inner_text()
    assert loaded.problems.lines() == []

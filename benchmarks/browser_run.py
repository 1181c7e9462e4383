"""``python -m benchmarks.browser_run``: time the pages' Python blocks in headless Chromium.

For every page with a block list (``site/pyodide/pages/*.json``, so run ``make site``
first) it serves ``site/`` on 127.0.0.1, opens the page in Debian's Chromium and clicks
Run on the first runnable block (the first-run time: Python's start included), then
on the last one, which runs every block in between (the page's blocks after start-up).
Each page opens in a fresh browser context, as a new reader's browser: Python starts
from the snapshot the site serves, downloaded with the rest of Pyodide
(``docs/javascripts/run-worker.mjs``). It opens again in a context where another page
has run a block, as a reader who comes from another page finds it (the downloads in the
browser's cache), and the first Run is timed again; and once more in a fresh context
whose request for the snapshot is refused, so Python starts cold and imports the package
in the page: what the snapshot saves, in the same run. The medians of the three close
the table, with the goal for the first: under ``GOAL_FIRST_RUN_S``.
It prints a Markdown table, writes it to ``benchmarks/browser_results.md`` and, with
``--write-page``, into ``docs/measured/speed.md`` between its browser-bench markers.
``stale_rows`` compares a table with the build it claims to measure: the same pages,
and for each the same counts of blocks that run and blocks that cannot.

Times are wall-clock seconds, rounded to a tenth; sizes are MB (10^6 bytes).
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import platform
import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from benchmarks.page import PAGE, ROOT, Region
from benchmarks.report import _cpu_model

__all__ = [
    "BROWSER_RESULTS",
    "GOAL_FIRST_RUN_S",
    "REGION",
    "PageRun",
    "as_ci",
    "browser_region",
    "built_counts",
    "expected_status",
    "main",
    "render",
    "replace_browser_region",
    "stale_rows",
    "table_counts",
]

SITE = ROOT / "site"
BROWSER_RESULTS = ROOT / "benchmarks" / "browser_results.md"
#: Where the speed page shows the table.
REGION = Region("browser-bench", BROWSER_RESULTS)
#: The goal: the median first Run on a page, in a fresh browser, under this many seconds.
GOAL_FIRST_RUN_S = 2.5
#: The site's snapshot of Python (``docsite/browser_run.py``), refused for the cold runs.
SNAPSHOT_GLOB = "**/pyodide/snapshot-*.gz"
#: Files the in-browser runs add to the site (the rest is the site as it was before).
ADDED = (
    "pyodide",
    "javascripts/run-blocks.js",
    "javascripts/run-worker.mjs",
    "javascripts/cb_runner.py",
    "stylesheets/run-blocks.css",
)
DONE = """div => {
  const panel = div._cbPanel;
  return panel && panel.dataset.status !== 'busy'
    && !div.querySelector('button.cb-run').classList.contains('cb-stop');
}"""
#: Opens the `<details>` and selects the tab a block sits in, so its button can be clicked.
REVEAL = """button => {
  for (let d = button.closest('details'); d; d = d.parentElement?.closest('details')) d.open = true;
  for (let t = button.closest('.tabbed-block'); t; t = t.parentElement?.closest('.tabbed-block')) {
    const index = [...t.parentElement.children].indexOf(t);
    const input = t.closest('.tabbed-set').querySelectorAll(':scope > input')[index];
    if (input) input.checked = true;
  }
}"""
#: A Run button's box, in pixels from the window's top left corner.
BOX = """button => {
  const box = button.getBoundingClientRect();
  return [box.left, box.top, box.width, box.height].map(Math.round);
}"""
#: True when a Run button's box is where it was at the last look (kept on the button).
STILL = """button => {
  const box = button.getBoundingClientRect();
  const now = [box.left, box.top, box.width, box.height].map(Math.round).join();
  const still = button._cbLastBox === now;
  button._cbLastBox = now;
  return still;
}"""
#: How long (ms) a Run button must stay where it is before it is clicked: the page moves
#: it once more after it scrolls into view (`aim`).
STILL_MS = 250


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No access-log line per request."""


@dataclass(frozen=True)
class PageRun:
    """One page's timings.

    Attributes:
        page: the Markdown source, e.g. `budget/tokens.md`.
        runnable: visible blocks the browser runs.
        not_runnable: visible blocks that say why they cannot run.
        first_run_s: seconds from the first Run click to its result, start-up included.
        rest_s: seconds to run every later block of the page, after start-up.
        matched: how many runnable blocks printed what CI checked (or ran clean).
        after_another_s: `first_run_s` in a browser where another page has run a block
            (Pyodide and its snapshot come from the browser's cache).
        cold_s: `first_run_s` in a fresh browser that cannot have the snapshot (Python
            starts and imports the package in the page).
    """

    page: str
    runnable: int
    not_runnable: int
    first_run_s: float
    rest_s: float
    matched: int
    after_another_s: float = 0.0
    cold_s: float = 0.0


def _size_mb(path: Path) -> float:
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 1e6


def _url(page: str) -> str:
    """The site address of a page: `budget/tokens.md` and `notebooks/lab.py` are folders."""
    path = page.removesuffix(".md").removesuffix(".py")
    path = "" if path == "index" else path.removesuffix("/index")
    return f"{path}/" if path else ""


def aim(page: Any, button: Any) -> list[int]:
    """Bring Run `button` (a Playwright locator on `page`) into view and wait until it
    stays put; its box then (`BOX`, pixels).

    CodeMirror draws an editor's lines only near the window, and estimates the height
    of the others; the lines that scroll into view are measured, a wrapped line grows,
    and whatever lies below moves down (41 px under the last block of *The loop*). A
    click aimed before that lands on the code above and starts nothing.
    """
    button.evaluate(REVEAL)
    button.scroll_into_view_if_needed()
    page.wait_for_function(STILL, arg=button.element_handle(), polling=STILL_MS)
    return list(button.evaluate(BOX))


def _click(page: Any, order: int) -> float:
    div = page.locator(f"div[data-cb-order='{order}']")
    button = div.locator("button.cb-run")
    aim(page, button)
    started = time.perf_counter()
    button.click()
    page.wait_for_function(DONE, arg=div.element_handle(), timeout=300_000)
    return time.perf_counter() - started


def expected_status(block: dict[str, Any]) -> str:
    """The status a run of a block as the page ships it shows (its panel's
    ``data-status``, ``docs/javascripts/run-blocks.js``): a plain block matches CI's
    output (``match``) or runs clean with none to compare (``ran``); an exercise's
    checker block gives its checker's verdict: ``needs_work`` for a first attempt (CI
    printed NEEDS_WORK), else a PASS on the page's own code, ``solution`` in a
    "Solution" fold and ``shipped`` elsewhere (neither is the reader's pass)."""
    if block.get("checker"):
        if "NEEDS_WORK" in (block.get("expected") or ""):
            return "needs_work"
        return "solution" if block.get("solution") else "shipped"
    return "ran" if block.get("expected") is None else "match"


def as_ci(block: dict[str, Any], status: str | None) -> bool:
    """Whether a block's run in the browser showed what CI checked (`expected_status`)."""
    return status == expected_status(block)


def measure_pages(site: Path = SITE) -> list[PageRun]:
    """Open every page with a block list in headless Chromium and time its blocks."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Quiet, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = f"http://127.0.0.1:{server.server_address[1]}/"
    listings = sorted((site / "pyodide" / "pages").glob("*.json"))
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
            )
            reader = browser.new_context()
            pages = [json.loads(listing.read_text("utf-8")) for listing in listings]
            _leave_a_snapshot(reader, root, pages)
            runs = [_measure_page(browser, reader, root, data) for data in pages]
            browser.close()
    finally:
        server.shutdown()
    return runs


def _leave_a_snapshot(reader: Any, root: str, pages: Sequence[dict[str, Any]]) -> None:
    """Run the first runnable block of the first page that has one in ``reader``'s
    context, so that every page timed there after it finds Python's snapshot."""
    for data in pages:
        runnable = [b for b in data["blocks"] if not b["hidden"] and b["runnable"]]
        if runnable:
            page = reader.new_page()
            page.goto(root + _url(data["page"]), wait_until="networkidle")
            _click(page, runnable[0]["order"])
            page.close()
            return


def _measure_page(browser: Any, reader: Any, root: str, data: dict[str, Any]) -> PageRun:
    """One page's `PageRun`: timed in a fresh context, then in ``reader``'s (a context
    kept from page to page, where an earlier page has run a block)."""
    visible = [b for b in data["blocks"] if not b["hidden"]]
    runnable = [b for b in visible if b["runnable"]]
    if not runnable:
        return PageRun(data["page"], 0, len(visible), 0.0, 0.0, 0)
    context = browser.new_context()
    page = context.new_page()
    page.goto(root + _url(data["page"]), wait_until="networkidle")
    first = _click(page, runnable[0]["order"])
    rest = _click(page, runnable[-1]["order"]) if len(runnable) > 1 else 0.0
    statuses = page.eval_on_selector_all(
        "div[data-cb-order]",
        "ds => ds.map(d => [Number(d.dataset.cbOrder), d._cbPanel?.dataset.status])",
    )
    matched = sum(as_ci(data["blocks"][order], status) for order, status in statuses)
    context.close()
    again = reader.new_page()
    again.goto(root + _url(data["page"]), wait_until="networkidle")
    after_another = _click(again, runnable[0]["order"])
    again.close()
    cold = browser.new_context()
    cold.route(SNAPSHOT_GLOB, lambda route: route.abort())
    page = cold.new_page()
    page.goto(root + _url(data["page"]), wait_until="networkidle")
    started_cold = _click(page, runnable[0]["order"])
    python = page.evaluate("() => document.documentElement.dataset.cbPython")
    cold.close()
    if python != "cold":
        raise RuntimeError(f"{data['page']}: Python started from {python!r} with no snapshot")
    return PageRun(
        data["page"], len(runnable), len(visible) - len(runnable), first, rest, matched,
        after_another, started_cold,
    )  # fmt: skip


def render(runs: Sequence[PageRun], site: Path = SITE) -> str:
    """The Markdown table, the site's size with and without the additions, the machine."""
    lines = [
        # short headers: at 390 px the table's seven columns must fit the page
        "| page | blocks | not run | as CI | first run, s | the rest, s "
        "| first run after another page, s |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    for run in runs:
        lines.append(
            f"| `{run.page}` | {run.runnable} | {run.not_runnable} | {run.matched} "
            f"| {run.first_run_s:.1f} | {run.rest_s:.1f} | {run.after_another_s:.1f} |"
        )
    ran = [run for run in runs if run.runnable]
    first = statistics.median([run.first_run_s for run in ran])
    verdict = "met" if first < GOAL_FIRST_RUN_S else "missed"
    total = _size_mb(site)
    added = sum(_size_mb(site / name) for name in ADDED if (site / name).exists())
    cores = os.cpu_count() or 0
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    lines += [
        "",
        f"Median first run over the {len(ran)} pages: {first:.1f} s in a fresh browser "
        f"(goal: under {GOAL_FIRST_RUN_S} s: {verdict}), "
        f"{statistics.median([run.after_another_s for run in ran]):.1f} s after another page, "
        f"{statistics.median([run.cold_s for run in ran]):.1f} s in a fresh browser without the "
        "snapshot (Python started in the page).",
        "",
        f"Site: {total - added:.1f} MB before, {total:.1f} MB after "
        f"({added:.1f} MB added: the Pyodide core, the package zip, the block lists, the "
        "script); none of it loads until a reader presses Run.",
        "",
        f"Machine: {_cpu_model()}, {cores} cores, {platform.system()}, headless Debian "
        f"Chromium, run on {today}.",
    ]
    return "\n".join(lines) + "\n"


def built_counts(site: Path = SITE) -> dict[str, tuple[int, int]]:
    """page -> (runnable, not runnable) visible blocks, from the build's block lists
    (``site/pyodide/pages/*.json``), as `measure_pages` counts them."""
    counts = {}
    for listing in sorted((site / "pyodide" / "pages").glob("*.json")):
        data = json.loads(listing.read_text(encoding="utf-8"))
        visible = [block for block in data["blocks"] if not block["hidden"]]
        runnable = sum(1 for block in visible if block["runnable"])
        counts[data["page"]] = (runnable, len(visible) - runnable)
    return counts


def table_counts(table: str) -> dict[str, tuple[int, int]]:
    """page -> (runnable, not runnable), read from the rows of a table `render` wrote."""
    counts = {}
    for line in table.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            counts[cells[0].strip("`")] = (int(cells[1]), int(cells[2]))
    return counts


def stale_rows(table: str, site: Path = SITE) -> list[str]:
    """What the table says that the build does not: one line for each page the build
    has blocks for and the table lacks, each row for a page the build has none for,
    and each row whose counts differ from the build's."""
    built, shown = built_counts(site), table_counts(table)
    problems = [f"{page}: built, but not in the table" for page in built if page not in shown]
    problems += [
        f"{page}: in the table, but the build has no blocks" for page in shown if page not in built
    ]
    problems += [
        f"{page}: the table says {shown[page][0]} runnable and {shown[page][1]} not, "
        f"the build {count[0]} and {count[1]}"
        for page, count in built.items()
        if page in shown and shown[page] != count
    ]
    return problems


def browser_region(page_text: str) -> str:
    """The text between the page's browser-bench marker lines."""
    return REGION.read(page_text)


def replace_browser_region(page_text: str, body: str) -> str:
    """`page_text` with the text between its browser-bench markers replaced by `body`."""
    return REGION.replace(page_text, body)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.browser_run")
    parser.add_argument("--write-page", action="store_true", help=f"rewrite the table on {PAGE}")
    args = parser.parse_args(argv)
    if not (SITE / "pyodide" / "pages").is_dir():
        print("browser_run: site/pyodide/pages is missing: run make site first")
        return 2
    table = render(measure_pages())
    print(table, end="")
    REGION.publish(table, page=args.write_page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

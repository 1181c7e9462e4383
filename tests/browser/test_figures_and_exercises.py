"""Figures that fit and say what they show, code that fits, exercises judged by verdict.

The checks are in ``figure_checks.py`` (one function per check, on a loaded page).
Each is shown to fail on a fixture with the defect it looks for, and to pass on
the figures as the build puts them on their pages: every built page is checked at
1280 px, and every page with a drawn figure at 390 px too (each figure is on a page,
in both layouts, so each layout is measured at its width);
and an exercise is run in the browser with a right answer (PASS, green) and a wrong
one (NEEDS_WORK).

Run after ``make site`` with ``make browser``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from benchmarks.browser_run import aim
from docsite import figures as figures_hook

from .conftest import (
    DESKTOP,
    PHONE,
    REPO,
    SITE_DIR,
    OpenPage,
    SitePages,
    figure_pages,
    require_site,
    wait_for_run_end,
)
from .figure_checks import (
    alt_problems,
    figure_fit_problems,
    id_problems,
    label_problems,
    runner_problems,
    series_problems,
    verdict_problems,
)
from .reader_checks import CODE_BLOCKS, OVERFLOW_JS

pytestmark = pytest.mark.browser

FIXTURES = REPO / "tests" / "fixtures"
STYLESHEET = REPO / "docs" / "stylesheets" / "extra.css"
RUN_STYLESHEET = REPO / "docs" / "stylesheets" / "run-blocks.css"
FIGURES = REPO / "docs" / "figures"
#: Material's rule for every figure, which shrinks it to its caption's width.
MATERIAL_FIGURE = (
    ".md-typeset figure { display: flex; flex-flow: column; align-items: center;"
    " width: fit-content; margin: 1em auto; max-width: 100%; }"
)
#: The content column of a Material page: 688 px at 1280 px, 358 px at 390 px.
COLUMNS = {"1280": (DESKTOP, 688), "390": (PHONE, 358)}
PAGES_DIR = SITE_DIR / "pyodide" / "pages"


def _load(page: Page, path: Path) -> None:
    page.set_content(path.read_text(encoding="utf-8"))


def test_the_figure_checks_fail_on_the_old_figures(blank_page: Page) -> None:
    _load(blank_page, FIXTURES / "browser" / "figure_defects.html")
    fit = figure_fit_problems(blank_page)
    assert any("px wide in a 688 px column" in line for line in fit), fit
    assert any("text at" in line and "under 11" in line for line in fit), fit
    assert any("cut off" in line and "lossy + notes read ba" in line for line in fit), fit
    series = series_problems(blank_page)
    assert series == [
        "figure 1: series 2 is drawn entirely along series 5, series 4,"
        " and the figure does not say so",
        # shrunk to its caption's width, `subagents` is within a pixel of `naive` too
        "figure 1: series 6 is drawn entirely along series 1, and the figure does not say so",
        "figure 2: series 4 is drawn entirely along series 3, and the figure does not say so",
    ]
    assert id_problems(blank_page)[:2] == ['id "t" is used 2 times', 'id "d" is used 2 times']
    assert alt_problems(blank_page) == [
        'an image without a description of its own: alt="No description has been '
        'provided for this image" (data:image/png;base64,iVBORw0K)'
    ]


@pytest.mark.parametrize("width", list(COLUMNS))
def test_the_series_check_catches_lines_closer_than_a_pixel(chromium: Browser, width: str) -> None:
    """Trim deliberately's figure as it stood: `subagents` within a pixel of `naive`
    at 390 px (0.6 units), unremarked; a check at a tenth of a pixel missed it."""
    viewport, column = COLUMNS[width]
    context = chromium.new_context(viewport=viewport)
    context.route("**/*", lambda route: route.abort())
    try:
        page = context.new_page()
        page.set_content((FIXTURES / "browser" / "figure_near_lines.html").read_text("utf-8"))
        page.add_style_tag(content=f"article {{ width: {column}px; }} {MATERIAL_FIGURE}")
        page.add_style_tag(content=STYLESHEET.read_text(encoding="utf-8"))
        assert series_problems(page, pixels=0.1) == []
        found = series_problems(page, pixels=2.0 if width == "1280" else 1.0)
        shown = "1" if width == "1280" else "2"  # the wide picture, or the narrow one
        assert found == [
            f"figure {shown}: subagents is drawn entirely along naive,"
            " and the figure does not say so"
        ]
    finally:
        context.close()


@pytest.mark.parametrize("width", list(COLUMNS))
def test_the_label_check_fails_on_the_old_figures(chromium: Browser, width: str) -> None:
    """The loop's threshold label under its line, the bill's causes on each other and
    on a column, axis titles over tick labels at 390 px, the cut coverage's key read
    with the tick label before it ("72 ■ kept")."""
    viewport, column = COLUMNS[width]
    context = chromium.new_context(viewport=viewport)
    context.route("**/*", lambda route: route.abort())
    try:
        page = context.new_page()
        page.set_content((FIXTURES / "browser" / "figure_labels.html").read_text("utf-8"))
        page.add_style_tag(content=f"article {{ width: {column}px; }} {MATERIAL_FIGURE}")
        page.add_style_tag(content=STYLESHEET.read_text(encoding="utf-8"))
        found = label_problems(page)
        # the cut coverage's key: "a key's swatch stands 2.8 px after "72"" (1.6 at 390)
        wanted = ['the line of accumulated runs through "threshold 2,800"', 'px after "72"']
        if width == "390":
            wanted += [
                '"prefix-changed" overlaps "compaction"',
                '"3,000" overlaps "counter after the call (tokens"',
                '"2,000" overlaps "tokens (estimate)"',
            ]
        else:
            wanted += ['a bar runs through "prefix-changed"']
        missing = [w for w in wanted if not any(line.endswith(w) for line in found)]
        assert missing == [], found
    finally:
        context.close()


#: A figure as the build puts it on a page (`figures_hook.figure_html`).
_FIGURE_HTML = re.compile(r'<figure class="cb-figure" id="figure-([^"]+)">.*?</figure>', re.S)


def test_every_figure_is_on_a_built_page() -> None:
    """Every figure module is drawn on a built page (each is used on one), so the checks of
    every page's figures, at 1280 px on every page and at 390 px on every page with a
    drawn figure, measure each figure in both layouts: a figure the build lost fails here.
    (That no id is used by two pictures is checked on the drawings, in tests/test_figures.py.)"""
    require_site()
    found: set[str] = set()
    for page in sorted(SITE_DIR.rglob("*.html")):
        found.update(_FIGURE_HTML.findall(page.read_text(encoding="utf-8")))
    names = sorted(p.stem for p in FIGURES.glob("*.py") if not p.stem.startswith("_"))
    assert sorted(found) == sorted(name.replace("_", "-") for name in names)


def test_the_code_check_measures_code_and_wrapping_fits_it(blank_page: Page) -> None:
    """Code and pycon lines too long for their box are found on the page as the site
    renders it; the site's stylesheet wraps them, so they fit."""
    _load(blank_page, FIXTURES / "pages" / "code_lines.html")
    old_selector = ".md-typeset .highlight:not(.language-output):not(.doc-signature) pre"
    assert blank_page.evaluate(OVERFLOW_JS, old_selector) == []  # it found nothing to measure
    too_wide = list(blank_page.evaluate(OVERFLOW_JS, CODE_BLOCKS))
    assert len(too_wide) == 2, too_wide
    blank_page.add_style_tag(content=STYLESHEET.read_text(encoding="utf-8"))
    assert blank_page.evaluate(OVERFLOW_JS, CODE_BLOCKS) == []
    # a wrapped line is one line of code: its continuation is indented, not a new line
    lines = blank_page.evaluate(
        "() => [...document.querySelectorAll('code > span[id^=__span-]')]"
        ".map(span => Math.round(span.getBoundingClientRect().height))"
    )
    assert lines[1] > lines[0] and lines[4] > lines[3], lines


def test_the_verdict_check_fails_on_the_old_panels(blank_page: Page) -> None:
    _load(blank_page, FIXTURES / "browser" / "checker_defects.html")
    blank_page.add_style_tag(content=RUN_STYLESHEET.read_text(encoding="utf-8"))
    assert verdict_problems(blank_page) == [
        'block 1: printed PASS, shown as "✗ Does not match the output CI checked:" (mismatch)',
        'block 2: printed NEEDS_WORK, shown as "✓ Matches the output CI checked." (match)',
    ]


def test_a_pages_figures_fit_and_keep_their_names(site_page: SitePages, page_path: str) -> None:
    """At 1280 px, on every page: figures span the column with 11 px text, no series hides
    unremarked, no id twice, every image described."""
    _check_figures(site_page, page_path, "1280")


def test_a_pages_figures_fit_on_a_phone(site_page: SitePages, figure_page_path: str) -> None:
    """The same checks at 390 px, on every page with a drawn figure: the checks that
    depend on the width measure figures, and the others gave their answer at 1280."""
    _check_figures(site_page, figure_page_path, "390")


def test_every_page_with_a_figure_is_checked_at_390() -> None:
    """The 390 px check's pages are found from the build, so a new figure is measured there
    the day it is drawn: a page that loses its figure mark drops out, and so must nothing else."""
    require_site()
    drawn = set(figure_pages())
    asked = {
        _url_path(page)
        for page in (REPO / "docs").rglob("*.md")
        if figures_hook.MARKER.search(page.read_text(encoding="utf-8"))
    }
    assert drawn, "no built page holds a drawn figure"
    assert asked <= drawn, sorted(asked - drawn)


def _url_path(page: Path) -> str:
    """The site path of Markdown page `page`: docs/budget/layers.md is 'budget/layers/',
    docs/measured/index.md is 'measured/', docs/index.md is ''."""
    name = page.relative_to(REPO / "docs").with_suffix("").as_posix()
    name = name.removesuffix("index").rstrip("/")
    return f"{name}/" if name else ""


def _check_figures(site_page: SitePages, path: str, width: str) -> None:
    viewport, _ = COLUMNS[width]
    loaded = site_page(path, viewport=viewport)
    page = loaded.page
    problems = figure_fit_problems(page) + series_problems(page) + label_problems(page)
    problems += id_problems(page) + alt_problems(page)
    assert not problems, f"{loaded.url} at {width} px\n  " + "\n  ".join(problems)


def test_the_runner_check_fails_on_cells_without_a_runner(blank_page: Page) -> None:
    _load(blank_page, FIXTURES / "browser" / "notebook_cell.html")
    problems = runner_problems(blank_page)
    assert len(problems) == 2 and problems[0].startswith("code cell 1: no Run button"), problems


def test_every_notebook_cell_runs_or_says_why(site_page: SitePages, notebook_path: str) -> None:
    loaded = site_page(notebook_path)
    loaded.page.wait_for_function("() => document.readyState === 'complete'")
    loaded.page.evaluate("() => new Promise(resolve => setTimeout(resolve, 0))")
    cells = loaded.page.locator("article .jupyter-wrapper .jp-CodeCell").count()
    assert cells > 0, loaded.url
    problems = runner_problems(loaded.page)
    assert not problems, f"{loaded.url}\n  " + "\n  ".join(problems)
    # why a cell does not run is said under its box, in the page's text: inside the box it
    # read as a line of the cell's code (the plotting cells of the bill lab and experiment)
    boxed = loaded.page.evaluate(
        "() => [...document.querySelectorAll('article .cb-run-why')]"
        ".filter(p => p.closest('.jp-Cell-inputWrapper')).map(p => p.textContent)"
    )
    assert boxed == [], boxed


def _run(page: Page, order: int, code: str) -> dict[str, str]:
    div = page.locator(f"div[data-cb-order='{order}']")
    # the reader's code goes in through the block's editor, which is what the Run sends
    div.evaluate("(div, text) => div._cbEditor.replace(text)", code)
    button = div.locator("button.cb-run")
    aim(page, button)
    button.click()
    wait_for_run_end(page, div)
    return dict(
        div.evaluate(
            "div => ({status: div._cbPanel.dataset.status, text: div._cbPanel.textContent})"
        )
    )


def test_a_right_answer_shows_pass_and_a_wrong_one_what_is_wrong(reader_page: OpenPage) -> None:
    """Context is a budget, exercise 1: the reader's right answer is a green PASS, a wrong
    one NEEDS_WORK with what is wrong; so is a NaN given to a checker that compares
    floats (typed in the same block: the page's Python holds every checker)."""
    loaded = reader_page("budget/context-is-a-budget/")
    page = loaded.page
    data = json.loads((PAGES_DIR / "budget--context-is-a-budget.json").read_text("utf-8"))
    first = next(b for b in data["blocks"] if b["checker"] and "check_total_read" in b["source"])
    right = first["source"].replace(
        "answer = 24 * 1_875 + 2_000", "answer = sum(2_000 + k * 1_875 for k in range(1, 25))"
    )
    assert right != first["source"]
    passed = _run(page, first["order"], right)
    assert passed["status"] == "pass", passed["text"]
    assert "PASS" in passed["text"] and "Does not match" not in passed["text"]
    wrong = _run(page, first["order"], first["source"])
    assert wrong["status"] == "needs_work", wrong["text"]
    assert "47,000 is what the last call sends" in wrong["text"]
    # a ratio of NaN (0 / 0 somewhere in the reader's code) is wrong: it passed the floor
    # exercise of Trim deliberately, whose check asked whether it was too far off
    nan = "from context_budget.grading.spending import check_floor_ratio\n\n"
    nan += "print(check_floor_ratio(lambda run: float('nan')))\n"
    not_a_ratio = _run(page, first["order"], nan)
    assert not_a_ratio["status"] == "needs_work", not_a_ratio["text"]
    assert "expected about 1.58, got nan" in not_a_ratio["text"], not_a_ratio["text"]
    assert verdict_problems(page) == []
    assert not loaded.problems.lines(), loaded.problems.lines()


#: Unit A's transfer task, written right (`transfer_filter`, docs/notebooks/unit-a-student.py).
TRANSFER_FILTER = """def transfer_filter(text, needle, budget):
    lines = text.splitlines()
    matches = [line for line in lines if needle.lower() in line.lower()]
    kept, spent = [], 0
    for line in reversed(matches):
        spent += estimate_tokens(line + "\\n")
        if spent > budget:
            break
        kept.insert(0, line)
    count = f"[kept {len(kept)} of {len(matches)} matching lines; {len(lines)} lines in total]"
    return "\\n".join([*kept, count])
"""


def test_a_notebook_s_grade_cell_says_pass_on_the_reader_s_right_answer(
    reader_page: OpenPage,
) -> None:
    """Unit A's student notebook: the reader writes the transfer task's function in its
    cell and runs the cell that grades it, which shows a green PASS; the starter put
    back, the same cell says NEEDS_WORK. (It said "does not match what this cell printed"
    to the right answer: the cell was judged by the starter's output.)"""
    loaded = reader_page("notebooks/unit-a-student/")
    page = loaded.page
    data = json.loads((PAGES_DIR / "notebooks--unit-a-student.json").read_text("utf-8"))
    blocks = data["blocks"]
    answer = next(b for b in blocks if b["source"].startswith("def transfer_filter"))
    grade = next(b for b in blocks if "run_transfer(transfer_filter" in b["source"])
    assert grade["checker"], grade["source"]
    _run(page, answer["order"], TRANSFER_FILTER)
    passed = _run(page, grade["order"], grade["source"])
    assert passed["status"] == "pass", passed["text"]
    assert "TRANSFER_STATUS PASS" in passed["text"] and "Does not match" not in passed["text"]
    _run(page, answer["order"], answer["source"])
    wrong = _run(page, grade["order"], grade["source"])
    assert wrong["status"] == "needs_work", wrong["text"]
    assert "TRANSFER_STATUS NEEDS_WORK" in wrong["text"]
    assert verdict_problems(page) == []
    assert not loaded.problems.lines(), loaded.problems.lines()

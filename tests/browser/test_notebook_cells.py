"""Notebook pages read without scrolling sideways, their plots on the page's ground.

At 1280 px every code cell of a notebook page fits its box: the cells are
formatted at 80 columns (docs/notebooks/ruff.toml) and docs/stylesheets/extra.css
hides the prompt column that would take 64 px of it. Every plot sits on the
page's own background, in either colour scheme, not on the dark box nbconvert
paints behind a transparent image. Both read the notebook page's one shared load.

Both checks fail on tests/fixtures/browser/notebook_cell.html. Run after
``make site`` with ``make browser``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from .conftest import DESKTOP, REPO, SitePages
from .reader_checks import NOTEBOOK_CODE, OVERFLOW_JS, PAINTED_PLOTS_JS

pytestmark = pytest.mark.browser

FIXTURE = REPO / "tests" / "fixtures" / "browser" / "notebook_cell.html"
STYLESHEET = REPO / "docs" / "stylesheets" / "extra.css"
#: The longest line the fixture's first cell holds, in characters: the width the
#: notebooks are formatted at. Its second cell holds a line of the old width.
FITS, TOO_WIDE = 80, 100


def _overflowing_cells(page: Page) -> list[str]:
    return list(page.evaluate(OVERFLOW_JS, NOTEBOOK_CODE))


def _painted_plots(page: Page) -> list[str]:
    return list(page.evaluate(PAINTED_PLOTS_JS))


@pytest.fixture
def fixture_page(chromium: Browser) -> Iterator[Page]:
    """The fixture loaded at 1280 px in a context of its own, off the network."""
    context = chromium.new_context(viewport=DESKTOP)
    context.route("**/*", lambda route: route.abort())
    try:
        page = context.new_page()
        page.set_content(FIXTURE.read_text(encoding="utf-8"))
        yield page
    finally:
        context.close()


def test_notebook_cells_fit_and_plots_sit_on_the_page(
    site_page: SitePages, notebook_path: str
) -> None:
    """At 1280 px no code cell is wider than its box, and no plot has a backdrop."""
    loaded = site_page(notebook_path)
    cells = loaded.page.locator(f"article {NOTEBOOK_CODE}").count()
    assert cells > 0, f"{loaded.url}: no code cell matches {NOTEBOOK_CODE!r}"
    problems = [f"code cell: {line}" for line in _overflowing_cells(loaded.page)]
    problems += [f"plot: {line}" for line in _painted_plots(loaded.page)]
    assert not problems, f"{loaded.url} ({cells} code cells)\n  " + "\n  ".join(problems)


def test_the_cell_check_fails_on_a_line_wider_than_its_box(
    fixture_page: Page,
) -> None:
    """Beside the prompt column both cells overflow; with the site's CSS neither does:
    the 80-column one fits, and the 100-column one wraps (as a Markdown page's code
    does) instead of scrolling."""
    lines = [
        max(text.split("\n"), key=len)
        for text in fixture_page.locator(NOTEBOOK_CODE).all_inner_texts()
    ]
    assert [len(line) for line in lines] == [FITS, TOO_WIDE]
    before = _overflowing_cells(fixture_page)
    assert len(before) == 2, before
    fixture_page.add_style_tag(content=STYLESHEET.read_text(encoding="utf-8"))
    assert _overflowing_cells(fixture_page) == []
    heights = fixture_page.locator(NOTEBOOK_CODE).evaluate_all(
        "pres => pres.map(p => p.clientHeight)"
    )
    assert heights[1] > heights[0], heights  # the long line takes two lines, not a scroll


def test_the_plot_check_fails_on_a_painted_backdrop(fixture_page: Page) -> None:
    """The plugin's dark box is found; the site's CSS takes it away."""
    assert _painted_plots(fixture_page) == ["jp-needs-dark-background on rgb(33, 33, 33): a plot"]
    fixture_page.add_style_tag(content=STYLESHEET.read_text(encoding="utf-8"))
    assert _painted_plots(fixture_page) == []

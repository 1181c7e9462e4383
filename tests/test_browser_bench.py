"""The browser benchmark's table and the page region that shows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.browser_run import (
    BROWSER_RESULTS,
    REGION,
    SITE,
    PageRun,
    _url,
    as_ci,
    browser_region,
    render,
    stale_rows,
    table_counts,
)
from benchmarks.browser_run import replace_browser_region as replace


def test_the_region_is_replaced_and_read_back() -> None:
    page = f"# t\n\nbefore\n{REGION.start}\nold\n{REGION.end}\nafter\n"
    new = replace(page, "new table\n")
    assert new == f"# t\n\nbefore\n{REGION.start}\nnew table\n{REGION.end}\nafter\n"
    assert browser_region(new) == "new table\n"


@pytest.mark.parametrize("page", ["no markers\n", f"{REGION.start}\n{REGION.end}\n" * 2])
def test_a_page_without_one_region_is_refused(page: str) -> None:
    with pytest.raises(ValueError, match="found"):
        browser_region(page)
    with pytest.raises(ValueError, match="found"):
        replace(page, "x\n")


def test_the_table_gives_each_page_and_the_site_size(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_bytes(b"x" * 1_000_000)
    (tmp_path / "pyodide").mkdir()
    (tmp_path / "pyodide" / "core.wasm").write_bytes(b"x" * 3_000_000)
    table = render([PageRun("a/b.md", 3, 1, 8.04, 0.46, 3)], tmp_path)
    assert "| `a/b.md` | 3 | 1 | 3 | 8.0 | 0.5 |" in table
    assert "Site: 1.0 MB before, 4.0 MB after (3.0 MB added" in table


def _site(folder: Path, pages: dict[str, list[tuple[bool, bool]]]) -> Path:
    """A site whose block lists hold, per page, blocks given as (hidden, runnable)."""
    listings = folder / "pyodide" / "pages"
    listings.mkdir(parents=True)
    for number, (page, blocks) in enumerate(pages.items()):
        data = {"page": page, "blocks": [{"hidden": h, "runnable": r} for h, r in blocks]}
        (listings / f"{number}.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_the_stale_check_names_missing_gone_and_miscounted_pages(tmp_path: Path) -> None:
    """The table as it stood: rows behind the build, and pages the build has that it lacks."""
    site = _site(
        tmp_path,
        {
            "a.md": [(False, True), (False, True), (True, True)],  # the hidden one is not counted
            "b.md": [(False, True), (False, False)],
            "notebooks/c.py": [(False, True)],
        },
    )
    table = render([PageRun("a.md", 2, 0, 1.0, 0.1, 2), PageRun("b.md", 2, 0, 1.0, 0.1, 2)], site)
    table += "| `gone.md` | 1 | 0 | 1 | 1.0 | 0.0 |\n"
    assert table_counts(table)["a.md"] == (2, 0)
    assert stale_rows(table, site) == [
        "notebooks/c.py: built, but not in the table",
        "gone.md: in the table, but the build has no blocks",
        "b.md: the table says 2 runnable and 0 not, the build 1 and 1",
    ]


def test_the_speed_pages_browser_table_matches_the_build() -> None:
    """Every page the build gives blocks to has its row, with the build's counts."""
    if not (SITE / "pyodide" / "pages").is_dir():
        pytest.skip("no build to compare with: run make site")
    assert stale_rows(BROWSER_RESULTS.read_text(encoding="utf-8"), SITE) == []


def test_a_notebook_page_is_timed_at_its_own_address() -> None:
    """A notebook's page is `notebooks/lab/`, not `notebooks/lab.py/`: the bench once
    waited there for a Run button that never came."""
    assert _url("notebooks/the-bill.py") == "notebooks/the-bill/"
    assert _url("budget/tokens.md") == "budget/tokens/"
    assert _url("index.md") == "" and _url("units/index.md") == "units/"


def test_an_exercise_runs_as_ci_when_its_verdict_is_ci_s() -> None:
    """A checker block's panel shows its verdict, not a match: the bench once counted
    every exercise as a run that differed from CI."""
    attempt = {"checker": True, "expected": "NEEDS_WORK: 47,000 is what the last call sends"}
    solution = {"checker": True, "expected": "610,500\nPASS\n", "solution": True}
    shipped = {"checker": True, "expected": "PASS\n", "solution": False}
    plain = {"checker": False, "expected": "call 1: 3,875 tokens sent\n"}
    quiet = {"checker": False, "expected": None}
    assert as_ci(attempt, "needs_work") and not as_ci(attempt, "pass")
    # the page's own solution passes, and is never the reader's pass
    assert as_ci(solution, "solution") and not as_ci(solution, "pass")
    assert as_ci(shipped, "shipped") and not as_ci(shipped, "pass")
    assert as_ci(plain, "match") and not as_ci(plain, "ran") and not as_ci(plain, "mismatch")
    assert as_ci(quiet, "ran")

"""The browser benchmark's table and the page region that shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.browser_run import END, START, PageRun, browser_region, render
from benchmarks.browser_run import replace_browser_region as replace


def test_the_region_is_replaced_and_read_back() -> None:
    page = f"# t\n\nbefore\n{START}\nold\n{END}\nafter\n"
    new = replace(page, "new table\n")
    assert new == f"# t\n\nbefore\n{START}\nnew table\n{END}\nafter\n"
    assert browser_region(new) == "new table\n"


@pytest.mark.parametrize("page", ["no markers\n", f"{START}\n{END}\n{START}\n{END}\n"])
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

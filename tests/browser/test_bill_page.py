"""`context-budget bill --html`: the page opens offline in Chromium and its chart is drawn."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, Request

from context_budget.cli import main

pytestmark = pytest.mark.browser

SESSIONS = Path(__file__).resolve().parents[2] / "docs" / "measured" / "sessions"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"


def _page(tmp_path: Path, page: Page, *paths: Path) -> list[str]:
    """Write the bill's page, load it with every request aborted; the requests it made."""
    target = tmp_path / "bill.html"
    assert main(["bill", *map(str, paths), "--html", str(target)]) == 0
    asked: list[str] = []

    def record(request: Request) -> None:
        asked.append(request.url)

    page.on("request", record)
    page.set_content(target.read_text(encoding="utf-8"))
    return asked


def test_the_chart_is_drawn_with_the_rebuilds_marked(tmp_path: Path, blank_page: Page) -> None:
    asked = _page(tmp_path, blank_page, SYNTHETIC)
    assert asked == []  # nothing fetched: the page works offline
    for kind in ("read", "written", "uncached"):
        box = blank_page.locator(f"svg#calls path.bar.{kind}").bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 10, (kind, box)
    marks = blank_page.locator("svg#calls line.rebuild")
    causes = [marks.nth(k).get_attribute("class") for k in range(marks.count())]
    assert causes == [
        "rebuild ttl",
        "rebuild prefix-changed",
        "rebuild compaction",
        "rebuild ttl",
    ]
    assert "call 6: prefix-changed" in (marks.nth(1).text_content() or "")
    assert blank_page.locator("h3").all_inner_texts() == [
        "By day",
        "By session",
        "By project",
        "By model",
        "By thread",
    ]


def test_bars_stand_where_their_calls_are(tmp_path: Path, blank_page: Page) -> None:
    """Ten calls across the chart: the uncached bars' drawn width spans most of it."""
    _page(tmp_path, blank_page, SESSIONS / "sample-project")
    svg = blank_page.locator("svg#calls").bounding_box()
    read = blank_page.locator("svg#calls path.bar.read").bounding_box()
    assert svg is not None and read is not None
    assert read["width"] > 0.9 * svg["width"] and read["height"] > 0.5 * svg["height"]

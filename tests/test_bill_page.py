"""`context-budget bill --html FILE`: one self-contained page, written whole or not at all."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from context_budget.bill_page import write_page
from context_budget.cli import main

SESSIONS = Path(__file__).resolve().parent.parent / "docs" / "measured" / "sessions"
SYNTHETIC = SESSIONS / "synthetic" / "synthetic-c0mpact-0000-4000-8000-000000000001.jsonl"


def test_the_page_is_self_contained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "bill.html"
    assert main(["bill", str(SYNTHETIC), "--html", str(target)]) == 0
    assert capsys.readouterr().out.endswith(f"page: {target}\n")
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "<svg" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<script" not in page and "@import" not in page and "url(" not in page
    assert page.count('class="rebuild ') == 4
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)


def test_json_stays_json_with_a_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "bill.html"
    assert main(["bill", str(SYNTHETIC), "--json", "--html", str(target)]) == 0
    assert json.loads(capsys.readouterr().out)["calls"] == 10 and target.is_file()


def test_a_page_that_cannot_be_written_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "bill.html"
    assert main(["bill", str(SYNTHETIC), "--html", str(target)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "cannot write the page" in captured.err and "bill.html" in captured.err


def test_a_failed_write_leaves_the_old_page_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "bill.html"
    target.write_text("old page", encoding="utf-8")

    def refuse(source: object, destination: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space"):
        write_page(target, "<!doctype html>new")
    assert target.read_text(encoding="utf-8") == "old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bill.html"]


def test_what_the_bill_left_out_is_listed_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / SYNTHETIC.name).write_bytes(SYNTHETIC.read_bytes())
    (folder / "notes<b>.json").write_text('{"shopping": ["milk"]}', encoding="utf-8")
    page = tmp_path / "bill.html"
    assert main(["bill", str(folder), "--html", str(page), "--timezone", "UTC"]) == 0
    assert "1 skipped: 1 file that is no session" in capsys.readouterr().err
    text = page.read_text(encoding="utf-8")
    left = text[text.index("<h2>Left out</h2>") :]
    assert '<li><span class="kind">not a session</span>: ' in left
    assert "notes&lt;b&gt;.json: not a session in a format bills read" in left  # escaped
    assert "<b>" not in left.partition("</ul>")[0]


def test_each_view_s_costs_add_up_to_its_total_row_as_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page showed each group's cost rounded on its own: the sample project's twelve
    threads read $2.8183 over a total row of $2.8184 (its text table adds up)."""
    target = tmp_path / "bill.html"
    project = SESSIONS / "sample-project"
    assert main(["bill", str(project), "--html", str(target), "--timezone", "UTC"]) == 0
    page = target.read_text(encoding="utf-8")
    views = re.findall(r"<h3>By (\w+)</h3>(.*?)</table>", page)
    assert len(views) == 8
    for view, table in views:
        rows = re.findall(r"<tr><td>.*?</td>.*?<td>\$([\d,.]+)[^<]*</td></tr>", table)
        *parts, total = (float(cost.replace(",", "")) for cost in rows)
        assert round(sum(parts), 4) == total, view

"""The replay benchmark's wiring: small generated folders, replayed as whole processes, its
table and its goals, and the page's copy of its last run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from benchmarks.bill import generate_project
from benchmarks.page import PAGE
from benchmarks.whatif import PART, RESULTS, WHOLE, render, side_by_side, whatif_region


def test_the_table_judges_growth_per_megabyte_and_the_replay_against_the_bill(
    tmp_path: Path,
) -> None:
    folders = {WHOLE: tmp_path / "whole", PART: tmp_path / "part"}
    for folder in folders.values():
        folder.mkdir()
    sizes = {WHOLE: generate_project(folders[WHOLE], 400_000)}
    sizes[PART] = generate_project(folders[PART], 100_000)
    runs, _ = side_by_side(folders, repeats=1)
    data = json.loads(runs[WHOLE][0].stdout)
    assert data["calls"] > 0 and data["replayed_usd"] > 0
    assert data["policy"] == dict.fromkeys(data["policy"])  # the session's own: none changed
    assert abs(data["replayed_usd"] / data["bill_usd"] - 1) <= 0.02
    text = render(sizes, runs, (0.5, 0.5))
    per_mb = {name: runs[name][0].seconds / (sizes[name] / 2**20) for name in folders}
    growth = per_mb[WHOLE] / per_mb[PART]
    assert f"on its quarter: {growth:.2f}, at most 1.25: " in text
    assert f"| {WHOLE} | {sizes[WHOLE] / 2**20:,.0f} MB | {data['calls']:,} | " in text
    # a replay that slowed down with the folder, and one that prices apart from its bill
    slow = {WHOLE: [replace(runs[WHOLE][0], seconds=runs[WHOLE][0].seconds * 10)]}
    assert "at most 1.25: **missed**" in render(sizes, runs | slow, (0.5, 0.5))
    apart = json.dumps(data | {"replayed_usd": data["bill_usd"] * 1.1})
    priced = {WHOLE: [replace(runs[WHOLE][0], stdout=apart)]}
    assert "at most 10.00% apart: **missed**" in render(sizes, runs | priced, (0.5, 0.5))


def test_the_page_shows_the_last_run() -> None:
    assert whatif_region(PAGE.read_text(encoding="utf-8")) == RESULTS.read_text(encoding="utf-8")

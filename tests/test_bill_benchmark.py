"""The bill benchmark's wiring: a small generated folder, its table, the page region."""

from __future__ import annotations

from pathlib import Path

from benchmarks.bill import (
    GOAL_SECONDS,
    RESULTS,
    bill_region,
    generate_project,
    render,
    time_bill,
)
from benchmarks.page import PAGE
from context_budget import read_bill


def test_the_generated_folder_is_the_same_on_every_run(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    assert generate_project(one, 600_000) == generate_project(two, 600_000)
    names = sorted(p.relative_to(one) for p in one.rglob("*.jsonl"))
    assert names == sorted(p.relative_to(two) for p in two.rglob("*.jsonl"))
    assert all((one / n).read_bytes() == (two / n).read_bytes() for n in names)
    assert any("subagents" in str(n) for n in names)


def test_the_generated_folder_has_rebuilds_of_each_kind_it_plants(tmp_path: Path) -> None:
    generate_project(tmp_path, 1_500_000)
    causes = {rebuild.cause for rebuild in read_bill(tmp_path).rebuilds()}
    assert causes == {"compaction", "ttl"}


def test_the_table_and_the_page_region(tmp_path: Path) -> None:
    size = generate_project(tmp_path, 600_000)
    seconds, data = time_bill(tmp_path, repeats=1)
    text = render(size, 2, seconds, data)
    assert f"| {data['calls']:,} |" in text and "**met**" in text
    assert seconds < GOAL_SECONDS
    assert bill_region(PAGE.read_text(encoding="utf-8")) == RESULTS.read_text(encoding="utf-8")


def test_the_rebuild_benchmark_plants_a_prefix_change_at_every_call(tmp_path: Path) -> None:
    from benchmarks.rebuilds import RESULTS as REBUILDS
    from benchmarks.rebuilds import generate_session, rebuild_region, render, time_rebuilds

    path = tmp_path / "s.jsonl"
    generate_session(path, 50)
    causes = {rebuild.cause for rebuild in read_bill(path).rebuilds()}
    assert causes == {"prefix-changed"}
    seconds, found = time_rebuilds(path, repeats=1)
    assert found == 49
    assert "| 50 | 49 |" in render([(50, found, seconds), (200, 199, seconds * 4)])
    assert rebuild_region(PAGE.read_text(encoding="utf-8")) == REBUILDS.read_text(encoding="utf-8")

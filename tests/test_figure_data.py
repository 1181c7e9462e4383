"""What the chapter figures draw: their data comes from the library and the committed results."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

FIGURES = Path(__file__).resolve().parents[1] / "docs" / "figures"
sys.path.insert(0, str(FIGURES))

import _svg  # noqa: E402
import cut_coverage  # noqa: E402
import layer_stack  # noqa: E402
import loop_growth  # noqa: E402
import speed  # noqa: E402

from context_budget import Layers, budget_report, tokens_read  # noqa: E402
from context_budget.scenarios.lucy import PINNED, SYSTEM, lucy_day  # noqa: E402


def test_the_speed_figure_reads_every_row_of_the_committed_results() -> None:
    series = speed.timings()
    assert [label for label, _ in series] == [
        "floor",
        "budget_report",
        "clearing",
        "compact",
        "trim_messages",
    ]
    assert all([x for x, _ in points] == [1_000, 10_000, 100_000] for _, points in series)
    table_rows = [
        line for line in speed.RESULTS.read_text(encoding="utf-8").splitlines() if line[:3] == "| `"
    ]
    assert sum(len(points) for _, points in series) == len(table_rows)


def test_the_speed_figure_refuses_results_without_a_table() -> None:
    with pytest.raises(ValueError, match="holds no benchmark rows"):
        speed.timings("no table here")


def test_the_layer_stack_adds_up_to_the_budget_report() -> None:
    stages = dict(layer_stack.requests())
    whole = budget_report(Layers(SYSTEM, PINNED, lucy_day()))["total"]
    assert sum(value for _, value in stages["as sent"]) == whole
    assert [part for part, _ in stages["as sent"]] == list(layer_stack.PARTS)
    assert sum(value for _, value in stages["compacted to 400"]) <= 400


def test_each_cut_keeps_whole_lines_within_its_budget() -> None:
    rows = dict(cut_coverage.kept())
    assert rows["head"][:7] == [True] * 7 and not any(rows["head"][7:])
    assert rows["head_and_tail"][0] and rows["head_and_tail"][-1]
    kept_by_filter = [i for i, kept in enumerate(rows['filter "pistachio"']) if kept]
    assert all("pistachio" in cut_coverage.sale(i) for i in kept_by_filter)


def test_the_new_chart_kinds_refuse_shapes_they_cannot_draw() -> None:
    with pytest.raises(ValueError, match="at least one bar"):
        _svg.signed_bars([], title="t", desc="d", value_label="v")
    with pytest.raises(ValueError, match=r"got \[2, 1\]"):
        _svg.strips([("a", [True, False]), ("b", [True])], title="t", desc="d", axis_label="x")


def test_signed_bars_put_negative_values_left_of_zero() -> None:
    svg = _svg.signed_bars(
        [("over", 0.25), ("under", -0.5)], title="t", desc="d", value_label="v", percent=True
    )
    assert ">+25%<" in svg and ">-50%<" in svg and ">0%<" in svg and "-0%" not in svg


def loops_computed(page: str) -> set[tuple[int, int]]:
    """The `(growth, start)` of every loop a page's code computes (`loop_steps`,
    `tokens_read`, `loop_cost` called with both)."""
    found = re.findall(r"growth=([\d_]+), start=([\d_]+)", page)
    return {(int(growth), int(start)) for growth, start in found}


def test_the_loop_figure_draws_the_loop_its_page_computes() -> None:
    """Context is a budget computes a loop of 2,000 tokens and 1,875 a step; its figure
    once drew another, 1,000 a step from nothing."""
    page = (FIGURES.parent / "budget" / "context-is-a-budget.md").read_text(encoding="utf-8")
    assert loops_computed(page) == {(loop_growth.GROWTH, loop_growth.START)}
    total = tokens_read(loop_growth.STEPS, growth=loop_growth.GROWTH, start=loop_growth.START)
    assert f"{loop_growth.STEPS} steps: {total:>10,} tokens read" in page
    assert f"{total:,} have been read in all" in loop_growth.draw()


def test_the_loop_check_fails_on_the_figure_as_it_stood() -> None:
    page = (FIGURES.parent / "budget" / "context-is-a-budget.md").read_text(encoding="utf-8")
    before = (1_000, 0)  # GROWTH and (no) start of the figure before
    assert before not in loops_computed(page)

"""What the chapter figures draw: their data comes from the library and the committed results."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FIGURES = Path(__file__).resolve().parents[1] / "docs" / "figures"
sys.path.insert(0, str(FIGURES))

import _svg  # noqa: E402
import cut_coverage  # noqa: E402
import layer_stack  # noqa: E402
import speed  # noqa: E402

from context_budget import Layers, budget_report  # noqa: E402
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

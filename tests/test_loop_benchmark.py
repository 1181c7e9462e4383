"""The loop benchmark's wiring: its runs finish, its table, the page region."""

from __future__ import annotations

from benchmarks.loop import GOAL_GROWTH, HOOKS, RESULTS, loop_region, render, time_loop
from benchmarks.page import PAGE


def test_each_run_finishes_with_its_answer() -> None:
    for hooks in HOOKS.values():
        assert time_loop(20, hooks, repeats=1) >= 0.0  # time_loop checks the run itself


def test_the_table_judges_the_growth() -> None:
    slow = render({"no hook": (1.0, 4.0), "plan=": (1.0, 16.0)}, (10, 40))
    assert "| `plan=` | 1.000 | 16.000 | ×16.0 |" in slow and "**missed**" in slow
    fast = render({"no hook": (1.0, 9.0), "plan=": (1.0, GOAL_GROWTH)}, (10, 40))
    assert "**met**" in fast  # the run without a hook is the floor, not judged


def test_the_page_shows_the_last_run() -> None:
    assert loop_region(PAGE.read_text(encoding="utf-8")) == RESULTS.read_text(encoding="utf-8")

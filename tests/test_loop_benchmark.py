"""The loop benchmark's wiring: its runs finish, its table, the page region."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.loop import (
    GOAL_GROWTH,
    GUARDS,
    HOOKS,
    RESULTS,
    SIZES,
    loop_region,
    main,
    render,
    time_loop,
)
from benchmarks.page import PAGE


def test_each_run_finishes_with_its_answer() -> None:
    for hooks in HOOKS.values():
        for watch in GUARDS.values():
            assert time_loop(20, {**hooks, **watch}, repeats=1) >= 0.0  # it checks the run


def test_the_table_judges_the_growth() -> None:
    slow = render({("no hook", "none"): (1.0, 4.0), ("plan=", "none"): (1.0, 16.0)}, (10, 40))
    assert "| `plan=` | none | 1.000 | 16.000 | ×16.0 |" in slow and "**missed**" in slow
    fast = render(
        {("no hook", "none"): (1.0, 9.0), ("plan=", "none"): (1.0, GOAL_GROWTH)}, (10, 40)
    )
    assert "**met**" in fast  # the run with neither a hook nor a guard is the floor, not judged
    guarded = render({("no hook", "strict=True"): (1.0, 14.0)}, (10, 40))
    assert "| `no hook` | `strict=True` |" in guarded and "**missed**" in guarded


def test_the_benchmark_times_every_hook_with_and_without_the_guard(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import benchmarks.loop as module

    timed: list[tuple[int, dict[str, Any]]] = []

    def noted(turns: int, hooks: dict[str, Any], repeats: int) -> float:
        timed.append((turns, hooks))
        return float(turns)

    monkeypatch.setattr(module, "time_loop", noted)
    assert main([]) == 0
    runs = {tuple(sorted(hooks)) for _, hooks in timed}
    # the sizes taken in turn, each run once a round
    assert [turns for turns, _ in timed[: 2 * len(SIZES)]] == [*SIZES, *SIZES]
    assert ("plan", "strict") in runs and ("edit_history", "strict") in runs
    assert len(runs) == len(HOOKS) * len(GUARDS)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| `")]
    assert len(rows) == len(HOOKS) * len(GUARDS)


def test_the_page_shows_the_last_run() -> None:
    assert loop_region(PAGE.read_text(encoding="utf-8")) == RESULTS.read_text(encoding="utf-8")

"""Part IV's checkers (`grading.measured`): right answers pass, wrong ones say what is wrong."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest


def _wrong(verdict: str, *words: str) -> None:
    assert verdict.startswith("NEEDS_WORK: "), verdict
    for word in words:
        assert word in verdict, (word, verdict)


def test_the_keep_the_task_trim_checker_fails_a_recount_a_dropped_task_and_a_crash() -> None:
    from context_budget.grading.measured import check_first_kept_trim

    def one_pass(messages: list[Any], budget: int, count: Any) -> list[Any]:
        sizes = [count(m) for m in messages]
        total, start = sum(sizes), 1
        while start < len(sizes) and total > budget:
            total -= sizes[start]
            start += 1
        return messages[:1] + messages[start:]

    def drops_the_task(messages: list[Any], budget: int, count: Any) -> list[Any]:
        sizes = [count(m) for m in messages]
        total, start = sum(sizes), 0
        while start < len(sizes) and total > budget:
            total -= sizes[start]
            start += 1
        return messages[start:]

    def crashes(messages: list[Any], budget: int, count: Any) -> list[Any]:
        raise KeyError("content")

    assert check_first_kept_trim(one_pass) == "PASS"
    assert "expected" in check_first_kept_trim(drops_the_task)
    assert "raised KeyError" in check_first_kept_trim(crashes)


def test_the_bill_checkers_outside_the_repository_say_where_they_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from context_budget.grading.measured import check_causes, check_rebuild_finder

    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="run them there") as raised:
        check_rebuild_finder(lambda bill: [])
    assert str(tmp_path) in str(raised.value)
    with pytest.raises(FileNotFoundError, match="synthetic-c0mpact"):
        check_causes({})


def test_no_module_finds_data_through_its_own_location() -> None:
    """Data the package reads ships inside it (importlib.resources): a path built from a
    module's own file into the repository breaks as soon as the package is installed."""
    package = Path(__file__).resolve().parent.parent / "src" / "context_budget"
    climbing = re.compile(r"__file__\)?(\.resolve\(\))?\.parents?\b")
    found = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if climbing.search(line)
    ]
    assert found == []


def test_the_rent_checker_passes_the_formula_and_names_a_read_only_rent() -> None:
    from context_budget.grading.measured import check_rent

    def right(tokens: int, calls: int, price: Any) -> float:
        return tokens * (price.write_5m + price.read * (calls - 1)) / 1_000_000

    def reads_only(tokens: int, calls: int, price: Any) -> float:
        return tokens * price.read * calls / 1_000_000

    def one_short(tokens: int, calls: int, price: Any) -> float:
        return tokens * (price.write_5m + price.read * (calls - 2)) / 1_000_000

    def text(tokens: int, calls: int, price: Any) -> str:
        return "cheap"

    assert check_rent(right).startswith("PASS: the costliest result of fe5e1c67")
    _wrong(check_rent(reads_only), "11,901 tokens over 6 calls", "pays the write rate")
    _wrong(check_rent(one_short), "it costs $0.062480")
    assert "pays the write rate" not in check_rent(one_short)
    _wrong(check_rent(text), "a number of US dollars")
    # NaN is no number of dollars near any other: "abs(got - right) > tolerance" passed it
    _wrong(check_rent(lambda tokens, calls, price: float("nan")), "you said $nan")


def test_the_threshold_checker_wants_none_where_compaction_never_pays() -> None:
    from context_budget import Policy, replay
    from context_budget.grading.measured import check_cheapest_threshold

    def right(bill: Any, model: str, thresholds: list[int]) -> int | None:
        base = replay(bill, Policy(model=model)).cost
        costs = {t: replay(bill, Policy(model=model, compact_at=t)).cost for t in thresholds}
        best = min(costs, key=lambda t: costs[t])
        return best if costs[best] < base else None

    def always_the_best(bill: Any, model: str, thresholds: list[int]) -> int | None:
        costs = {t: replay(bill, Policy(model=model, compact_at=t)).cost for t in thresholds}
        return min(costs, key=lambda t: costs[t])

    assert check_cheapest_threshold(right) == (
        "PASS: claude-sonnet-4: 32,000; claude-fable-5-1: none"
    )
    _wrong(
        check_cheapest_threshold(always_the_best),
        "claude-fable-5-1: you said 32,000, but none beats not compacting",
    )
    _wrong(check_cheapest_threshold(lambda *_: "32k"), "a threshold (int) or None")


def test_the_causes_checker_names_a_key_that_is_no_call_number() -> None:
    """{"4": "ttl"} was read as a stray call "4" with call 4 unnamed ("call 4: you said
    None, ...; calls 4 are not rebuilds"), and keys of two types raised a TypeError out of
    the checker; a stray call is named in the singular."""
    from context_budget.grading.measured import check_causes

    right = {4: "ttl", 6: "prefix-changed", 8: "compaction", 10: "ttl"}
    assert str(check_causes({"4": "ttl", 6: "x"})) == (
        "NEEDS_WORK: the key '4', not a call number (an int, as 4)"
    )
    assert "the key True," in str(check_causes({True: "ttl"}))
    assert str(check_causes({**right, 5: "ttl"})) == "NEEDS_WORK: call 5 is not a rebuild"
    assert str(check_causes({**right, 5: "ttl", 7: "ttl"})).endswith("calls 5, 7 are not rebuilds")

"""The grading engine: verdicts, attempts, reports, evidence, and what every checker shares."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget.grading import (
    attempt,
    budget,
    contract_status,
    evidence_name,
    report_line,
    save_evidence,
    spending,
)


def _wrong(verdict: str, *words: str) -> None:
    assert verdict.startswith("NEEDS_WORK: "), verdict
    for word in words:
        assert word in verdict, (word, verdict)


def test_contract_status_needs_every_row_to_pass() -> None:
    passed = {"case": "a", "observed": 1, "status": "PASS"}
    failed = {"case": "b", "observed": 0, "status": "FAIL"}
    assert contract_status([passed]) == "PASSED"
    assert contract_status([passed, failed]) == "NEEDS_WORK"
    assert contract_status([]) == "NEEDS_WORK"


# --- the engine: attempts, report lines, evidence files ---------------------------------


def test_attempt_records_a_return_or_the_exception() -> None:

    assert attempt(len, "abc").value == 3 and attempt(len, "abc").error is None
    failed = attempt(len, 5)
    assert failed.value is None and failed.error_name == "TypeError"


def test_report_line_is_the_tag_and_sorted_json() -> None:

    import pytest

    line = report_line("EXERCISE_REPORT", {"unit": "unit-a", "passed": 9})
    tag, _, body = line.partition("=")
    assert tag == "EXERCISE_REPORT" and json.loads(body) == {"unit": "unit-a", "passed": 9}
    assert body.index('"passed"') < body.index('"unit"')
    with pytest.raises(ValueError, match="'lower case'"):
        report_line("lower case", {})


def test_evidence_names_carry_the_edition_and_refuse_odd_parts() -> None:
    import pytest

    assert evidence_name("unit-a", "worked", "handoff") == "unit-a-worked-handoff-v1.json"
    for bad in ("", "../x", "a b", "é"):
        with pytest.raises(ValueError, match="edition must be"):
            evidence_name("unit-a", bad, "handoff")


def test_save_evidence_replaces_the_file_whole_and_leaves_no_temporary(tmp_path: Path) -> None:

    import pytest

    target = save_evidence(tmp_path / "new", "e.json", {"b": 1, "a": "ü"})
    assert json.loads(target.read_text(encoding="utf-8")) == {"a": "ü", "b": 1}
    save_evidence(tmp_path / "new", "e.json", [1, 2])
    assert json.loads(target.read_text(encoding="utf-8")) == [1, 2]
    with pytest.raises(TypeError):
        save_evidence(tmp_path / "new", "e.json", {"x": object()})
    assert json.loads(target.read_text(encoding="utf-8")) == [1, 2]  # the old file is whole
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["e.json"]
    for bad in ("", "..", "sub/e.json"):
        with pytest.raises(ValueError, match="bare file name"):
            save_evidence(tmp_path, bad, {})


def test_a_failed_save_leaves_the_old_file_whole_and_no_temporary(
    tmp_path: Path, monkeypatch: Any
) -> None:

    import pytest

    from context_budget.grading import save_evidence

    target = save_evidence(tmp_path, "e.json", {"version": 1})

    def disk_full(source: str, destination: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        save_evidence(tmp_path, "e.json", {"version": 2})
    assert json.loads(target.read_text(encoding="utf-8")) == {"version": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.json"]


# --- what every checker shares ------------------------------------------------------


@pytest.mark.parametrize(
    "check",
    [
        budget.check_read_so_far,
        budget.check_estimate,
        budget.check_digit_aware,
        budget.check_budget_report,
        spending.check_head,
        spending.check_tail,
        spending.check_safe_trim,
    ],
)
def test_an_unwritten_starter_is_not_yet_written(check: Any) -> None:
    def starter(*arguments: object) -> Any:
        raise NotImplementedError

    _wrong(check(starter), "not written yet")


@given(st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers())))
def test_a_function_returning_anything_gets_a_verdict_not_an_exception(value: object) -> None:
    for check in (budget.check_estimate, spending.check_head, budget.check_budget_report):
        assert check(lambda *arguments: value).startswith(("PASS", "NEEDS_WORK: "))


@pytest.mark.parametrize("answer", ["16", 16.0, False, None])
def test_the_other_number_answers_also_refuse_a_wrong_type(answer: object) -> None:
    for check in (
        budget.check_message_size,
        budget.check_rule_cost,
        spending.check_visible_at_400,
    ):
        assert check(answer) == f"NEEDS_WORK: answer with a whole number (an int), got {answer!r}"


def test_a_wrong_number_gets_a_hint_not_a_pass() -> None:
    _wrong(budget.check_message_size(0), "not 0", "per-message framing")
    _wrong(budget.check_rule_cost(0), "not 0", "costs what the same text costs as a message")
    _wrong(spending.check_visible_at_400(3), "not 3", "keep_numbers")

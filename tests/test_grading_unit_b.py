"""Unit B's grader: each row can fail, the transfer cases are right, the evidence is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from context_budget import estimate_tokens, keep_numbers
from context_budget.cache_report import CacheReport, RequestRow, cache_report
from context_budget.calibration import calibrated_estimate, fit_ratios, with_margin
from context_budget.erosion import Strategy, keep_rules_and_decisions, survival_rounds
from context_budget.grading.unit_b import (
    TRANSFER_CASES,
    contract_status,
    grade_unit,
    reference_request,
    run_transfer_b,
    save_work,
    starting_evidence,
    transfer_status,
)
from context_budget.scenarios.layouts import MODEL
from context_budget.survival import Scenario
from context_budget.usage import Usage


def _statuses(rows: list[dict[str, object]]) -> list[str]:
    return [str(row["status"]) for row in rows]


def test_the_library_repairs_pass_every_row() -> None:
    rows = grade_unit(calibrated_estimate, keep_rules_and_decisions, reference_request)
    assert contract_status(rows) == "PASSED" and len(rows) == 8


def test_chars_over_four_fails_every_sample_row() -> None:
    rows = grade_unit(estimate_tokens, keep_rules_and_decisions, reference_request)
    assert _statuses(rows)[:4] == ["FAIL"] * 4  # prose +16%, code -10.3%, json, numbers


def test_a_digits_only_summary_fails_both_survival_rows() -> None:
    rows = grade_unit(calibrated_estimate, keep_numbers, reference_request)
    assert _statuses(rows)[4:6] == ["FAIL", "FAIL"]


def test_a_timestamp_in_the_system_prompt_fails_both_cache_rows() -> None:
    def stamped(conversation, turn):  # type: ignore[no-untyped-def]
        request = reference_request(conversation, turn)
        return {**request, "system": f"{request['system']} (turn {turn})"}

    rows = grade_unit(calibrated_estimate, keep_rules_and_decisions, stamped)
    assert _statuses(rows)[6:] == ["FAIL", "FAIL"]
    assert rows[6]["observed"] == "0%"


def test_a_counter_that_returns_a_float_fails_with_a_plain_reason() -> None:
    rows = grade_unit(lambda text: len(text) / 3, keep_rules_and_decisions, reference_request)
    assert str(rows[0]["observed"]).startswith("not an int")


def test_the_transfer_cases_pass_with_the_margin_and_fail_without_it() -> None:
    def with_safety(text: str, window: int) -> bool:
        return with_margin(calibrated_estimate)(text) > window

    def rough(text: str, window: int) -> bool:
        return estimate_tokens(text) > window

    assert transfer_status(run_transfer_b(with_safety)) == "PASS"
    flips = [row["case"] for row in run_transfer_b(rough) if row["status"] == "FAIL"]
    # chars/4 says these fit, and they do not
    assert flips == [TRANSFER_CASES[0][0], TRANSFER_CASES[1][0], TRANSFER_CASES[3][0]]


def test_starting_evidence_reads_a_unit_a_handoff_and_skips_a_broken_one(tmp_path: Path) -> None:
    assert starting_evidence(tmp_path) == ("none", None)
    (tmp_path / "unit-a-worked-handoff-v1.json").write_text("{half")
    (tmp_path / "unit-a-student-handoff-v1.json").write_text(json.dumps({"unit": "unit-a"}))
    path, data = starting_evidence(tmp_path)
    assert path.endswith("unit-a-student-handoff-v1.json") and data == {"unit": "unit-a"}


def test_save_work_names_the_edition_and_refuses_others(tmp_path: Path) -> None:
    path = save_work("student", "handoff", {"a": 1}, tmp_path)
    assert Path(path).name == "unit-b-student-handoff-v1.json"
    with pytest.raises(ValueError, match="edition"):
        save_work("teacher", "handoff", {}, tmp_path)


def test_the_report_table_and_an_empty_prompt() -> None:
    report = cache_report([reference_request([{"role": "user", "content": "hi"}], 0)], MODEL)
    assert report.table().splitlines()[1].split()[4] == "-"
    assert RequestRow(0, Usage(), None, 0.0).hit_share == 0.0
    assert CacheReport(MODEL, []).hit_share == 0.0


def test_an_unknown_kind_and_a_conversation_without_a_question_are_named() -> None:
    with pytest.raises(ValueError, match=r"samples\[0\] has kind 'poetry'"):
        fit_ratios(["x"], len, kinds={0: "poetry"})
    silent = Scenario("s", [], lambda: [{"role": "assistant", "content": "hi"}], [])
    with pytest.raises(ValueError, match="no user question"):
        survival_rounds(silent, [Strategy("a", keep_numbers)], 1)

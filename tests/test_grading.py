"""The grading engine: verdicts, attempts, reports, evidence, and what every checker shares."""

from __future__ import annotations

import copy
import json
import os
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget.grading import (
    NEEDS_WORK,
    PASS,
    Verdict,
    attempt,
    budget,
    contract_status,
    evidence_name,
    report_line,
    save_evidence,
    spending,
    strings_in,
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


# --- the verdict ---------------------------------------------------------------------


def test_a_verdict_is_the_text_it_prints_and_keeps_its_parts() -> None:
    passed = Verdict(PASS)
    assert passed == "PASS" and repr(passed) == "'PASS'" and passed.passed
    assert (passed.status, passed.why, passed.rows, dict(passed.hints)) == (PASS, "", (), {})
    wrong = Verdict(NEEDS_WORK, "expected 4, got 5")
    assert str(wrong) == "NEEDS_WORK: expected 4, got 5" and not wrong.passed
    assert json.loads(json.dumps({"verdict": wrong})) == {"verdict": str(wrong)}
    assert Verdict(PASS, "3 of 3") == "PASS: 3 of 3"


def test_a_verdict_of_rows_shows_each_row_and_the_hint_of_each_failed_one() -> None:
    rows = [
        {"case": "adds", "observed": 5, "status": "FAIL"},
        {"case": "keeps", "observed": "a\nb", "status": "PASS"},
    ]
    verdict = Verdict.of_rows(rows, {"adds": "count both", "keeps": "not shown"})
    assert verdict.status == NEEDS_WORK
    assert verdict.splitlines() == [
        "NEEDS_WORK",
        "FAIL  adds -> 5",
        "      hint: count both",
        "PASS  keeps -> 'a\\nb'",
        "      hint: not shown",
    ]
    assert Verdict.of_rows(rows[1:]).passed and not Verdict.of_rows([]).passed


def test_a_verdict_refuses_another_status_and_cannot_be_changed() -> None:
    for status in ("PASSED", "pass", "FAIL", ""):
        with pytest.raises(ValueError, match=f"got {status!r}"):
            Verdict(status)
    with pytest.raises(TypeError, match="why is a str, got int"):
        Verdict(NEEDS_WORK, 3)  # type: ignore[arg-type]
    verdict = Verdict(PASS)
    with pytest.raises(AttributeError, match="cannot be changed"):
        verdict.status = NEEDS_WORK  # type: ignore[misc]
    with pytest.raises(AttributeError, match="cannot be changed"):
        del verdict.status
    assert verdict.status == PASS


def test_a_verdict_copies_the_rows_and_hints_it_is_given() -> None:
    rows = [{"case": "adds", "observed": 5, "status": "FAIL"}]
    hints = {"adds": "count both"}
    verdict = Verdict.of_rows(rows, hints)
    rows.append({"case": "late", "observed": 0, "status": "FAIL"})
    hints["adds"] = "changed"
    assert len(verdict.rows) == 1 and verdict.hints == {"adds": "count both"}
    for again in (copy.deepcopy(verdict), pickle.loads(pickle.dumps(verdict))):
        assert again == verdict and type(again) is Verdict
        assert (again.status, again.rows, again.hints) == (NEEDS_WORK, verdict.rows, verdict.hints)


@given(st.text(), st.booleans())
def test_any_why_makes_a_verdict_that_starts_with_its_status(why: str, passed: bool) -> None:
    status = PASS if passed else NEEDS_WORK
    verdict = Verdict(status, why)
    assert verdict.startswith(status) and verdict.why == why
    assert verdict == (f"{status}: {why}" if why else status)


def test_strings_in_finds_every_string_of_nested_data_in_order() -> None:
    data = {"a": ["x", {"b": ("y", 3, None)}], "c": "z", "d": b"bytes"}
    assert strings_in(data) == ["x", "y", "z"] and strings_in(7) == []


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


# --- the layout: one module per part of the course ---------------------------------------

ROOT = Path(__file__).resolve().parents[1]
GRADING = ROOT / "src" / "context_budget" / "grading"
#: The folder of a part's pages -> the module that holds the part's checkers.
PART_MODULES = {
    "budget": "budget",
    "spending": "spending",
    "harness": "harness",
    "measured": "measured",
}


def test_the_grading_modules_are_the_engine_the_four_parts_and_the_two_units() -> None:
    names = {path.stem for path in GRADING.glob("*.py")}
    assert names == {"__init__", *PART_MODULES.values(), "unit_a", "unit_b"}


def test_only_the_engine_defines_the_verdict_words_and_the_verdict_type() -> None:
    import ast

    found = []
    for path in sorted((ROOT / "src" / "context_budget").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if isinstance(node, ast.ClassDef) and node.name == "Verdict":
                names.append("class Verdict")
            found += [(path.relative_to(GRADING.parent).as_posix(), n) for n in names]
    found = [(where, n) for where, n in found if n in {"PASS", "NEEDS_WORK", "class Verdict"}]
    assert sorted(found) == [
        ("grading/__init__.py", "NEEDS_WORK"),
        ("grading/__init__.py", "PASS"),
        ("grading/__init__.py", "class Verdict"),
    ]


def test_a_page_imports_its_checkers_from_the_module_of_its_part() -> None:
    imports = re.compile(r"from context_budget\.grading\.(\w+) import \(?([^)\n]*(?:\n[^)]*)?)")
    wrong, seen = [], 0
    for folder, module in PART_MODULES.items():
        for page in sorted((ROOT / "docs" / folder).glob("*.md")):
            for found, names in imports.findall(page.read_text(encoding="utf-8")):
                if "check_" in names:
                    seen += 1
                    if found != module:
                        wrong.append(f"{page.relative_to(ROOT)}: grading.{found}")
    assert wrong == [] and seen > 0


@pytest.mark.parametrize("module", [*PART_MODULES.values(), "unit_a", "unit_b"])
def test_every_checker_of_a_part_returns_a_verdict(module: str) -> None:
    import importlib
    import inspect
    import typing

    grader = importlib.import_module(f"context_budget.grading.{module}")
    checks = [name for name in grader.__all__ if name.startswith("check_")]
    for name in checks:
        returns = typing.get_type_hints(getattr(grader, name)).get("return")
        assert returns is Verdict, (name, returns)
    # a unit's notebook grades with `check_rows`, so that the site judges its grade cells by
    # the verdict; a part's pages with checkers of their own
    assert checks if module in PART_MODULES else checks == ["check_rows"], checks
    assert all(inspect.isfunction(getattr(grader, name)) for name in checks)

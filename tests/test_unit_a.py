"""Unit A's two notebook editions run and reach the outcomes the unit states.

- The worked edition passes the visible contract and the transfer task, holds the
  unit's survival assertions, and writes a handoff that agrees with ``survival_table()``.
- The student edition runs to the end with its starters in place and reports
  ``NEEDS_WORK`` for both, without a traceback.

Each notebook runs once per module, in a fresh kernel whose working directory is an
empty temp folder (files it saves land under ``practical-work/unit-a/`` there).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import jupytext
import pytest
from notebook_runner import run_notebook

from context_budget import PINNED, survival_table

pytestmark = pytest.mark.notebooks

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "docs" / "notebooks"
CELL_TIMEOUT = 60  # seconds; every cell of these notebooks runs in well under one
HANDOFF = Path("practical-work") / "unit-a" / "unit-a-handoff-v1.json"


@dataclass
class Run:
    """One executed notebook: everything its cells printed, and its working folder."""

    text: str
    errors: list[str]
    cwd: Path


def _execute(name: str, cwd: Path) -> Run:
    path = NOTEBOOKS / name
    source = path.read_text(encoding="utf-8")
    nb = jupytext.reads(source, fmt="py:percent")
    run_notebook(
        nb, name=f"docs/notebooks/{name}", cwd=cwd, source_text=source, timeout=CELL_TIMEOUT
    )
    printed, errors = [], []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                printed.append(output["text"])
            elif output["output_type"] == "error":
                errors.append(f"{output['ename']}: {output['evalue']}")
            elif "text/plain" in output.get("data", {}):
                printed.append(output["data"]["text/plain"])
    return Run("".join(printed), errors, cwd)


@pytest.fixture(scope="module")
def worked(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _execute("unit-a-worked.py", tmp_path_factory.mktemp("worked"))


@pytest.fixture(scope="module")
def student(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _execute("unit-a-student.py", tmp_path_factory.mktemp("student"))


def test_worked_edition_passes_the_contract_and_the_transfer(worked: Run) -> None:
    assert worked.errors == []
    assert "VISIBLE_CONTRACT PASSED" in worked.text
    assert "TRANSFER_STATUS PASS\n" in worked.text
    assert "FAIL" not in worked.text and "NEEDS_WORK" not in worked.text
    assert '"edition": "worked"' in worked.text


def test_worked_edition_holds_the_survival_assertions(worked: Run) -> None:
    # the cell prints this line only after its four claims' asserts have passed
    assert "SURVIVAL_ASSERTIONS HELD" in worked.text
    assert "the library's compact keeps the same facts at every budget" in worked.text


def test_worked_handoff_agrees_with_survival_table(worked: Run) -> None:
    handoff = json.loads((worked.cwd / HANDOFF).read_text(encoding="utf-8"))
    assert set(handoff) == {
        "unit",
        "edition",
        "status",
        "budgets",
        "summarizer",
        "pinned",
        "survival",
    }
    assert (handoff["unit"], handoff["edition"], handoff["status"]) == (
        "unit-a",
        "worked",
        "COMPLETED",
    )
    assert handoff["summarizer"] == "keep_numbers"
    assert handoff["pinned"] == PINNED
    table = survival_table()
    assert handoff["survival"] == table
    assert handoff["budgets"] == {label: row["budget"] for label, row in table.items()}
    assert f"handoff written: {HANDOFF.as_posix()}" in worked.text
    assert not list((worked.cwd / HANDOFF.parent).glob("*.tmp")), "a temporary file was left"


def test_student_edition_runs_and_needs_work(student: Run) -> None:
    assert student.errors == []
    assert "Traceback" not in student.text
    assert "VISIBLE_CONTRACT NEEDS_WORK" in student.text
    assert "TRANSFER_STATUS NEEDS_WORK" in student.text
    assert "COMPACTION_NOT_READY" in student.text
    assert "HANDOFF_NOT_WRITTEN" in student.text
    assert '"edition": "student"' in student.text
    assert not (student.cwd / HANDOFF).exists()
    saved = student.cwd / "practical-work" / "unit-a" / "unit-a-submission-v1.json"
    submission = json.loads(saved.read_text(encoding="utf-8"))
    assert submission["core_report"]["contract"] == "NEEDS_WORK"
    assert [row["observed"] for row in submission["transfer"]] == [{"unfinished": True}] * 4

"""Unit A's two notebook editions run and reach the outcomes the unit states.

- The worked edition passes the visible contract and the transfer task, holds the
  unit's survival assertions, and writes a handoff that agrees with `survival_table`.
- The student edition runs to the end with its starters in place and reports
  `NEEDS_WORK` for both, without a traceback.
- The two editions never overwrite each other: a student edition whose starters are
  replaced by working functions runs first, the worked edition after it, in one folder;
  both handoffs and both submissions are there, each naming its own edition, and the
  student's files are byte for byte what the student edition wrote.

Each run uses a fresh kernel whose working directory is a temp folder (files it saves
land under `practical-work/unit-a/` there).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
import pytest
from notebook_runner import run_notebook

from context_budget.scenarios.lucy import LUCY, PINNED, PLANS
from context_budget.survival import survival_table

pytestmark = pytest.mark.notebooks

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "docs" / "notebooks"
CELL_TIMEOUT = 60  # seconds; every cell of these notebooks runs in well under one
WORK = Path("practical-work") / "unit-a"
HANDOFF = WORK / "unit-a-worked-handoff-v1.json"
STUDENT_HANDOFF = WORK / "unit-a-student-handoff-v1.json"
# A learner who has finished: after each starter cell, the library's function takes its name.
FINISHED = {
    "def compact(layers, budget, summarize):": "from context_budget import compact",
    "def clear_old_tool_results(messages, keep_last):": (
        "from context_budget import clear_old_tool_results"
    ),
    "def transfer_filter(text, needle, budget):": "from context_budget import transfer_filter",
}


@dataclass
class Run:
    """One executed notebook: everything its cells printed, and its working folder."""

    text: str
    errors: list[str]
    cwd: Path


def _execute(name: str, cwd: Path, replacements: dict[str, str] | None = None) -> Run:
    """Run one edition in `cwd`; `replacements` adds a cell after the code cell holding each key."""
    path = NOTEBOOKS / name
    source = path.read_text(encoding="utf-8")
    nb = jupytext.reads(source, fmt="py:percent")
    for start, code in (replacements or {}).items():
        (index,) = [
            i for i, c in enumerate(nb.cells) if c.cell_type == "code" and start in c.source
        ]
        nb.cells.insert(index + 1, nbformat.v4.new_code_cell(code))
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


@dataclass
class SharedFolder:
    """A finished student edition, then the worked edition, run in one folder."""

    student: Run
    worked: Run
    student_files: dict[str, bytes]  # name -> bytes, as the student edition left them


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> SharedFolder:
    folder = tmp_path_factory.mktemp("both-editions")
    student = _execute("unit-a-student.py", folder, FINISHED)
    files = {path.name: path.read_bytes() for path in sorted((folder / WORK).iterdir())}
    return SharedFolder(student, _execute("unit-a-worked.py", folder), files)


@pytest.fixture(scope="module")
def worked(shared: SharedFolder) -> Run:
    return shared.worked


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
    table = survival_table(LUCY, PLANS)
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
    saved = student.cwd / WORK / "unit-a-student-submission-v1.json"
    submission = json.loads(saved.read_text(encoding="utf-8"))
    assert submission["core_report"]["contract"] == "NEEDS_WORK"
    assert [row["observed"] for row in submission["transfer"]] == [{"unfinished": True}] * 4


def test_the_worked_edition_never_overwrites_the_students_evidence(shared: SharedFolder) -> None:
    assert shared.student.errors == [] and shared.worked.errors == []
    assert "VISIBLE_CONTRACT PASSED" in shared.student.text  # the finished attempt passes
    assert sorted(shared.student_files) == [
        "unit-a-student-handoff-v1.json",
        "unit-a-student-submission-v1.json",
    ]
    folder = shared.worked.cwd / WORK
    assert sorted(path.name for path in folder.iterdir()) == [
        "unit-a-student-handoff-v1.json",
        "unit-a-student-submission-v1.json",
        "unit-a-worked-handoff-v1.json",
        "unit-a-worked-submission-v1.json",
    ]
    for name, before in shared.student_files.items():
        assert (folder / name).read_bytes() == before, f"the worked edition changed {name}"
    for edition in ("student", "worked"):
        for kind in ("handoff", "submission"):
            saved = json.loads((folder / f"unit-a-{edition}-{kind}-v1.json").read_text())
            assert saved["edition"] == edition, (edition, kind)
    student_handoff = json.loads((folder / STUDENT_HANDOFF.name).read_text())
    assert student_handoff["survival"] == survival_table(LUCY, PLANS)


def test_the_student_hints_are_folded_one_by_one() -> None:
    source = (NOTEBOOKS / "unit-a-student.py").read_text(encoding="utf-8")
    summaries = [line for line in source.splitlines() if "<details><summary>Hint" in line]
    labels = [line.split("<summary>")[1].split(":")[0] for line in summaries]
    assert labels == ["Hint 1", "Hint 2", "Hint 3"]
    assert source.count("# </details>") == 3

"""Unit B's two notebook editions run and reach the outcomes the unit states.

- The student edition runs to the end with its starters in place and reports
  `NEEDS_WORK`, without a traceback, and says it starts on its own.
- The worked edition shows all three breaks and their repairs (each cell prints its
  line only after its asserts held), passes the grade table and the transfer task,
  and reads Unit A's handoff when one is in the folder.
- The editions never overwrite each other: a finished student edition, then the
  worked edition, in one folder; all four files are there, each naming its edition,
  and the student's are byte for byte what the student edition wrote.
- The worked edition's download, on a bare kernel outside the repository, does every
  step (the samples ship inside the package it carries: checked in test_notebooks.py,
  on the run that proves every lesson's download runs); a download missing them
  fails the cell that reads them, and never reports the grade it could not make.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from notebook_runner import NotebookFailure, run_notebook
from test_notebooks import (
    PROBE,
    bare_kernel,  # noqa: F401 (the fixture the download tests use)
)
from test_unit_a import NOTEBOOKS, Run, _execute

from context_budget.grading.unit_a import save_work as save_unit_a
from context_budget.scenarios.lucy import LUCY, PLANS
from context_budget.survival import survival_table
from docsite import selfcontained

pytestmark = pytest.mark.notebooks

WORK = Path("practical-work") / "unit-b"
FINISHED = {
    "def estimate(text):": "from context_budget.calibration import calibrated_estimate as estimate",
    "def summarize(messages):": (
        "from context_budget.erosion import keep_rules_and_decisions as summarize"
    ),
    "def build_request(conversation, turn):": (
        "from context_budget.grading.unit_b import reference_request as build_request"
    ),
    "def needs_compaction(text, window):": (
        "def needs_compaction(text, window):\n"
        "    return with_margin(calibrated_estimate)(text) > window"
    ),
}


@pytest.fixture(scope="module")
def student(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _execute("unit-b-student.py", tmp_path_factory.mktemp("student-b"))


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, dict[str, bytes], Run]:
    folder = tmp_path_factory.mktemp("both-b")
    unit_a = {"unit": "unit-a", "edition": "worked", "survival": survival_table(LUCY, PLANS)}
    save_unit_a("worked", "handoff", unit_a, folder / "practical-work" / "unit-a")
    finished = _execute("unit-b-student.py", folder, FINISHED)
    files = {path.name: path.read_bytes() for path in sorted((folder / WORK).iterdir())}
    return finished, files, _execute("unit-b-worked.py", folder)


def test_student_edition_runs_and_needs_work(student: Run) -> None:
    assert student.errors == [] and "Traceback" not in student.text
    assert "VISIBLE_CONTRACT NEEDS_WORK" in student.text
    assert "TRANSFER_STATUS NEEDS_WORK" in student.text
    assert "this unit starts on its own" in student.text
    handoff = json.loads((student.cwd / WORK / "unit-b-student-handoff-v1.json").read_text())
    assert (handoff["edition"], handoff["status"]) == ("student", "NEEDS_WORK")


def test_worked_edition_shows_every_break_and_passes(
    both: tuple[Run, dict[str, bytes], Run],
) -> None:
    worked = both[2]
    assert worked.errors == []
    for line in (
        "EROSION_SHOWN_AND_REPAIRED",
        "LAYOUT_SHOWN_AND_REPAIRED",
        "ESTIMATE_SHOWN_AND_REPAIRED",
        "VISIBLE_CONTRACT PASSED",
        "TRANSFER_STATUS PASS\n",
        "BEFORE_AFTER_TABLE 3 breaks",
    ):
        assert line in worked.text, line
    assert "FAIL" not in worked.text and "NEEDS_WORK" not in worked.text
    assert (
        "starting from Unit A's handoff: practical-work/unit-a/unit-a-worked-handoff" in worked.text
    )
    # its counter was fitted on other text than the four samples it is graded on: a fit
    # on them scores 0.0% on every one (each sample's own characters per token), which
    # shows nothing
    assert re.search(r"fitted on \d+ corpus texts, graded on 4 others", worked.text)
    graded = [line for line in worked.text.splitlines() if " vs " in line and "%)" in line]
    errors = [abs(float(line.rsplit("(", 1)[1].rstrip("%)"))) for line in graded]
    assert len(errors) == 4 and max(errors) >= 0.5, graded  # a fit on them is within 0.2%


def test_the_worked_edition_never_overwrites_the_students_evidence(
    both: tuple[Run, dict[str, bytes], Run],
) -> None:
    finished, student_files, worked = both
    assert finished.errors == [] and "VISIBLE_CONTRACT PASSED" in finished.text
    assert "TRANSFER_STATUS PASS\n" in finished.text
    folder = worked.cwd / WORK
    assert sorted(path.name for path in folder.iterdir()) == [
        "unit-b-student-handoff-v1.json",
        "unit-b-student-submission-v1.json",
        "unit-b-worked-handoff-v1.json",
        "unit-b-worked-submission-v1.json",
    ]
    for name, before in student_files.items():
        assert (folder / name).read_bytes() == before, name
    for edition in ("student", "worked"):
        handoff = json.loads((folder / f"unit-b-{edition}-handoff-v1.json").read_text())
        assert handoff["edition"] == edition
        assert handoff["starting_evidence"].endswith("unit-a-worked-handoff-v1.json")
        assert handoff["rounds"]["keeps rules"] == [11, 11, 11, 11]


def test_the_student_hints_are_folded_one_by_one() -> None:
    source = (Path(__file__).resolve().parents[1] / "docs/notebooks/unit-b-student.py").read_text()
    labels = [
        line.split("<summary>")[1].split(":")[0]
        for line in source.splitlines()
        if "<details><summary>Hint" in line
    ]
    assert labels == ["Hint 1", "Hint 2", "Hint 3"]
    assert source.count("# </details>") == 3


# The downloads: each edition carries the package, and the package carries the samples.

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "context_budget"


def _download(name: str, package: Path, bare: AsyncKernelManager, cwd: Path) -> Run:
    """Run the self-contained download of one edition on a bare kernel in `cwd`."""
    lesson = NOTEBOOKS / name
    nb = selfcontained.build_notebook(lesson, package)
    nb.cells.insert(0, nbformat.v4.new_code_cell(PROBE))  # proves nothing is installed
    run_notebook(nb, name=f"download of {name}", cwd=cwd, km=bare, source_text=lesson.read_text())
    printed = [
        output["text"]
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if output["output_type"] == "stream"
    ]
    return Run("".join(printed), [], cwd)


def test_a_download_without_its_samples_fails_the_step_that_reads_them(
    bare_kernel: AsyncKernelManager,  # noqa: F811 (the imported fixture)
    tmp_path: Path,
) -> None:
    package = tmp_path / "without-samples" / "context_budget"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "samples"))
    (work := tmp_path / "work").mkdir()
    with pytest.raises(NotebookFailure, match=r"raised FileNotFoundError: .*samples"):
        _download("unit-b-worked.py", package, bare_kernel, work)

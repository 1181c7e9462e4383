"""The package stands alone: its built wheel, installed outside the repository, finds its data.

The wheel is built from a copy of the project (so no build folder lands in the
repository) without build isolation or network, with the setuptools the venv has;
it is installed with no dependencies into a fresh venv in a temp dir, and that
venv's Python, started in another temp dir, loads the calibration corpus and runs
Unit B's grader on the four shipped samples. About 7 s of CPU, most of it the build.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Run by the installed package, from a folder that is not the repository.
PROBE = """\
import json, sys
from pathlib import Path
import context_budget
from context_budget.calibration import calibrated_estimate, calibration_corpus
from context_budget.erosion import keep_rules_and_decisions
from context_budget.grading.unit_b import contract_status, grade_unit, reference_request
from context_budget.grading.unit_b import run_transfer_b, transfer_status
from context_budget.calibration import with_margin

corpus = calibration_corpus()
rows = grade_unit(calibrated_estimate, keep_rules_and_decisions, reference_request)
transfer = run_transfer_b(lambda text, window: with_margin(calibrated_estimate)(text) > window)
print(json.dumps({
    "package": context_budget.__file__,
    "samples": len(corpus),
    "held_out": sum(sample.split == "held-out" for sample in corpus),
    "rows": len(rows),
    "grade": contract_status(rows),
    "transfer": transfer_status(transfer),
}))
"""


def _run(*command: str | Path, cwd: Path) -> str:
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (
        f"{command[:3]} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
    )
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of pyproject.toml, README.md and src/."""
    project = tmp_path_factory.mktemp("project")
    shutil.copy(ROOT / "pyproject.toml", project)
    shutil.copy(ROOT / "README.md", project)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    shutil.copytree(ROOT / "src", project / "src", ignore=ignore)
    dist = tmp_path_factory.mktemp("dist")
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check")
    _run(*pip, "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-q",
         "-w", dist, project, cwd=project)  # fmt: skip
    (built,) = dist.glob("context_budget-*.whl")
    return built


def test_the_installed_wheel_finds_its_corpus_and_grades_unit_b(
    wheel: Path, tmp_path: Path
) -> None:
    target = tmp_path / "venv"
    venv.create(target, with_pip=False)
    python = target / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", python,
         "install", "--no-deps", "--no-index", "-q", wheel, cwd=tmp_path)  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    report = json.loads(_run(python, "-I", "-c", PROBE, cwd=elsewhere))
    assert Path(report["package"]).is_relative_to(target), report["package"]
    assert not Path(report["package"]).is_relative_to(ROOT)
    assert report["samples"] >= 40 and report["held_out"] >= 10, report
    assert (report["rows"], report["grade"], report["transfer"]) == (8, "PASSED", "PASS"), report

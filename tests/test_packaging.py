"""The package stands alone: its built wheel, installed outside the repository, finds its data.

The wheel is built from a copy of the project (so no build folder lands in the
repository) without build isolation or network, with the setuptools the venv has;
it is installed with no dependencies into a fresh venv in a temp dir, and that
venv's Python, started in another temp dir, loads the calibration corpus and runs
Unit B's grader on the four shipped samples. About 7 s of CPU, most of it the build.

The same wheel is installed as a user installs the command without the course,
with `uv tool install` and with `pipx install` (both from the pinned
requirements), offline, into a tool folder of its own; the `context-budget` each
puts on the path bills a copy of a folder of sessions outside the repository, and
says the same as the package here.
"""

from __future__ import annotations

import json
import os
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


def _run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
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


def _installed(installer: str, wheel: Path, tmp_path: Path, env: dict[str, str]) -> Path:
    """The `context-budget` command `installer` (`uv` or `pipx`, both pinned in the
    requirements) puts on the path from `wheel`, offline, into folders under `tmp_path`;
    `env` gains the folders it is told to use."""
    tool = shutil.which(installer, path=str(Path(sys.executable).parent))
    assert tool is not None, f"{installer} is pinned in requirements/lock.txt: run make setup"
    if installer == "uv":
        env |= {
            "UV_TOOL_DIR": str(tmp_path / "tools"),
            "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
            "UV_CACHE_DIR": str(tmp_path / "cache"),
            "UV_PYTHON_DOWNLOADS": "never",
            "UV_NO_CONFIG": "1",
        }
        # The requirement a user types; an extra joins it as `context-budget[NAME] @ <wheel>`
        # (its own wheels then need --find-links, offline).
        requirement = f"context-budget @ {wheel.as_uri()}"
        _run(tool, "tool", "install", "--offline", "--no-index", "--python", sys.executable,
             requirement, cwd=tmp_path, env=env)  # fmt: skip
    else:
        env |= {
            "PIPX_HOME": str(tmp_path / "tools"),
            "PIPX_BIN_DIR": str(tmp_path / "bin"),
            "PIPX_MAN_DIR": str(tmp_path / "man"),
            # offline: pipx's own pip is the one Python bundles, not one fetched first
            "PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE": "1",
            "PIP_NO_INDEX": "1",
        }
        _run(tool, "install", "--python", sys.executable, wheel, cwd=tmp_path, env=env)
    return tmp_path / "bin" / "context-budget"


@pytest.mark.parametrize("installer", ["uv", "pipx"])
def test_a_user_installs_the_wheel_as_a_command_that_bills_a_folder(
    installer: str, wheel: Path, tmp_path: Path
) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home")}
    command = _installed(installer, wheel, tmp_path, env)
    assert command.is_file()
    folder = tmp_path / "sessions"
    sessions = ROOT / "docs" / "measured" / "sessions"
    shutil.copytree(sessions / "sample-project", folder / "sample-project")
    shutil.copytree(sessions / "synthetic", folder / "synthetic")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    printed = _run(command, "bill", folder, "--json", "--by", "day", "--timezone", "UTC",
                   cwd=elsewhere, env=env)  # fmt: skip
    data = json.loads(printed)

    from context_budget import read_bill  # the package of this repository, for comparison

    here = read_bill(folder)
    assert (data["calls"], data["format"]) == (len(here.calls), "mixed")
    assert data["cost_usd"] == round(here.cost().total, 6)
    assert [g["key"] for g in data["groups"]] == [g.key for g in here.groups("day")]
    version = _run(command, "--version", cwd=elsewhere, env=env)
    assert version.startswith("context-budget "), version

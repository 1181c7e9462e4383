"""The gate itself is a check: `make test` must fail when any of its stages fails.

tools/gate-selfcheck.sh runs `make test` with every stage swapped for a stub (`make test`
also runs it before any real stage). These tests run it on the real Makefile and on a
fixture Makefile whose stage macro has the defect it exists to catch.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SELFCHECK = ROOT / "tools" / "gate-selfcheck.sh"
STAGES = ("SETUP", "LINT", "TYPECHECK_SITE", "UNIT", "BROWSER")

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def selfcheck(makefile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SELFCHECK), str(makefile.relative_to(ROOT))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_real_gate_fails_whenever_one_stage_fails() -> None:
    done = selfcheck(ROOT / "Makefile")
    assert done.returncode == 0, done.stderr
    for stage in STAGES:
        assert f"stage {stage} failing: exit 2, no success line, no later step" in done.stdout


def test_the_selfcheck_refuses_a_stage_macro_whose_semicolon_drops_a_failure() -> None:
    done = selfcheck(ROOT / "tests" / "fixtures" / "gate" / "Makefile.semicolon")
    assert done.returncode == 1
    assert "stage SETUP failed, yet make test exited 0" in done.stderr


@pytest.mark.parametrize("failing", STAGES)
def test_a_failing_stage_is_named_and_stops_the_gate(failing: str) -> None:
    overrides = [
        f"GATE_{stage}=gate-stub-{'fail' if stage == failing else 'pass'}-{stage}"
        for stage in STAGES
    ]
    done = subprocess.run(
        ["make", "--no-print-directory", "test", "GATE_FIRST=", *overrides],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "every check passed" not in done.stdout + done.stderr
    name = {"TYPECHECK_SITE": "typecheck + site"}.get(failing, failing.lower())
    assert f"make test: {name} FAILED after" in done.stderr


def test_the_selfcheck_refuses_a_side_by_side_step_that_ignores_one_half() -> None:
    done = selfcheck(ROOT / "tests" / "fixtures" / "gate" / "Makefile.ignored")
    assert done.returncode == 1
    assert "stage UNIT failed, yet make test exited 0" in done.stderr

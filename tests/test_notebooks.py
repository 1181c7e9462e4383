"""The notebook lessons run, and so do their self-contained downloads.

- Every lesson ``docs/notebooks/*.py`` runs with nbclient in the venv's ``python3`` kernel,
  from the repository root, as mkdocs-jupyter runs it; an error fails naming the cell.
- Its download (``docsite/selfcontained.py``) runs in a bare kernel where ``context_budget``
  is not installed: ``python -S`` skips ``site``, so the venv's ``.pth`` files (the editable
  install) are never read, and only the site-packages folder itself is put on the path.
- The gate can fail (a fixture cell that raises), the builder is deterministic, the payload
  carries every file of the package, and the mkdocs hook adds a download, not a page.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
import sys
import sysconfig
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from notebook_runner import STAMP_NAME, NotebookFailure, built_page, run_notebook

from docsite import selfcontained

pytestmark = pytest.mark.notebooks

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "context_budget"
LESSONS = sorted((ROOT / "docs" / "notebooks").glob("*.py"))
FIXTURES = Path(__file__).parent / "fixtures" / "notebooks"


def _read_lesson(path: Path) -> nbformat.NotebookNode:
    import jupytext

    return jupytext.reads(path.read_text(encoding="utf-8"), fmt="py:percent")


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.fixture
def bare_kernel(tmp_path: Path) -> Iterator[AsyncKernelManager]:
    """A kernel manager for a bare kernel (`bare_kernel_manager`) with a private temp dir."""
    yield bare_kernel_manager(tmp_path)


def bare_kernel_manager(tmp_path: Path) -> AsyncKernelManager:
    """A kernel manager for ``python -S -m ipykernel_launcher``, its kernel spec and temp
    dir under ``tmp_path``.

    ``-S`` skips the ``site`` module, so no ``.pth`` file is processed and the editable
    install of ``context_budget`` is invisible; ``PYTHONPATH`` adds back the site-packages
    folder itself (ipykernel, matplotlib, ...), as a notebook service provides them.
    """
    site_packages = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    spec_dir = tmp_path / "kernels" / "bare"
    spec_dir.mkdir(parents=True)
    (tmp_path / "tmp").mkdir()
    spec = {
        "argv": [sys.executable, "-S", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "bare Python (no site, no .pth)",
        "language": "python",
        "env": {"PYTHONPATH": os.pathsep.join(site_packages), "TMPDIR": str(tmp_path / "tmp")},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    specs = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")])
    return AsyncKernelManager(kernel_name="bare", kernel_spec_manager=specs)


PROBE = """\
import importlib.util, sys
assert sys.flags.no_site, "the kernel must run without the site module"
assert "context_budget" not in sys.modules
assert importlib.util.find_spec("context_budget") is None, "context_budget is installed"
"""

AFTER = """\
import sys, tempfile
from pathlib import Path
import context_budget
folder = Path(tempfile.gettempdir()).resolve()
assert folder in Path(context_budget.__file__).resolve().parents, context_budget.__file__
assert len([p for p in sys.path if p.startswith(str(folder))]) == 1, sys.path
"""


@pytest.fixture(scope="module")
def jupyter_settings() -> Any:
    """mkdocs-jupyter's settings as mkdocs.yml gives them (hooks and plugins loaded)."""
    return load_config(str(ROOT / "mkdocs.yml")).plugins["mkdocs-jupyter"].config


def _built_or_run(lesson: Path, jupyter_settings: Any) -> str | nbformat.NotebookNode:
    """The site build's page for the lesson if it ran the lesson as it is now, else a run.

    ``make test`` builds the site before the unit run, so each lesson is executed once,
    by the build, and these tests read that execution (``built_page``); run alone, or
    after the lesson or the package changed, they execute the lesson themselves.
    """
    page = built_page(lesson, jupyter_settings, selfcontained.package_digest(PACKAGE))
    if page is not None:
        return page
    text = lesson.read_text(encoding="utf-8")
    return run_notebook(_read_lesson(lesson), name=_rel(lesson), cwd=ROOT, source_text=text)


@pytest.mark.parametrize("lesson", LESSONS, ids=_rel)
def test_lesson_runs(lesson: Path, jupyter_settings: Any) -> None:
    """The lesson runs in the venv's kernel from the repository root, as the site build runs it.

    Read from the build when it ran this lesson (it stops at the first cell that raises,
    so a page in its cache is a clean run), executed here otherwise.
    """
    ran = _built_or_run(lesson, jupyter_settings)
    if isinstance(ran, str):
        assert "jp-OutputArea-output" in ran, f"{_rel(lesson)}: the built page shows no output"


def test_the_runner_and_the_hook_agree_on_the_stamp() -> None:
    """One name for the stamp file: the runner reads the one the download hook writes."""
    from docsite import notebook_download

    assert STAMP_NAME is notebook_download.STAMP_NAME == "package-digest.txt"


def test_a_build_of_another_lesson_or_package_is_not_read(
    jupyter_settings: Any, tmp_path: Path
) -> None:
    """``built_page`` reads a cached page only for the same lesson bytes and package digest."""
    from mkdocs_jupyter.plugin import _compute_cache_key

    lesson = tmp_path / "lesson.py"
    lesson.write_text("# %%\nprint(1)\n", encoding="utf-8")
    settings = dict(jupyter_settings)
    settings["cache_dir"] = str(tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    key = _compute_cache_key(lesson, settings, True)
    (tmp_path / "cache" / f"{key}.json").write_text(json.dumps({"content": "<p>ran</p>"}))
    assert built_page(lesson, settings, "abc") is None  # no stamp: nothing is known
    (tmp_path / "cache" / STAMP_NAME).write_text("abc\n")
    assert built_page(lesson, settings, "abc") == "<p>ran</p>"
    assert built_page(lesson, settings, "another package") is None
    lesson.write_text("# %%\nprint(2)\n", encoding="utf-8")
    assert built_page(lesson, settings, "abc") is None
    assert built_page(lesson, {**settings, "allow_errors": True}, "abc") is None


@dataclass
class Download:
    """A lesson's download as it ran on a bare kernel: the notebook with its outputs, and
    the index of the setup cell's first run."""

    nb: nbformat.NotebookNode
    setup_at: int

    def printed(self) -> str:
        """Everything its cells printed, in order."""
        return "".join(
            output["text"]
            for cell in self.nb.cells
            for output in cell.get("outputs", [])
            if output["output_type"] == "stream"
        )


def run_download(lesson: Path, km: AsyncKernelManager, workdir: Path) -> Download:
    """Run the self-contained build of `lesson` on the bare kernel `km`, from the empty
    folder `workdir`: a probe cell that proves ``context_budget`` cannot be imported, the
    download, its setup cell again (re-running is harmless) and a check that the package
    came from the unpacked payload, on ``sys.path`` once."""
    nb = selfcontained.build_notebook(lesson, PACKAGE)
    setup_at = selfcontained.setup_index(nb) + 1  # after the probe cell put in front
    setup = nb.cells[setup_at - 1].source
    nb.cells.insert(0, nbformat.v4.new_code_cell(PROBE))
    nb.cells += [nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell(AFTER)]
    name = f"self-contained {_rel(lesson)}"
    run_notebook(nb, name=name, cwd=workdir, km=km, source_text=lesson.read_text())
    return Download(nb, setup_at)


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Download]:
    """Each lesson's download run once (`run_download`), on its own bare kernel in a
    folder of its own, for every check of this module that reads it: a download costs
    a kernel's start and the whole lesson."""
    ran: dict[Path, Download] = {}

    def download(lesson: Path) -> Download:
        if lesson not in ran:
            folder = tmp_path_factory.mktemp("download")
            (workdir := folder / "work").mkdir()
            ran[lesson] = run_download(lesson, bare_kernel_manager(folder), workdir)
        return ran[lesson]

    return download


@pytest.mark.parametrize("lesson", [*LESSONS, FIXTURES / "lesson.py"], ids=_rel)
def test_download_runs_on_a_bare_kernel(
    lesson: Path, downloads: Callable[[Path], Download]
) -> None:
    """The self-contained build runs where the package is not installed, from an empty folder
    (`run_download`: the package cannot be imported before, and comes from the payload after)."""
    ran = downloads(lesson)
    assert re.match(
        r"context_budget \S+ unpacked in ", ran.nb.cells[ran.setup_at].outputs[0]["text"]
    )


def test_unit_b_s_worked_download_does_every_step_on_a_bare_kernel(
    downloads: Callable[[Path], Download],
) -> None:
    """Unit B's worked edition, downloaded, does every step outside the repository (the
    samples ship inside the package it carries): the same run as its check above."""
    text = downloads(ROOT / "docs" / "notebooks" / "unit-b-worked.py").printed()
    grade = text.split("VISIBLE_CONTRACT")[0].rsplit("\n\n", 1)[-1]
    assert [line.split()[0] for line in grade.strip().splitlines()[-8:]] == ["PASS"] * 8, grade
    for line in (
        "ESTIMATE_SHOWN_AND_REPAIRED",
        "VISIBLE_CONTRACT PASSED",
        "TRANSFER_STATUS PASS\n",
        "BEFORE_AFTER_TABLE 3 breaks",
    ):
        assert line in text, line
    assert "not here" not in text and "SKIPPED" not in text


def test_a_raising_cell_fails_the_gate_and_is_named() -> None:
    fixture = FIXTURES / "raises.py"
    with pytest.raises(NotebookFailure) as caught:
        run_notebook(
            _read_lesson(fixture), name="raises.py", cwd=ROOT, source_text=fixture.read_text()
        )
    message = str(caught.value)
    assert message.startswith("raises.py: cell 2 (line 8: 'raise RuntimeError(")
    assert "raised RuntimeError: this cell must fail the notebook gate (42)" in message


def _payload(nb: nbformat.NotebookNode) -> zipfile.ZipFile:
    setup = nb.cells[selfcontained.setup_index(nb)].source
    match = re.search(r'payload="([A-Za-z0-9+/=]+)"\)$', setup)
    assert match, "the setup cell ends with the payload"
    return zipfile.ZipFile(io.BytesIO(base64.b64decode(match.group(1))))


def test_the_payload_carries_every_file_of_the_package() -> None:
    nb = selfcontained.build_notebook(FIXTURES / "lesson.py", PACKAGE)
    payload = _payload(nb)
    modules = sorted(PACKAGE.rglob("*.py"))
    assert modules and (PACKAGE / "py.typed").is_file()
    names = set(payload.namelist())
    for path in [*modules, PACKAGE / "py.typed"]:
        if "__pycache__" in path.parts:
            continue
        arcname = f"context_budget/{path.relative_to(PACKAGE).as_posix()}"
        assert arcname in names, f"{arcname} is missing from the payload"
        assert payload.read(arcname) == path.read_bytes(), f"{arcname} differs"
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_the_build_is_deterministic(tmp_path: Path) -> None:
    """Two builds are byte-identical, even from a copy of the package with other mtimes."""
    first = selfcontained.notebook_text(
        selfcontained.build_notebook(FIXTURES / "lesson.py", PACKAGE)
    )
    copy = tmp_path / "context_budget"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for path in copy.rglob("*"):
        os.utime(path, (1_000_000_000, 1_000_000_000))
    second = selfcontained.notebook_text(selfcontained.build_notebook(FIXTURES / "lesson.py", copy))
    assert first == second
    nb = nbformat.reads(first, as_version=4)
    nbformat.validate(nb)
    assert [c.id for c in nb.cells] == [f"cell-{i}" for i in range(len(nb.cells))]
    assert all(c.outputs == [] for c in nb.cells if c.cell_type == "code")
    assert "jupytext" not in nb.metadata
    assert nb.metadata.kernelspec.name == "python3"


@pytest.fixture(scope="module")
def site_config() -> MkDocsConfig:
    """The real mkdocs.yml, loaded (hooks and plugins included), nothing built."""
    return load_config(str(ROOT / "mkdocs.yml"))


def test_the_hook_adds_a_download_not_a_page(site_config: MkDocsConfig) -> None:
    """``notebooks/lesson.ipynb`` is generated, copied as a static file, never a page."""
    lesson = File("notebooks/lesson.py", str(FIXTURES.parent), site_config.site_dir, True)
    files = site_config.plugins.on_files(Files([lesson]), config=site_config)
    generated = files.get_file_from_path("notebooks/lesson.ipynb")
    assert generated is not None and generated.generated_by
    assert generated.url == "notebooks/lesson.ipynb"
    assert not generated.is_documentation_page()
    jupyter = site_config.plugins["mkdocs-jupyter"]
    assert not jupyter.should_include(generated)
    assert files.get_file_from_path("notebooks/lesson.py").is_documentation_page()
    expected = selfcontained.build_notebook(FIXTURES / "lesson.py", PACKAGE)
    assert generated.content_string == selfcontained.notebook_text(expected)


def test_a_package_change_drops_the_cached_pages(site_config: MkDocsConfig, tmp_path: Path) -> None:
    """mkdocs-jupyter keys its cache on the notebook only; the hook adds the package."""
    hook = next(m for m in site_config.hooks.values() if m.__name__.endswith("download.py"))
    jupyter = site_config.plugins["mkdocs-jupyter"]
    saved = jupyter.config["cache_dir"]
    jupyter.config["cache_dir"] = str(tmp_path / "cache")
    try:
        (tmp_path / "cache").mkdir()
        (tmp_path / "cache" / "old.json").write_text("{}")
        hook.on_pre_build(site_config)  # no stamp yet: the package may have changed
        assert not (tmp_path / "cache" / "old.json").exists()
        (tmp_path / "cache" / "new.json").write_text("{}")
        hook.on_pre_build(site_config)  # same package: the cache stays
        assert (tmp_path / "cache" / "new.json").exists()
        (tmp_path / "cache" / STAMP_NAME).write_text("another package\n")
        hook.on_pre_build(site_config)
        assert not (tmp_path / "cache" / "new.json").exists()
    finally:
        jupyter.config["cache_dir"] = saved


def test_the_lab_goes_on_without_matplotlib() -> None:
    """With matplotlib unimportable, the lab prints one line naming it and runs to the end."""
    lab = ROOT / "docs" / "notebooks" / "the-bill.py"
    nb = _read_lesson(lab)
    blocker = "import sys\nsys.modules['matplotlib'] = None  # import matplotlib now fails\n"
    nb.cells.insert(0, nbformat.v4.new_code_cell(blocker))
    run_notebook(nb, name="the-bill.py without matplotlib", cwd=ROOT, source_text=lab.read_text())
    printed = [
        line
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if output["output_type"] == "stream"
        for line in output["text"].splitlines()
    ]
    missing = [line for line in printed if "matplotlib" in line]
    assert missing == ["No plot here: install matplotlib (pip install matplotlib) to draw it."]
    assert not any(
        o["output_type"] == "display_data" for c in nb.cells for o in c.get("outputs", [])
    )
    assert any(line.startswith(" 60 steps: $") for line in printed), printed


def test_the_labs_plot_is_vector_text_on_a_transparent_background(jupyter_settings: Any) -> None:
    """The lab's plot is SVG (sharp at a phone's width, its text real text that the page
    sizes), labelled for a screen reader, on no background of its own."""
    ran = _built_or_run(ROOT / "docs" / "notebooks" / "the-bill.py", jupyter_settings)
    if isinstance(ran, str):
        plots = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', ran)
        plots = [base64.b64decode(data).decode("utf-8") for data in plots]
    else:
        plots = [
            o["data"]["image/svg+xml"]
            for c in ran.cells
            for o in c.get("outputs", [])
            if o["output_type"] == "display_data" and "image/svg+xml" in o.get("data", {})
        ]
    assert len(plots) == 1
    svg = plots[0]
    assert '<svg role="img" aria-label="Two line charts.' in svg
    assert "<text" in svg and '<use xlink:href="#DejaVu' not in svg, "text drawn as outlines"
    background = re.search(r'<g id="patch_1">\s*<path d="[^"]*"\s*style="([^"]*)"', svg)
    assert background and "fill: none" in background.group(1), "the plot paints a background"

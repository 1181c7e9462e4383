"""Build the self-contained ``.ipynb`` download of a notebook lesson.

A lesson is a jupytext percent-format ``.py`` file. Its download is the same notebook,
unexecuted (no outputs), with one setup cell added right after the title cell: the first
code cell, which carries the core package (every file under ``src/context_budget/`` but
caches) as a base64 zip, unpacks it into a folder of the temp dir and puts that folder on
``sys.path``. The notebook then runs on a bare Python 3.11+ kernel, such as a hosted
notebook service, with nothing to install.

The setup cell opens with one line that says what it is (``SETUP_TITLE``), and its
metadata folds it away: ``jupyter.source_hidden`` hides its code in JupyterLab and
Notebook 7, ``outputs_hidden`` and ``collapsed`` fold its one line of output (in
JupyterLab and in the classic Notebook), and Colab's
``cellView: form`` shows only that first line (written as a ``#@title``).

The output is deterministic: files are zipped in sorted order with a fixed timestamp and
fixed attributes, and cells get positional ids, so the same lesson and package give
byte-identical ``notebook_text`` output.

Example: ``notebook_text(build_notebook(Path("docs/notebooks/the-bill.py"),
Path("src/context_budget")))`` -> the JSON text of ``the-bill.ipynb``.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import cast

import jupytext
import nbformat

__all__ = [
    "build_notebook",
    "entries_zip",
    "notebook_text",
    "package_digest",
    "package_files",
    "package_zip",
    "setup_cell",
    "setup_index",
    "setup_source",
]

# Zip entries carry this fixed timestamp (the earliest a zip can hold), not the files' mtimes.
ZIP_DATE_TIME = (1980, 1, 1, 0, 0, 0)
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}

#: The setup cell's first line: Colab shows it as the folded cell's title.
SETUP_TITLE = (
    "#@title Setup: run this cell first; it unpacks the {name} package, installing nothing"
)
#: Metadata that folds the setup cell in Jupyter (code and output) and in Colab.
SETUP_METADATA = {
    "jupyter": {"source_hidden": True, "outputs_hidden": True},
    "collapsed": True,
    "cellView": "form",
    "tags": ["setup"],
}
SETUP_TEMPLATE = (
    SETUP_TITLE
    + """
# This cell carries its own copy of the `{name}` package ({size_kb} kB zip, base64, on
# its last line). It unpacks the package into a folder of the temp dir and puts that
# folder on sys.path, so `import {name}` works on a bare Python 3.11+ kernel with
# nothing to install. Run it again after a kernel restart; running it twice is harmless,
# and so are two notebooks starting at once: each unpacks into a folder of its own and
# renames it into place whole, so no kernel ever imports a half-written file.
def _unpack_{name}(digest: str, payload: str) -> None:
    import base64, importlib, io, sys, tempfile, zipfile
    from pathlib import Path

    if sys.version_info < (3, 11):
        raise RuntimeError("this notebook needs Python 3.11 or newer")
    temp = Path(tempfile.gettempdir())
    folder = temp / f"{name}-{{digest}}"
    if not (folder / ".complete").is_file():
        staging = Path(tempfile.mkdtemp(prefix=f"{name}-{{digest}}.", dir=temp))
        zipfile.ZipFile(io.BytesIO(base64.b64decode(payload))).extractall(staging)
        (staging / ".complete").touch()
        try:
            staging.rename(folder)  # whole, or not at all
        except OSError:  # another kernel got there first, or an older unpack is in the way
            if not (folder / ".complete").is_file():
                folder = staging
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    package = importlib.import_module("{name}")
    print(f"{name} {{package.__version__}} unpacked in {{folder}}")


_unpack_{name}(digest="{digest}", payload="{payload}")
"""
)


def package_files(package_dir: Path) -> list[Path]:
    """Every file of the package, sorted by its path relative to ``package_dir``.

    Includes subpackages, ``py.typed`` and any data file; leaves out ``__pycache__``
    folders, compiled ``.pyc``/``.pyo`` files and hidden (dot) files.

    Returns:
        Absolute paths, e.g. ``[.../__init__.py, .../budget.py, .../py.typed]``.
    """
    files = []
    for path in package_dir.rglob("*"):
        rel = path.relative_to(package_dir)
        if not path.is_file() or path.suffix in {".pyc", ".pyo"}:
            continue
        if any(part == "__pycache__" or part.startswith(".") for part in rel.parts):
            continue
        files.append(path)
    return sorted(files, key=lambda p: p.relative_to(package_dir).as_posix())


def package_zip(package_dir: Path) -> bytes:
    """The package as deterministic zip bytes, entries named ``<package>/<relative path>``.

    Example: for ``src/context_budget`` the entries are ``context_budget/__init__.py``, ...
    """
    return entries_zip(
        (f"{package_dir.name}/{path.relative_to(package_dir).as_posix()}", path.read_bytes())
        for path in package_files(package_dir)
    )


def entries_zip(entries: Iterable[tuple[str, bytes]]) -> bytes:
    """Deterministic zip bytes of ``(name, content)`` entries, in the order given: a fixed
    timestamp and fixed attributes, so the same entries give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for arcname, content in entries:
            info = zipfile.ZipInfo(arcname, date_time=ZIP_DATE_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, whatever the build machine is
            info.external_attr = 0o644 << 16  # rw-r--r--
            archive.writestr(info, content, compresslevel=9)
    return buffer.getvalue()


def package_digest(package_dir: Path) -> str:
    """The first 16 hex digits of the SHA-256 of ``package_zip(package_dir)``."""
    return hashlib.sha256(package_zip(package_dir)).hexdigest()[:16]


def setup_source(package_dir: Path) -> str:
    """The source of the first cell: short code, then the payload on its last line."""
    payload = package_zip(package_dir)
    return SETUP_TEMPLATE.format(
        name=package_dir.name,
        size_kb=max(1, round(len(payload) / 1024)),
        digest=hashlib.sha256(payload).hexdigest()[:16],
        payload=base64.b64encode(payload).decode("ascii"),
    ).rstrip("\n")


def setup_cell(package_dir: Path) -> nbformat.NotebookNode:
    """The setup code cell: ``setup_source(package_dir)``, folded by ``SETUP_METADATA``."""
    cell = cast(nbformat.NotebookNode, nbformat.v4.new_code_cell(setup_source(package_dir)))  # type: ignore[no-untyped-call]
    cell.metadata.update(json_copy(SETUP_METADATA))
    return cell


def json_copy(value: dict[str, object]) -> dict[str, object]:
    """A deep copy of a JSON-shaped dict, so no two cells share metadata objects."""
    return cast(dict[str, object], json.loads(json.dumps(value)))


def _title_cells(nb: nbformat.NotebookNode) -> int:
    """How many cells come before the setup cell: 1 if the first is a Markdown title."""
    if not nb.cells:
        return 0
    first = nb.cells[0]
    starts_with_title = str(first.source).lstrip().startswith("# ")
    return 1 if first.cell_type == "markdown" and starts_with_title else 0


def build_notebook(source_py: Path, package_dir: Path) -> nbformat.NotebookNode:
    """The self-contained, unexecuted notebook (nbformat 4.5) of one percent-format lesson.

    Args:
        source_py: the lesson, a jupytext percent-format ``.py`` file.
        package_dir: the package folder to embed, e.g. ``src/context_budget``.

    Returns:
        A notebook whose title cell (a Markdown cell opening with ``# ``, when the
        lesson starts with one) comes first, then the setup cell, then the rest of
        the lesson's cells, with ids ``cell-0``, ``cell-1``, ... and no outputs.
    """
    nb = cast(
        nbformat.NotebookNode,
        jupytext.reads(source_py.read_text(encoding="utf-8"), fmt="py:percent"),
    )
    nb.metadata.pop("jupytext", None)  # a plain notebook, not paired with a script
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells.insert(_title_cells(nb), setup_cell(package_dir))
    for index, cell in enumerate(nb.cells):
        cell.id = f"cell-{index}"
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.nbformat, nb.nbformat_minor = 4, 5
    nbformat.validate(nb)
    return nb


def setup_index(nb: nbformat.NotebookNode) -> int:
    """The position of the setup cell in a notebook ``build_notebook`` made (0 or 1)."""
    for index, cell in enumerate(nb.cells):
        if "setup" in cell.metadata.get("tags", []):
            return index
    raise ValueError("the notebook has no cell tagged 'setup'")


def notebook_text(nb: nbformat.NotebookNode) -> str:
    """The ``.ipynb`` JSON text of ``nb`` (sorted keys, one-space indent, final newline)."""
    return str(nbformat.writes(nb, version=4)) + "\n"  # type: ignore[no-untyped-call]

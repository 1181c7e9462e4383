"""Run a notebook cell by cell in a fresh kernel: the helper the notebook tests share.

`run_notebook` executes a notebook with nbclient and turns a failing cell into a
`NotebookFailure` that names the notebook, the cell and its line in the `.py`.
`built_page` finds the site build's execution of a lesson, so the tests need not
run a lesson the build already ran.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

# The file in mkdocs-jupyter's cache folder that names the package its pages ran against.
from docsite.notebook_download import STAMP_NAME

__all__ = ["CELL_TIMEOUT", "STAMP_NAME", "NotebookFailure", "built_page", "run_notebook"]

CELL_TIMEOUT = 120  # seconds per cell: a hanging cell fails instead of hanging the gate


class NotebookFailure(Exception):
    """A notebook cell raised or timed out; the message names the notebook and the cell."""


def _cell_label(cell: nbformat.NotebookNode, index: int, source_text: str | None) -> str:
    """``cell 2 (line 7: 'raise ...')``: the index, and the line in the ``.py`` when found."""
    first = next((line for line in cell.source.splitlines() if line.strip()), "")
    lines = (source_text or "").splitlines()
    where = next((f"line {n}: " for n, line in enumerate(lines, 1) if line == first), "")
    return f"cell {index} ({where}{first[:80]!r})"


def run_notebook(
    nb: nbformat.NotebookNode,
    *,
    name: str,
    cwd: Path,
    km: AsyncKernelManager | None = None,
    source_text: str | None = None,
    timeout: int = CELL_TIMEOUT,
) -> nbformat.NotebookNode:
    """Execute ``nb`` in place, cell by cell, in a fresh kernel started in ``cwd``.

    Args:
        nb: the notebook; its outputs are filled in.
        name: how the failure message names the notebook, e.g. ``docs/notebooks/x.py``.
        cwd: the kernel's working directory.
        km: a kernel manager for a custom kernel; default: the ``python3`` kernelspec.
        source_text: the ``.py`` the notebook came from, to give the failing cell's line.
        timeout: seconds allowed to each cell.

    Raises:
        NotebookFailure: ``"<name>: cell <i> (line <n>: '<first line>') raised <Error>: ..."``.
    """
    client = NotebookClient(
        nb,
        km=km,
        kernel_name="python3",
        timeout=timeout,
        allow_errors=False,
        shutdown_kernel="immediate",
        resources={"metadata": {"path": str(cwd)}},
    )
    with client.setup_kernel(cleanup_kc=True):
        for index, cell in enumerate(nb.cells):
            label = _cell_label(cell, index, source_text)
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as error:
                message = f"{name}: {label} raised {error.ename}: {error.evalue}"
                raise NotebookFailure(message) from None
            except CellTimeoutError:
                raise NotebookFailure(f"{name}: {label} ran over {timeout} s") from None
    return nb


def built_page(lesson: Path, plugin: Mapping[str, Any], package_digest: str) -> str | None:
    """The HTML the site build rendered for ``lesson``, when it ran this very lesson.

    mkdocs-jupyter (``execute: true``, ``allow_errors: false``) stores a page in its
    cache only after every cell ran without an error, under a key made of the
    lesson's bytes and the plugin's settings; ``docsite/notebook_download.py`` empties
    that cache whenever the package changes and stamps it with the package's digest.
    So a cached page under this lesson's key, in a cache stamped with the digest of
    the package as it is now, is an execution of exactly this lesson against exactly
    this package: the notebook tests read it instead of running the lesson again.

    Args:
        lesson: the lesson's ``.py``.
        plugin: mkdocs-jupyter's loaded settings (``config.plugins["mkdocs-jupyter"].config``).
        package_digest: the digest of the package as it is now (``selfcontained.package_digest``).

    Returns:
        The page's HTML, or None when the build has not run this lesson as it is now
        (no build yet, the lesson or the package changed since): then run it.
    """
    if not (plugin["cache"] and plugin["execute"] and not plugin["allow_errors"]):
        return None
    cache_dir = Path(plugin["cache_dir"])
    if not cache_dir.is_absolute():  # the plugin reads it relative to the build's cwd
        cache_dir = Path(__file__).resolve().parents[1] / cache_dir
    stamp = cache_dir / STAMP_NAME
    if not stamp.is_file() or stamp.read_text(encoding="utf-8").strip() != package_digest:
        return None
    # subtle: the plugin's own key function, so this is the key the build wrote under;
    # imported here, as mkdocs-jupyter takes a second to import and collection needs none.
    from mkdocs_jupyter.plugin import _compute_cache_key

    page = cache_dir / f"{_compute_cache_key(lesson, plugin, True)}.json"
    if not page.is_file():
        return None
    content = json.loads(page.read_text(encoding="utf-8")).get("content")
    return content if isinstance(content, str) else None

"""Run a notebook cell by cell in a fresh kernel: the helper the notebook tests share.

`run_notebook` executes a notebook with nbclient and turns a failing cell into a
`NotebookFailure` that names the notebook, the cell and its line in the `.py`.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

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

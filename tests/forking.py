"""What the tests of forked children and of the shipped sessions share.

`children_allowed` lets a test's code fork although the test runner's worker
runs idle threads of its own (`_aside.can_fork` refuses a process of several
threads; `test_aside` checks that rule itself), without Python's warning
against forking such a process. `work_here` makes a module's `aside` run the
child's work in this process instead, where coverage measures it.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

import context_budget._aside as _aside

__all__ = ["LINUX", "SHIPPED", "children_allowed", "split_every_read", "work_here"]

ROOT = Path(__file__).resolve().parent.parent
#: Where a forked child can be made: Linux, with `os.fork`.
LINUX = sys.platform.startswith("linux") and hasattr(os, "fork")
#: Every session file the course ships: its measured sessions and its test fixtures.
SHIPPED = sorted(
    path
    for folder in (
        ROOT / "docs" / "measured" / "sessions",
        ROOT / "tests" / "fixtures" / "transcripts",
    )
    for path in folder.rglob("*")
    if path.suffix in (".jsonl", ".json")
)


@contextmanager
def children_allowed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Within it, the package forks where it would in a process of one thread."""
    monkeypatch.delenv("CONTEXT_BUDGET_NO_FORK", raising=False)
    monkeypatch.setattr(_aside, "_one_thread", lambda: True)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
        yield


def work_here(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
    """`module`'s `aside` (and `aside_frames`) runs the child's work in this process, when
    its answer is asked."""
    if hasattr(module, "aside"):
        monkeypatch.setattr(module, "aside", lambda work, **_: _aside.Aside(work))
    if hasattr(module, "aside_frames"):
        monkeypatch.setattr(module, "aside_frames", lambda work, **_: _aside.Frames(work))


@contextmanager
def split_every_read(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, how: str
) -> Iterator[None]:
    """Within it, `module` splits every read of two files or more between this process
    and a child: a forked one, or (`how` is "here") its work run in this process; and
    the glances at a folder's files, however few."""
    if how == "here":
        work_here(monkeypatch, module)
    monkeypatch.setattr(module, "SPLIT_BYTES", 0)
    if hasattr(module, "GLANCE_SPLIT"):
        monkeypatch.setattr(module, "GLANCE_SPLIT", 0)
    with children_allowed(monkeypatch):
        yield

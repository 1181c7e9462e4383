"""NOTES.md: the agent's notes, kept in a file outside the context window.

The agent rewrites the whole file with the `update_notes` tool whenever it
decides something or finds a problem; the harness reads it back into the new
window after each compaction. Compaction may lose a detail; the notes keep
what the agent chose to write down.

A write replaces the file atomically: the new text goes to a temporary file
beside it, which then takes the old file's name in one step. A reader sees the
old notes or the new ones, never a mix, and a writer killed half-way leaves the
old notes in place. The notes get the mode a plain write gives, as every file
the package writes: an existing file keeps its own, a new one gets 0o666 less
the umask.

A killed writer does leave its temporary file (`.NOTES.md.<random>.tmp`)
behind, so opening a `NotesFile` removes the stale ones. A writer holds an
exclusive `flock` on its temporary file from the moment it creates it, and the
kernel drops that lock when the process dies, however it dies: a temporary
file nobody holds locked, last written more than `STALE_SECONDS` ago, is
stale. A live writer's file is never touched, and the age covers the instants
when even a live writer holds no lock (just after creating the file, just
before renaming it). Where `flock` does not exist, the age alone decides.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> notes = NotesFile(folder / "NOTES.md")
    >>> notes.read()
    '(NOTES.md is still empty)'
    >>> notes.update_notes({"content": "## Decisions\\n- optimistic locking"})
    'NOTES.md updated'
    >>> print(notes.read())
    ## Decisions
    - optimistic locking
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from context_budget._checks import bad_scalar
from context_budget._files import is_temporary, write_atomic
from context_budget._values import short_repr

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["EMPTY_NOTES", "NOTES_TOOL", "STALE_SECONDS", "NotesFile"]

#: How long, in seconds, an unlocked temporary file must have gone unwritten to be stale.
STALE_SECONDS = 10.0

#: What `NotesFile.read` gives before the first write.
EMPTY_NOTES = "(NOTES.md is still empty)"

#: The `update_notes` tool definition, in the Messages API's `tools` shape.
NOTES_TOOL: dict[str, Any] = {
    "name": "update_notes",
    "description": (
        "Replace NOTES.md with the full text you want kept: decisions made, "
        "problems still open, the next steps. The old text is overwritten."
    ),
    "input_schema": {
        "type": "object",
        "required": ["content"],
        "properties": {"content": {"type": "string"}},
    },
}


def _remove_if_stale(path: Path, now: float) -> bool:
    """Remove `path` if it is a regular file, old enough, and locked by no writer."""
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < STALE_SECONDS:
            return False
        if fcntl is None:
            path.unlink()
            return True
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a live writer holds it
        else:
            path.unlink()  # subtle: while holding the lock, so no writer can be using it
            return True
        finally:
            os.close(fd)
    except OSError:  # gone already, or not ours to remove: leave it
        return False


class NotesFile:
    """One notes file, confined to a root folder.

    Args:
        path: the notes file. A relative path is taken relative to `root`
            when one is given, else to the working directory.
        root: the folder the file must stay inside; defaults to the folder
            that holds `path`.

    Opening removes the stale temporary files that killed writers left
    beside the notes (see the module's docstring); a live writer's file stays.

    Attributes:
        removed_temporaries: how many stale temporary files opening removed.

    Raises:
        TypeError: `path` (or `root`) is not a str or a path.
        ValueError: the path resolves outside `root`, through `..`, an
            absolute path or a symbolic link (the message names both), or it
            is a folder.
    """

    def __init__(self, path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None):
        for name, value in (("path", path), ("root", root)):
            if not isinstance(value, str | os.PathLike) and (name == "path" or value is not None):
                raise TypeError(f"notes {name} must be a str or a path, got {short_repr(value)}")
        given = Path(path)
        if root is None:
            self.root = given.absolute().parent.resolve()
            self.path = given.absolute()
        else:
            self.root = Path(root).resolve()
            self.path = given if given.is_absolute() else self.root / given
        if self._check().is_dir():
            raise ValueError(
                f"notes path {str(self.path)!r} is a folder; give the notes file in it, "
                f"such as {str(self.path / 'NOTES.md')!r}"
            )
        self.removed_temporaries = self._clean()

    def _clean(self) -> int:
        """Remove the stale temporary files of killed writers; how many went."""
        target = self._check()
        try:
            names = os.listdir(target.parent)
        except OSError:  # no folder yet: nothing to clean
            return 0
        now = time.time()
        return sum(
            _remove_if_stale(target.parent / name, now)
            for name in names
            if is_temporary(name, target.name)
        )

    def __repr__(self) -> str:
        return f"NotesFile({str(self.path)!r}, root={str(self.root)!r})"

    def _check(self) -> Path:
        """The resolved path, after checking it is still inside the root."""
        resolved = self.path.resolve()
        if not resolved.is_relative_to(self.root) or resolved == self.root:
            raise ValueError(
                f"notes path {str(self.path)!r} resolves to {str(resolved)!r}, "
                f"outside the notes root {str(self.root)!r}"
            )
        return resolved

    def read(self) -> str:
        """The notes exactly as written, or `EMPTY_NOTES` when the file does not exist yet."""
        try:
            with self._check().open(encoding="utf-8", newline="") as handle:
                return handle.read()
        except FileNotFoundError:
            return EMPTY_NOTES

    def write(self, content: str) -> None:
        """Replace the whole file with `content`, atomically.

        Raises:
            TypeError: `content` is not a string.
            ValueError: it holds a lone surrogate (UTF-8 cannot encode it; the
                old notes stay), or the path now resolves outside the root (a
                link was planted after the file was opened).
        """
        if not isinstance(content, str):
            raise TypeError(f"notes content must be a str, got {type(content).__name__}")
        problem = bad_scalar(content)
        if problem is not None:
            raise ValueError(
                f"notes content {problem.removeprefix('a string ')}, which UTF-8 cannot encode"
            )
        target = self._check()
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, content)

    def update_notes(self, tool_input: Mapping[str, Any]) -> str:
        """The `update_notes` tool: write `tool_input["content"]`, then confirm.

        Raises:
            ValueError: `tool_input` has no string `"content"`.
        """
        content = tool_input.get("content") if isinstance(tool_input, Mapping) else None
        if not isinstance(content, str):
            raise ValueError(f"update_notes needs a string 'content', got {short_repr(tool_input)}")
        self.write(content)
        return "NOTES.md updated"

"""NOTES.md: the agent's notes, kept in a file outside the context window.

The agent rewrites the whole file with the `update_notes` tool whenever it
decides something or finds a problem; the harness reads it back into the new
window after each compaction. Compaction may lose a detail; the notes keep
what the agent chose to write down.

A write replaces the file atomically: the new text goes to a temporary file
beside it, which then takes the old file's name in one step. A reader sees the
old notes or the new ones, never a mix, and a writer killed half-way leaves the
old notes in place.

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
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["EMPTY_NOTES", "NOTES_TOOL", "NotesFile"]

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

_CHUNK_CHARS = 1 << 16  # characters written per call to the temporary file


class NotesFile:
    """One notes file, confined to a root folder.

    Args:
        path: the notes file. A relative path is taken relative to `root`
            when one is given, else to the working directory.
        root: the folder the file must stay inside; defaults to the folder
            that holds `path`.

    Raises:
        ValueError: the path resolves outside `root`, through `..`, an
            absolute path or a symbolic link; the message names both.
    """

    def __init__(self, path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None):
        given = Path(path)
        if root is None:
            self.root = given.absolute().parent.resolve()
            self.path = given.absolute()
        else:
            self.root = Path(root).resolve()
            self.path = given if given.is_absolute() else self.root / given
        self._check()

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
            ValueError: the path now resolves outside the root (a link was
                planted after the file was opened).
        """
        if not isinstance(content, str):
            raise TypeError(f"notes content must be a str, got {type(content).__name__}")
        target = self._check()
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                for start in range(0, len(content), _CHUNK_CHARS):
                    handle.write(content[start : start + _CHUNK_CHARS])
                handle.flush()
                os.fsync(handle.fileno())
            # subtle: the rename is the only step that changes what readers see.
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def update_notes(self, tool_input: Mapping[str, Any]) -> str:
        """The `update_notes` tool: write `tool_input["content"]`, then confirm.

        Raises:
            ValueError: `tool_input` has no string `"content"`.
        """
        content = tool_input.get("content") if isinstance(tool_input, Mapping) else None
        if not isinstance(content, str):
            raise ValueError(f"update_notes needs a string 'content', got {tool_input!r}")
        self.write(content)
        return "NOTES.md updated"

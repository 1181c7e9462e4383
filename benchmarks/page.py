"""The results file and the page region that shows it.

``docs/measured/speed.md`` holds the last run's table between two marker
lines; ``replace_region`` rewrites what lies between them and
``page_region`` reads it back, so a test can check that the page shows
exactly what ``benchmarks/results.md`` holds. Both files are written
atomically (a temporary file, then ``os.replace``).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

__all__ = ["END", "PAGE", "RESULTS", "START", "page_region", "replace_region", "write_atomic"]

ROOT = Path(__file__).resolve().parent.parent
#: The results of the last full run, committed.
RESULTS = ROOT / "benchmarks" / "results.md"
#: The page that shows them.
PAGE = ROOT / "docs" / "measured" / "speed.md"

START = "<!-- bench:start -->"
END = "<!-- bench:end -->"
# subtle: a marker counts only alone on its line, so quoting one in a code block is harmless
_REGION = re.compile(
    rf"^{re.escape(START)}[ \t]*\n(?P<body>.*?)^{re.escape(END)}[ \t]*$", re.MULTILINE | re.DOTALL
)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so a reader sees the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # subtle: mkstemp makes the file private (0600); keep the old file's mode instead
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _match(page_text: str) -> re.Match[str]:
    found = list(_REGION.finditer(page_text))
    if len(found) != 1:
        raise ValueError(f"expected one region between {START} and {END} lines, found {len(found)}")
    return found[0]


def page_region(page_text: str) -> str:
    """The text between the page's marker lines (the table of the last run)."""
    return _match(page_text)["body"]


def replace_region(page_text: str, body: str) -> str:
    """``page_text`` with the text between its marker lines replaced by ``body``."""
    match = _match(page_text)
    body = body if body.endswith("\n") else body + "\n"
    return page_text[: match.start("body")] + body + page_text[match.end("body") :]

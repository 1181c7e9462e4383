"""The results files and the page regions that show them.

``docs/measured/speed.md`` holds each benchmark's last table between two marker
lines of its own (``<!-- NAME:start -->`` and ``<!-- NAME:end -->``). A
``Region`` names one such pair and its results file: ``read`` takes the table
back from the page, so a test can check that the page shows exactly what the
results file holds, ``replace`` rewrites it, and ``publish`` writes both files.
Files are written atomically (a temporary file, then ``os.replace``).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "END",
    "PAGE",
    "RESULTS",
    "START",
    "Region",
    "page_region",
    "replace_region",
    "write_atomic",
]

ROOT = Path(__file__).resolve().parent.parent
#: The results of the last full run, committed.
RESULTS = ROOT / "benchmarks" / "results.md"
#: The page that shows them.
PAGE = ROOT / "docs" / "measured" / "speed.md"


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


@dataclass(frozen=True)
class Region:
    """One benchmark's table: where the page shows it, and the results file it copies."""

    #: The markers' name: ``bill-bench`` stands for ``<!-- bill-bench:start -->`` and
    #: ``<!-- bill-bench:end -->``.
    name: str
    results: Path
    page: Path = PAGE

    @property
    def start(self) -> str:
        return f"<!-- {self.name}:start -->"

    @property
    def end(self) -> str:
        return f"<!-- {self.name}:end -->"

    def _match(self, page_text: str) -> re.Match[str]:
        # subtle: a marker counts only alone on its line, so quoting one in a code block
        # is harmless
        pattern = re.compile(
            rf"^{re.escape(self.start)}[ \t]*\n(?P<body>.*?)^{re.escape(self.end)}[ \t]*$",
            re.MULTILINE | re.DOTALL,
        )
        found = list(pattern.finditer(page_text))
        if len(found) != 1:
            raise ValueError(
                f"expected one region between {self.start} and {self.end} lines, found {len(found)}"
            )
        return found[0]

    def read(self, page_text: str) -> str:
        """The text between the page's marker lines (the table of the last run)."""
        return self._match(page_text)["body"]

    def replace(self, page_text: str, body: str) -> str:
        """``page_text`` with the text between its marker lines replaced by ``body``."""
        match = self._match(page_text)
        body = body if body.endswith("\n") else body + "\n"
        return page_text[: match.start("body")] + body + page_text[match.end("body") :]

    def publish(self, text: str, *, page: bool) -> None:
        """Write ``text`` to the results file and, with ``page``, into the page's region."""
        write_atomic(self.results, text)
        if page:
            write_atomic(self.page, self.replace(self.page.read_text(encoding="utf-8"), text))


#: The table of `python -m benchmarks` (`make bench`).
SPEED = Region("bench", RESULTS)
START, END = SPEED.start, SPEED.end


def page_region(page_text: str) -> str:
    """The text between the page's bench marker lines (the table of the last run)."""
    return SPEED.read(page_text)


def replace_region(page_text: str, body: str) -> str:
    """``page_text`` with the text between its bench marker lines replaced by ``body``."""
    return SPEED.replace(page_text, body)
